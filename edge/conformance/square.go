package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// squareCases are the §3 cases of the Pythagoras square's routes, which share the scope
// /square: three segments are a date's (400 Invalid date when they are not a date of the
// range), "meanings" is the texts' route, and the scope itself and any other shape answer
// the date route's error. The dates include one whose W3 is below zero (09.01.2000).
func (s *suite) squareCases() []tcase {
	if s.row(routeSquare).Name == "" {
		return nil // a tree of another build
	}
	y := s.year
	ys := strconv.Itoa(y)
	sq := func(rest string) string { return s.m.Edge.Prefix + "/square" + rest }
	at := func(d, m, y int) expect { return s.rowExpect(s.row(routeSquare), []int{d, m, y}) }
	meanings := s.fileExpect(s.row(routeSquareMeanings).File, kindSquareMeanings)
	return []tcase{
		{name: "square", path: sq("/15/5/" + ys), want: at(15, 5, y)},
		{name: "square leading zeros", path: sq("/015/05/" + ys), want: at(15, 5, y)},
		{name: "square trailing slash", path: sq("/1/1/" + ys + "/"), want: at(1, 1, y)},
		{name: "square first", path: sq("/1/1/1900"), want: at(1, 1, 1900)},
		{name: "square last", path: sq("/31/12/2100"), want: at(31, 12, 2100)},
		{name: "square W3 below zero", path: sq("/9/1/2000"), want: at(9, 1, 2000)},
		{name: "square 29.02.2000", path: sq("/29/2/2000"), want: at(29, 2, 2000)},
		{name: "square 29.02.1900", path: sq("/29/2/1900"), want: invalidDate},
		{name: "square 30.02", path: sq("/30/2/" + ys), want: invalidDate},
		{name: "square year 1899", path: sq("/31/12/1899"), want: invalidDate},
		{name: "square year 2101", path: sq("/1/1/2101"), want: invalidDate},
		{name: "square non-numeric", path: sq("/a/b/c"), want: invalidDate},
		{name: "square percent-encoded", path: sq("/%31/1/" + ys), want: invalidDate},
		{name: "square four segments", path: sq("/1/1/" + ys + "/1"), want: invalidDate},
		{name: "square two segments", path: sq("/1/1"), want: invalidDate},
		{name: "square scope", path: sq(""), want: invalidDate},
		{name: "square scope trailing slash", path: sq("/"), want: invalidDate},
		{name: "square prefix word", path: s.m.Edge.Prefix + "/squares/1/1/" + ys, want: notFound},
		{name: "square meanings", path: sq("/meanings"), want: meanings},
		{name: "square meanings trailing slash", path: sq("/meanings/"), want: meanings},
		{name: "square meanings extra segment", path: sq("/meanings/1"), want: notFound},
		{name: "square meanings.json is not a route", path: sq("/meanings.json"), want: invalidDate},
		{name: "HEAD square", method: http.MethodHead, path: sq("/15/5/" + ys), want: at(15, 5, y)},
		{name: "HEAD square invalid", method: http.MethodHead, path: sq("/30/2/" + ys), want: invalidDate},
		{name: "HEAD square meanings", method: http.MethodHead, path: sq("/meanings"), want: meanings},
	}
}

// squareOf is the Pythagoras square of a date by the words of docs/design.md §14, written
// apart from the generator: the digits of the day and month without leading zeros and the
// year's four; W1 their sum, W2 the sum of W1's digits, W3 W1 minus twice the day's first
// digit, W4 the sum of the digits of W3 without its sign; each cell 1–9 counts its digit
// among the date's and the working numbers', zeros and signs aside.
func squareOf(d, m, y int) (w [4]int, counts [9]int) {
	digitSum := func(s string) int {
		n := 0
		for _, c := range strings.TrimPrefix(s, "-") {
			n += int(c - '0')
		}
		return n
	}
	date := strconv.Itoa(d) + strconv.Itoa(m) + strconv.Itoa(y)
	w[0] = digitSum(date)
	w[1] = digitSum(strconv.Itoa(w[0]))
	w[2] = w[0] - 2*int(strconv.Itoa(d)[0]-'0')
	w[3] = digitSum(strconv.Itoa(w[2]))
	all := date
	for _, n := range w {
		all += strings.TrimPrefix(strconv.Itoa(n), "-")
	}
	for c := '1'; c <= '9'; c++ {
		counts[c-'1'] = strings.Count(all, string(c))
	}
	return w, counts
}

