package assetsignore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestIgnore pins the readings of npm's ignore 5.3.1 that wrangler relies on and that a
// plain gitignore reading gets wrong; edge/worker's TestAssetsIgnoreMatchesNpmIgnore checks
// these and many more against the npm package itself.
func TestIgnore(t *testing.T) {
	tests := []struct {
		name     string
		patterns string
		path     string
		want     bool
	}{
		{"defaults: the ignore file", "", ".assetsignore", true},
		{"defaults: _headers", "", "_headers", true},
		{"defaults: _redirects", "", "_redirects", true},
		{"defaults: anchored at the root", "", "docs/_headers", false},
		{"defaults: other files", "", "index.html", false},
		{"case-insensitive", "/API/Public/Matrix/\n", "api/public/matrix/1/1/2000.json", true},
		{"case-insensitive: the path's case", "*.json\n", "API/X.JSON", true},
		{"byte-order mark stripped", "\ufeff/index.html\n", "index.html", true},
		{"a byte-order mark makes a comment a rule", "\ufeff#x\n", "#x", true},
		{"trailing spaces and tabs trimmed", "/index.html \t \n", "index.html", true},
		{"escaped trailing space kept", "foo\\ \n", "foo ", true},
		{"trailing unescaped backslash drops the rule", "*\\\n", "a", false},
		{"trailing escaped backslash kept", "foo\\\\\n", "foo\\", true},
		{"CRLF line ends", "/index.html\r\n/404.html\r\n", "404.html", true},
		{"anchored directory", "/api/public/matrix/\n", "api/public/matrix/1/1/2000.json", true},
		{"anchored directory, its sibling", "/api/public/matrix/\n", "api/public/matrix-months/2000/1.jsonl", false},
		{"anchored directory, not a file of that name", "/api/public/matrix/\n", "api/public/matrix", false},
		{"name at any depth", "*.map\n", "assets/js/app.js.map", true},
		{"slash in the middle anchors", "public/x.json\n", "api/public/x.json", false},
		{"star stays in a segment", "/api/*.json\n", "api/public/x.json", false},
		{"** next to slashes spans folders", "/api/**/x.json\n", "api/public/deep/x.json", true},
		{"** next to slashes: zero folders", "/api/**/x.json\n", "api/x.json", true},
		{"** not next to a slash stays in a segment", "/api/**x.json\n", "api/public/x.json", false},
		{"** not next to a slash within a segment", "/api/**x.json\n", "api/abcx.json", true},
		{"trailing /** holds everything inside", "/downloads/**\n", "downloads/a/b.zip", true},
		{"question mark: one character", "/life-path/?.html\n", "life-path/33.html", false},
		{"character class", "/life-path/[0-5].html\n", "life-path/4.html", true},
		{"[!…] is not a negation", "/life-path/[!0-5].html\n", "life-path/7.html", false},
		{"[!…] matches a !", "/life-path/[!0-5].html\n", "life-path/!.html", true},
		{"[^…] is not a negation", "/life-path/[^0-5].html\n", "life-path/7.html", false},
		{"[^…] matches its members", "/life-path/[^0-5].html\n", "life-path/3.html", true},
		{"an unclosed [ never matches", "/life-path/[0-5.html\n", "life-path/[0-5.html", false},
		{"an unclosed [ never matches: other paths", "/life-path/[0-5.html\n", "life-path/3.html", false},
		{"negation re-includes a file", "*.json\n!/api/public/edge.json\n", "api/public/edge.json", false},
		{"negation cannot undo an ignored parent", "/api/\n!/api/public/edge.json\n", "api/public/edge.json", true},
		{"last match wins", "!x.txt\nx.txt\n", "x.txt", true},
		{"comment", "# /index.html\n", "index.html", false},
		{"escaped hash", "\\#notes\n", "#notes", true},
		{"escaped bang", "\\!important\n", "!important", true},
		{"a trailing slash: directories only", "llms.txt/\n", "llms.txt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.patterns))
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Ignored(tt.path)
			if err != nil || got != tt.want {
				t.Errorf("patterns %q: Ignored(%q) = %v, %v; want %v", tt.patterns, tt.path, got, err, tt.want)
			}
		})
	}
}

