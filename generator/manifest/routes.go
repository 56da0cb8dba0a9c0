package manifest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	case ParamDate:
		for _, y := range years {
			if y < p.FirstYear || y > p.LastYear {
				continue
			}
			for m := 1; m <= 12; m++ {
				for d := 1; d <= DaysIn(m, y); d++ {
					out = append(out, []int{d, m, y})
				}
			}
		}
	case ParamBirthdayYear:
		for _, y := range years {
			if y < p.FirstYear || y > p.LastYear {
				continue
			}
			for m := 1; m <= 12; m++ {
				for d := 1; d <= DaysIn(m, leapYear); d++ {
					out = append(out, []int{d, m, y})
				}
			}
		}
	}
	return out
}

// Packed says where a route's bodies are also kept many to a file (docs/design.md §10):
// File is the packed file's path, with parameters as in Route.File, and the body of a value
// is line Line (that parameter's value, counted from 1) of it, with its newline.
type Packed struct {
	File string `json:"file"` // "api/public/matrix-months/{year}/{month}.jsonl"
	Line string `json:"line"` // "day"
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

// PackedPath is the tree path of the packed file that holds the body of canonical vals,
// and the line (from 1) that holds it; "" when the route has no packed files.
func (r Route) PackedPath(vals []int) (string, int) {
	if r.Packed == nil {
		return "", 0
	}
	names := r.ParamNames()
	return fill(r.Packed.File, names, vals), vals[slices.Index(names, r.Packed.Line)]
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

// MatchPacked is MatchFile for the route's packed files: the values the file's pattern
// holds, 0 for the others (the line's among them).
func (r Route) MatchPacked(p string) ([]int, bool) {
	if r.Packed == nil {
		return nil, false
	}
	return matchPattern(r.Packed.File, r.ParamNames(), p)
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
	if r.Packed != nil {
		checkFile("packed file", r.Packed.File)
		if !slices.Contains(names, r.Packed.Line) {
			bad("packed line %q is not a parameter of the pattern", r.Packed.Line)
		}
	}
	return errors.Join(errs...)
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
	return y >= first && y <= last && m >= 1 && m <= 12 && d >= 1 && d <= DaysIn(m, y)
}

// ValidBirthdayYear reports whether d.m is a day of a leap year's calendar (29 February
// included) and y a year of first–last.
func ValidBirthdayYear(d, m, y, first, last int) bool {
	return y >= first && y <= last && m >= 1 && m <= 12 && d >= 1 && d <= DaysIn(m, leapYear)
}

// leapYear is any leap year: the calendar a birthday of a birthday_year lives in.
const leapYear = 2000

// DaysIn is the number of days of a month in the Gregorian calendar.
func DaysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	default:
		return 31
	}
}
