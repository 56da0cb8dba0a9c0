package worker_test

import (
	"os"
	"slices"
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

// sharedTree returns the shared tree. No test may change it: linkedTree and copyTree give a
// test a tree of its own.
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

// linkedTree returns the shared tree as hard links in a temporary directory of t, for a
// test that only adds files or deletes them: the files named in copied (tree paths) are
// copied instead, for a test that writes into them.
func linkedTree(t *testing.T, copied ...string) string {
	t.Helper()
	return shared.Link(t, func(rel string) bool { return slices.Contains(copied, rel) })
}
