package manifest

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/internal/calendar"
)

// Parameter types, as used in ParamType.Type (docs/design.md §3). A type takes one or more
// consecutive parameters of a pattern, each a numeric segment.
const (
	// ParamNumber takes one parameter: one of ParamType.Numbers.
	ParamNumber = "number"
	// ParamPair takes two parameters, each one of ParamType.Numbers, in either order: the
	// pair is unordered, and its file holds the smaller number first.
	ParamPair = "pair"
	// ParamDate takes three parameters, day, month and year, that form a real Gregorian date
	// from ParamType.FirstYear to LastYear.
	ParamDate = "date"
	// ParamBirthdayYear takes three parameters, day, month and year: a birthday (day and
	// month of any day of a leap year's calendar, so 29 February in every year) and a
	// target year from ParamType.FirstYear to LastYear (docs/design.md §3, §16).
	ParamBirthdayYear = "birthday_year"
)

// ParamType is the type of one or more consecutive parameters of a route's pattern.
type ParamType struct {
	Type string `json:"type"`
	// Numbers are the values a number, or each number of a pair, may take, ascending.
	Numbers []int `json:"numbers,omitempty"`
	// FirstYear and LastYear bound the year of a date or of a birthday_year.
	FirstYear int `json:"first_year,omitempty"`
	LastYear  int `json:"last_year,omitempty"`
}

// Arity is how many parameters the type takes; 0 for an unknown type.
func (p ParamType) Arity() int {
	switch p.Type {
	case ParamNumber:
		return 1
	case ParamPair:
		return 2
	case ParamDate, ParamBirthdayYear:
		return 3
	}
	return 0
}

// Admit reports whether vals, Arity of them in pattern order, are a value of the type, and
// makes them canonical: a pair is put in ascending order.
func (p ParamType) Admit(vals []int) bool {
	switch p.Type {
	case ParamNumber:
		return slices.Contains(p.Numbers, vals[0])
	case ParamPair:
		if !slices.Contains(p.Numbers, vals[0]) || !slices.Contains(p.Numbers, vals[1]) {
			return false
		}
		if vals[0] > vals[1] {
			vals[0], vals[1] = vals[1], vals[0]
		}
		return true
	case ParamDate:
		return ValidDate(vals[0], vals[1], vals[2], p.FirstYear, p.LastYear)
	case ParamBirthdayYear:
		return ValidBirthdayYear(vals[0], vals[1], vals[2], p.FirstYear, p.LastYear)
	}
	return false
}

// Dated reports whether the type's values fall in years (have a Place): a date, or a
// birthday in a target year.
func (p ParamType) Dated() bool { return p.Type == ParamDate || p.Type == ParamBirthdayYear }

// Place returns where canonical vals of a dated type fall (see Place); the zero Place for a
// type that is not dated.
func (p ParamType) Place(vals []int) Place {
	switch p.Type {
	case ParamDate:
		return Place{Year: vals[2], Month: vals[1], InMonth: vals[0], InYear: calendar.DayOfYear(vals[0], vals[1], vals[2])}
	case ParamBirthdayYear: // the birthday's place in a leap year's calendar, under the target year
		return Place{Year: vals[2], Month: vals[1], InMonth: vals[0], InYear: calendar.DayOfYear(vals[0], vals[1], calendar.LeapYear)}
	}
	return Place{}
}

// HasYear reports whether values of a dated type fall in year (YearValues is not empty).
func (p ParamType) HasYear(year int) bool {
	return p.Dated() && year >= p.FirstYear && year <= p.LastYear
}

// YearValues returns the canonical values of a dated type that fall in year, in the order of
// their places (InYear ascending); none for a year outside the type's range.
func (p ParamType) YearValues(year int) [][]int {
	if !p.HasYear(year) {
		return nil
	}
	cal := year // a date's own year; a birthday's, a leap year's
	if p.Type == ParamBirthdayYear {
		cal = calendar.LeapYear
	}
	out := make([][]int, 0, 366)
	for m := 1; m <= 12; m++ {
		for d := 1; d <= calendar.DaysIn(m, cal); d++ {
			out = append(out, []int{d, m, year})
		}
	}
	return out
}

