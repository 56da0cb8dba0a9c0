package server

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
)

// fuzzSeeds are the first inputs of FuzzHandler, beside its corpus under testdata/fuzz.
var fuzzSeeds = []struct{ method, target string }{
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
	{"GET", "/api/public/%"},
	{"GET", "/api/public/matrix/%zz/1/2000"},
	{"OPTIONS", "/api/public/arcana/%"},
	{"GET", "/api/public/arcana/1#%zz"},
	{"GET", "/no-such-page%zz?q=%"},
	{"GET", "/arcana/\xc3\xa9"},
}

// FuzzHandler sends any method and raw request target to the handler of a small tree and
// checks that the answer is one of the contract's statuses, that 500 comes only from a
// valid route whose file the tree lacks, that a 200 body is the tree's file, and that no
// file outside the manifest is ever opened. Every input that makes an origin-form request
// line (a target from "/" without spaces or control bytes, a method of token characters) is
// also sent over a socket to HTTPServer, serve's real listener, around a second handler of
// the same tree: its answer must be the handler's (status, body, ETag, Location), bad
// percent-escapes included. The corpus is under testdata/fuzz.
func FuzzHandler(f *testing.F) {
	for _, seed := range fuzzSeeds {
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
	// Both handlers count on one clock that moves on two seconds an input: they see the
	// same requests at the same times, so their limits agree.
	var inputs atomic.Int64
	now := func() time.Time { return time.Unix(1e9+2*inputs.Load(), 0) }
	newHandler := func() *Handler {
		h, err := New(Options{Dir: dir, Manifest: m, RateLimit: 60, RateWindow: time.Minute, CacheBytes: 1 << 20, Now: now})
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { h.Close() })
		return h
	}
	h := newHandler()
	addr := strings.TrimPrefix(startServer(f, newHandler()), "http://")
	open := h.open
	h.open = func(t *tree, name string) (treeFile, error) {
		if _, ok := files[name]; !ok && name != manifest.FileName {
			panic("opened a file outside the manifest: " + name)
		}
		return open(t, name)
	}
	f.Fuzz(func(t *testing.T, method, target string) {
		if method == "" {
			method = "GET"
		}
		inputs.Add(1)
		req := &http.Request{
			Method: method, RequestURI: target, URL: &url.URL{Path: "/"}, Host: "x",
			Header: http.Header{}, RemoteAddr: "192.0.2.7:4000", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if onTheWire(method, target) {
			sameOverListener(t, addr, method, target, w)
		}
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

// onTheWire reports whether method and target make an origin-form request line that the
// Workers runtime would hand the worker as well: a method of token characters, a target
// from "/" without spaces or control bytes, short enough for net/http's header limit.
func onTheWire(method, target string) bool {
	if !strings.HasPrefix(target, "/") || len(target) > 8<<10 {
		return false
	}
	for i := 0; i < len(target); i++ {
		if target[i] <= ' ' || target[i] == 0x7f {
			return false
		}
	}
	for i := 0; i < len(method); i++ {
		if c := method[i]; c >= 0x80 || !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// sameOverListener sends the request over a socket to addr and checks that the answer is
// the handler's own, want.
func sameOverListener(t *testing.T, addr, method, target string, want *httptest.ResponseRecorder) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, method+" "+target+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %q over the listener: %v", method, target, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s %q over the listener: %v", method, target, err)
	}
	if resp.StatusCode != want.Code || !bytes.Equal(body, want.Body.Bytes()) {
		t.Fatalf("%s %q: over the listener %d %.100q, the handler %d %.100q", method, target, resp.StatusCode, body, want.Code, want.Body.Bytes())
	}
	for _, k := range []string{"Etag", "Location", "Content-Type", "Cache-Control", "Retry-After"} {
		if got, w := resp.Header.Get(k), want.Header().Get(k); got != w {
			t.Fatalf("%s %q: %s over the listener %q, the handler %q", method, target, k, got, w)
		}
	}
}
