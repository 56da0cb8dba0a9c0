package server

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// TestHeaderRules applies _headers files as Cloudflare's asset worker applies them
// (workers-shared: parseHeaders.ts, rules-engine.ts, attachCustomHeaders).
func TestHeaderRules(t *testing.T) {
	generated, err := os.ReadFile(filepath.Join(sharedTree(t), manifest.HeadersFile))
	if err != nil {
		t.Fatal(err)
	}
	var hundred strings.Builder
	for i := range 102 {
		fmt.Fprintf(&hundred, "/r%d\n  X-Rule: %d\n", i, i)
	}
	tests := []struct {
		name  string
		file  string
		host  string
		path  string
		start http.Header // the answer's headers before the rules
		want  http.Header
	}{
		{"generated: manifest.json", string(generated), "", "/manifest.json", http.Header{"Cache-Control": {assetCache}},
			http.Header{"Access-Control-Allow-Origin": {"*"}, "Cache-Control": {"public, max-age=300"}}},
		{"generated: a download", string(generated), "", "/downloads/x.tar.gz", http.Header{"Cache-Control": {assetCache}},
			http.Header{"Access-Control-Allow-Origin": {"*"}, "X-Api-License": {"CC-BY-4.0"}, "Cache-Control": {assetCache}}},
		{"generated: a page", string(generated), "", "/llms.txt", http.Header{"Cache-Control": {assetCache}},
			http.Header{"Cache-Control": {assetCache}}},
		{"generated: the raw path is matched", string(generated), "", "/manifest%2Ejson", http.Header{}, http.Header{}},
		{"placeholders and splat", "/blog/:post/*\n  X-Post: :post then :splat\n", "", "/blog/hello/a/b", http.Header{},
			http.Header{"X-Post": {"hello then a/b"}}},
		{"a placeholder is one segment", "/blog/:post\n  X-Post: :post\n", "", "/blog/a/b", http.Header{}, http.Header{}},
		{"unset", "/*\n  ! X-Gone\n", "", "/x", http.Header{"X-Gone": {"1"}, "X-Kept": {"1"}}, http.Header{"X-Kept": {"1"}}},
		{"later rules append", "/*\n  X-A: 1\n/x\n  x-a: 2\n", "", "/x", http.Header{}, http.Header{"X-A": {"1, 2"}}},
		{"a repeated header in one rule", "/x\n  X-A: 1\n  X-A: 2\n", "", "/x", http.Header{}, http.Header{"X-A": {"1, 2"}}},
		{"a repeated path replaces in place", "/x\n  X-A: 1\n/*\n  X-B: 1\n/x\n  X-A: 2\n", "", "/x", http.Header{},
			http.Header{"X-A": {"2"}, "X-B": {"1"}}},
		{"two wildcards: ignored", "/*/*\n  X-A: 1\n", "", "/a/b", http.Header{}, http.Header{}},
		{"a header before any path: ignored", "  X-A: 1\n/x\n  X-B: 1\n", "", "/x", http.Header{}, http.Header{"X-B": {"1"}}},
		{"comments and blank lines", "# c\n\n/x\n# c\n  X-A: 1\n", "", "/x", http.Header{}, http.Header{"X-A": {"1"}}},
		{"a value keeps its colons", "/x\n  Link: <https://a.example/>; rel=x\n", "", "/x", http.Header{},
			http.Header{"Link": {"<https://a.example/>; rel=x"}}},
		{"host rule", "https://:sub.example.org/*\n  X-Sub: :sub\n", "api.example.org", "/x", http.Header{},
			http.Header{"X-Sub": {"api"}}},
		{"host rule, other host", "https://a.example.org/*\n  X-A: 1\n", "b.example.org", "/x", http.Header{}, http.Header{}},
		{"a port in a host rule: ignored", "https://a.example.org:8443/*\n  X-A: 1\n", "a.example.org", "/x", http.Header{}, http.Header{}},
		{"at most 101 rules", hundred.String(), "", "/r101", http.Header{}, http.Header{}},
		{"the 101st rule", hundred.String(), "", "/r100", http.Header{}, http.Header{"X-Rule": {"100"}}},
		{"a line over 2000 characters: ignored", "/x\n  X-A: " + strings.Repeat("a", 2000) + "\n  X-B: 1\n", "", "/x", http.Header{},
			http.Header{"X-B": {"1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hd := tt.start.Clone()
			parseHeaderRules(tt.file).apply(hd, tt.host, tt.path)
			if !reflect.DeepEqual(hd, tt.want) {
				t.Errorf("headers %v, want %v", hd, tt.want)
			}
		})
	}
}

// TestURLPathname reads request paths as the Workers runtime's URL parser does.
func TestURLPathname(t *testing.T) {
	for in, want := range map[string]string{
		"/":                      "/",
		"/llms.txt":              "/llms.txt",
		"/a/../llms.txt":         "/llms.txt",
		"/%2e%2E/%2e/llms.txt":   "/llms.txt",
		"/a/.%2e/b":              "/b",
		"/a/b/..":                "/a/",
		"/a/.":                   "/a/",
		"/life-path\\index.html": "/life-path/index.html",
		"//x":                    "//x",
		"/a{b}^c":                "/a%7Bb%7D%5Ec",
		"/a%7Bb":                 "/a%7Bb",
		"/a|b[c]":                "/a|b[c]",
		"/п":                     "/%D0%BF",
		"/\xff":                  "/%FF",
		"*":                      "*",
	} {
		if got := urlPathname(in); got != want {
			t.Errorf("urlPathname(%q) = %q, want %q", in, got, want)
		}
	}
}