// values returns every canonical value of the type, in ascending order (dates by year,
// month, day); a date's years are those of years within the type's range.
func (p ParamType) values(years []int) [][]int {
	var out [][]int
	switch p.Type {
	case ParamNumber:
		for _, n := range p.Numbers {
			out = append(out, []int{n})
		}
	case ParamPair:
		for i, a := range p.Numbers {
			for _, b := range p.Numbers[i:] {
				out = append(out, []int{a, b})
			}
		}
	case ParamDate, ParamBirthdayYear:
		for _, y := range years {
			out = append(out, p.YearValues(y)...)
		}
	}
	return out
}

// Packing units (Packed.Unit): how many bodies of a dated route one packed file holds
// (docs/design.md §10).
const (
	// UnitMonth packs the values of one year and month: the file's pattern holds {year} and
	// {month}, and the body of a value is line Place.InMonth (a date's day).
	UnitMonth = "month"
	// UnitYear packs the values of one year: the pattern holds {year}, and the body of a value
	// is line Place.InYear (a date's day of the year).
	UnitYear = "year"
)

// Packed says where a route's bodies are also kept many to a file (docs/design.md §10): one
// file per Unit, File with the unit's {year} (and {month}) filled in from the value's Place,
// each body a line of it with its newline, in the order of the values' places.
type Packed struct {
	File string `json:"file"` // "api/public/matrix-months/{year}/{month}.jsonl"
	Unit string `json:"unit"` // UnitMonth or UnitYear
}

// placeholders are the parameters a packed file of the unit holds, in the order Fill takes
// them; nil for an unknown unit.
func (p Packed) placeholders() []string {
	switch p.Unit {
	case UnitMonth:
		return []string{"year", "month"}
	case UnitYear:
		return []string{"year"}
	}
	return nil
}

// Line is the line (from 1) of a packed file of the unit that holds the value at pl.
func (p Packed) Line(pl Place) int {
	if p.Unit == UnitYear {
		return pl.InYear
	}
	return pl.InMonth
}

// Path is the packed file of the unit that holds the value at pl.
func (p Packed) Path(pl Place) string {
	return fill(p.File, p.placeholders(), []int{pl.Year, pl.Month})
}

// Place is where a value of a dated parameter type falls in the calendar: the year whose
// shard lists its file and whose packed files hold its body, its month, and its ordinal
// (from 1) within the month and within the year. A date's are its year, month, day and day
// of the year. Each dated type defines them once, here and in the worker's TYPES, so a
// new dated type (a birthday and a target year, say) packs and shards with no other change.
type Place struct {
	Year, Month     int
	InMonth, InYear int
}

// Scope is the route's literal part: the pattern up to its first parameter, without the
// slash before it, or the whole pattern when it has none. A path is in the scope when it is
// the scope itself or under it.
func (r Route) Scope() string {
	if i := strings.Index(r.Pattern, "/{"); i >= 0 {
		return r.Pattern[:i]
	}
	return r.Pattern
}

// ParamNames returns the names of the pattern's parameters, in order.
func (r Route) ParamNames() []string {
	var out []string
	for _, seg := range strings.Split(r.Pattern, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, seg[1:len(seg)-1])
		}
	}
	return out
}

// Arity is how many parameters the route's types take together.
func (r Route) Arity() int {
	n := 0
	for _, p := range r.Params {
		n += p.Arity()
	}
	return n
}

// Admit reports whether vals, one per parameter in pattern order, are admitted by the
// route's types, and makes them canonical.
func (r Route) Admit(vals []int) bool {
	for _, p := range r.Params {
		k := p.Arity()
		if k == 0 || k > len(vals) || !p.Admit(vals[:k]) {
			return false
		}
		vals = vals[k:]
	}
	return len(vals) == 0
}

// Values returns every canonical parameter value of the route, in ascending order; one
// empty value for a route without parameters. Dates are those of years.
func (r Route) Values(years []int) [][]int {
	out := [][]int{{}}
	for _, p := range r.Params {
		var next [][]int
		for _, head := range out {
			for _, v := range p.values(years) {
				next = append(next, append(slices.Clip(head), v...))
			}
		}
		out = next
	}
	return out
}

