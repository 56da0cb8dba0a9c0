package manifest

import (
	"slices"
	"strings"
	"testing"
)

func TestRouteScopeAndParams(t *testing.T) {
	tests := []struct {
		name, pattern, scope string
		params               []string
	}{
		{"prefix", APIPrefix, APIPrefix, nil},
		{"literal", APIPrefix + "/openapi.json", APIPrefix + "/openapi.json", nil},
		{"one param", APIPrefix + "/life-path/{number}", APIPrefix + "/life-path", []string{"number"}},
		{"three params", APIPrefix + "/matrix/{day}/{month}/{year}", APIPrefix + "/matrix", []string{"day", "month", "year"}},
		{"literal after a param", APIPrefix + "/n/{n}/about", APIPrefix + "/n", []string{"n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Route{Pattern: tt.pattern}
			if got := r.Scope(); got != tt.scope {
				t.Errorf("Scope() = %q, want %q", got, tt.scope)
			}
			if got := r.ParamNames(); !slices.Equal(got, tt.params) {
				t.Errorf("ParamNames() = %q, want %q", got, tt.params)
			}
		})
	}
}

// TestOwnerAndRateLimited: a path belongs to the route with the longest scope holding it,
// then the one whose pattern's segments are closest in number, then the first; its rate
// limit and error follow.
func TestOwnerAndRateLimited(t *testing.T) {
	c := &EdgeConfig{Routes: []Route{
		{Name: "index", Pattern: APIPrefix},
		{Name: "list", Pattern: APIPrefix + "/life-path"},
		{Name: "number", Pattern: APIPrefix + "/life-path/{number}"},
		{Name: "date", Pattern: APIPrefix + "/life-path/{day}/{month}/{year}", RateLimited: true},
		{Name: "matrix", Pattern: APIPrefix + "/matrix/{day}/{month}/{year}", RateLimited: true},
	}}
	tests := []struct {
		name    string
		path    string
		owner   string
		limited bool
	}{
		{"the scope itself", APIPrefix + "/matrix", "matrix", true},
		{"under it", APIPrefix + "/matrix/1/1/2000", "matrix", true},
		{"malformed under it", APIPrefix + "/matrix/x", "matrix", true},
		{"a trailing slash", APIPrefix + "/matrix/", "matrix", true},
		{"a longer word", APIPrefix + "/matrixx", "index", false},
		{"the prefix", APIPrefix, "index", false},
		{"a shared scope itself", APIPrefix + "/life-path", "list", false},
		{"one segment", APIPrefix + "/life-path/7", "number", false},
		{"three segments", APIPrefix + "/life-path/1/2/3", "date", true},
		{"three invalid segments", APIPrefix + "/life-path/x/y/z", "date", true},
		{"four segments: closest is three", APIPrefix + "/life-path/1/2/3/4", "date", true},
		{"two segments: a tie goes to the first", APIPrefix + "/life-path/1/2", "number", false},
		{"an empty segment", APIPrefix + "/life-path//", "number", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := c.Owner(tt.path)
			if i < 0 || c.Routes[i].Name != tt.owner {
				t.Errorf("Owner(%q) = %d, want %s", tt.path, i, tt.owner)
			}
			if got := c.RateLimited(tt.path); got != tt.limited {
				t.Errorf("RateLimited(%q) = %v, want %v", tt.path, got, tt.limited)
			}
		})
	}
	if i := c.Owner("/elsewhere"); i != -1 {
		t.Errorf("Owner of a path outside the prefix = %d, want -1", i)
	}
}

