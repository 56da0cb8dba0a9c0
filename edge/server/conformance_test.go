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

// TestConformance runs the shared suite against the server over a small tree, over a tree
// with one matrix file deleted, and over a tree with extra routes of every parameter type
// and a new error key that no code of the server knows (generatortest.AddExtraRoutes): the
// suite's table cases check those from the config alone. The three run in parallel: each
// waits once for a Retry-After of up to a minute.
func TestConformance(t *testing.T) {
	t.Parallel()
	t.Run("tree", func(t *testing.T) {
		t.Parallel()
		dir := genTree(t)
		conformance.Run(t, conformance.Target{
			BaseURL: startServer(t, newTestHandler(t, dir, nil)), TreeDir: dir,
			RateLimit: 60, RateWindow: time.Minute, ClientHeader: "X-Test-Client", ExactRetryAfter: true,
		})
	})
	t.Run("tree with a deleted file", func(t *testing.T) {
		t.Parallel()
		dir := genTree(t)
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(manifest.MatrixFile(14, 7, 2000)))); err != nil {
			t.Fatal(err)
		}
		conformance.Run(t, conformance.Target{
			BaseURL: startServer(t, newTestHandler(t, dir, nil)), TreeDir: dir,
			RateLimit: 60, RateWindow: time.Minute, ClientHeader: "X-Test-Client", ExactRetryAfter: true,
			MissingMatrixFile: "14/7/2000",
		})
	})
	t.Run("tree with extra routes", func(t *testing.T) {
		t.Parallel()
		dir := genTree(t)
		generatortest.AddExtraRoutes(t, dir)
		conformance.Run(t, conformance.Target{
			BaseURL: startServer(t, newTestHandler(t, dir, nil)), TreeDir: dir,
			RateLimit: 60, RateWindow: time.Minute, ClientHeader: "X-Test-Client", ExactRetryAfter: true,
		})
	})
}