// squareLines are the eight lines in contract order, with their cells.
var squareLines = []struct {
	key   string
	cells string
}{
	{"purpose", "147"}, {"family", "258"}, {"habits", "369"}, {"self_esteem", "123"},
	{"household", "456"}, {"talent", "789"}, {"spirituality", "159"}, {"temperament", "357"},
}

// checkSquare checks the square record of a date: field order, the working numbers, cells
// and line sums by the rule, each cell's name and reading as the meanings give them, the
// details page as its source and the licence.
func (s *suite) checkSquare(t *testing.T, what string, body []byte, want expect) {
	t.Helper()
	keysInOrder(t, what, body, "input", "working_numbers", "cells", "lines", "suggested_citation", "source_url",
		"disclaimer", "license", "license_url", "attribution", "attribution_html", "api_version")
	var v struct {
		Input          struct{ Day, Month, Year int } `json:"input"`
		WorkingNumbers []int                          `json:"working_numbers"`
		Cells          map[string]struct {
			Digits  *string `json:"digits"`
			Count   int     `json:"count"`
			Name    string  `json:"name"`
			Reading string  `json:"reading"`
		} `json:"cells"`
		Lines             map[string]int `json:"lines"`
		SuggestedCitation string         `json:"suggested_citation"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var raw struct {
		Cells, Lines json.RawMessage
	}
	_ = json.Unmarshal(body, &raw)
	keysInOrder(t, what+" cells", raw.Cells, "1", "2", "3", "4", "5", "6", "7", "8", "9")
	var keys []string
	for _, l := range squareLines {
		keys = append(keys, l.key)
	}
	keysInOrder(t, what+" lines", raw.Lines, keys...)
	d, m, y := want.date[0], want.date[1], want.date[2]
	if v.Input.Day != d || v.Input.Month != m || v.Input.Year != y {
		t.Errorf("%s: input %+v, want %d.%d.%d", what, v.Input, d, m, y)
	}
	w, counts := squareOf(d, m, y)
	if fmt.Sprint(v.WorkingNumbers) != fmt.Sprint(w[:]) {
		t.Errorf("%s: working_numbers %v, the rule gives %v", what, v.WorkingNumbers, w)
	}
	texts := s.squareTexts(t)
	for c := 1; c <= 9; c++ {
		cell, ok := v.Cells[strconv.Itoa(c)]
		n := counts[c-1]
		if !ok || cell.Digits == nil || *cell.Digits != strings.Repeat(strconv.Itoa(c), n) || cell.Count != n {
			t.Errorf("%s: cell %d is %+v, the rule gives %d digits", what, c, cell, n)
			continue
		}
		if tx := texts[c-1]; cell.Name != tx.name || cell.Reading != tx.readings[n] || cell.Reading == "" {
			t.Errorf("%s: cell %d is named %q and read %q; the meanings say %q and %q", what, c, cell.Name, cell.Reading, tx.name, tx.readings[n])
		}
	}
	for _, l := range squareLines {
		sum := 0
		for _, c := range l.cells {
			sum += counts[c-'1']
		}
		if got, ok := v.Lines[l.key]; !ok || got != sum {
			t.Errorf("%s: line %s is %d, the rule gives %d", what, l.key, got, sum)
		}
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	details := fmt.Sprintf("%s/square/details?date=%04d-%02d-%02d", s.m.SiteURL, y, m, d)
	equal(t, what, rec, "source_url", details)
	if !strings.Contains(v.SuggestedCitation, fmt.Sprintf("%02d.%02d.%04d", d, m, y)) || !strings.HasSuffix(v.SuggestedCitation, details) {
		t.Errorf("%s: suggested_citation %q lacks the date or the details page", what, v.SuggestedCitation)
	}
	s.checkLicence(t, what, rec)
}

// squareText is what /square/meanings says of one cell.
type squareText struct {
	name     string
	readings map[int]string
}

// squareTexts reads the cells' names and readings from the tree's /square/meanings.
func (s *suite) squareTexts(t *testing.T) []squareText {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.target.TreeDir, filepath.FromSlash(s.row(routeSquareMeanings).File)))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cells []struct {
			Name     string `json:"name"`
			Readings []struct {
				Count   int    `json:"count"`
				Reading string `json:"reading"`
			} `json:"readings"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &v); err != nil || len(v.Cells) != 9 {
		t.Fatalf("square meanings: %d cells (%v)", len(v.Cells), err)
	}
	var out []squareText
	for _, c := range v.Cells {
		tx := squareText{c.Name, map[int]string{}}
		for _, r := range c.Readings {
			tx.readings[r.Count] = r.Reading
		}
		out = append(out, tx)
	}
	return out
}

