package cloudflare

import (
	"testing"

	"github.com/opennumerology/numerology/generator"
)

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
		{"anchored directory", "/api/public/matrix/\n", "api/public/matrix/1/1/2000.json", true},
		{"anchored directory, its sibling", "/api/public/matrix/\n", "api/public/matrix-months/2000/1.jsonl", false},
		{"anchored directory, not a file of that name", "/api/public/matrix/\n", "api/public/matrix", false},
		{"name at any depth", "*.map\n", "assets/js/app.js.map", true},
		{"name at any depth: directory", "node_modules\n", "a/node_modules/x/y.js", true},
		{"slash in the middle anchors", "public/x.json\n", "api/public/x.json", false},
		{"slash in the middle anchors: at the root", "public/x.json\n", "public/x.json", true},
		{"star stays in a segment", "/api/*.json\n", "api/public/x.json", false},
		{"double star spans segments", "/api/**/x.json\n", "api/public/deep/x.json", true},
		{"double star: zero segments", "/api/**/x.json\n", "api/x.json", true},
		{"leading double star", "**/errors\n", "api/public/errors/a.json", true},
		{"trailing double star", "/downloads/**\n", "downloads/a/b.zip", true},
		{"question mark", "/life-path/?.html\n", "life-path/7.html", true},
		{"question mark: one character", "/life-path/?.html\n", "life-path/33.html", false},
		{"character class", "/life-path/[0-5].html\n", "life-path/4.html", true},
		{"negated character class", "/life-path/[!0-5].html\n", "life-path/4.html", false},
		{"negation re-includes a file", "*.json\n!/api/public/edge.json\n", "api/public/edge.json", false},
		{"negation: others stay ignored", "*.json\n!/api/public/edge.json\n", "api/public/index.json", true},
		{"negation cannot undo an ignored parent", "/api/\n!/api/public/edge.json\n", "api/public/edge.json", true},
		{"last match wins", "!x.txt\nx.txt\n", "x.txt", true},
		{"comment", "# /index.html\n", "index.html", false},
		{"escaped hash", "\\#notes\n", "#notes", true},
		{"escaped bang", "\\!important\n", "!important", true},
		{"trailing spaces dropped", "/index.html   \n", "index.html", true},
		{"CRLF line ends", "/index.html\r\n/404.html\r\n", "404.html", true},
		{"directory-only pattern and a file", "llms.txt/\n", "llms.txt", false},
		{"the generated list: per-date record", string(generator.AssetsIgnore(generator.Routes())), "api/public/matrix/31/12/2100.json", true},
		{"the generated list: packed month", string(generator.AssetsIgnore(generator.Routes())), "api/public/matrix-months/2100/12.jsonl", false},
		{"the generated list: edge config", string(generator.AssetsIgnore(generator.Routes())), "api/public/edge.json", false},
		{"the generated list: error body", string(generator.AssetsIgnore(generator.Routes())), "api/public/errors/not-found.json", true},
		{"the generated list: a page", string(generator.AssetsIgnore(generator.Routes())), "matrix.html", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ig, err := ParseIgnore([]byte(tt.patterns))
			if err != nil {
				t.Fatal(err)
			}
			if got := ig.Ignored(tt.path); got != tt.want {
				t.Errorf("patterns %q: Ignored(%q) = %v, want %v", tt.patterns, tt.path, got, tt.want)
			}
		})
	}
}

func TestIgnoreRejectsBinary(t *testing.T) {
	for _, b := range [][]byte{{0xff, 0xfe, 'x'}, []byte("a\x00b")} {
		if _, err := ParseIgnore(b); err == nil {
			t.Errorf("ParseIgnore(%q) accepted it", b)
		}
	}
}
