package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The chart's routes by the names of the route table (docs/design.md §15). The suite does not
// import the generator, so it names them itself, as it names their paths.
const (
	routeChart         = "chart"
	routeChartMeanings = "chart-meanings"
)

// The body kinds of the chart's routes, apart from the kinds of conformance.go.
const (
	kindChart = 100 + iota
	kindChartMeanings
)

// chartCases are the §3 cases of the full matrix chart's routes, which share the scope
// /chart as the square's do: three segments are a date's (400 Invalid date when they are not
// a date of the range), "meanings" is the texts' route, and the scope itself and any other
// shape answer the date route's error. The dates include a day above 22 and a leap day.
func (s *suite) chartCases() []tcase {
	if s.row(routeChart).Name == "" {
		return nil // a tree of another build
	}
	y := s.year
	ys := strconv.Itoa(y)
	ch := func(rest string) string { return s.m.Edge.Prefix + "/chart" + rest }
	at := func(d, m, y int) expect { return s.rowExpect(s.row(routeChart), []int{d, m, y}) }
	meanings := s.fileExpect(s.row(routeChartMeanings).File, kindChartMeanings)
	return []tcase{
		{name: "chart", path: ch("/15/5/" + ys), want: at(15, 5, y)},
		{name: "chart day above 22", path: ch("/25/8/" + ys), want: at(25, 8, y)},
		{name: "chart leading zeros", path: ch("/011/07/" + ys), want: at(11, 7, y)},
		{name: "chart trailing slash", path: ch("/1/1/" + ys + "/"), want: at(1, 1, y)},
		{name: "chart first", path: ch("/1/1/1900"), want: at(1, 1, 1900)},
		{name: "chart last", path: ch("/31/12/2100"), want: at(31, 12, 2100)},
		{name: "chart 29.02.2000", path: ch("/29/2/2000"), want: at(29, 2, 2000)},
		{name: "chart 29.02.1900", path: ch("/29/2/1900"), want: invalidDate},
		{name: "chart 31.04", path: ch("/31/4/" + ys), want: invalidDate},
		{name: "chart year 1899", path: ch("/31/12/1899"), want: invalidDate},
		{name: "chart year 2101", path: ch("/1/1/2101"), want: invalidDate},
		{name: "chart non-numeric", path: ch("/a/b/c"), want: invalidDate},
		{name: "chart percent-encoded", path: ch("/%31/1/" + ys), want: invalidDate},
		{name: "chart four segments", path: ch("/1/1/" + ys + "/1"), want: invalidDate},
		{name: "chart two segments", path: ch("/1/1"), want: invalidDate},
		{name: "chart scope", path: ch(""), want: invalidDate},
		{name: "chart scope trailing slash", path: ch("/"), want: invalidDate},
		{name: "chart prefix word", path: s.m.Edge.Prefix + "/charts/1/1/" + ys, want: notFound},
		{name: "chart meanings", path: ch("/meanings"), want: meanings},
		{name: "chart meanings trailing slash", path: ch("/meanings/"), want: meanings},
		{name: "chart meanings extra segment", path: ch("/meanings/1"), want: notFound},
		{name: "chart meanings.json is not a route", path: ch("/meanings.json"), want: invalidDate},
		{name: "HEAD chart", method: http.MethodHead, path: ch("/15/5/" + ys), want: at(15, 5, y)},
		{name: "HEAD chart invalid", method: http.MethodHead, path: ch("/30/2/" + ys), want: invalidDate},
		{name: "HEAD chart meanings", method: http.MethodHead, path: ch("/meanings"), want: meanings},
	}
}

