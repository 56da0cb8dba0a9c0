package worker_test

import (
	"os"
	"testing"

	"github.com/opennumerology/numerology/edge/worker/workertest"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// edgeDir is the worker's folder (package.json, wrangler.json, src/, test/), relative to
// this package's folder, where go test runs: the test files sit beside it.
const edgeDir = "."

// shared is the package's tree of workertest.TreeYears, generated once per test binary (generating is
// the main cost of these tests besides the waits).
var shared = generatortest.NewShared(workertest.TreeYears...)

// sharedTree returns the shared tree. No test may change it: copyTree gives a test a tree of
// its own.
func sharedTree(t *testing.T) string {
	t.Helper()
	return shared.Dir(t)
}

func TestMain(m *testing.M) {
	os.Exit(testsupport.RunTests(m, shared.Close, uploadsTree.Close))
}

// copyTree returns a copy of the shared tree in a temporary directory of t, every file
// copied, for a test that changes it.
func copyTree(t *testing.T) string {
	t.Helper()
	return shared.Link(t, func(string) bool { return true })
}
