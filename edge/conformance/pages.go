package conformance

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// pageCase is a request for a non-API path and what both edges must answer: the semantics of
// Cloudflare's assets with html_handling "auto-trailing-slash" and not_found_handling
// "404-page", which is production (the asset worker of workers-sdk's workers-shared). A
// page x.html is served at /x and a folder's index.html at /folder/; their other spellings,
// and any path not in its canonical percent-encoding, answer 307 to the canonical path; an
// unknown path answers the tree's 404.html with status 404; .assetsignore, _headers and
// _redirects are never served. Every answer carries the headers of the tree's _headers
// rules that match its path and no others of the asset worker's choosing: a file's answer
// its content type, its ETag (32 hex digits: the asset hash) and the assets' Cache-Control
// unless a rule sets another (none for a request with a Range, which gets the whole file);
// a 405 has no body. Not checked, because the runtimes impose them (docs/worker.md): the
// ETag's value (wrangler hashes assets otherwise than numerology deploy), a charset wrangler
// leaves out of some types, and compression.
type pageCase struct {
	name     string
	method   string
	path     string
	header   http.Header
	status   int
	file     string // 200, 404: the tree file of the body ("" for a 404 without 404.html)
	location string // 307: the Location
	ctype    string // 200, 404: the Content-Type's prefix; "" for text/html
}

// assetCache is the Cache-Control of Cloudflare's assets when no _headers rule sets one.
const assetCache = "public, max-age=0, must-revalidate"

// pageCases are built from the files the tree holds, so the suite fits any tree.
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
			pageCase{name: "POST root", method: http.MethodPost, path: "/", status: 405},
			pageCase{name: "DELETE root", method: http.MethodDelete, path: "/", status: 405},
			pageCase{name: "a Range: the whole file", path: "/", header: http.Header{"Range": {"bytes=0-9"}}, status: 200, file: "index.html"},
			pageCase{name: "two Ranges: the whole file", path: "/", header: http.Header{"Range": {"bytes=0-0,5-5"}}, status: 200, file: "index.html"},
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
			pageCase{name: "page, percent-encoded", path: "/" + pctFirst(base), status: 307, location: "/" + base},
			pageCase{name: "nested page", path: "/" + child, status: 200, file: child + ".html"},
			pageCase{name: "nested page.html", path: "/" + child + ".html", status: 307, location: "/" + child},
			pageCase{name: "nested page with a slash", path: "/" + child + "/", status: 307, location: "/" + child},
		)
		break
	}
	notFound := ""
	if has(manifest.NotFoundPage) {
		notFound = manifest.NotFoundPage
		cases = append(cases, unknownPageCases(notFound)...)
	}
	// The files that configure the assets are never assets themselves.
	for _, f := range []string{manifest.AssetsIgnoreFile, manifest.HeadersFile, "_redirects"} {
		cases = append(cases, pageCase{name: "never served: " + f, path: "/" + f, status: 404, file: notFound})
	}
	cases = append(cases, pageCase{name: "manifest.json", path: "/" + manifest.FileName, status: 200, file: manifest.FileName, ctype: "application/json"})
	for _, f := range s.m.Files {
		if strings.HasPrefix(f.Path, manifest.DownloadsDir+"/") {
			cases = append(cases, pageCase{name: "download", path: "/" + f.Path, status: 200, file: f.Path, ctype: "-"})
			break
		}
	}
	cases = append(cases, pageCase{name: "unknown download", path: "/" + manifest.DownloadsDir + "/no-such-file", status: 404, file: notFound})
	if plain := s.plainFile(); plain != "" {
		cases = append(cases,
			pageCase{name: "file, percent-encoded", path: "/" + pctFirst(plain), status: 307, location: "/" + plain},
			pageCase{name: "file, percent-encoded, with a query", path: "/" + pctFirst(plain) + "?a=1", status: 307, location: "/" + plain + "?a=1"},
			// The runtime's URL parser resolves dot segments before the assets see the path.
			pageCase{name: "file, dot segments", path: "/no-such-folder/../" + plain, status: 200, file: plain, ctype: "-"},
		)
	}
	return cases
}