// FilePath is the tree path of the body of canonical vals.
func (r Route) FilePath(vals []int) string { return fill(r.File, r.ParamNames(), vals) }

// Sharded reports whether the manifest lists the route's files in shards, one per year (the
// route's per-value files of that year and its packed files), rather than in its root: a
// route with packed files, whose files grow with the years (docs/design.md §9).
func (r Route) Sharded() bool { return r.Packed != nil }

// Place returns where the canonical vals of a packed route fall: the Place of its one
// parameter type, which Check requires to be dated.
func (r Route) Place(vals []int) Place { return r.Params[0].Place(vals) }

// YearValues returns the canonical values of a packed route that fall in year, in the order
// of their places: the lines of its packed files, in order.
func (r Route) YearValues(year int) [][]int {
	if r.Packed == nil || len(r.Params) != 1 {
		return nil
	}
	return r.Params[0].YearValues(year)
}

// HasYear reports whether values of a packed route fall in year: whether it has a shard of
// that year in a tree that holds it.
func (r Route) HasYear(year int) bool {
	return r.Packed != nil && len(r.Params) == 1 && r.Params[0].HasYear(year)
}

// PackedPath is the tree path of the packed file that holds the body of canonical vals,
// and the line (from 1) that holds it; "" when the route has no packed files.
func (r Route) PackedPath(vals []int) (string, int) {
	if r.Packed == nil {
		return "", 0
	}
	pl := r.Place(vals)
	return r.Packed.Path(pl), r.Packed.Line(pl)
}

// PackedFiles returns the packed files of a packed route that hold the values of year, in
// the order of their lines' values: twelve month files, or one year file.
func (r Route) PackedFiles(year int) []string {
	var out []string
	for _, v := range r.YearValues(year) {
		if p, line := r.PackedPath(v); line == 1 {
			out = append(out, p)
		}
	}
	return out
}

// ShardFiles returns, sorted, the files a shard of a packed route lists for year: the file
// of every value of the year and the year's packed files (docs/design.md §9).
func (r Route) ShardFiles(year int) []string {
	if f := r.Files(); f != nil {
		return f.ShardFiles(year)
	}
	return nil
}

// fill replaces each {name} of pattern by its value.
func fill(pattern string, names []string, vals []int) string {
	for i, n := range names {
		if i < len(vals) {
			pattern = strings.ReplaceAll(pattern, "{"+n+"}", strconv.Itoa(vals[i]))
		}
	}
	return pattern
}

// MatchFile returns the parameter values of a tree path that is the route's File with
// canonical numbers (no leading zeros), ok false for any other path. The values are
// not checked against the route's types.
func (r Route) MatchFile(p string) ([]int, bool) { return matchPattern(r.File, r.ParamNames(), p) }

// MatchPacked returns the Place (its year, and its month for UnitMonth) of a tree path
// that is one of the route's packed files with canonical numbers, ok false for any other
// path. The place is not checked against the route's types.
func (r Route) MatchPacked(p string) (Place, bool) {
	if r.Packed == nil {
		return Place{}, false
	}
	vals, ok := matchPattern(r.Packed.File, r.Packed.placeholders(), p)
	if !ok {
		return Place{}, false
	}
	pl := Place{Year: vals[0]}
	if len(vals) > 1 {
		pl.Month = vals[1]
	}
	return pl, true
}

// ShardOf returns the year of the shard that lists the tree path p, when p is the file of a
// value the route's types admit or one of the packed files of such a value's year; ok
// false otherwise (a route without packed files, a path of no value, 31.02).
func (r Route) ShardOf(p string) (year int, ok bool) {
	if f := r.Files(); f != nil {
		return f.ShardOf(p)
	}
	return 0, false
}

func matchPattern(pattern string, names []string, p string) ([]int, bool) {
	vals := make([]int, len(names))
	for pattern != "" {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			return vals, p == pattern
		}
		var ok bool
		if p, ok = strings.CutPrefix(p, pattern[:i]); !ok {
			return nil, false
		}
		j := strings.IndexByte(pattern[i:], '}')
		if j < 0 {
			return nil, false
		}
		k := slices.Index(names, pattern[i+1:i+j])
		pattern = pattern[i+j+1:]
		end := 0
		for end < len(p) && end < 9 && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		if end == 0 || (end > 1 && p[0] == '0') || k < 0 {
			return nil, false
		}
		vals[k], _ = strconv.Atoi(p[:end])
		p = p[end:]
	}
	return vals, p == ""
}

