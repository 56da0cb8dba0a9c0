package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// The personal cycles' routes by the names of the route table (docs/design.md §16).
const (
	routePersonalYear         = "personal-year"
	routePersonalYearMeanings = "personal-year-meanings"
)

// The body kinds of the personal cycles' routes, apart from the kinds of conformance.go
// and chart.go.
const (
	kindPersonalYear = 200 + iota
	kindPersonalYearMeanings
)

// personalYearCases are the §3 cases of the personal year's routes, which share the scope
// /personal-year as the chart's do. Its parameter is a birthday_year: a day of a leap year's
// calendar (29 February whatever the year) and a target year of the range.
func (s *suite) personalYearCases() []tcase {
	if s.row(routePersonalYear).Name == "" {
		return nil // a tree of another build
	}
	y := s.year
	ys := strconv.Itoa(y)
	py := func(rest string) string { return s.m.Edge.Prefix + "/personal-year" + rest }
	at := func(d, m, y int) expect { return s.rowExpect(s.row(routePersonalYear), []int{d, m, y}) }
	meanings := s.fileExpect(s.row(routePersonalYearMeanings).File, kindPersonalYearMeanings)
	first, last := s.m.Years[0], s.m.Years[len(s.m.Years)-1]
	fs, ls := strconv.Itoa(first), strconv.Itoa(last)
	return []tcase{
		{name: "personal-year", path: py("/23/4/" + ys), want: at(23, 4, y)},
		{name: "personal-year leading zeros", path: py("/023/04/" + ys), want: at(23, 4, y)},
		{name: "personal-year trailing slash", path: py("/1/1/" + ys + "/"), want: at(1, 1, y)},
		{name: "personal-year first", path: py("/1/1/" + fs), want: at(1, 1, first)},
		{name: "personal-year last", path: py("/31/12/" + ls), want: at(31, 12, last)},
		{name: "personal-year 29.02 in a leap year", path: py("/29/2/2000"), want: at(29, 2, 2000)},
		{name: "personal-year 29.02 in a common year", path: py("/29/2/1900"), want: at(29, 2, 1900)},
		{name: "personal-year 30.02", path: py("/30/2/" + ys), want: invalidDate},
		{name: "personal-year 31.04", path: py("/31/4/" + ys), want: invalidDate},
		{name: "personal-year year 1899", path: py("/1/1/1899"), want: invalidDate},
		{name: "personal-year year 2101", path: py("/1/1/2101"), want: invalidDate},
		{name: "personal-year month 13", path: py("/1/13/" + ys), want: invalidDate},
		{name: "personal-year day 0", path: py("/0/1/" + ys), want: invalidDate},
		{name: "personal-year non-numeric", path: py("/a/b/c"), want: invalidDate},
		{name: "personal-year percent-encoded", path: py("/%32%33/4/" + ys), want: invalidDate},
		{name: "personal-year four segments", path: py("/1/1/" + ys + "/1"), want: invalidDate},
		{name: "personal-year two segments", path: py("/23/4"), want: invalidDate},
		{name: "personal-year scope", path: py(""), want: invalidDate},
		{name: "personal-year prefix word", path: s.m.Edge.Prefix + "/personal-years/1/1/" + ys, want: notFound},
		{name: "personal-year meanings", path: py("/meanings"), want: meanings},
		{name: "personal-year meanings trailing slash", path: py("/meanings/"), want: meanings},
		{name: "personal-year meanings extra segment", path: py("/meanings/1"), want: notFound},
		{name: "HEAD personal-year", method: http.MethodHead, path: py("/29/2/1900"), want: at(29, 2, 1900)},
		{name: "HEAD personal-year invalid", method: http.MethodHead, path: py("/30/2/" + ys), want: invalidDate},
	}
}

// personalYearOf is the personal year of a birthday in a target year by the words of
// docs/design.md §16, written apart from the generator with the digital root: r9(n) of a
// positive n is 1 + (n − 1) mod 9. PY = r9(day + month + the year's digits), month k is
// r9(PY + k), day j of month k is r9(month k + j), for the days time.Time's calendar gives
// the target year.
func personalYearOf(d, m, y int) (int, [12]int, [12][]int) {
	root := func(n int) int { return 1 + (n-1)%9 }
	py := root(d + m + digitSum(strconv.Itoa(y)))
	var months [12]int
	var days [12][]int
	for k := 1; k <= 12; k++ {
		months[k-1] = root(py + k)
		n := time.Date(y, time.Month(k)+1, 0, 0, 0, 0, 0, time.UTC).Day()
		for j := 1; j <= n; j++ {
			days[k-1] = append(days[k-1], root(months[k-1]+j))
		}
	}
	return py, months, days
}

