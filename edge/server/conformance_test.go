package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/conformance"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// conformanceTarget is the shared suite's target of the server of dir with the given rate
// window (0: the tree's own).
func conformanceTarget(t *testing.T, dir string, window time.Duration) conformance.Target {
	t.Helper()
	h := newWindowHandler(t, dir, nil, window)
	return conformance.Target{
		BaseURL: startServer(t, h), TreeDir: dir,
		RateLimit: h.limiter.limit, RateWindow: time.Duration(h.limiter.window),
		ClientHeader: "X-Test-Client", ExactRetryAfter: true,
	}
}

// TestConformance runs the shared suite against the server, with a short rate window, over
// a small tree, over a tree with one matrix file deleted, and over a tree with extra routes
// of every parameter type and a new error key that no code of the server knows
// (generatortest.AddExtraRoutes): the suite's table cases check those from the config
// alone. The three run in parallel: each waits once for a Retry-After of up to the short
// window. TestConformanceRealWindow proves the contract's own window.
func TestConformance(t *testing.T) {
	t.Parallel()
	t.Run("tree", func(t *testing.T) {
		t.Parallel()
		dir := sharedTree(t)
		conformance.Run(t, conformanceTarget(t, dir, conformance.ShortWindow))
	})
	t.Run("tree with a deleted file", func(t *testing.T) {
		t.Parallel()
		dir := copyTree(t)
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(manifest.MatrixFile(14, 7, 2000)))); err != nil {
			t.Fatal(err)
		}
		tg := conformanceTarget(t, dir, conformance.ShortWindow)
		tg.MissingMatrixFile = "14/7/2000"
		conformance.Run(t, tg)
	})
	t.Run("tree with extra routes", func(t *testing.T) {
		t.Parallel()
		dir := copyTree(t)
		generatortest.AddExtraRoutes(t, dir)
		conformance.Run(t, conformanceTarget(t, dir, conformance.ShortWindow))
	})
}

// TestConformanceRealWindow runs the shared suite against the server with the contract's
// own limit and window, from the tree's edge.json (60 requests a minute): the one run of
// the Go edge that waits a real Retry-After of up to a minute.
func TestConformanceRealWindow(t *testing.T) {
	testsupport.SkipShort(t, "waits a real minute for the contract's rate window")
	t.Parallel()
	dir := sharedTree(t)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tg := conformanceTarget(t, dir, 0)
	if want := time.Duration(m.Edge.RateLimit.WindowSeconds) * time.Second; tg.RateWindow != want || want != time.Minute {
		t.Fatalf("rate window %v, edge.json's %v: want the contract's minute", tg.RateWindow, want)
	}
	conformance.Run(t, tg)
}