// TestParamTypes checks what each parameter type admits and how it makes values canonical.
func TestParamTypes(t *testing.T) {
	number := ParamType{Type: ParamNumber, Numbers: []int{1, 2, 11}}
	pair := ParamType{Type: ParamPair, Numbers: []int{1, 2, 11}}
	date := ParamType{Type: ParamDate, FirstYear: 1900, LastYear: 2100}
	tests := []struct {
		name string
		typ  ParamType
		in   []int
		ok   bool
		out  []int
	}{
		{"number in the set", number, []int{11}, true, []int{11}},
		{"number outside", number, []int{3}, false, nil},
		{"pair in order", pair, []int{2, 11}, true, []int{2, 11}},
		{"pair reversed", pair, []int{11, 2}, true, []int{2, 11}},
		{"pair twice one number", pair, []int{1, 1}, true, []int{1, 1}},
		{"pair, second outside", pair, []int{1, 3}, false, nil},
		{"pair, first outside", pair, []int{0, 1}, false, nil},
		{"date", date, []int{29, 2, 2000}, true, []int{29, 2, 2000}},
		{"date not leap", date, []int{29, 2, 1900}, false, nil},
		{"date out of range", date, []int{31, 12, 1899}, false, nil},
		{"date month 13", date, []int{1, 13, 2000}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := slices.Clone(tt.in)
			if got := tt.typ.Admit(v); got != tt.ok {
				t.Fatalf("Admit(%v) = %v, want %v", tt.in, got, tt.ok)
			}
			if tt.ok && !slices.Equal(v, tt.out) {
				t.Errorf("canonical %v, want %v", v, tt.out)
			}
		})
	}
}

// TestRouteValuesAndFiles checks the values of each type, the file of each value and its
// way back from the file, and the packed file and line of a date.
func TestRouteValuesAndFiles(t *testing.T) {
	pair := Route{Name: "pair", Pattern: APIPrefix + "/p/{a}/{b}", File: "api/public/p/{a}/{b}.json",
		Params: []ParamType{{Type: ParamPair, Numbers: []int{1, 2, 11}}}}
	if got := pair.Values(nil); len(got) != 6 || !slices.Equal(got[2], []int{1, 11}) || !slices.Equal(got[5], []int{11, 11}) {
		t.Errorf("pair values = %v, want the 6 unordered pairs, ascending", got)
	}
	date := Route{Name: "date", Pattern: APIPrefix + "/d/{day}/{month}/{year}", File: "api/public/d/{day}/{month}/{year}.json",
		Params: []ParamType{{Type: ParamDate, FirstYear: 1900, LastYear: 2100}},
		Packed: &Packed{File: "api/public/d-months/{year}/{month}.jsonl", Unit: UnitMonth}}
	vals := date.Values([]int{1899, 2000, 2101})
	if len(vals) != 366 || !slices.Equal(vals[0], []int{1, 1, 2000}) || !slices.Equal(vals[365], []int{31, 12, 2000}) {
		t.Errorf("date values: %d, first %v, last %v; want the 366 days of 2000 in order", len(vals), vals[0], vals[len(vals)-1])
	}
	if got := date.FilePath([]int{5, 1, 2000}); got != "api/public/d/5/1/2000.json" {
		t.Errorf("FilePath = %s", got)
	}
	if got, line := date.PackedPath([]int{5, 1, 2000}); got != "api/public/d-months/2000/1.jsonl" || line != 5 {
		t.Errorf("PackedPath = %s line %d", got, line)
	}
	for _, tt := range []struct {
		path string
		vals []int
	}{
		{"api/public/d/5/1/2000.json", []int{5, 1, 2000}},
		{"api/public/d/05/1/2000.json", nil},
		{"api/public/d/5/1/2000.jsonl", nil},
		{"api/public/d/5/1.json", nil},
		{"api/public/d/x/1/2000.json", nil},
	} {
		got, ok := date.MatchFile(tt.path)
		if ok != (tt.vals != nil) || (ok && !slices.Equal(got, tt.vals)) {
			t.Errorf("MatchFile(%s) = %v %v, want %v", tt.path, got, ok, tt.vals)
		}
	}
	if got, ok := date.MatchPacked("api/public/d-months/2000/1.jsonl"); !ok || got != (Place{Year: 2000, Month: 1}) {
		t.Errorf("MatchPacked = %v %v", got, ok)
	}
}

