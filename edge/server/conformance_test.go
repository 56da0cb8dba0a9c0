package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/conformance"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
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
// window. edge/server/realwindow proves the contract's own window.
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
