package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// writeFiles creates files (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestRefusesTreesItDidNotMake checks that generate replaces only its own trees: a folder
// with someone else's manifest.json (a browser extension) or a generated tree with a file
// added by hand is refused with an IOError that says why, and nothing in it changes.
func TestRefusesTreesItDidNotMake(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, out string)
		want  string
	}{
		{
			name: "browser extension",
			setup: func(t *testing.T, out string) {
				writeFiles(t, out, map[string]string{"manifest.json": `{"manifest_version":3}`, "src/app.js": "code"})
			},
			want: "is not a numerology manifest",
		},
		{
			name: "manifest that is not JSON",
			setup: func(t *testing.T, out string) {
				writeFiles(t, out, map[string]string{"manifest.json": "name: app\n"})
			},
			want: "is not a numerology manifest",
		},
		{
			name: "generated tree with a file added",
			setup: func(t *testing.T, out string) {
				if _, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2000}}); err != nil {
					t.Fatal(err)
				}
				writeFiles(t, out, map[string]string{"notes.txt": "mine"})
			},
			want: "holds notes.txt, which its manifest does not list",
		},
		{
			name: "a file",
			setup: func(t *testing.T, out string) {
				writeFiles(t, filepath.Dir(out), map[string]string{filepath.Base(out): "x"})
			},
			want: "not a directory",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "webext")
			tt.setup(t, out)
			before := readTreeOrFile(t, out)
			_, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2000}})
			var ioErr *IOError
			if !errors.As(err, &ioErr) || !strings.Contains(err.Error(), "refusing to replace") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Generate error = %v, want an IOError refusing with %q", err, tt.want)
			}
			after := readTreeOrFile(t, out)
			if len(after) != len(before) {
				t.Fatalf("had %d files, now %d", len(before), len(after))
			}
			for p, b := range before {
				if string(after[p]) != string(b) {
					t.Errorf("%s changed", p)
				}
			}
		})
	}
}

func readTreeOrFile(t *testing.T, p string) map[string][]byte {
	t.Helper()
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		b, _ := os.ReadFile(p)
		return map[string][]byte{"": b}
	}
	return readTree(t, p)
}

// TestRecoversKilledRuns sets up what a run killed at each point leaves beside the tree and
// checks that the next run repairs it: a stale temporary directory is removed, a previous
// tree moved aside by an unfinished two-rename swap is put back (even when the next run
// fails) or dropped once the new tree is in place.
func TestRecoversKilledRuns(t *testing.T) {
	tests := []struct {
		name      string
		outExists bool // the tree is in place
		oldExists bool // .out.old holds a tree
		cancel    bool // the next run is interrupted before it swaps
	}{
		{name: "stale temporary directory", outExists: true},
		{name: "killed between the renames", oldExists: true},
		{name: "killed between the renames, next run interrupted", oldExists: true, cancel: true},
		{name: "killed before removing the previous tree", outExists: true, oldExists: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := generate(t, dir, 2000)
			prev := readTree(t, out)
			if tt.oldExists {
				if err := os.Rename(out, filepath.Join(dir, ".out.old")); err != nil {
					t.Fatal(err)
				}
				if tt.outExists {
					generate(t, dir, 2001)
				}
			}
			writeFiles(t, dir, map[string]string{".out.tmp-12345/api/public/life-path.json": "[]"})
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancel {
				cancel()
			}
			defer cancel()
			_, err := Generate(ctx, Options{Site: testSite(t), Out: out, Years: []int{1999}})
			if tt.cancel != (err != nil) {
				t.Fatalf("Generate error = %v", err)
			}
			if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
				t.Errorf("beside the tree: %v, want only out", got)
			}
			m, err := manifest.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			if tt.cancel {
				if got := readTree(t, out); len(got) != len(prev) {
					t.Errorf("restored tree has %d files, want the previous %d", len(got), len(prev))
				}
			} else if !slices.Equal(m.Years, []int{1999}) {
				t.Errorf("tree years %v, want the new run's [1999]", m.Years)
			}
		})
	}
}

// TestSwapNeverLeavesTheTreeMissing regenerates a tree repeatedly while another goroutine
// keeps reading its manifest: the manifest must always be there (serve never sees a
// missing tree).
func TestSwapNeverLeavesTheTreeMissing(t *testing.T) {
	dir := t.TempDir()
	out := generate(t, dir, 2000)
	var stop atomic.Bool
	var missing atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if _, err := os.Stat(filepath.Join(out, manifest.FileName)); err != nil {
				missing.Add(1)
			}
		}
	}()
	site := testSite(t)
	for range 8 {
		if _, err := Generate(context.Background(), Options{Site: site, Out: out, Years: []int{2000}}); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if n := missing.Load(); n > 0 {
		t.Errorf("the manifest was missing %d times during regenerations", n)
	}
}
