package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
)

// testYears are the years of the test trees: the range's ends and a leap century.
var testYears = []int{1900, 2000, 2100}

// sharedTree returns the package's tree of testYears, generated once per test binary
// (generating is the main cost of these tests). No test may change it: copyTree gives a
// test a tree of its own.
func sharedTree(tb testing.TB) string {
	tb.Helper()
	dir, err := generateShared()
	if err != nil {
		tb.Fatalf("the shared test tree: %v", err)
	}
	return dir
}

var generateShared = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "edge-server-tree-")
	if err != nil {
		return "", err
	}
	sharedRoot = dir
	out := filepath.Join(dir, "out")
	if _, err := generatortest.Generate(out, testYears...); err != nil {
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
				fmt.Fprintf(os.Stderr, "a test changed the shared test tree (write into a copyTree's own copy): %v\n", err)
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

// copyTree returns a copy of the shared tree in a temporary directory of tb, for a test
// that changes the tree. The per-date records (api/public/<route>/<d>/<m>/<y>.json, most
// of the files) are hard links to the shared tree's, so a test may delete them but not
// write into them; the records named in writable (tree paths) are copied, for a test that
// does. TestMain fails the run when a test wrote through a link into the shared tree.
func copyTree(tb testing.TB, writable ...string) string {
	tb.Helper()
	src := sharedTree(tb)
	dst := filepath.Join(tb.TempDir(), "out")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		slash := filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case strings.HasPrefix(slash, manifest.APIPrefix[1:]+"/") && strings.Count(slash, "/") == 5 && !slices.Contains(writable, slash):
			return os.Link(p, to)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		tb.Fatalf("copy the shared test tree: %v", err)
	}
	return dst
}

// newTestHandler builds the handler of dir as serve does by default (body cache on) with the
// contract's limit and window, trusting X-Test-Client.
func newTestHandler(t testing.TB, dir string, now func() time.Time) *Handler {
	t.Helper()
	return newWindowHandler(t, dir, now, 0)
}

// newWindowHandler is newTestHandler with the given rate window; 0 means the contract's
// (the tree's edge.json).
func newWindowHandler(t testing.TB, dir string, now func() time.Time, window time.Duration) *Handler {
	t.Helper()
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatalf("load manifest: %v", err)
	}
	if window == 0 {
		window = time.Duration(m.Edge.RateLimit.WindowSeconds) * time.Second
	}
	h, err := New(Options{
		Dir: dir, Manifest: m, RateLimit: m.Edge.RateLimit.Requests, RateWindow: window,
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