func TestWhyNamesTheRule(t *testing.T) {
	m, err := Parse([]byte("# keep\n/api/public/matrix/\n\n*.jsonl\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Why("api/public/matrix-months/2000/1.jsonl")
	if err != nil || r == nil || r.Line != 4 || r.String() != `.assetsignore:4: "*.jsonl"` {
		t.Errorf("Why = %v, %v; want line 4", r, err)
	}
	r, _ = m.Why("_headers")
	if r == nil || r.String() != `wrangler's default rule "/_headers"` {
		t.Errorf("Why(_headers) = %v", r)
	}
	if r, _ := m.Why("index.html"); r != nil {
		t.Errorf("Why(index.html) = %v, want nil", r)
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"not UTF-8", "\xff\xfe/a\n", "must be UTF-8 text without NUL characters"},
		{"NUL", "a\x00b\n", "must be UTF-8 text without NUL characters"},
		{"a range JavaScript refuses", "/a\n[~-!]\n", `.assetsignore:2: "[~-!]": invalid regular expression: range out of order in character class (wrangler cannot read this rule either)`},
		{"too many rules", manyRules(MaxRules), fmt.Sprintf("has %d distinct rules, more than the %d deploy applies", MaxRules+3, MaxRules)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.content))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v, want %q", err, tt.want)
			}
		})
	}
}

func manyRules(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "/r%d\n", i)
	}
	return b.String()
}

// TestRepeatedRulesCostNothing: 2,000 copies of "**" are one rule, which decides every path
// with one test.
func TestRepeatedRulesCostNothing(t *testing.T) {
	m, err := Parse([]byte(strings.Repeat("**\n", 2000)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Rules()); n != 4 {
		t.Errorf("%d rules, want the 3 defaults and one **", n)
	}
	for _, p := range treePaths() {
		if ig, err := m.Ignored(p); err != nil || !ig {
			t.Fatalf("Ignored(%s) = %v, %v", p, ig, err)
		}
	}
	if m.tests > 2 {
		t.Errorf("%d tests for a tree whose top folders ** ignores", m.tests)
	}
}

// TestPathologicalFileIsBounded: hundreds of distinct rules that are wildcards only (no
// literal to pass paths over by) and match nothing stop with ErrTooMuchWork after MaxTests
// tests, instead of testing every rule against every path of a full tree.
func TestPathologicalFileIsBounded(t *testing.T) {
	m, err := Parse([]byte(pathological()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range treePaths() {
		if _, err = m.Ignored(p); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrTooMuchWork) || !strings.Contains(err.Error(), "use fewer rules with wildcards only") {
		t.Fatalf("error %v, want ErrTooMuchWork", err)
	}
	if m.tests > MaxTests {
		t.Errorf("%d tests, more than MaxTests", m.tests)
	}
}

// treePaths are the paths of a full tree's per-date and month files, and some pages.
// pathological is a file of MaxRules distinct rules, wildcards and classes only, that
// match no path of a tree.
func pathological() string {
	var b strings.Builder
	for i := 1; i <= MaxRules-len(Defaults); i++ {
		b.WriteString("[#%]" + strings.Repeat("?", i) + "\n")
	}
	return b.String()
}

func treePaths() []string {
	var ps []string
	for y := 1900; y <= 2100; y++ {
		for mo := 1; mo <= 12; mo++ {
			ps = append(ps, fmt.Sprintf("api/public/matrix-months/%d/%d.jsonl", y, mo))
			for d := 1; d <= 28; d++ {
				ps = append(ps, fmt.Sprintf("api/public/matrix/%d/%d/%d.json", d, mo, y))
			}
		}
	}
	for i := 1; i <= 33; i++ {
		ps = append(ps, fmt.Sprintf("life-path/%d.html", i))
	}
	return ps
}

// BenchmarkFullTree applies the generated rules, and the pathological file of
// TestPathologicalFileIsBounded, to the paths of a full tree.
func BenchmarkFullTree(b *testing.B) {
	paths := treePaths()
	for _, bc := range []struct{ name, content string }{
		{"generated", "/api/public/matrix/\n/api/public/errors/\n"},
		{"2000 copies of **", strings.Repeat("**\n", 2000)},
		{"pathological", pathological()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				m, err := Parse([]byte(bc.content))
				if err != nil {
					b.Fatal(err)
				}
				for _, p := range paths {
					if _, err := m.Ignored(p); err != nil {
						break
					}
				}
			}
		})
	}
}
