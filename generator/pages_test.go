package generator

import (
	"html"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// resolvePage maps a URL path to a file of the tree as the edges do for non-API paths
// (Cloudflare's html_handling "auto-trailing-slash"): the exact file, else path + ".html",
// else path + "/index.html". It returns "" when none exists.
func resolvePage(t *testing.T, tree, urlPath string) string {
	t.Helper()
	p := strings.TrimPrefix(path.Clean("/"+urlPath), "/")
	var candidates []string
	if p == "" {
		candidates = []string{"index.html"}
	} else {
		candidates = []string{p, p + ".html", p + "/index.html"}
	}
	for _, c := range candidates {
		if fi, err := os.Stat(filepath.Join(tree, filepath.FromSlash(c))); err == nil && fi.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

func readJSON(t *testing.T, tree, rel string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

// TestPageURLsResolve checks that every source_url and details_url the generator emits —
// all life path records, the list and a sample of matrix records — is a page of the tree.
func TestPageURLsResolve(t *testing.T) {
	s, tree := sharedTree(t)
	type link struct{ from, url string }
	var links []link
	for _, n := range rules.LifePathNumbers {
		var rec LifePathRecord
		readJSON(t, tree, routeFile(RouteLifePath, n), &rec)
		links = append(links, link{routeFile(RouteLifePath, n), rec.SourceURL})
	}
	var list []LifePathItem
	readJSON(t, tree, routeFile(RouteLifePathList), &list)
	for _, it := range list {
		links = append(links, link{routeFile(RouteLifePathList), it.SourceURL})
	}
	for _, d := range [][3]int{{1, 1, 1900}, {28, 2, 1900}, {31, 12, 2100}, {15, 5, 1990}, {1, 10, 1990}, {29, 2, 2100 - 4}} {
		if !slices.Contains(sharedYears, d[2]) {
			continue // only the tree's years
		}
		var rec MatrixRecord
		f := routeFile(RouteMatrix, d[0], d[1], d[2])
		readJSON(t, tree, f, &rec)
		links = append(links, link{f, rec.SourceURL}, link{f, rec.DetailsURL})
	}
	var idx APIIndex
	readJSON(t, tree, routeFile(RouteIndex), &idx)
	links = append(links, link{routeFile(RouteIndex), idx.Docs}, link{routeFile(RouteIndex), idx.LLMsTxt})

	if len(links) < 12+12+2*5+2 {
		t.Fatalf("only %d links collected", len(links))
	}
	for _, l := range links {
		t.Run(l.url, func(t *testing.T) {
			rest, ok := strings.CutPrefix(l.url, s.SiteURL)
			if !ok {
				t.Fatalf("%s: %s is not under the site URL %s", l.from, l.url, s.SiteURL)
			}
			p, _, _ := strings.Cut(rest, "?")
			if got := resolvePage(t, tree, p); got == "" {
				t.Errorf("%s: %s resolves to no file of the tree", l.from, l.url)
			}
		})
	}
}

// TestPageFiles checks the list of page files and their basic well-formedness.
func TestPageFiles(t *testing.T) {
	_, tree := sharedTree(t)
	want := []string{HomePage, LifePathListPage, MatrixPage, DetailsPage, manifest.NotFoundPage, LLMsFile, SitemapFile, RobotsFile,
		"assets/site.css", "assets/details.js", "assets/favicon.svg", routeFile(RouteOpenAPI),
		SquarePage, SquareDetailsPage, "assets/square.js", "assets/square.css"}
	for _, n := range rules.LifePathNumbers {
		want = append(want, LifePathPage(n))
	}
	m, err := manifest.Load(tree)
	if err != nil {
		t.Fatal(err)
	}
	idx := m.Index()
	for _, f := range want {
		if idx[f] == nil {
			t.Errorf("%s is not in the manifest", f)
		}
	}
	for _, f := range want {
		if !strings.HasSuffix(f, ".html") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(tree, f))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		for _, must := range []string{`<!doctype html>`, `<html lang="ru">`, `<meta name="viewport"`, `<main id="main"`, `<h1`, `</html>`} {
			if !strings.Contains(page, must) {
				t.Errorf("%s lacks %s", f, must)
			}
		}
		if strings.Count(page, "<h1") != 1 {
			t.Errorf("%s has %d h1 elements, want 1", f, strings.Count(page, "<h1"))
		}
	}
}

// externalRef finds resources a page would load from elsewhere: scripts, styles, images,
// fonts and imports with an absolute or protocol-relative URL.
var externalRef = regexp.MustCompile(`(?i)(<script[^>]+src|<link[^>]+href|<img[^>]+src|<iframe[^>]+src|@import|url\()\s*=?\s*["']?(https?:)?//`)

// TestPagesSelfContained checks that no page or asset loads anything from another host.
func TestPagesSelfContained(t *testing.T) {
	s, tree := sharedTree(t)
	err := filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := filepath.Ext(p)
		if ext != ".html" && ext != ".css" && ext != ".js" && ext != ".svg" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// The canonical link names the page's own public URL; it loads nothing.
		text := strings.ReplaceAll(string(b), `<link rel="canonical" href="`+s.SiteURL, `<link rel="canonical" href="`)
		if m := externalRef.FindString(text); m != "" {
			rel, _ := filepath.Rel(tree, p)
			t.Errorf("%s loads an external resource: %s", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPagesContent checks that each page carries what the issue asks of it.
func TestPagesContent(t *testing.T) {
	s, tree := sharedTree(t)
	read := func(f string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	home := read(HomePage)
	cfg, err := s.EdgeConfig()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		page string
		want []string
	}{
		{"home routes", home, []string{
			`href="/api/public"`, `href="/api/public/openapi.json"`, `href="/api/public/life-path"`,
			`href="/api/public/life-path/7"`, `href="/api/public/matrix/15/5/1990"`, `href="/llms.txt"`,
		}},
		{"home attribution", home, []string{
			// The copyable HTML, escaped once inside <pre>, and the rendered link.
			escapeText(s.AttributionHTML),
			s.AttributionHTML, "CC&nbsp;BY&nbsp;4.0", LicenseURL,
		}},
		{"home limits and dataset", home, []string{
			strconv.Itoa(cfg.RateLimit.Requests) + " запросов в минуту", "Retry-After",
			`href="/downloads/` + DatasetBaseName + `.zip"`, `href="/downloads/chart.jsonl.gz"`,
			`href="/downloads/personal-year.jsonl.gz"`,
		}},
		{"home method", home, []string{"R(A + B + C)", "R(B + E)", "R(C + D)", "сумма цифр года"}},
		{"home errors", home, []string{"Invalid date", "Number not found", "Not found", "Method not allowed", "Too many requests", "Internal error"}},
		{"matrix form", read(MatrixPage), []string{`action="/matrix/details"`, `type="date" name="date"`, `<label for="matrix-date">`}},
		{"details script", read(DetailsPage), []string{`src="/assets/details.js"`, `id="matrix-data"`, `"key":"personal"`, `"key":"purpose"`, `id="status"`, `aria-live="polite"`}},
	}
	for _, p := range s.Content.Positions {
		tests = append(tests, struct {
			name string
			page string
			want []string
		}{"matrix position " + p.Key, read(MatrixPage), []string{p.Title}})
	}
	for i := range s.Content.LifePaths {
		lp := &s.Content.LifePaths[i]
		rec := s.LifePathRecord(lp)
		want := []string{rec.Archetype, rec.Tagline, rec.ShortDescription, rec.SuggestedCitation, rec.Attribution, s.Content.Site.LicenseName,
			rec.LicenseURL, "версия API " + rec.APIVersion, rec.SourceURL, `href="/api/public/life-path/` + strconv.Itoa(lp.Number) + `"`}
		want = append(want, rec.Traits...)
		want = append(want, rec.Weaknesses...)
		want = append(want, rec.Career...)
		for _, p := range rec.FamousPeople {
			want = append(want, p.Name, p.Field)
		}
		// Paragraph texts: check each paragraph's first words, which html/template leaves as they are.
		for _, text := range []string{rec.Description, rec.Love, rec.Advice} {
			for _, para := range strings.Split(text, "\n\n") {
				want = append(want, strings.Join(strings.Fields(para)[:3], " "))
			}
		}
		tests = append(tests, struct {
			name string
			page string
			want []string
		}{"life path " + strconv.Itoa(lp.Number), read(LifePathPage(lp.Number)), want})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.page, ".tar.gz") {
				t.Errorf("page links a .tar.gz, which pack no longer writes (docs/design.md §11)")
			}
			text := html.UnescapeString(tt.page)
			// The typography step (typography.go) binds spaces: compare texts without it.
			plain := strings.ReplaceAll(text, "\u00a0", " ")
			for _, w := range tt.want {
				if !strings.Contains(tt.page, w) && !strings.Contains(text, w) && !strings.Contains(plain, w) {
					t.Errorf("page lacks %q", w)
				}
			}
		})
	}
}

// escapeText escapes text as html/template does in element content.
func escapeText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// TestLLMsTxt checks the llmstxt.org shape: a title, a summary quote, sections of links,
// the MCP endpoint among them (docs/mcp.md).
func TestLLMsTxt(t *testing.T) {
	s, tree := sharedTree(t)
	b, err := os.ReadFile(filepath.Join(tree, LLMsFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "# ") {
		t.Errorf("first line %q is not an H1", lines[0])
	}
	if !strings.HasPrefix(lines[2], "> ") {
		t.Errorf("third line %q is not the summary blockquote", lines[2])
	}
	for _, want := range []string{
		"## API", "## Docs", "## Dataset", "## Optional",
		"](" + s.APIBase + ")", "](" + s.APIBase + "/openapi.json)", "](" + s.APIBase + "/matrix/15/5/1990)",
		"](" + s.SiteURL + "/downloads/" + DatasetBaseName + ".zip)", "](" + s.SiteURL + "/downloads/matrix.jsonl.gz)", "Retry-After",
		"## MCP", "[" + s.SiteURL + manifest.MCPPath + "](" + s.SiteURL + manifest.MCPPath + ")", "`numerology mcp --dir out`",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("llms.txt lacks %q", want)
		}
	}
}

// TestHomeNamesMCP checks that the home page names the MCP endpoint by its full address,
// as index.json's "mcp" does (TestGolden pins that).
func TestHomeNamesMCP(t *testing.T) {
	s, tree := sharedTree(t)
	b, err := os.ReadFile(filepath.Join(tree, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "<code>" + s.SiteURL + manifest.MCPPath + "</code>"; !strings.Contains(string(b), want) {
		t.Errorf("index.html lacks the MCP endpoint %s", want)
	}
}

// TestOperationIDs pins the operationId of every GET in the OpenAPI document: generated
// clients name their methods after them (getChart, getChartMeanings of issue 28 among
// them), so a rename breaks users' code and must be a deliberate change of this list.
func TestOperationIDs(t *testing.T) {
	doc, err := testSite(t).OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"":                                    "getIndex",
		"/openapi.json":                       "getOpenAPI",
		"/life-path":                          "listLifePaths",
		"/life-path/{number}":                 "getLifePath",
		"/life-path/{day}/{month}/{year}":     "getLifePathOfDate",
		"/matrix/{day}/{month}/{year}":        "getMatrix",
		"/positions":                          "listPositions",
		"/arcana":                             "listArcana",
		"/arcana/{number}":                    "getArcanum",
		"/compatibility/{a}/{b}":              "getCompatibility",
		"/square/meanings":                    "getSquareMeanings",
		"/square/{day}/{month}/{year}":        "getSquare",
		"/chart/meanings":                     "getChartMeanings",
		"/chart/{day}/{month}/{year}":         "getChart",
		"/personal-year/meanings":             "getPersonalYearMeanings",
		"/personal-year/{day}/{month}/{year}": "getPersonalYear",
	}
	got := map[string]string{}
	for path, item := range doc["paths"].(obj) {
		get, _ := item.(obj)["get"].(obj)
		id, _ := get["operationId"].(string)
		got[strings.TrimPrefix(path, manifest.APIPrefix)] = id
	}
	for path, id := range want {
		if got[path] != id {
			t.Errorf("GET %s: operationId %q, want %q", manifest.APIPrefix+path, got[path], id)
		}
	}
	for path, id := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("GET %s (operationId %q) is not in this test's list: add it", manifest.APIPrefix+path, id)
		}
	}
}

// TestOpenAPIDocument checks that the document covers the route table and the prebuilt
// errors, and is byte-identical across builds.
func TestOpenAPIDocument(t *testing.T) {
	s := testSite(t)
	doc, err := s.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	b1, err := Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc2, _ := s.OpenAPI()
	b2, _ := Encode(doc2)
	if string(b1) != string(b2) {
		t.Error("two builds of the OpenAPI document differ")
	}
	paths := doc["paths"].(obj)
	// Every route, once, with the operations clients call: GET and the preflight (405, the
	// trailing slash and the paths no route matches are in the description;
	// generator/openapitest checks the rest of the shape).
	for _, r := range Routes() {
		item, ok := paths[r.Pattern].(obj)
		if !ok {
			t.Errorf("%s has no path in the document", r.Pattern)
			continue
		}
		for _, method := range []string{"get", "options"} {
			if item[method] == nil {
				t.Errorf("%s has no %s operation", r.Pattern, method)
			}
		}
	}
	if len(paths) != len(Routes()) {
		t.Errorf("the document has %d paths, want one per route, %d", len(paths), len(Routes()))
	}
	if sec, ok := doc["security"].([]any); !ok || len(sec) != 0 {
		t.Errorf("security = %v, want [] (no route needs credentials)", doc["security"])
	}
	cfg, _ := s.EdgeConfig()
	responses := doc["components"].(obj)["responses"].(obj)
	var examples []any
	for _, r := range responses {
		if c, ok := r.(obj)["content"].(obj); ok {
			examples = append(examples, c["application/json"].(obj)["example"])
		}
	}
	for key, e := range cfg.Errors {
		var body any
		if err := json.Unmarshal([]byte(e.Body), &body); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(examples, func(ex any) bool { return reflect.DeepEqual(ex, body) }) {
			t.Errorf("error %s: its exact body is not an example of the document", key)
		}
	}
}

// BenchmarkWritePages renders every page, llms.txt and the OpenAPI document in memory.
func BenchmarkWritePages(b *testing.B) {
	s := testSite(b)
	var n int
	for b.Loop() {
		n = 0
		files, err := renderPages(s)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range files {
			n += len(f.body)
		}
	}
	b.ReportMetric(float64(n), "bytes/op-out")
}
