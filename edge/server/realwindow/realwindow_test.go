package realwindow_test

import (
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/conformance"
	"github.com/opennumerology/numerology/edge/server"
	"github.com/opennumerology/numerology/edge/server/servertest"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestConformanceRealWindow runs the shared suite against the server with the contract's
// own limit and window, from the tree's edge.json (60 requests a minute): the one run of
// the Go edge that waits a real Retry-After of up to a minute. Every other run of the suite
// (edge/server's TestConformance) uses conformance.ShortWindow.
func TestConformanceRealWindow(t *testing.T) {
	testsupport.SkipShort(t, "waits a real minute for the contract's rate window")
	dir := generatortest.Tree(t, 1900, 2000, 2100)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	window := time.Duration(m.Edge.RateLimit.WindowSeconds) * time.Second
	if window != time.Minute {
		t.Fatalf("edge.json's rate window is %v: want the contract's minute", window)
	}
	h, err := server.New(server.Options{
		Dir: dir, Manifest: m, RateLimit: m.Edge.RateLimit.Requests, RateWindow: window,
		TrustHeader: "X-Test-Client", CacheBytes: 8 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	srv := servertest.Serve(t, h)
	conformance.Run(t, conformance.Target{
		BaseURL: srv.URL, TreeDir: dir, RateLimit: m.Edge.RateLimit.Requests, RateWindow: window,
		ClientHeader: "X-Test-Client", ExactRetryAfter: true,
	})
}