// unknownPageCases are paths of no file, answered with the 404 page at their canonical
// encoding (Cloudflare redirects any other spelling there before it looks for a page).
func unknownPageCases(notFound string) []pageCase {
	return []pageCase{
		{name: "unknown page", path: "/no-such-page", status: 404, file: notFound},
		{name: "unknown nested page", path: "/no/such/page.html", status: 404, file: notFound},
		{name: "unknown page, percent-encoded", path: "/no%2Dsuch-page", status: 307, location: "/no-such-page"},
		// A "%" that starts no escape is a character of the name, canonically "%25".
		{name: "unknown page, bad escape", path: "/no-such-page%zz", status: 307, location: "/no-such-page%25zz"},
		{name: "unknown page, bad escape encoded", path: "/no-such-page%25zz", status: 404, file: notFound},
		// The runtime's URL parser percent-encodes a raw UTF-8 name: its canonical form.
		{name: "unknown page, raw UTF-8", path: "/no-such-page-\u00e9", status: 404, file: notFound},
		{name: "unknown page, UTF-8 encoded", path: "/no-such-page-%C3%A9", status: 404, file: notFound},
		{name: "unknown page, UTF-8 encoded in lowercase", path: "/no-such-page-%c3%a9", status: 307, location: "/no-such-page-%C3%A9"},
	}
}

// plainFile is a file at the tree's root that is served at its own name (llms.txt,
// robots.txt), "" when there is none.
func (s *suite) plainFile() string {
	for _, f := range s.m.Files {
		switch {
		case strings.Contains(f.Path, "/"), strings.HasSuffix(f.Path, ".html"), f.Path == manifest.HeadersFile,
			f.Path == manifest.AssetsIgnoreFile, f.Path[0] < 'a' || f.Path[0] > 'z':
			continue
		}
		return f.Path
	}
	return ""
}

// pctFirst percent-encodes the first character of a name ("llms.txt" → "%6Clms.txt").
func pctFirst(name string) string { return fmt.Sprintf("%%%02X", name[0]) + name[1:] }

// checkPage sends a page case and checks status, Location, headers, Content-Type and body.
func (s *suite) checkPage(t *testing.T, c pageCase) {
	t.Helper()
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	r := s.sendPage(t, method, c.path, c.header)
	what := method + " " + c.path
	if st := s.target.RawNonASCIIStatus; st != 0 && strings.ContainsFunc(c.path, func(r rune) bool { return r >= 0x80 }) {
		if r.status != st { // refused by the target's HTTP parser (see Target)
			t.Errorf("%s: status %d, want %d (the target's HTTP parser refuses raw bytes beyond ASCII)", what, r.status, st)
		}
		return
	}
	if len(c.header) > 0 {
		what += fmt.Sprint(" ", c.header)
	}
	if r.status != c.status {
		t.Fatalf("%s: status %d, want %d (Location %q)", what, r.status, c.status, r.header.Get("Location"))
	}
	if c.status == 405 {
		if len(r.body) != 0 || r.header.Get("Allow") != "" {
			t.Errorf("%s: 405 with %d bytes and Allow %q, want no body and no Allow (the asset worker's)", what, len(r.body), r.header.Get("Allow"))
		}
		return
	}
	s.checkAssetHeaders(t, what, c.path, r.header, c.status != 307 && c.header.Get("Range") == "")
	if c.status == 307 {
		if got := r.header.Get("Location"); got != c.location {
			t.Errorf("%s: Location %q, want %q", what, got, c.location)
		}
		return
	}
	if c.file == "" {
		return
	}
	ctype := c.ctype
	if ctype == "" {
		ctype = "text/html"
	}
	if ct := r.header.Get("Content-Type"); ctype != "-" && !strings.HasPrefix(ct, ctype) {
		t.Errorf("%s: Content-Type %q, want %s", what, ct, ctype)
	}
	if etag := r.header.Get("ETag"); !assetETag.MatchString(etag) {
		t.Errorf("%s: ETag %q, want an asset hash (32 hex digits, quoted)", what, etag)
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

// checkAssetHeaders checks the headers of the _headers rules matching path and, for a
// file's answer (cacheable: not to a Range), the Cache-Control; and that the answer has no
// header of the asset worker's choosing that the rules do not give (Accept-Ranges,
// X-Content-Type-Options: serve once added them).
func (s *suite) checkAssetHeaders(t *testing.T, what, path string, h http.Header, cacheable bool) {
	t.Helper()
	want := s.ruleHeaders(path)
	if _, ok := want["Cache-Control"]; !ok && cacheable {
		want["Cache-Control"] = assetCache
	}
	for k, v := range want {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s: %s %q, want %q (the tree's _headers, or the assets' default)", what, k, got, v)
		}
	}
	for _, k := range []string{"Cache-Control", "X-Content-Type-Options", "Accept-Ranges", "Content-Range", "Allow"} {
		if _, ok := want[k]; !ok && h.Get(k) != "" {
			t.Errorf("%s: %s %q, want none (neither the asset worker nor the tree's _headers set it)", what, k, h.Get(k))
		}
	}
}

// assetETag is the form of an asset's ETag: its 32-hex-digit asset hash, quoted.
var assetETag = regexp.MustCompile(`^"[0-9a-f]{32}"$`)

// ruleHeaders are the headers the tree's _headers rules give a path, as Cloudflare applies
// them: every rule matching the path, in the file's order ("*" matches anything), the first
// to set a header replacing it and later ones appending. The generator writes literal paths
// and trailing wildcards only.
func (s *suite) ruleHeaders(path string) map[string]string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	out := map[string]string{}
	b, err := os.ReadFile(filepath.Join(s.target.TreeDir, manifest.HeadersFile))
	if err != nil {
		return out
	}
	match := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#':
		case line[0] == '/':
			parts := strings.Split(line, "*")
			for i := range parts {
				parts[i] = regexp.QuoteMeta(parts[i])
			}
			match = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(path)
		case match:
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			k, v = http.CanonicalHeaderKey(strings.TrimSpace(k)), strings.TrimSpace(v)
			if old, ok := out[k]; ok {
				v = old + ", " + v
			}
			out[k] = v
		}
	}
	return out
}

