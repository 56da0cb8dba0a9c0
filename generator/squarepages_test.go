package generator

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
	"github.com/opennumerology/numerology/generator/rules"
)

// TestSquarePages checks what the square's pages carry: /square the form, the worked
// example drawn by the rule, every cell's and line's texts and readings, the links to the
// API and the citation; /square/details the script and the data it draws a date with; the
// home page and llms.txt a link to /square; and that the source_url of the records and of
// the meanings are pages of the tree.
func TestSquarePages(t *testing.T) {
	s, tree := sharedTree(t)
	read := func(f string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		// The pages are typeset (typography.go): a short word is bound to the next by a
		// no-break space. The texts are compared with ordinary spaces.
		return strings.ReplaceAll(html.UnescapeString(string(b)), "\u00a0", " ")
	}
	m, err := s.SquareMeanings()
	if err != nil {
		t.Fatal(err)
	}
	page := read(SquarePage)
	want := []string{
		`action="/square/details"`, `type="date" name="date"`, `<label for="square-date">`,
		`href="/square/details?date=1990-05-15"`, `href="/api/public/square/15/5/1990"`, `href="/api/public/square/meanings"`,
		"1 5 5 1 9 9 0", "1 + 5 + 5 + 1 + 9 + 9 + 0 = 30", "30 − 2 × 1 = 28", "2 + 8 = 10", "12 − 2 × 9 = −6",
		m.SuggestedCitation, `href="/assets/square.css"`,
	}
	for _, c := range m.Cells {
		want = append(want, "Клетка "+strconv.Itoa(c.Cell)+": "+c.Name, firstWords(c.Description))
		for _, r := range c.Readings {
			want = append(want, r.Reading)
		}
	}
	for _, l := range m.Lines {
		want = append(want, l.Name, firstWords(l.Description), l.Readings.Low, l.Readings.Medium, l.Readings.High)
	}
	for _, w := range want {
		// The records' texts carry their no-break spaces too (texttypography.go).
		if !strings.Contains(page, strings.ReplaceAll(w, "\u00a0", " ")) {
			t.Errorf("%s lacks %q", SquarePage, w)
		}
	}
	// The example's grid: every cell's digits and every line's sum, as the rule gives them.
	sq := rules.ComputeSquare(15, 5, 1990)
	for c := 1; c <= 9; c++ {
		digits := sq.Digits(c)
		if digits == "" {
			digits = "—"
		}
		cell := regexp.MustCompile(`data-cell="` + strconv.Itoa(c) + `"><span class="sq-cell-name">[^<]*</span> <span class="sq-cell-digits">([^<]*)</span>`).FindStringSubmatch(page)
		if cell == nil || cell[1] != digits {
			t.Errorf("the example shows cell %d as %q, want %q", c, cell, digits)
		}
	}
	for l := range rules.NumSquareLines {
		key := rules.SquareLine(l).Key()
		sum := regexp.MustCompile(`data-line="` + key + `"><span class="sq-sum-name">[^<]*</span> <span class="sq-sum-num">([0-9]+)</span>`).FindStringSubmatch(page)
		if sum == nil || sum[1] != strconv.Itoa(sq.Lines[l]) {
			t.Errorf("the example shows line %s as %q, want %d", key, sum, sq.Lines[l])
		}
	}

	details := read(SquareDetailsPage)
	for _, w := range []string{`src="/assets/square.js"`, `id="square-data"`, `id="grid"`, `id="status"`, `id="api-status"`, `aria-live="polite"`, `href="/assets/square.css"`} {
		if !strings.Contains(details, w) {
			t.Errorf("%s lacks %q", SquareDetailsPage, w)
		}
	}
	data := regexp.MustCompile(`(?s)<script type="application/json" id="square-data">(.*?)</script>`).FindStringSubmatch(string(mustRead(t, tree, SquareDetailsPage)))
	if data == nil {
		t.Fatal("the details page has no data block")
	}
	var v struct {
		Citation string `json:"citation"`
		Cells    []struct {
			Name     string            `json:"name"`
			Readings map[string]string `json:"readings"`
		} `json:"cells"`
		Lines []struct {
			Key   string `json:"key"`
			Cells [3]int `json:"cells"`
		} `json:"lines"`
	}
	if err := json.Unmarshal([]byte(data[1]), &v); err != nil {
		t.Fatalf("the details page's data: %v", err)
	}
	if len(v.Cells) != 9 || len(v.Lines) != rules.NumSquareLines || !strings.Contains(v.Citation, "{date}") || !strings.Contains(v.Citation, "{url}") {
		t.Errorf("the details page's data: %d cells, %d lines, citation %q", len(v.Cells), len(v.Lines), v.Citation)
	}
	for i, c := range v.Cells {
		if c.Name != m.Cells[i].Name || len(c.Readings) != len(m.Cells[i].Readings) {
			t.Errorf("the details page's cell %d: %q with %d readings", i+1, c.Name, len(c.Readings))
		}
	}
	for l, line := range v.Lines {
		if line.Key != rules.SquareLine(l).Key() || line.Cells != rules.SquareLine(l).Cells() {
			t.Errorf("the details page's line %d: %+v", l, line)
		}
	}

	if home := read(HomePage); !strings.Contains(home, `href="/square"`) || !strings.Contains(home, `href="/api/public/square/15/5/1990"`) {
		t.Error("the home page links neither /square nor the square route's example")
	}
	if llms := read(LLMsFile); !strings.Contains(llms, "]("+s.SiteURL+"/square)") || !strings.Contains(llms, "]("+s.APIBase+"/square/15/5/1990)") {
		t.Error("llms.txt links neither /square nor the square route's example")
	}

	var links []string
	for _, f := range []string{route(RouteSquare).FilePath([]int{1, 1, 1900}), route(RouteSquare).FilePath([]int{31, 12, 2100}), route(RouteSquareMeanings).FilePath(nil)} {
		var rec struct {
			SourceURL string `json:"source_url"`
		}
		readJSON(t, tree, f, &rec)
		links = append(links, rec.SourceURL)
	}
	for _, l := range links {
		p, ok := strings.CutPrefix(l, s.SiteURL)
		p, _, _ = strings.Cut(p, "?")
		if !ok || resolvePage(t, tree, p) == "" {
			t.Errorf("source_url %s is not a page of the tree", l)
		}
	}
}

func mustRead(t *testing.T, tree, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstWords returns a text's first three words, which html/template leaves as they are.
func firstWords(text string) string { return strings.Join(strings.Fields(text)[:3], " ") }
