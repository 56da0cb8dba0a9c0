package conformance

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// pageCase is a request for a human page and what both edges must answer: the semantics of
// Cloudflare's assets with html_handling "auto-trailing-slash" and not_found_handling
// "404-page", which is production. A page x.html is served at /x and a folder's index.html
// at /folder/; their other spellings answer 307 to that path; an unknown path answers the
// tree's 404.html with status 404.
type pageCase struct {
	name     string
	method   string
	path     string
	status   int
	file     string // 200, 404: the tree file of the body
	location string // 307: the Location
}

// pageCases are built from the pages the tree holds, so the suite fits any tree.
func (s *suite) pageCases() []pageCase {
	has := func(f string) bool { _, ok := s.files[f]; return ok }
	var cases []pageCase
	if has("index.html") {
		cases = append(cases,
			pageCase{name: "root", path: "/", status: 200, file: "index.html"},
			pageCase{name: "HEAD root", method: http.MethodHead, path: "/", status: 200, file: "index.html"},
			pageCase{name: "index", path: "/index", status: 307, location: "/"},
			pageCase{name: "index.html", path: "/index.html", status: 307, location: "/"},
			pageCase{name: "index with a query", path: "/index?a=1", status: 307, location: "/?a=1"},
		)
	}
	// A page with a folder of the same name (life-path.html and life-path/7.html).
	for _, f := range s.m.Files {
		base, ok := strings.CutSuffix(f.Path, ".html")
		if !ok || strings.Contains(base, "/") || base == "index" || base == "404" {
			continue
		}
		var child string
		for _, g := range s.m.Files {
			if strings.HasPrefix(g.Path, base+"/") && strings.HasSuffix(g.Path, ".html") && !strings.HasSuffix(g.Path, "/index.html") {
				child = strings.TrimSuffix(g.Path, ".html")
				break
			}
		}
		if child == "" || has(base+"/index.html") {
			continue
		}
		cases = append(cases,
			pageCase{name: "page", path: "/" + base, status: 200, file: f.Path},
			pageCase{name: "page.html", path: "/" + base + ".html", status: 307, location: "/" + base},
			pageCase{name: "page with a slash", path: "/" + base + "/", status: 307, location: "/" + base},
			pageCase{name: "page/index", path: "/" + base + "/index", status: 307, location: "/" + base},
			pageCase{name: "nested page", path: "/" + child, status: 200, file: child + ".html"},
			pageCase{name: "nested page.html", path: "/" + child + ".html", status: 307, location: "/" + child},
			pageCase{name: "nested page with a slash", path: "/" + child + "/", status: 307, location: "/" + child},
		)
		break
	}
	if has(manifest.NotFoundPage) {
		cases = append(cases,
			pageCase{name: "unknown page", path: "/no-such-page", status: 404, file: manifest.NotFoundPage},
			pageCase{name: "unknown nested page", path: "/no/such/page.html", status: 404, file: manifest.NotFoundPage},
		)
	}
	return cases
}

// checkPage sends a page case and checks status, Location, Content-Type and body.
func (s *suite) checkPage(t *testing.T, c pageCase) {
	t.Helper()
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	r := s.send(t, method, c.path, nil, "")
	what := method + " " + c.path
	if r.status != c.status {
		t.Fatalf("%s: status %d, want %d (Location %q)", what, r.status, c.status, r.header.Get("Location"))
	}
	if c.status == 307 {
		if got := r.header.Get("Location"); got != c.location {
			t.Errorf("%s: Location %q, want %q", what, got, c.location)
		}
		return
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("%s: Content-Type %q, want text/html", what, ct)
	}
	if method == http.MethodHead {
		if len(r.body) != 0 {
			t.Errorf("%s: HEAD with a body of %d bytes", what, len(r.body))
		}
		return
	}
	want, err := os.ReadFile(filepath.Join(s.target.TreeDir, filepath.FromSlash(c.file)))
	if err != nil {
		t.Fatalf("%s: read the tree's file: %v", what, err)
	}
	if !bytes.Equal(r.body, want) {
		t.Errorf("%s: body is not %s (%d bytes, want %d)", what, c.file, len(r.body), len(want))
	}
}

// testPages runs the page cases.
func (s *suite) testPages(t *testing.T) {
	cases := s.pageCases()
	if len(cases) == 0 {
		t.Fatal("the tree holds no pages to check")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.parallel(t)
			s.checkPage(t, c)
		})
	}
}