// sendPage sends a raw request target with the given request headers (several values of
// one header go as several lines).
func (s *suite) sendPage(t *testing.T, method, raw string, header http.Header) response {
	t.Helper()
	req, err := http.NewRequest(method, s.target.BaseURL+"/", nil)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.URL = &url.URL{Scheme: s.base.Scheme, Host: s.base.Host, Opaque: raw}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if s.target.ClientHeader != "" {
		req.Header.Set(s.target.ClientHeader, s.clientAddr())
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, raw, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, raw, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

// testPageConditional checks If-None-Match on the assets as Cloudflare's asset worker
// answers it: 304 only when the header is exactly the answer's ETag or its weak form; a
// list, "*", or the ETag in a second header line get the whole answer. The 404 page has an
// ETag of its own and answers 304 to it too.
func (s *suite) testPageConditional(t *testing.T) {
	paths := []string{"/"}
	if plain := s.plainFile(); plain != "" {
		paths = append(paths, "/"+plain)
	}
	if _, ok := s.files[manifest.NotFoundPage]; ok {
		paths = append(paths, "/no-such-page")
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			s.parallel(t)
			first := s.sendPage(t, http.MethodGet, p, nil)
			etag := first.header.Get("ETag")
			if !assetETag.MatchString(etag) {
				t.Fatalf("GET %s: ETag %q, want a strong asset hash (32 hex digits, quoted)", p, etag)
			}
			cases := []struct {
				name   string
				values []string
				status int
			}{
				{"its ETag", []string{etag}, 304},
				{"its weak ETag", []string{"W/" + etag}, 304},
				{"a list holding it", []string{`"0000", ` + etag}, first.status},
				{"a list starting with it", []string{etag + `, "0000"`}, first.status},
				{"star", []string{"*"}, first.status},
				{"another ETag", []string{`"0000"`}, first.status},
				{"two lines, the second its ETag", []string{`"0000"`, etag}, first.status},
			}
			for _, c := range cases {
				r := s.sendPage(t, http.MethodGet, p, http.Header{"If-None-Match": c.values})
				what := fmt.Sprintf("GET %s, If-None-Match %q", p, c.values)
				if r.status != c.status {
					t.Errorf("%s: status %d, want %d", what, r.status, c.status)
					continue
				}
				if r.status == 304 {
					if got := r.header.Get("ETag"); got != etag {
						t.Errorf("%s: ETag %q, want %q", what, got, etag)
					}
					if got, want := r.header.Get("Cache-Control"), first.header.Get("Cache-Control"); got != want {
						t.Errorf("%s: Cache-Control %q, want the answer's %q", what, got, want)
					}
					if len(r.body) != 0 {
						t.Errorf("%s: 304 with a body of %d bytes", what, len(r.body))
					}
				} else if !bytes.Equal(r.body, first.body) {
					t.Errorf("%s: body differs from the unconditional answer", what)
				}
			}
		})
	}
}

// testPages runs the page cases.
func (s *suite) testPages(t *testing.T) {
	cases := s.pageCases()
	if _, ok := s.files["index.html"]; !ok {
		t.Fatal("the tree holds no pages to check")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.parallel(t)
			s.checkPage(t, c)
		})
	}
	t.Run("If-None-Match", s.testPageConditional)
}
