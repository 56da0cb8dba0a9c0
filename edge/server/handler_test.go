package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
)

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestSpoofedForwardedFor checks that without --trust-header a client cannot escape the
// limit by sending X-Forwarded-For, and that with it the header is the client.
func TestSpoofedForwardedFor(t *testing.T) {
	dir := sharedTree(t)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		trust     string
		wantLimit bool
	}{
		{"peer address by default", "", true},
		{"trusted header", "X-Forwarded-For", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := New(Options{Dir: dir, Manifest: m, RateLimit: 3, RateWindow: time.Minute, TrustHeader: tt.trust})
			if err != nil {
				t.Fatal(err)
			}
			limited := false
			for i := range 10 {
				w := get(t, h, "GET", "/api/public/matrix/1/1/2000", map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i)})
				limited = limited || w.Code == http.StatusTooManyRequests
			}
			if limited != tt.wantLimit {
				t.Errorf("limited = %v, want %v", limited, tt.wantLimit)
			}
		})
	}
}

// TestStatic checks pages and downloads as Cloudflare's assets answer them (html_handling
// "auto-trailing-slash", not_found_handling "404-page"): one spelling of each page is
// served, the others answer 307 to it.
func TestStatic(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"index.html":                  "<p>home",
		"about.html":                  "<p>about",
		"life-path/index.html":        "<p>numbers",
		"404.html":                    "<p>not here",
		"downloads/data.csv":          "a,b\n",
		"api/public/edge.json":        "{}",
		"api/public/life-path.json":   "[]\n",
		"_headers":                    "# rules\n",
		"style.css":                   "p{}",
		"downloads/numerology.zip":    "PK",
		"downloads/numerology.tar.gz": "\x1f\x8b",
	}
	m := testManifest(t, dir, files)
	h, err := New(Options{Dir: dir, Manifest: m})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, path string
		status             int
		body, ctype        string
	}{
		{"root", "GET", "/", 200, "<p>home", "text/html; charset=utf-8"},
		{"exact file", "GET", "/about.html", 307, "/about", ""},
		{"html extension", "GET", "/about", 200, "<p>about", "text/html; charset=utf-8"},
		{"directory index", "GET", "/life-path", 307, "/life-path/", ""},
		{"directory index.html", "GET", "/life-path/index.html", 307, "/life-path/", ""},
		{"index", "GET", "/index", 307, "/", ""},
		{"directory slash", "GET", "/life-path/", 200, "<p>numbers", "text/html; charset=utf-8"},
		{"csv", "GET", "/downloads/data.csv", 200, "a,b\n", "text/csv; charset=utf-8"},
		{"zip", "GET", "/downloads/numerology.zip", 200, "PK", "application/zip"},
		{"gzip", "GET", "/downloads/numerology.tar.gz", 200, "\x1f\x8b", "application/gzip"},
		{"css", "GET", "/style.css", 200, "p{}", "text/css; charset=utf-8"},
		{"encoded name", "GET", "/%61bout", 307, "/about", ""},
		{"manifest is public", "GET", "/manifest.json", 200, "", "application/json; charset=utf-8"},
		{"HEAD", "HEAD", "/about", 200, "", "text/html; charset=utf-8"},
		{"unknown", "GET", "/nope", 404, "<p>not here", "text/html; charset=utf-8"},
		{"headers file", "GET", "/_headers", 404, "<p>not here", "text/html; charset=utf-8"},
		{"api file through static", "GET", "/api/public/../api/public/edge.json", 404, "<p>not here", "text/html; charset=utf-8"},
		{"api prefix lookalike", "GET", "/api/publicx", 404, "<p>not here", "text/html; charset=utf-8"},
		// Dot segments and backslashes are resolved as the Workers runtime's URL parser
		// resolves them, before the asset rules: never above the tree's root.
		{"dot-dot", "GET", "/life-path/../about.html", 307, "/about", ""},
		{"encoded dot-dot", "GET", "/%2e%2e/%2e%2e/etc/passwd", 404, "<p>not here", "text/html; charset=utf-8"},
		{"backslash", "GET", "/life-path\\index.html", 307, "/life-path/", ""},
		// As the asset worker answers: no body, no Allow, no Content-Type.
		{"POST", "POST", "/about", 405, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(t, h, tt.method, tt.path, nil)
			if w.Code != tt.status {
				t.Fatalf("%s %s: status %d, want %d", tt.method, tt.path, w.Code, tt.status)
			}
			if tt.status == 307 {
				if got := w.Header().Get("Location"); got != tt.body {
					t.Errorf("Location %q, want %q", got, tt.body)
				}
				return
			}
			if got := w.Header().Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type %q, want %q", got, tt.ctype)
			}
			if (tt.body != "" || tt.status == 405) && w.Body.String() != tt.body {
				t.Errorf("body %q, want %q", w.Body.String(), tt.body)
			}
			if a := w.Header().Get("Allow"); a != "" {
				t.Errorf("Allow %q, want none (the asset worker sends none)", a)
			}
		})
	}
	t.Run("no 404 page", func(t *testing.T) {
		os.Remove(filepath.Join(dir, "404.html"))
		delete(files, "404.html")
		h, err := New(Options{Dir: dir, Manifest: testManifest(t, dir, files)})
		if err != nil {
			t.Fatal(err)
		}
		w := get(t, h, "GET", "/nope", nil)
		if w.Code != 404 || w.Header().Get("Content-Type") != "" || w.Body.Len() != 0 {
			t.Errorf("status %d, Content-Type %q, %d bytes; want an empty 404, as the asset worker's", w.Code, w.Header().Get("Content-Type"), w.Body.Len())
		}
	})
}

