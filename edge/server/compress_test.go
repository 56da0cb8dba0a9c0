package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// TestPagesCompressedAsCloudflare checks that serve compresses a page as Cloudflare's edge
// does what its assets answer: gzip when the request's Accept-Encoding accepts it, for the
// types Cloudflare compresses and the statuses 200 and 404, under the ETag weakened and with
// Vary: Accept-Encoding; the bytes sent decode to the tree's file, and Content-Length counts
// them. Every other answer is the file as it is under its strong ETag, and the API is never
// compressed (docs/design.md §4).
func TestPagesCompressedAsCloudflare(t *testing.T) {
	dir := sharedTree(t)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Dir: dir, Manifest: m, NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	file := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	strong := get(t, h, "GET", "/", nil).Header().Get("ETag")
	for _, c := range []struct {
		target, ae string
		status     int
		file       string
		gzipped    bool
	}{
		{"/", "gzip, deflate, br, zstd", 200, "index.html", true},
		{"/", "gzip", 200, "index.html", true},
		{"/", "x-gzip", 200, "index.html", true},
		{"/", "GZIP;q=0.5", 200, "index.html", true},
		{"/", "*", 200, "index.html", true},
		{"/", "br;q=1, *;q=0.1", 200, "index.html", true},
		{"/", "", 200, "index.html", false},
		{"/", "identity", 200, "index.html", false},
		{"/", "br", 200, "index.html", false},
		{"/", "gzip;q=0", 200, "index.html", false},
		{"/", "gzip;q=0, *", 200, "index.html", false},
		{"/", "*;q=0", 200, "index.html", false},
		{"/", "gzip;q=x", 200, "index.html", false},
		{"/assets/site.css", "gzip", 200, "assets/site.css", true},
		{"/llms.txt", "gzip", 200, "llms.txt", true},
		{"/no-such-page", "gzip", 404, "404.html", true},
		{"/assets/cards/life-path/7.png", "gzip", 200, "assets/cards/life-path/7.png", false},
		{"/api/public/life-path/7", "gzip", 200, "api/public/life-path/7.json", false},
	} {
		var hdr map[string]string
		if c.ae != "" {
			hdr = map[string]string{"Accept-Encoding": c.ae}
		}
		w := get(t, h, "GET", c.target, hdr)
		want := file(c.file)
		body := w.Body.Bytes()
		if n, _ := strconv.Atoi(w.Header().Get("Content-Length")); n != len(body) {
			t.Errorf("%s, %q: Content-Length %d, body %d bytes", c.target, c.ae, n, len(body))
		}
		enc := w.Header().Get("Content-Encoding")
		switch {
		case w.Code != c.status:
			t.Errorf("%s, %q: status %d, want %d", c.target, c.ae, w.Code, c.status)
		case c.gzipped:
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s, %q: %v", c.target, c.ae, err)
			}
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, %q: the gzipped body is not %s (%v)", c.target, c.ae, c.file, err)
			}
			if enc != "gzip" || w.Header().Get("Vary") != "Accept-Encoding" || len(body) >= len(want) {
				t.Errorf("%s, %q: Content-Encoding %q, Vary %q, %d bytes of %d", c.target, c.ae, enc, w.Header().Get("Vary"), len(body), len(want))
			}
			if c.target == "/" && w.Header().Get("ETag") != "W/"+strong {
				t.Errorf("%s, %q: ETag %s, want W/%s", c.target, c.ae, w.Header().Get("ETag"), strong)
			}
		default:
			if !bytes.Equal(body, want) || w.Header().Get("Vary") != "" || (enc != "" && enc != "identity") {
				t.Errorf("%s, %q: Content-Encoding %q, Vary %q, body %d bytes, want %s as it is (%d)", c.target, c.ae, enc, w.Header().Get("Vary"), len(body), c.file, len(want))
			}
			if c.target == "/" && w.Header().Get("ETag") != strong {
				t.Errorf("%s, %q: ETag %s, want %s", c.target, c.ae, w.Header().Get("ETag"), strong)
			}
		}
	}

	// HEAD tells the gzipped length; a revalidation with either form of the ETag is a 304
	// that names the form its 200 would.
	gz := get(t, h, "GET", "/", map[string]string{"Accept-Encoding": "gzip"}).Body.Len()
	w := get(t, h, "HEAD", "/", map[string]string{"Accept-Encoding": "gzip"})
	if w.Body.Len() != 0 || w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Content-Length") != strconv.Itoa(gz) {
		t.Errorf("HEAD: Content-Encoding %q, Content-Length %q, body %d bytes; want gzip, %d, none", w.Header().Get("Content-Encoding"), w.Header().Get("Content-Length"), w.Body.Len(), gz)
	}
	for _, inm := range []string{strong, "W/" + strong} {
		w := get(t, h, "GET", "/", map[string]string{"Accept-Encoding": "gzip", "If-None-Match": inm})
		if w.Code != http.StatusNotModified || w.Header().Get("ETag") != "W/"+strong || w.Header().Get("Content-Encoding") != "" || w.Body.Len() != 0 {
			t.Errorf("If-None-Match %s: %d, ETag %s, Content-Encoding %q, %d bytes; want 304 under W/%s", inm, w.Code, w.Header().Get("ETag"), w.Header().Get("Content-Encoding"), w.Body.Len(), strong)
		}
	}
}

// TestCompressible pins which answers Cloudflare's edge compresses: its types, 200 and 404,
// never under Cache-Control no-transform.
func TestCompressible(t *testing.T) {
	for _, c := range []struct {
		ct, cc string
		status int
		want   bool
	}{
		{"text/html; charset=utf-8", "public, max-age=0, must-revalidate", 200, true},
		{"TEXT/HTML", "", 404, true},
		{"image/svg+xml", "", 200, true},
		{"application/json; charset=utf-8", "public, max-age=300", 200, true},
		{"text/html; charset=utf-8", "public, No-Transform", 200, false},
		{"text/html; charset=utf-8", "", 500, false},
		{"text/html; charset=utf-8", "", 307, false},
		{"text/csv; charset=utf-8", "", 200, false},
		{"image/png", "", 200, false},
		{"application/gzip", "", 200, false},
	} {
		hd := http.Header{"Content-Type": {c.ct}}
		if c.cc != "" {
			hd["Cache-Control"] = []string{c.cc}
		}
		if got := compressible(hd, c.status); got != c.want {
			t.Errorf("%s, %q, %d: %v, want %v", c.ct, c.cc, c.status, got, c.want)
		}
	}
}
