package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// sharedRun is the one `numerology generate --years 2000` of the test binary: the tree most
// tests read, and what the command printed making it. Generating is the main cost of these
// tests, so a test that only reads a year-2000 tree reads this one, and a test that changes
// it changes a copy (treeCopy).
type sharedRun struct {
	dir            string // the tree; no test may change it
	code           int
	stdout, stderr string
	manifestSum    string // the sha256 of its manifest.json, checked after the tests
}

// sharedRoot is the temporary folder of the shared tree, removed after the tests.
var sharedRoot string

var shared = sync.OnceValues(func() (sharedRun, error) {
	root, err := os.MkdirTemp("", "numerology-cmd-test-")
	if err != nil {
		return sharedRun{}, err
	}
	sharedRoot = root
	r := sharedRun{dir: filepath.Join(root, "out")}
	var stdout, stderr bytes.Buffer
	r.code = Main(context.Background(), []string{"generate", "--years", "2000", "--out", r.dir}, &stdout, &stderr)
	r.stdout, r.stderr = stdout.String(), stderr.String()
	if r.code != 0 {
		return r, fmt.Errorf("generate --years 2000: exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(r.dir, manifest.FileName))
	if err != nil {
		return r, err
	}
	r.manifestSum = testsupport.SHA256Hex(b)
	return r, nil
})

// sharedTree returns the shared year-2000 tree, which the test must not change.
func sharedTree(t *testing.T) string {
	t.Helper()
	r, err := shared()
	if err != nil {
		t.Fatalf("the shared tree: %v", err)
	}
	return r.dir
}

// treeCopy returns a copy of the shared year-2000 tree in a new temporary directory of t,
// at <tmp>/out, for a test that changes it. Its folders are new and its files are hard links
// to the shared tree's, so a test changes a file only through writeFile, which replaces it
// (as generate and pack do), and never writes into one; checkShared catches a slip.
func treeCopy(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "out")
	linkTree(t, sharedTree(t), dst)
	return dst
}

// linkTree makes dst a copy of the tree src as treeCopy does: new folders, linked files.
func linkTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := generatortest.LinkTree(src, dst, nil); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// writeFile writes b to path as a new file, replacing (not writing into) the file there: in a
// treeCopy that file is the shared tree's too.
func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	generatortest.ReplaceFile(t, path, b)
}

// checkShared reports whether the shared tree, if one was made, is still as generate wrote
// it: its manifest unchanged and verify passing. It then removes it.
func checkShared() error {
	if sharedRoot == "" {
		return nil
	}
	defer os.RemoveAll(sharedRoot)
	r, err := shared()
	if err != nil {
		return nil // the tests that asked for it failed already
	}
	b, err := os.ReadFile(filepath.Join(r.dir, manifest.FileName))
	if err != nil || testsupport.SHA256Hex(b) != r.manifestSum {
		return fmt.Errorf("a test changed the shared tree's manifest (%v); tests change a treeCopy", err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"verify", "--dir", r.dir}, &stdout, &stderr); code != 0 {
		return fmt.Errorf("a test changed the shared tree (tests change a treeCopy): verify: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	return nil
}