// testManifest writes files into dir and returns a manifest listing them, with the edge
// config of a real tree.
func testManifest(t *testing.T, dir string, files map[string]string) *manifest.Manifest {
	t.Helper()
	real, err := manifest.Load(sharedTree(t))
	if err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{APIVersion: real.APIVersion, SiteURL: real.SiteURL, Edge: real.Edge}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		m.Files = append(m.Files, manifest.File{Path: name, Size: int64(len(body)), SHA256: strings.Repeat("0", 64)})
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCheckTree(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string, m *manifest.Manifest)
		ok     bool
	}{
		{"intact", func(*testing.T, string, *manifest.Manifest) {}, true},
		{"one file missing", func(t *testing.T, dir string, m *manifest.Manifest) {
			remove(t, dir, m.Files[len(m.Files)/2].Path)
		}, true},
		{"many files missing", func(t *testing.T, dir string, m *manifest.Manifest) {
			// The per-date files of days 1–3 of every date route: a tenth of the tree.
			for _, r := range []string{"matrix", "life-path", "square"} {
				for _, d := range []string{"1", "2", "3"} {
					os.RemoveAll(filepath.Join(dir, "api", "public", r, d))
				}
			}
		}, false},
		{"error body missing", func(t *testing.T, dir string, m *manifest.Manifest) {
			remove(t, dir, m.Edge.Errors[manifest.ErrInvalidDate].File)
			remove(t, dir, m.Edge.Errors[manifest.ErrNotFound].File)
		}, false},
		{"size differs", func(t *testing.T, dir string, m *manifest.Manifest) {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(m.Files[0].Path)), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyTree(t)
			m, err := manifest.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			tt.change(t, dir, m)
			err = CheckTree(dir, m)
			if (err == nil) != tt.ok {
				t.Errorf("CheckTree: %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func remove(t *testing.T, dir, p string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
		t.Fatal(err)
	}
}

// TestUnreadableFile checks that a file that cannot be read gives 500 for its route only.
func TestUnreadableFile(t *testing.T) {
	dir := copyTree(t, generatortest.File(generator.RouteMatrix, 1, 1, 2000))
	p := filepath.Join(dir, filepath.FromSlash(generatortest.File(generator.RouteMatrix, 1, 1, 2000)))
	if err := os.WriteFile(p, []byte("truncated"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newTestHandler(t, dir, nil)
	if w := get(t, h, "GET", "/api/public/matrix/1/1/2000", nil); w.Code != 500 {
		t.Errorf("truncated file: status %d, want 500", w.Code)
	}
	if w := get(t, h, "GET", "/api/public/matrix/2/1/2000", nil); w.Code != 200 {
		t.Errorf("next date: status %d, want 200", w.Code)
	}
}

// TestLoad sends 20,000 requests of the benchmark's mix over loopback from 16 goroutines
// (stopping at 2 s) and checks that none fails and that the heap returns near its
// baseline afterwards.
func TestLoad(t *testing.T) {
	dir := sharedTree(t)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Dir: dir, Manifest: m, RateLimit: 60, RateWindow: time.Minute, CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	base := startServer(t, h)
	paths := loadPaths()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	// A first pass fills the body cache, so that what follows measures growth only.
	for _, p := range paths[:200] {
		resp, err := client.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	before := heap()
	const total, workers = 20_000, 16
	deadline := time.Now().Add(2 * time.Second)
	var sent, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := g; i < total && time.Now().Before(deadline); i += workers {
				p := paths[i%len(paths)]
				resp, err := client.Get(base + p)
				sent.Add(1)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || (resp.StatusCode != 200 && resp.StatusCode != 400 && resp.StatusCode != 500 && resp.StatusCode != 429) {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: status %d %v", p, resp.StatusCode, err))
				}
			}
		})
	}
	wg.Wait()
	client.CloseIdleConnections()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d requests failed, first: %v", failed.Load(), sent.Load(), firstErr.Load())
	}
	if sent.Load() < 1000 {
		t.Fatalf("only %d requests in 2 s", sent.Load())
	}
	time.Sleep(100 * time.Millisecond) // let the server's connection goroutines end
	after := heap()
	if after > before+8<<20 {
		t.Errorf("heap grew from %d to %d bytes after %d requests", before, after, sent.Load())
	}
	t.Logf("%d requests, heap %d → %d bytes", sent.Load(), before, after)
}

// loadPaths is the benchmark's mix: 90% matrix dates of the tree's years (and a few of
// other years, which answer 500 in a small tree), 5% life path, 5% invalid.
func loadPaths() []string {
	var paths []string
	years := []int{1900, 2000, 2100, 1950}
	for i := range 1000 {
		switch {
		case i%20 == 0:
			paths = append(paths, fmt.Sprintf("/api/public/life-path/%d", 1+i%9))
		case i%20 == 1:
			paths = append(paths, fmt.Sprintf("/api/public/matrix/30/2/%d", 1900+i%200))
		default:
			paths = append(paths, fmt.Sprintf("/api/public/matrix/%d/%d/%d", 1+i%28, 1+i%12, years[i%len(years)]))
		}
	}
	return paths
}

// TestCacheFollowsTree checks that the body cache does not outlive the tree's files: a
// record deleted while served answers 500, and so does one rewritten with the same size
// (before, it kept answering the old body and 304s for its ETag).
func TestCacheFollowsTree(t *testing.T) {
	dir := copyTree(t, generatortest.File(generator.RouteMatrix, 4, 4, 2000))
	h, err := New(Options{Dir: dir, CacheBytes: 8 << 20}) // no limit: the test polls
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.cur.Load().cache == nil {
		t.Fatal("the test handler has no cache")
	}
	const deleted, rewritten = "/api/public/matrix/3/3/2000", "/api/public/matrix/4/4/2000"
	for _, p := range []string{deleted, rewritten} {
		if w := get(t, h, "GET", p, nil); w.Code != 200 {
			t.Fatalf("%s: status %d", p, w.Code)
		}
	}
	remove(t, dir, generatortest.File(generator.RouteMatrix, 3, 3, 2000))
	p := filepath.Join(dir, filepath.FromSlash(generatortest.File(generator.RouteMatrix, 4, 4, 2000)))
	old, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(old, []byte(`"day":4`), []byte(`"day":5`), 1)
	if err := os.WriteFile(p, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	// The watch is asynchronous; it acts within microseconds, the test allows seconds.
	var del, rew *httptest.ResponseRecorder
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
		del, rew = get(t, h, "GET", deleted, nil), get(t, h, "GET", rewritten, nil)
		if del.Code == 500 && rew.Code == 500 {
			break
		}
	}
	if del.Code != 500 {
		t.Errorf("deleted record: status %d, want 500", del.Code)
	}
	if rew.Code != 500 {
		t.Errorf("rewritten record: status %d, want 500 (its body is not the manifest's)", rew.Code)
	}
	if w := get(t, h, "GET", "/api/public/matrix/2/3/2000", nil); w.Code != 200 {
		t.Errorf("another record: status %d, want 200", w.Code)
	}
}

// TestAnyMethod checks that any method token but GET, HEAD and OPTIONS gets 405 with Allow
// from the Go server, also tokens the shared suite leaves out because Cloudflare rejects
// them before a worker runs.
func TestAnyMethod(t *testing.T) {
	h := newTestHandler(t, sharedTree(t), nil)
	for _, m := range []string{"FOO", "BREW", "TRACE", "CONNECT", "get", "X-CUSTOM"} {
		for _, p := range []string{"/api/public/matrix/1/1/2000", "/api/public/life-path/7", "/api/public/nope"} {
			t.Run(m+" "+p, func(t *testing.T) {
				req := httptest.NewRequest("GET", p, nil)
				req.Method = m
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 405 || w.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
					t.Errorf("status %d, Allow %q; want 405 and GET, HEAD, OPTIONS", w.Code, w.Header().Get("Allow"))
				}
			})
		}
	}
}