// checkSquareMeanings checks the texts of the square: the grid's layout, three bands, nine
// cells in order, each with a reading for every count, eight lines with their cells.
func (s *suite) checkSquareMeanings(t *testing.T, what string, body []byte) {
	t.Helper()
	keysInOrder(t, what, body, "layout", "bands", "cells", "lines", "suggested_citation", "source_url",
		"disclaimer", "license", "license_url", "attribution", "attribution_html", "api_version")
	var v struct {
		Layout [][]int `json:"layout"`
		Bands  []struct {
			Key      string `json:"key"`
			Min, Max int
		} `json:"bands"`
		Cells []struct {
			Cell        int    `json:"cell"`
			Name        string `json:"name"`
			Description string `json:"description"`
			Readings    []struct {
				Count   int    `json:"count"`
				Reading string `json:"reading"`
			} `json:"readings"`
		} `json:"cells"`
		Lines []struct {
			Key         string            `json:"key"`
			Name        string            `json:"name"`
			Cells       []int             `json:"cells"`
			Description string            `json:"description"`
			Readings    map[string]string `json:"readings"`
		} `json:"lines"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if fmt.Sprint(v.Layout) != "[[1 4 7] [2 5 8] [3 6 9]]" {
		t.Errorf("%s: layout %v", what, v.Layout)
	}
	if len(v.Bands) != 3 || v.Bands[0].Key != "low" || v.Bands[1].Key != "medium" || v.Bands[2].Key != "high" {
		t.Errorf("%s: bands %+v", what, v.Bands)
	}
	if len(v.Cells) != 9 {
		t.Fatalf("%s: %d cells", what, len(v.Cells))
	}
	for i, c := range v.Cells {
		if c.Cell != i+1 || c.Name == "" || c.Description == "" || len(c.Readings) == 0 {
			t.Errorf("%s: cell %d: %d %q, %d readings", what, i+1, c.Cell, c.Name, len(c.Readings))
		}
		for j, r := range c.Readings {
			if r.Reading == "" || (j > 0 && r.Count <= c.Readings[j-1].Count) {
				t.Errorf("%s: cell %d, count %d: %q", what, c.Cell, r.Count, r.Reading)
			}
		}
	}
	if len(v.Lines) != len(squareLines) {
		t.Fatalf("%s: %d lines", what, len(v.Lines))
	}
	for i, l := range v.Lines {
		want := squareLines[i]
		if l.Key != want.key || fmt.Sprint(l.Cells) != fmt.Sprint([]int{int(want.cells[0] - '0'), int(want.cells[1] - '0'), int(want.cells[2] - '0')}) ||
			l.Name == "" || l.Description == "" || l.Readings["low"] == "" || l.Readings["medium"] == "" || l.Readings["high"] == "" {
			t.Errorf("%s: line %d: %+v", what, i, l)
		}
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	equal(t, what, rec, "source_url", s.m.SiteURL+"/square")
	isString(t, what, rec, "suggested_citation")
	s.checkLicence(t, what, rec)
}