// chartOf is the full matrix chart of a date by the words of docs/design.md §15, written apart
// from the generator. r(n): while n > 22, the sum of n's digits. A = r(day), B = r(month),
// C = r(sum of the year's digits), D = r(A+B+C), E = r(A+B+C+D); the corners F = r(A+B),
// G = r(B+C), H = r(C+D), I = r(D+A); for each outer point X, X2 = r(X+E) and X1 = r(X+X2);
// A3 = r(A2+E), B3 = r(B2+E), U = r(F+G+H+I). It returns every value by its place in the
// record: "points.A", "channels.money", "purposes.sky", "karmic_tail.0", "talents.2",
// "chakras.4.emotions", "chakra_totals.energy", "age_line.12".
func chartOf(d, m, y int) map[string]int {
	r := func(n int) int {
		for n > 22 {
			n = digitSum(strconv.Itoa(n))
		}
		return n
	}
	p := map[string]int{}
	p["A"], p["B"], p["C"] = r(d), r(m), r(digitSum(strconv.Itoa(y)))
	p["D"] = r(p["A"] + p["B"] + p["C"])
	p["E"] = r(p["A"] + p["B"] + p["C"] + p["D"])
	p["F"], p["G"], p["H"], p["I"] = r(p["A"]+p["B"]), r(p["B"]+p["C"]), r(p["C"]+p["D"]), r(p["D"]+p["A"])
	for _, x := range "ABCDFGHI" {
		k := string(x)
		p[k+"2"] = r(p[k] + p["E"])
		p[k+"1"] = r(p[k] + p[k+"2"])
	}
	p["A3"], p["B3"] = r(p["A2"]+p["E"]), r(p["B2"]+p["E"])
	p["U"] = r(p["F"] + p["G"] + p["H"] + p["I"])

	out := map[string]int{}
	for k, v := range p {
		out["points."+k] = v
	}
	// The channels: money enters at C2, relationships at D2, and both meet at the balance.
	balance := r(p["C2"] + p["D2"])
	out["channels.money_entry"], out["channels.relationship_entry"] = p["C2"], p["D2"]
	out["channels.balance"] = balance
	out["channels.money"], out["channels.love"] = r(balance+p["C2"]), r(p["D2"]+balance)
	// The purposes.
	sky, earth := r(p["B"]+p["D"]), r(p["A"]+p["C"])
	male, female := r(p["F"]+p["H"]), r(p["G"]+p["I"])
	personal, social := r(sky+earth), r(male+female)
	spiritual := r(personal + social)
	for k, v := range map[string]int{"sky": sky, "earth": earth, "personal": personal, "male": male, "female": female,
		"social": social, "spiritual": spiritual, "planetary": r(social + spiritual)} {
		out["purposes."+k] = v
	}
	// The karmic tail D, D1, D2 and the talents B, B1, B2.
	for i, s := range []string{"", "1", "2"} {
		out["karmic_tail."+strconv.Itoa(i)], out["talents."+strconv.Itoa(i)] = p["D"+s], p["B"+s]
	}
	// The chakras, top to bottom: physical on the horizontal axis, energy on the vertical,
	// emotions their sum; the totals r of each column's sum.
	var sums [3]int
	for i, pair := range [][2]string{{"A", "B"}, {"A1", "B1"}, {"A2", "B2"}, {"A3", "B3"}, {"E", "E"}, {"C2", "D2"}, {"C", "D"}} {
		row := [3]int{p[pair[0]], p[pair[1]], r(p[pair[0]] + p[pair[1]])}
		for j, col := range chartColumns {
			out["chakras."+strconv.Itoa(i)+"."+col] = row[j]
			sums[j] += row[j]
		}
	}
	for j, col := range chartColumns {
		out["chakra_totals."+col] = r(sums[j])
	}
	// The age line: ten years from each outer point X to the next, Y, in steps of 1.25:
	// X, r(X+P2.5), P2.5 = r(X+P5), r(P2.5+P5), P5 = r(X+Y), r(P5+P7.5), P7.5 = r(P5+Y), r(P7.5+Y).
	outer := []string{"A", "F", "B", "G", "C", "H", "D", "I", "A"}
	for s := range 8 {
		x, y := p[outer[s]], p[outer[s+1]]
		p5 := r(x + y)
		p25, p75 := r(x+p5), r(p5+y)
		for i, v := range []int{x, r(x + p25), p25, r(p25 + p5), p5, r(p5 + p75), p75, r(p75 + y)} {
			out["age_line."+strconv.Itoa(8*s+i)] = v
		}
	}
	return out
}

// digitSum is the sum of the digits of a decimal number written as text.
func digitSum(s string) int {
	n := 0
	for _, c := range s {
		n += int(c - '0')
	}
	return n
}

