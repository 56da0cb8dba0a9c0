// Package workertest holds what the worker's test packages share: the years of their trees,
// the served tree the worker reads (no per-date files, one record blanked) and the check
// that Node and the worker's npm packages are installed. Only tests import it.
package workertest

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// TreeYears are the years of the worker's test trees: a few, plus the edges of the range.
var TreeYears = []int{1900, 2000, 2001, 2100}

// MissingDate is a valid date whose record WithoutPerDateFiles blanks out of its packed month
// file: the worker must answer 500 for it, and only for it.
var MissingDate = [3]int{15, 6, 2000}

// missingRoute is the route of MissingDate, by its name in the route table: the matrix,
// whose record the conformance suite's MissingMatrixFile names too.
const missingRoute = "matrix"

// RequireTools fails the test when Node's npm or the worker's npm packages (wrangler, Node)
// are missing from dir, the worker's folder; it skips under -short, the only skip the
// worker tests know.
func RequireTools(tb testing.TB, dir string) {
	tb.Helper()
	testsupport.SkipShort(tb, "runs Node (npm, wrangler)")
	if _, err := exec.LookPath("npm"); err != nil {
		tb.Fatal("npm not found on PATH: the worker tests need Node.js and npm (install Node, then run make test-tools)")
	}
	for _, bin := range []string{"wrangler", "node"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", bin)); err != nil {
			tb.Fatalf("edge/worker/node_modules/.bin/%s missing: run make test-tools (npm ci in edge/worker/)", bin)
		}
	}
}

// WithoutPerDateFiles copies tree, into a new temporary folder of tb, without the per-date
// files of every packed route (the worker reads only the packed month files) and, with
// blank, with the matrix record of MissingDate blanked out of its packed month file (an
// empty line).
func WithoutPerDateFiles(tb testing.TB, tree string, blank bool) string {
	tb.Helper()
	m, err := manifest.Load(tree)
	if err != nil {
		tb.Fatal(err)
	}
	perDate := func(rel string) bool {
		for _, r := range m.Edge.Routes {
			if _, ok := r.MatchFile(rel); ok && r.Packed != nil {
				return true
			}
		}
		return false
	}
	served := filepath.Join(tb.TempDir(), "served")
	dropped := 0
	err = filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(tree, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(served, rel), 0o755)
		}
		if perDate(filepath.ToSlash(rel)) {
			dropped++
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(served, rel), b, 0o644)
	})
	if err != nil {
		tb.Fatalf("copy the tree: %v", err)
	}
	if want := rules.DatesInYears(m.Years); dropped < want {
		tb.Fatalf("dropped %d per-date files, want at least the %d records of one date route", dropped, want)
	}
	if !blank {
		return served
	}
	r := m.Edge.ShardRoute(missingRoute)
	if r == nil {
		tb.Fatalf("the tree has no packed route %s", missingRoute)
	}
	rel, line := r.PackedPath(MissingDate[:])
	month := filepath.Join(served, filepath.FromSlash(rel))
	b, err := os.ReadFile(month)
	if err != nil {
		tb.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[line-1] = []byte("\n")
	if err := os.WriteFile(month, bytes.Join(lines, nil), 0o644); err != nil {
		tb.Fatal(err)
	}
	return served
}