// checkPersonalYear checks a personal year record: the field order, the input, the number,
// the twelve months and every day re-derived by the rule, the details page as its source,
// and the licence.
func (s *suite) checkPersonalYear(t *testing.T, what string, body []byte, want expect) {
	t.Helper()
	keysInOrder(t, what, body, "input", "personal_year", "title", "reading", "months", "suggested_citation", "source_url",
		"disclaimer", "license", "license_url", "attribution", "attribution_html", "api_version")
	var v struct {
		Input        struct{ Day, Month, Year int } `json:"input"`
		PersonalYear int                            `json:"personal_year"`
		Title        string                         `json:"title"`
		Reading      string                         `json:"reading"`
		Months       []struct {
			Month, Number int
			Days          []int
		} `json:"months"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	d, m, y := want.date[0], want.date[1], want.date[2]
	if v.Input.Day != d || v.Input.Month != m || v.Input.Year != y {
		t.Errorf("%s: input %+v, want %d.%d in %d", what, v.Input, d, m, y)
	}
	py, months, days := personalYearOf(d, m, y)
	if v.PersonalYear != py {
		t.Errorf("%s: personal_year %d, the rule gives %d", what, v.PersonalYear, py)
	}
	if len(v.Months) != 12 {
		t.Fatalf("%s: %d months, want 12", what, len(v.Months))
	}
	for k, mo := range v.Months {
		if mo.Month != k+1 || mo.Number != months[k] || fmt.Sprint(mo.Days) != fmt.Sprint(days[k]) {
			t.Errorf("%s: month %d: %+v, the rule gives number %d, days %v", what, k+1, mo, months[k], days[k])
		}
	}
	if v.Title == "" || v.Reading == "" {
		t.Errorf("%s: no title or reading", what)
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	equal(t, what, rec, "source_url", fmt.Sprintf("%s/personal-year/details?birthday=%02d-%02d&year=%d", s.m.SiteURL, m, d, y))
	isString(t, what, rec, "suggested_citation")
	s.checkLicence(t, what, rec)
}

// checkPersonalYearMeanings checks the texts of the personal cycles: every number of each
// set, in order, each with its texts.
func (s *suite) checkPersonalYearMeanings(t *testing.T, what string, body []byte) {
	t.Helper()
	keysInOrder(t, what, body, "intro", "years", "months", "days", "pinnacles", "challenges", "suggested_citation",
		"source_url", "disclaimer", "license", "license_url", "attribution", "attribution_html", "api_version")
	var v struct {
		Years, Months, Days, Pinnacles, Challenges []struct {
			Number                                                 int
			Title, Short, Purpose, Helps, Avoid, Text, Description string
		}
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	sets := []struct {
		name    string
		items   int
		numbers []int
	}{
		{"years", len(v.Years), []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"months", len(v.Months), []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"days", len(v.Days), []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"pinnacles", len(v.Pinnacles), []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 22}},
		{"challenges", len(v.Challenges), []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
	}
	for i, set := range sets {
		items := [][]struct {
			Number                                                 int
			Title, Short, Purpose, Helps, Avoid, Text, Description string
		}{v.Years, v.Months, v.Days, v.Pinnacles, v.Challenges}[i]
		if set.items != len(set.numbers) {
			t.Errorf("%s: %d %s, want %v", what, set.items, set.name, set.numbers)
			continue
		}
		for j, it := range items {
			if it.Number != set.numbers[j] {
				t.Errorf("%s: %s[%d] is %d, want %d", what, set.name, j, it.Number, set.numbers[j])
			}
			if it.Title+it.Short+it.Text+it.Description == "" {
				t.Errorf("%s: %s %d has no text", what, set.name, it.Number)
			}
		}
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	equal(t, what, rec, "source_url", s.m.SiteURL+"/personal-year")
	s.checkLicence(t, what, rec)
}

// lifeCyclesOf is the pinnacles (number, from age, to age; −1 for the last, which has no
// end) and the challenges of a birth date by the words of docs/design.md §16, written apart
// from the generator: rk keeps 11 and 22, the challenges use the digital root.
func lifeCyclesOf(d, m, y int) ([4][3]int, [4]int) {
	rk := func(n int) int {
		for n > 9 && n != 11 && n != 22 {
			n = digitSum(strconv.Itoa(n))
		}
		return n
	}
	root := func(n int) int { return 1 + (n-1)%9 }
	abs := func(n int) int { return max(n, -n) }
	ys := digitSum(strconv.Itoa(y))
	mk, dk, yk := rk(m), rk(d), rk(ys)
	p := [4]int{rk(mk + dk), rk(dk + yk), 0, rk(mk + yk)}
	p[2] = rk(p[0] + p[1])
	end := 36 - root(lifePathOf(d, m, y))
	var out [4][3]int
	for i := range p {
		from, to := 0, end+9*i
		if i > 0 {
			from = end + 9*(i-1)
		}
		if i == 3 {
			to = -1
		}
		out[i] = [3]int{p[i], from, to}
	}
	m1, d1, y1 := root(m), root(d), root(ys)
	c1, c2 := abs(m1-d1), abs(d1-y1)
	return out, [4]int{c1, c2, abs(c1 - c2), abs(m1 - y1)}
}

// checkLifeCycles checks the pinnacles and challenges of a life path record of a date
// against lifeCyclesOf.
func checkLifeCycles(t *testing.T, what string, body []byte, d, m, y int) {
	t.Helper()
	var v struct {
		Pinnacles []struct {
			Number  int    `json:"number"`
			FromAge int    `json:"from_age"`
			ToAge   *int   `json:"to_age"`
			Reading string `json:"reading"`
		} `json:"pinnacles"`
		Challenges []struct {
			Number  int
			Reading string
		} `json:"challenges"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	pins, chals := lifeCyclesOf(d, m, y)
	if len(v.Pinnacles) != 4 || len(v.Challenges) != 4 {
		t.Fatalf("%s: %d pinnacles and %d challenges, want 4 and 4", what, len(v.Pinnacles), len(v.Challenges))
	}
	for i, p := range v.Pinnacles {
		to := -1
		if p.ToAge != nil {
			to = *p.ToAge
		}
		if got := [3]int{p.Number, p.FromAge, to}; got != pins[i] || p.Reading == "" {
			t.Errorf("%s: pinnacle %d is %v (reading %q), the rule gives %v", what, i+1, got, p.Reading, pins[i])
		}
	}
	for i, c := range v.Challenges {
		if c.Number != chals[i] || c.Reading == "" {
			t.Errorf("%s: challenge %d is %d (reading %q), the rule gives %d", what, i+1, c.Number, c.Reading, chals[i])
		}
	}
}