// segments is how many segments a path or pattern has after a scope it is in.
func segments(p, scope string) int { return strings.Count(p[len(scope):], "/") }

// InScope reports whether the raw path p is prefix itself or under it ("prefix/…").
func InScope(p, prefix string) bool {
	return strings.HasPrefix(p, prefix) && (len(p) == len(prefix) || p[len(prefix)] == '/')
}

// Owner returns the index of the route that owns the raw path p under the prefix
// (docs/design.md §3), -1 for none: of the routes whose scope holds p (one trailing slash
// removed), the one with the longest scope, then the one whose pattern has the number of
// segments closest to p's, then the first. Its rate limit counts the request, and its
// error answers when no route matches.
func (c *EdgeConfig) Owner(p string) int {
	p = strings.TrimSuffix(p, "/")
	best, bestLen, bestDist := -1, -1, 0
	for i, r := range c.Routes {
		s := r.Scope()
		if !InScope(p, s) || len(s) < bestLen {
			continue
		}
		dist := segments(p, s) - segments(r.Pattern, s)
		if dist < 0 {
			dist = -dist
		}
		if len(s) > bestLen || dist < bestDist {
			best, bestLen, bestDist = i, len(s), dist
		}
	}
	return best
}

// RateLimited reports whether the raw path p is owned by a rate-limited route.
func (c *EdgeConfig) RateLimited(p string) bool {
	i := c.Owner(p)
	return i >= 0 && c.Routes[i].RateLimited
}

// Check reports what makes the config unusable by an edge, all of it: a pattern outside
// the prefix, parameters that do not match their types, a file or packed file that names
// an unknown parameter, an error key without a body, an error status without headers.
// Both edges refuse such a config at start.
func (c *EdgeConfig) Check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Prefix == "" || !strings.HasPrefix(c.Prefix, "/") || strings.HasSuffix(c.Prefix, "/") {
		bad("prefix %q: want /name", c.Prefix)
	}
	for key, e := range c.Errors {
		if _, ok := c.Headers.ByStatus[strconv.Itoa(e.Status)]; !ok {
			bad("error %s: status %d has no header set", key, e.Status)
		}
	}
	hasError := func(what, key string) {
		if _, ok := c.Errors[key]; !ok {
			bad("%s: no %q error in the config", what, key)
		}
	}
	hasError("edge_errors.not_found", c.EdgeErrors.NotFound)
	hasError("edge_errors.method_not_allowed", c.EdgeErrors.MethodNotAllowed)
	hasError("edge_errors.too_many_requests", c.EdgeErrors.TooManyRequests)
	hasError("edge_errors.internal", c.EdgeErrors.Internal)
	if len(c.Headers.NotModified) == 0 || len(c.Headers.Preflight) == 0 || len(c.Headers.Common) == 0 {
		bad("headers: the common, not_modified and preflight sets must not be empty")
	}
	if c.RateLimit.Requests <= 0 || c.RateLimit.WindowSeconds <= 0 {
		bad("rate_limit: requests and window_seconds must be positive")
	}
	names := map[string]bool{}
	for _, r := range c.Routes {
		if names[r.Name] {
			bad("route %s: the name is used twice", r.Name)
		}
		names[r.Name] = true
		if err := r.Check(c.Prefix); err != nil {
			bad("route %s: %w", r.Name, err)
		}
		if r.Error != "" {
			hasError("route "+r.Name, r.Error)
		}
	}
	return errors.Join(errs...)
}

