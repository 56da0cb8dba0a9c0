package worker_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
)

// sharedTree returns the package's tree of treeYears, generated once per test binary
// (generating is the main cost of these tests besides the waits). No test may change it:
// linkedTree and copyTree give a test a tree of its own.
func sharedTree(t *testing.T) string {
	t.Helper()
	dir, err := generateShared()
	if err != nil {
		t.Fatalf("the shared test tree: %v", err)
	}
	return dir
}

var generateShared = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "edge-worker-tree-")
	if err != nil {
		return "", err
	}
	sharedRoot = dir
	out := filepath.Join(dir, "out")
	if _, err := generatortest.Generate(out, treeYears...); err != nil {
		return "", err
	}
	return out, nil
})

// sharedRoot is the temporary directory of the shared tree, removed by TestMain.
var sharedRoot string

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedRoot != "" {
		if dir, err := generateShared(); err == nil {
			if err := sameAsManifest(dir); err != nil {
				fmt.Fprintf(os.Stderr, "a test changed the shared test tree (write into a copy of your own): %v\n", err)
				code = 1
			}
		}
		os.RemoveAll(sharedRoot)
	}
	os.Exit(code)
}

// sameAsManifest checks that every file the manifest of dir lists has its size and sha256.
func sameAsManifest(dir string) error {
	m, err := manifest.Load(dir)
	if err != nil {
		return err
	}
	for _, f := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(b); int64(len(b)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
			return fmt.Errorf("%s differs from its manifest entry", f.Path)
		}
	}
	return nil
}

// copyTree returns a copy of the shared tree in a temporary directory of t, for a test that
// changes it.
func copyTree(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(dst, os.DirFS(sharedTree(t))); err != nil {
		t.Fatalf("copy the shared test tree: %v", err)
	}
	return dst
}

// linkedTree returns the shared tree as hard links in a temporary directory of t, for a
// test that only adds files or deletes them: the files named in copied (tree paths) are
// copied instead, for a test that writes into them. TestMain fails the run when a test
// wrote through a link into the shared tree.
func linkedTree(t *testing.T, copied ...string) string {
	t.Helper()
	src := sharedTree(t)
	dst := filepath.Join(t.TempDir(), "out")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case !slices.Contains(copied, filepath.ToSlash(rel)):
			return os.Link(p, to)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatalf("link the shared test tree: %v", err)
	}
	return dst
}