var (
	chartPointKeys = strings.Fields("A B C D E F G H I A1 A2 B1 B2 C1 C2 D1 D2 F1 F2 G1 G2 H1 H2 I1 I2 A3 B3 U")
	chartChannels  = strings.Fields("money_entry relationship_entry balance money love")
	chartPurposes  = strings.Fields("sky earth personal male female social spiritual planetary")
	chartChakras   = strings.Fields("sahasrara ajna vishuddha anahata manipura svadhisthana muladhara")
	chartColumns   = strings.Fields("physical energy emotions")
)

// checkChart checks the chart record of a date: the field order, the method, every arcanum
// re-derived from the date by the rule (chartOf), the chakras' keys, the age line's ages
// (1.25 years apart from 0), numbers only, the details page as its source, and the licence.
func (s *suite) checkChart(t *testing.T, what string, body []byte, want expect) {
	t.Helper()
	keysInOrder(t, what, body, "input", "method", "points", "channels", "purposes", "karmic_tail", "talents", "chakras",
		"chakra_totals", "age_line", "suggested_citation", "source_url", "disclaimer", "license", "license_url", "attribution", "attribution_html", "api_version")
	var raw struct {
		Points       json.RawMessage   `json:"points"`
		Channels     json.RawMessage   `json:"channels"`
		Purposes     json.RawMessage   `json:"purposes"`
		Chakras      []json.RawMessage `json:"chakras"`
		ChakraTotals json.RawMessage   `json:"chakra_totals"`
	}
	var v struct {
		Input             struct{ Day, Month, Year int }  `json:"input"`
		Method            string                          `json:"method"`
		Points            map[string]int                  `json:"points"`
		Channels          map[string]int                  `json:"channels"`
		Purposes          map[string]int                  `json:"purposes"`
		KarmicTail        []int                           `json:"karmic_tail"`
		Talents           []int                           `json:"talents"`
		Chakras           []map[string]any                `json:"chakras"`
		ChakraTotals      map[string]int                  `json:"chakra_totals"`
		AgeLine           []struct{ Age, Arcana float64 } `json:"age_line"`
		SuggestedCitation string                          `json:"suggested_citation"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	keysInOrder(t, what+" points", raw.Points, chartPointKeys...)
	keysInOrder(t, what+" channels", raw.Channels, chartChannels...)
	keysInOrder(t, what+" purposes", raw.Purposes, chartPurposes...)
	keysInOrder(t, what+" chakra_totals", raw.ChakraTotals, chartColumns...)
	for i, c := range raw.Chakras {
		keysInOrder(t, fmt.Sprintf("%s chakras[%d]", what, i), c, append([]string{"key"}, chartColumns...)...)
	}
	d, m, y := want.date[0], want.date[1], want.date[2]
	if v.Input.Day != d || v.Input.Month != m || v.Input.Year != y {
		t.Errorf("%s: input %+v, want %d.%d.%d", what, v.Input, d, m, y)
	}
	if v.Method != "ladini-22" {
		t.Errorf("%s: method %q, want ladini-22 (docs/design.md §15)", what, v.Method)
	}
	if len(v.KarmicTail) != 3 || len(v.Talents) != 3 || len(v.Chakras) != len(chartChakras) || len(v.AgeLine) != 64 {
		t.Fatalf("%s: %d tail, %d talents, %d chakras, %d ages: want 3, 3, 7, 64", what, len(v.KarmicTail), len(v.Talents), len(v.Chakras), len(v.AgeLine))
	}
	got := map[string]int{}
	for k, n := range v.Points {
		got["points."+k] = n
	}
	for k, n := range v.Channels {
		got["channels."+k] = n
	}
	for k, n := range v.Purposes {
		got["purposes."+k] = n
	}
	for i := range 3 {
		got["karmic_tail."+strconv.Itoa(i)], got["talents."+strconv.Itoa(i)] = v.KarmicTail[i], v.Talents[i]
	}
	for i, c := range v.Chakras {
		if c["key"] != chartChakras[i] {
			t.Errorf("%s: chakras[%d].key is %v, want %s", what, i, c["key"], chartChakras[i])
		}
		for _, col := range chartColumns {
			n, ok := c[col].(float64)
			if !ok || n != float64(int(n)) {
				t.Errorf("%s: chakras[%d].%s is %v, not a whole number", what, i, col, c[col])
			}
			got["chakras."+strconv.Itoa(i)+"."+col] = int(n)
		}
	}
	for k, n := range v.ChakraTotals {
		got["chakra_totals."+k] = n
	}
	for i, a := range v.AgeLine {
		if a.Age != float64(i)*1.25 || a.Arcana != float64(int(a.Arcana)) {
			t.Errorf("%s: age_line[%d] is %+v, want the age %g", what, i, a, float64(i)*1.25)
		}
		got["age_line."+strconv.Itoa(i)] = int(a.Arcana)
	}
	wantVals := chartOf(d, m, y)
	for k, w := range wantVals {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: %s is %d, the rule gives %d", what, k, g, w)
		}
	}
	if len(got) != len(wantVals) {
		t.Errorf("%s: %d arcana in the record, the rule gives %d", what, len(got), len(wantVals))
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	details := fmt.Sprintf("%s/chart/details?date=%04d-%02d-%02d", s.m.SiteURL, y, m, d)
	equal(t, what, rec, "source_url", details)
	if !strings.Contains(v.SuggestedCitation, fmt.Sprintf("%02d.%02d.%04d", d, m, y)) || !strings.HasSuffix(v.SuggestedCitation, details) {
		t.Errorf("%s: suggested_citation %q lacks the date or the details page", what, v.SuggestedCitation)
	}
	s.checkLicence(t, what, rec)
}

// checkChartMeanings checks the texts of the chart: the method, the intro, the zones (each
// with a key, a title and a description; the points' and the reading zones' among them), and
// for the money channel, the love channel and the karmic tail the record fields they read
// and a reading of each arcanum those fields hold, in ascending order, 1–22.
func (s *suite) checkChartMeanings(t *testing.T, what string, body []byte) {
	t.Helper()
	keysInOrder(t, what, body, "method", "intro", "zones", "readings", "suggested_citation", "source_url", "disclaimer",
		"license", "license_url", "attribution", "attribution_html", "api_version")
	var v struct {
		Method string `json:"method"`
		Intro  string `json:"intro"`
		Zones  []struct {
			Key, Title, Description string
			Term                    *string
		} `json:"zones"`
		Readings map[string]struct {
			Zone     string   `json:"zone"`
			Fields   []string `json:"fields"`
			Readings []struct {
				Arcana  int    `json:"arcana"`
				Reading string `json:"reading"`
			} `json:"readings"`
		} `json:"readings"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var raw struct {
		Readings json.RawMessage `json:"readings"`
	}
	_ = json.Unmarshal(body, &raw)
	keysInOrder(t, what+" readings", raw.Readings, "money", "love", "karmic_tail")
	if v.Method != "ladini-22" || v.Intro == "" {
		t.Errorf("%s: method %q, intro %q", what, v.Method, v.Intro)
	}
	zones := map[string]bool{}
	for _, z := range v.Zones {
		if z.Key == "" || z.Title == "" || z.Description == "" || z.Term == nil {
			t.Errorf("%s: zone %+v", what, z)
		}
		zones[z.Key] = true
	}
	for _, k := range slices.Concat(chartPointKeys[:9], []string{"U", "inner", "karmic_tail", "talents", "chakras", "age_line"}, chartChakras, chartColumns) {
		if !zones[k] {
			t.Errorf("%s: no zone %s", what, k)
		}
	}
	fields := map[string]string{
		"money":       "channels.money_entry channels.money channels.balance",
		"love":        "channels.relationship_entry channels.love channels.balance",
		"karmic_tail": "karmic_tail[0] karmic_tail[1] karmic_tail[2]",
	}
	if len(v.Readings) != len(fields) {
		t.Errorf("%s: %d reading zones, want %d", what, len(v.Readings), len(fields))
	}
	for key, want := range fields {
		set, ok := v.Readings[key]
		if !ok || strings.Join(set.Fields, " ") != want || !zones[set.Zone] || len(set.Readings) == 0 {
			t.Errorf("%s: readings.%s is %+v, want the fields %s and a zone of zones", what, key, set, want)
			continue
		}
		for j, r := range set.Readings {
			if r.Reading == "" || r.Arcana < 1 || r.Arcana > 22 || (j > 0 && r.Arcana <= set.Readings[j-1].Arcana) {
				t.Errorf("%s: readings.%s.readings[%d] is %+v", what, key, j, r)
			}
		}
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	equal(t, what, rec, "source_url", s.m.SiteURL+"/chart")
	isString(t, what, rec, "suggested_citation")
	s.checkLicence(t, what, rec)
}