// Check reports what is wrong with one row of a config whose prefix is prefix.
func (r Route) Check(prefix string) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !InScope(r.Pattern, prefix) || strings.HasSuffix(r.Pattern, "/") || strings.Contains(r.Pattern, "//") {
		bad("pattern %q is not a path under %s", r.Pattern, prefix)
	}
	names := r.ParamNames()
	for i, seg := range strings.Split(r.Pattern, "/") {
		whole := strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") && len(seg) > 2 && strings.Count(seg, "{")+strings.Count(seg, "}") == 2
		if strings.ContainsAny(seg, "{}") && !whole {
			bad("pattern segment %d %q: a parameter is a whole segment", i, seg)
		}
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			bad("parameter %q appears twice", n)
		}
	}
	for _, p := range r.Params {
		switch {
		case p.Arity() == 0:
			bad("unknown parameter type %q", p.Type)
		case (p.Type == ParamDate || p.Type == ParamBirthdayYear) && (p.FirstYear < 1 || p.LastYear < p.FirstYear):
			bad("%s years %d–%d", p.Type, p.FirstYear, p.LastYear)
		case p.Type != ParamDate && p.Type != ParamBirthdayYear && !ascending(p.Numbers):
			bad("%s numbers %v: want distinct values, ascending", p.Type, p.Numbers)
		}
	}
	if a := r.Arity(); a != len(names) {
		bad("the parameter types take %d parameters, the pattern has %d", a, len(names))
	}
	checkFile := func(what, pattern string) {
		used := map[string]bool{}
		for rest := pattern; ; {
			i := strings.IndexByte(rest, '{')
			if i < 0 {
				break
			}
			j := strings.IndexByte(rest[i:], '}')
			if j < 0 {
				bad("%s %q: unterminated parameter", what, pattern)
				break
			}
			n := rest[i+1 : i+j]
			if !slices.Contains(names, n) {
				bad("%s %q: parameter %q is not in the pattern", what, pattern, n)
			}
			used[n] = true
			rest = rest[i+j+1:]
		}
		if what == "file" && len(used) != len(names) {
			bad("file %q: every parameter of the pattern must be in it", pattern)
		}
		if pattern == "" || strings.HasPrefix(pattern, "/") || strings.Contains(pattern, "..") {
			bad("%s %q is not a path inside the tree", what, pattern)
		}
	}
	checkFile("file", r.File)
	if p := r.Packed; p != nil {
		if len(r.Params) != 1 || !r.Params[0].Dated() {
			bad("packed files: a packed route has one parameter type, and a dated one (%s or %s)", ParamDate, ParamBirthdayYear)
		}
		if want := p.placeholders(); want == nil {
			bad("packed unit %q: want %s or %s", p.Unit, UnitMonth, UnitYear)
		} else {
			var got []string
			for _, seg := range placeholderNames(p.File) {
				if !slices.Contains(got, seg) {
					got = append(got, seg)
				}
			}
			slices.Sort(got)
			want = slices.Sorted(slices.Values(want))
			if !slices.Equal(got, want) {
				bad("packed file %q: a file per %s holds exactly {%s}", p.File, p.Unit, strings.Join(want, "} and {"))
			}
		}
		if p.File == "" || strings.HasPrefix(p.File, "/") || strings.Contains(p.File, "..") || strings.Count(p.File, "{") != strings.Count(p.File, "}") {
			bad("packed file %q is not a path inside the tree", p.File)
		}
	}
	if !routeName.MatchString(r.Name) {
		bad("name %q: want lowercase letters, digits and hyphens (it names the route's shards, %s/<name>/)", r.Name, ShardsDir)
	}
	return errors.Join(errs...)
}

// routeName is what a route's name may be: it is a folder of the manifest's shards.
var routeName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// placeholderNames returns the names of the {name}s of a file pattern, in order.
func placeholderNames(pattern string) []string {
	var out []string
	for {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(pattern[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, pattern[i+1:i+j])
		pattern = pattern[i+j+1:]
	}
}

// ascending reports whether ns is not empty and strictly ascending.
func ascending(ns []int) bool {
	for i := 1; i < len(ns); i++ {
		if ns[i] <= ns[i-1] {
			return false
		}
	}
	return len(ns) > 0
}

// ValidDate reports whether d.m.y is a real Gregorian date of the years first–last.
func ValidDate(d, m, y, first, last int) bool {
	return y >= first && y <= last && calendar.Valid(d, m, y)
}

// ValidBirthdayYear reports whether d.m is a day of a leap year's calendar (29 February
// included) and y a year of first–last.
func ValidBirthdayYear(d, m, y, first, last int) bool {
	return y >= first && y <= last && calendar.Valid(d, m, calendar.LeapYear)
}
