package generatortest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// Shared is a tree of a few years generated once per test binary and shared by the tests of
// a package that only read it (generating is the main cost of those tests). A test that
// changes a tree takes one of its own with Link. The package's TestMain calls Close after
// m.Run: it fails the run when a test changed the shared tree, and removes it.
type Shared struct {
	get         func() (string, error)
	root        string // the temporary folder, once generated
	manifestSum string // the sha256 of its manifest.json when generated
}

// NewShared returns the shared tree of the given years; nothing is generated until a test
// asks for it.
func NewShared(years ...int) *Shared {
	s := &Shared{}
	s.get = sync.OnceValues(func() (string, error) {
		root, err := os.MkdirTemp("", "numerology-test-tree-")
		if err != nil {
			return "", err
		}
		s.root = root
		out := filepath.Join(root, "out")
		if _, err := Generate(out, years...); err != nil {
			return "", err
		}
		b, err := os.ReadFile(filepath.Join(out, manifest.FileName))
		if err != nil {
			return "", err
		}
		s.manifestSum = testsupport.SHA256Hex(b)
		return out, nil
	})
	return s
}

// Dir returns the shared tree, generating it on first use. No test may change it.
func (s *Shared) Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := s.get()
	if err != nil {
		tb.Fatalf("the shared test tree: %v", err)
	}
	return dir
}

// Link returns a tree of the test's own, at out/ in a temporary folder of tb: its folders
// are new and its files are hard links to the shared tree's, except those for which copied
// (given the tree path) is true, which are copied, for a test that writes into them. A test
// changes a linked file only by replacing it (ReplaceFile), never by writing into it; Close
// catches a slip.
func (s *Shared) Link(tb testing.TB, copied func(rel string) bool) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), "out")
	if err := LinkTree(s.Dir(tb), dst, copied); err != nil {
		tb.Fatalf("link the shared test tree: %v", err)
	}
	return dst
}

// Close checks that the shared tree, if one was generated, is as generated (its manifest
// unchanged, every file it lists of the listed size and sha256), then removes it.
func (s *Shared) Close() error {
	if s.root == "" {
		return nil
	}
	defer os.RemoveAll(s.root)
	dir, err := s.get()
	if err != nil {
		return nil // the tests that asked for it failed already
	}
	b, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil || testsupport.SHA256Hex(b) != s.manifestSum {
		return fmt.Errorf("a test changed the shared test tree's manifest (%v): tests change a tree of their own (Link)", err)
	}
	m, err := manifest.Parse(b)
	if err != nil {
		return err
	}
	for _, f := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return fmt.Errorf("a test changed the shared test tree: %w", err)
		}
		if int64(len(b)) != f.Size || testsupport.SHA256Hex(b) != f.SHA256 {
			return fmt.Errorf("a test changed the shared test tree: %s differs from its manifest entry (tests change a tree of their own, Link)", f.Path)
		}
	}
	return nil
}

// LinkTree makes dst, a path that does not exist yet, a copy of the tree src: new folders,
// files hard-linked, except those for which copied (given the tree path; nil: none) is
// true, which are copied.
func LinkTree(src, dst string, copied func(rel string) bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
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
		case copied == nil || !copied(filepath.ToSlash(rel)):
			return os.Link(p, to)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}

// ReplaceFile writes b to path as a new file, replacing (not writing into) the file there:
// in a Link of a shared tree that file is the shared tree's too.
func ReplaceFile(tb testing.TB, path string, b []byte) {
	tb.Helper()
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}