// TestPackingUnits checks the place of a date, and the packed file and line of a value for
// each unit, and the files a year's shard lists.
func TestPackingUnits(t *testing.T) {
	date := ParamType{Type: ParamDate, FirstYear: 1900, LastYear: 2100}
	for _, tt := range []struct {
		vals []int
		want Place
	}{
		{[]int{1, 1, 2000}, Place{2000, 1, 1, 1}},
		{[]int{1, 3, 2000}, Place{2000, 3, 1, 61}},
		{[]int{1, 3, 1900}, Place{1900, 3, 1, 60}},
		{[]int{31, 12, 2000}, Place{2000, 12, 31, 366}},
		{[]int{31, 12, 2001}, Place{2001, 12, 31, 365}},
	} {
		if got := date.Place(tt.vals); got != tt.want {
			t.Errorf("Place(%v) = %+v, want %+v", tt.vals, got, tt.want)
		}
	}
	if v := date.YearValues(2000); len(v) != 366 || !slices.Equal(v[59], []int{29, 2, 2000}) {
		t.Errorf("YearValues(2000): %d values, the 60th %v", len(v), v[59])
	}
	if v := date.YearValues(1899); v != nil {
		t.Errorf("YearValues(1899) = %d values, want none", len(v))
	}
	month := Route{Name: "m", Pattern: APIPrefix + "/m/{day}/{month}/{year}", File: "api/public/m/{day}/{month}/{year}.json",
		Params: []ParamType{date}, Packed: &Packed{File: "api/public/m-months/{year}/{month}.jsonl", Unit: UnitMonth}}
	year := month
	year.Name = "y"
	year.Packed = &Packed{File: "api/public/y-years/{year}.jsonl", Unit: UnitYear}
	for _, tt := range []struct {
		r    Route
		vals []int
		file string
		line int
	}{
		{month, []int{15, 5, 2000}, "api/public/m-months/2000/5.jsonl", 15},
		{year, []int{15, 5, 2000}, "api/public/y-years/2000.jsonl", 136},
		{year, []int{1, 1, 1900}, "api/public/y-years/1900.jsonl", 1},
	} {
		if file, line := tt.r.PackedPath(tt.vals); file != tt.file || line != tt.line {
			t.Errorf("%s PackedPath(%v) = %s line %d, want %s line %d", tt.r.Name, tt.vals, file, line, tt.file, tt.line)
		}
	}
	if got := year.PackedFiles(2000); !slices.Equal(got, []string{"api/public/y-years/2000.jsonl"}) {
		t.Errorf("year PackedFiles = %v", got)
	}
	if got := month.PackedFiles(2001); len(got) != 12 || got[11] != "api/public/m-months/2001/12.jsonl" {
		t.Errorf("month PackedFiles = %v", got)
	}
	files := year.ShardFiles(2001)
	if len(files) != 366 || !slices.IsSorted(files) || !slices.Contains(files, "api/public/y-years/2001.jsonl") || !slices.Contains(files, "api/public/m/28/2/2001.json") {
		t.Errorf("ShardFiles(2001): %d files, want the 365 dates and the year file, sorted", len(files))
	}
	for _, tt := range []struct {
		r    Route
		path string
		year int
	}{
		{month, "api/public/m/29/2/2000.json", 2000},
		{month, "api/public/m/29/2/1900.json", 0},
		{month, "api/public/m/1/1/1899.json", 0},
		{month, "api/public/m/01/1/1990.json", 0},
		{month, "api/public/m-months/1990/12.jsonl", 1990},
		{month, "api/public/m-months/1990/13.jsonl", 0},
		{month, "api/public/m-months/2101/1.jsonl", 0},
		{year, "api/public/y-years/2100.jsonl", 2100},
		{year, "api/public/y-years/2100/1.jsonl", 0},
		{year, "api/public/y-years/02100.jsonl", 0},
	} {
		got, ok := tt.r.ShardOf(tt.path)
		if ok != (tt.year != 0) || got != tt.year {
			t.Errorf("%s ShardOf(%s) = %d %v, want %d", tt.r.Name, tt.path, got, ok, tt.year)
		}
	}
}

