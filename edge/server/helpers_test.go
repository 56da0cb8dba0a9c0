package server

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
)

// testYears are the years of the test trees: the range's ends and a leap century.
var testYears = []int{1900, 2000, 2100}

// genTree generates a small tree into a temporary directory and returns its path.
func genTree(t testing.TB) string {
	t.Helper()
	return generatortest.Tree(t, testYears...)
}

// newTestHandler builds the handler of dir as serve does by default (body cache on) with the
// contract's limit, trusting X-Test-Client.
func newTestHandler(t testing.TB, dir string, now func() time.Time) *Handler {
	t.Helper()
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatalf("load manifest: %v", err)
	}
	h, err := New(Options{
		Dir: dir, Manifest: m, RateLimit: m.Edge.RateLimit.Requests,
		RateWindow:  time.Duration(m.Edge.RateLimit.WindowSeconds) * time.Second,
		TrustHeader: "X-Test-Client", Now: now, CacheBytes: 8 << 20,
	})
	if err != nil {
		t.Fatalf("new handler: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// startServer serves h on 127.0.0.1:0 until the test ends.
func startServer(t testing.TB, h *Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
