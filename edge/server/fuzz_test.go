package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
)

// FuzzHandler sends any method and raw request target to the handler of a small tree and
// checks that the answer is one of the contract's statuses, that 500 comes only from a
// valid route whose file the tree lacks, that a 200 body is the tree's file, and that no
// file outside the manifest is ever opened. The corpus is under testdata/fuzz.
func FuzzHandler(f *testing.F) {
	for _, seed := range []struct{ method, target string }{
		{"GET", "/api/public/matrix/05/1/2000"},
		{"GET", "/api/public/matrix/29/2/1900"},
		{"HEAD", "/api/public/life-path/011/"},
		{"OPTIONS", "/api/public/x"},
		{"POST", "/api/public/matrix"},
		{"GET", "/api/public/matrix/%2e%2e/%2e%2e/%2e%2e/manifest.json"},
		{"GET", "/api/public/../../../../etc/passwd"},
		{"GET", "/..%2f..%2f..%2fetc/passwd"},
		{"GET", "/%2e%2e/%2e%2e/etc/passwd"},
		{"GET", "/api\\public\\matrix\\1\\1\\2000"},
		{"GET", "/index.html%00.json"},
		{"GET", "/api/public/matrix/1/1/2000\x00"},
		{"GET", "/" + strings.Repeat("a/", 5000)},
		{"GET", "http://example.org/api/public/life-path?x"},
		{"GET", "*"},
		{"GET", "//api/public"},
		{"BREW", "/api/public/matrix/1/1/1950"},
		{"GET", "/manifest.json"},
		{"GET", "/api/public/edge.json"},
	} {
		f.Add(seed.method, seed.target)
	}
	dir := sharedTree(f)
	m, err := manifest.Load(dir)
	if err != nil {
		f.Fatal(err)
	}
	full, err := manifest.LoadFull(dir)
	if err != nil {
		f.Fatal(err)
	}
	files := full.Index()
	h, err := New(Options{Dir: dir, Manifest: m, RateLimit: 60, RateWindow: time.Minute, CacheBytes: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { h.Close() })
	open := h.open
	h.open = func(t *tree, name string) (*os.File, error) {
		if _, ok := files[name]; !ok && name != manifest.FileName {
			panic("opened a file outside the manifest: " + name)
		}
		return open(t, name)
	}
	f.Fuzz(func(t *testing.T, method, target string) {
		if method == "" {
			method = "GET"
		}
		req := &http.Request{
			Method: method, RequestURI: target, URL: &url.URL{Path: "/"},
			Header: http.Header{}, RemoteAddr: "192.0.2.7:4000", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		p := rawPath(req)
		api := h.cur.Load().router.isAPI(p)
		switch w.Code {
		case 200, 204, 304, 307, 400, 404, 405, 429:
		case 500:
			rt := h.cur.Load().router.match(p)
			if !api || rt.kind != routeFile {
				t.Fatalf("%s %q: 500 outside a valid route", method, target)
			}
			file := h.cur.Load().router.treeFile(rt.key)
			if _, ok := files[file]; ok {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(file))); err == nil {
					t.Fatalf("%s %q: 500 though %s exists", method, target, file)
				}
			}
		default:
			t.Fatalf("%s %q: status %d", method, target, w.Code)
		}
		if w.Code == 200 && method == "GET" && api {
			file := h.cur.Load().router.treeFile(h.cur.Load().router.match(p).key)
			want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
			if err != nil || !bytes.Equal(w.Body.Bytes(), want) {
				t.Fatalf("%s %q: 200 body is not %s (%v)", method, target, file, err)
			}
		}
		if api && w.Code != 204 && w.Header().Get("X-Api-License") == "" {
			t.Fatalf("%s %q: API answer %d without the common headers", method, target, w.Code)
		}
	})
}