// TestRouteCheck checks that a row an edge cannot follow is refused with its reason.
func TestRouteCheck(t *testing.T) {
	good := Route{Name: "x", Pattern: APIPrefix + "/x/{a}/{b}", File: "api/public/x/{a}-{b}.json",
		Params: []ParamType{{Type: ParamPair, Numbers: []int{1, 2}}}}
	if err := good.Check(APIPrefix); err != nil {
		t.Fatalf("a good row: %v", err)
	}
	tests := []struct {
		name   string
		change func(r *Route)
		want   string
	}{
		{"outside the prefix", func(r *Route) { r.Pattern = "/other/{a}/{b}" }, "is not a path under"},
		{"unknown type", func(r *Route) { r.Params[0].Type = "colour" }, `unknown parameter type "colour"`},
		{"arity", func(r *Route) { r.Params[0].Type = ParamNumber }, "take 1 parameters, the pattern has 2"},
		{"numbers out of order", func(r *Route) { r.Params[0].Numbers = []int{2, 1} }, "want distinct values, ascending"},
		{"no numbers", func(r *Route) { r.Params[0].Numbers = nil }, "want distinct values, ascending"},
		{"file lacks a parameter", func(r *Route) { r.File = "api/public/x/{a}.json" }, "every parameter of the pattern"},
		{"file names another", func(r *Route) { r.File = "api/public/x/{a}-{c}.json" }, `parameter "c" is not in the pattern`},
		{"file outside the tree", func(r *Route) { r.File = "/x/{a}-{b}.json" }, "not a path inside the tree"},
		{"packed, not dated", func(r *Route) { r.Packed = &Packed{File: "api/public/x/{year}.jsonl", Unit: UnitYear} }, "a packed route has one parameter type, and a dated one"},
		{"packed unit", func(r *Route) { r.Packed = &Packed{File: "api/public/x/{year}.jsonl", Unit: "week"} }, `packed unit "week": want month or year`},
		{"packed month without the month", func(r *Route) { r.Packed = &Packed{File: "api/public/x/{year}.jsonl", Unit: UnitMonth} }, "a file per month holds exactly {month} and {year}"},
		{"packed year with a parameter", func(r *Route) { r.Packed = &Packed{File: "api/public/x/{year}/{a}.jsonl", Unit: UnitYear} }, "a file per year holds exactly {year}"},
		{"name", func(r *Route) { r.Name = "X/y" }, `name "X/y": want lowercase letters`},
		{"part of a segment", func(r *Route) { r.Pattern = APIPrefix + "/x/{a}-{b}" }, "a parameter is a whole segment"},
		{"a date's years", func(r *Route) {
			r.Pattern = APIPrefix + "/x/{a}/{b}/{c}"
			r.File = "api/public/{a}/{b}/{c}.json"
			r.Params = []ParamType{{Type: ParamDate}}
		}, "date years 0–0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good
			r.Params = slices.Clone(good.Params)
			tt.change(&r)
			err := r.Check(APIPrefix)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestBirthdayYear checks the birthday_year type (docs/design.md §3, §16): a day of a leap
// year's calendar, 29 February in every year, and a target year of its range.
func TestBirthdayYear(t *testing.T) {
	p := ParamType{Type: ParamBirthdayYear, FirstYear: 1900, LastYear: 2100}
	tests := []struct {
		name    string
		d, m, y int
		want    bool
	}{
		{"29 February in a common year", 29, 2, 1900, true},
		{"29 February in a leap year", 29, 2, 2000, true},
		{"30 February", 30, 2, 2000, false},
		{"31 April", 31, 4, 2000, false},
		{"31 December, the last year", 31, 12, 2100, true},
		{"1 January, the first year", 1, 1, 1900, true},
		{"a year before the range", 1, 1, 1899, false},
		{"a year after the range", 1, 1, 2101, false},
		{"day 0", 0, 1, 2000, false},
		{"month 13", 1, 13, 2000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Admit([]int{tt.d, tt.m, tt.y}); got != tt.want {
				t.Errorf("Admit(%d, %d, %d) = %v, want %v", tt.d, tt.m, tt.y, got, tt.want)
			}
		})
	}
	if p.Arity() != 3 {
		t.Errorf("arity %d, want 3", p.Arity())
	}
	if n := len(p.values([]int{1899, 1900, 2025})); n != 2*366 {
		t.Errorf("%d values of two years, want %d", n, 2*366)
	}
	r := Route{Name: "py", Pattern: "/api/x/{day}/{month}/{year}", File: "api/x/{day}/{month}/{year}.json", Params: []ParamType{p}}
	if err := r.Check("/api"); err != nil {
		t.Errorf("check: %v", err)
	}
	r.Params[0].LastYear = 1800
	if err := r.Check("/api"); err == nil {
		t.Error("check admits years 1900–1800")
	}
	if got := MCPArgNames(p, []string{"day", "month", "year"}); len(got) != 2 || got[0] != ArgBirthday || got[1] != "year" {
		t.Errorf("MCP arguments %v, want [%s year]", got, ArgBirthday)
	}
}
