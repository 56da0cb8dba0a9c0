package generator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/opennumerology/numerology/content"
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

// miniTree writes into dir a small tree that generate could have made as far as ownership
// goes: three files and a manifest with the generator mark listing them. It is quick to make,
// so tests can set up hundreds of them.
func miniTree(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"index.html":                       "<!doctype html><title>API</title>\n",
		"api/public/index.json":            `{"routes":[]}` + "\n",
		"api/public/errors/not-found.json": `{"error":"not_found"}` + "\n",
	}
	writeFiles(t, dir, files)
	m := &manifest.Manifest{
		APIVersion: manifest.APIVersion,
		Generator:  manifest.Generator,
		Edge:       miniEdge(t),
	}
	var list []manifest.File
	for p, body := range files {
		sum := sha256.Sum256([]byte(body))
		list = append(list, manifest.File{Path: p, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])})
	}
	m.SetFiles(list...)
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
}

// miniEdgeConfig is the edge config of the built-in site, built once: a manifest is only
// read with a complete one.
var miniEdgeConfig = sync.OnceValues(func() (manifest.EdgeConfig, error) {
	c, err := LoadContent(content.Embedded(), "content")
	if err != nil {
		return manifest.EdgeConfig{}, err
	}
	s, err := NewSite(c, "")
	if err != nil {
		return manifest.EdgeConfig{}, err
	}
	return s.EdgeConfig()
})

// miniEdge returns the edge config of miniTree's manifests.
func miniEdge(t *testing.T) manifest.EdgeConfig {
	t.Helper()
	cfg, err := miniEdgeConfig()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// editManifest rewrites dir/manifest.json through edit.
func editManifest(t *testing.T, dir string, edit func(m *manifest.Manifest)) {
	t.Helper()
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit(m)
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
}

// TestRefusesTreesItDidNotMake checks that generate replaces only its own trees: a folder
// with someone else's manifest.json (a browser extension), an imitation of generate's
// manifest, or a generated tree with files added or changed by hand is refused with a
// *RefusedError that says why and names the files, and nothing in it changes. Before, the
// imitation and files in subfolders (assets/my-logo.png) were accepted and deleted.
func TestRefusesTreesItDidNotMake(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, out string)
		want      []string
		wantFiles []string // RefusedError.Files
	}{
		{
			name: "browser extension",
			setup: func(t *testing.T, out string) {
				writeFiles(t, out, map[string]string{"manifest.json": `{"manifest_version":3}`, "src/app.js": "code"})
			},
			want: []string{"is not a numerology manifest"},
		},
		{
			name: "manifest that is not JSON",
			setup: func(t *testing.T, out string) {
				writeFiles(t, out, map[string]string{"manifest.json": "name: app\n"})
			},
			want: []string{"is not a numerology manifest"},
		},
		{
			// The imitation: api_version, the prefix, an edge config and two entries
			// whose sha256 is "00", beside the user's own files.
			name: "imitation manifest",
			setup: func(t *testing.T, out string) {
				writeFiles(t, out, map[string]string{
					"manifest.json":   `{"api_version":"1.0","edge":{"prefix":"/api/public","errors":{"not_found":{"status":404}},"headers":{"common":{"a":"b"}}},"files":[["index.html",5,"00"],["assets/logo.png",4,"00"]]}`,
					"index.html":      "mine!",
					"assets/logo.png": "\x89PNG",
				})
			},
			want: []string{"is not a numerology manifest", `sha256 "00" is not 64 lowercase hex digits`},
		},
		{
			name: "imitation with valid sums and no generator mark",
			setup: func(t *testing.T, out string) {
				miniTree(t, out)
				editManifest(t, out, func(m *manifest.Manifest) { m.Generator = "" })
			},
			want: []string{`does not carry generate's mark ("generator": "numerology generate")`, "--force"},
		},
		{
			name: "manifest path outside the tree",
			setup: func(t *testing.T, out string) {
				miniTree(t, out)
				editManifest(t, out, func(m *manifest.Manifest) {
					m.Files = append([]manifest.File{{Path: "../photos/a.jpg", Size: 1, SHA256: strings.Repeat("0", 64)}}, m.Files...)
				})
			},
			want: []string{`"../photos/a.jpg" is not a path inside the tree`},
		},
		{
			name: "generated tree with files added in subfolders",
			setup: func(t *testing.T, out string) {
				if _, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2000}}); err != nil {
					t.Fatal(err)
				}
				writeFiles(t, out, map[string]string{"notes.txt": "mine", "assets/my-logo.png": "\x89PNG", "api/notes.txt": "n"})
			},
			want:      []string{"it holds 3 files its manifest does not list: api/notes.txt, assets/my-logo.png, notes.txt", "--force"},
			wantFiles: []string{"api/notes.txt", "assets/my-logo.png", "notes.txt"},
		},
		{
			name: "listed file changed size",
			setup: func(t *testing.T, out string) {
				miniTree(t, out)
				writeFiles(t, out, map[string]string{"index.html": "my own page, longer than before\n"})
			},
			want:      []string{"1 file changed since generate wrote it: index.html (32 bytes, the manifest says 34)"},
			wantFiles: []string{"index.html"},
		},
		{
			name: "link in the tree",
			setup: func(t *testing.T, out string) {
				miniTree(t, out)
				if err := os.Symlink(t.TempDir(), filepath.Join(out, "photos")); err != nil {
					t.Fatal(err)
				}
			},
			want:      []string{"1 file its manifest does not list: photos"},
			wantFiles: []string{"photos"},
		},
		{
			name: "a file",
			setup: func(t *testing.T, out string) {
				writeFiles(t, filepath.Dir(out), map[string]string{filepath.Base(out): "x"})
			},
			want: []string{"not a directory"},
		},
		{
			name: "a link to a tree",
			setup: func(t *testing.T, out string) {
				tree := filepath.Join(filepath.Dir(out), "tree")
				miniTree(t, tree)
				if err := os.Symlink(tree, out); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"it is a link"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "webext")
			tt.setup(t, out)
			before := snapshot(t, filepath.Dir(out))
			_, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2000}})
			var ioErr *IOError
			var refused *RefusedError
			if !errors.As(err, &ioErr) || !errors.As(err, &refused) || !strings.HasPrefix(err.Error(), "refusing to replace "+out+": ") {
				t.Fatalf("Generate error = %v, want an IOError refusing to replace %s", err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !slices.Equal(refused.Files, tt.wantFiles) {
				t.Errorf("RefusedError.Files = %q, want %q", refused.Files, tt.wantFiles)
			}
			if diff := snapshotDiff(before, snapshot(t, filepath.Dir(out))); diff != "" {
				t.Errorf("a refused run changed %s", diff)
			}
		})
	}
}

// TestForceReplacesAndNamesWhatItDeletes checks --force: a generated tree with files added
// by hand (and without the generator mark, as an older numerology wrote it) is replaced, and
// the summary names exactly the files that generate had not written.
func TestForceReplacesAndNamesWhatItDeletes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	miniTree(t, out)
	editManifest(t, out, func(m *manifest.Manifest) { m.Generator = "" })
	writeFiles(t, out, map[string]string{"assets/my-logo.png": "\x89PNG", "index.html": "edited by hand"})
	sum, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2000}, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"assets/my-logo.png", "index.html"}; !slices.Equal(sum.Deleted, want) {
		t.Errorf("Summary.Deleted = %q, want %q", sum.Deleted, want)
	}
	res, err := Verify(context.Background(), out, nil)
	if err != nil || len(res.Problems) > 0 {
		t.Fatalf("the forced tree does not verify: %v %v", err, res)
	}
	// A clean tree of generate's is replaced without --force and deletes nothing of anyone's.
	sum, err = Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2000}})
	if err != nil || len(sum.Deleted) != 0 {
		t.Fatalf("regenerate: %v, deleted %q", err, sum.Deleted)
	}
}

// TestRefusalTouchesNothingBeside is the example: .photos.old beside a refused
// --out photos must survive. Before, recovery ran first and removed it (or renamed it to
// photos when photos was absent, or removed an unlocked .photos.tmp-x whatever it held).
func TestRefusalTouchesNothingBeside(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string // beside and in photos
		refused bool
	}{
		{"photos and .photos.old", map[string]string{"photos/a": "x", ".photos.old/a": "y"}, true},
		{"only .photos.old", map[string]string{".photos.old/a": "y"}, false},
		{".photos.old is a file", map[string]string{"photos/a": "x", ".photos.old": "y"}, true},
		{"a temporary-looking folder", map[string]string{"photos/a": "x", ".photos.tmp-1/a": "z"}, true},
		{"a temporary-looking folder beside no photos", map[string]string{".photos.tmp-1/a": "z", ".photos.tmp-2": "w"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			out := filepath.Join(dir, "photos")
			before := snapshot(t, dir)
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // an accepted run stops before it writes: only recovery has run
			_, err := Generate(ctx, Options{Site: testSite(t), Out: out, Years: []int{2000}})
			if tt.refused != (refusal(err) != nil) {
				t.Fatalf("Generate error = %v, want refused %v", err, tt.refused)
			}
			if !tt.refused && !errors.Is(err, context.Canceled) {
				t.Fatalf("Generate error = %v, want context.Canceled", err)
			}
			if diff := snapshotDiff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("generate changed %s", diff)
			}
		})
	}
}

// TestRecoversKilledRuns sets up what a run killed at each point leaves beside the tree and
// checks that the next run repairs it: a temporary tree being written or removed is removed,
// a previous tree moved aside by an unfinished two-rename swap is put back (even when the
// next run fails) or dropped once the new tree is in place, and a marker left in the tree is
// dropped. Every leftover holds the marker, as the swap protocol writes it.
func TestRecoversKilledRuns(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir, out string)
		cancel bool // the next run is interrupted before it swaps
		// restored: after an interrupted next run, out is the previous tree (index.html of
		// miniTree), not missing.
		restored bool
	}{
		{
			name: "killed while writing",
			setup: func(t *testing.T, dir, out string) {
				miniTree(t, out)
				tmp := filepath.Join(dir, ".out.tmp-12345")
				writeFiles(t, tmp, map[string]string{"api/public/life-path.json": "[]"})
				mustMark(t, tmp)
			},
		},
		{
			name: "killed between the renames",
			setup: func(t *testing.T, dir, out string) {
				old := filepath.Join(dir, ".out.old")
				miniTree(t, old)
				mustMark(t, old)
				tmp := filepath.Join(dir, ".out.tmp-1")
				miniTree(t, tmp)
				mustMark(t, tmp)
			},
		},
		{
			name: "killed between the renames, next run interrupted",
			setup: func(t *testing.T, dir, out string) {
				old := filepath.Join(dir, ".out.old")
				miniTree(t, old)
				mustMark(t, old)
			},
			cancel:   true,
			restored: true,
		},
		{
			name: "killed before removing the previous tree",
			setup: func(t *testing.T, dir, out string) {
				miniTree(t, out)
				mustMark(t, out) // the new tree's marker, not yet dropped
				old := filepath.Join(dir, ".out.old")
				miniTree(t, old)
				mustMark(t, old)
			},
			cancel: true,
		},
		{
			name: "killed while removing the exchanged previous tree",
			setup: func(t *testing.T, dir, out string) {
				miniTree(t, out)
				tmp := filepath.Join(dir, ".out.tmp-777")
				miniTree(t, tmp)
				mustMark(t, tmp)
				os.Remove(filepath.Join(tmp, "index.html")) // removal had begun
			},
			cancel: true,
		},
		{
			name: "killed while removing, manifest already gone",
			setup: func(t *testing.T, dir, out string) {
				miniTree(t, out)
				tmp := filepath.Join(dir, ".out.tmp-778")
				miniTree(t, tmp)
				mustMark(t, tmp)
				os.Remove(filepath.Join(tmp, manifest.FileName))
			},
			cancel: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			tt.setup(t, dir, out)
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
			if _, err := os.Lstat(filepath.Join(out, markerName)); err == nil {
				t.Errorf("the tree still holds the marker")
			}
			m, err := manifest.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.restored:
				if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil || len(m.Files) != 3 {
					t.Errorf("out is not the restored previous tree: %v, %d files", err, len(m.Files))
				}
			case !tt.cancel && !slices.Equal(m.Years, []int{1999}):
				t.Errorf("tree years %v, want the new run's [1999]", m.Years)
			}
		})
	}
}

// refusal returns err's *RefusedError, or nil.
func refusal(err error) *RefusedError {
	var r *RefusedError
	if errors.As(err, &r) {
		return r
	}
	return nil
}

func mustMark(t *testing.T, dir string) {
	t.Helper()
	if err := writeMarker(dir); err != nil {
		t.Fatal(err)
	}
}

// TestTwoRenameSwap runs the swap without renameat2's exchange, as on other systems: the
// previous tree goes to .out.old and is removed once the new one is in place, and a user's
// .out.old in the way stops the run with the previous tree intact and the folder untouched.
func TestTwoRenameSwap(t *testing.T) {
	exchangeDirs = func(string, string) (bool, error) { return false, nil }
	t.Cleanup(func() { exchangeDirs = exchange })
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	miniTree(t, out)
	if _, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2000}}); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside the tree: %v, want only out", got)
	}
	writeFiles(t, dir, map[string]string{".out.old/mine.txt": "keep"})
	before := snapshot(t, dir)
	_, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2001}})
	if err == nil || !strings.Contains(err.Error(), ".out.old is in the way") {
		t.Fatalf("Generate error = %v, want .out.old in the way", err)
	}
	if diff := snapshotDiff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("the failed run changed %s", diff)
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

// snapshot records every entry under dir (not following links): its kind, mode and content
// or link target, by path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "link → " + target
			return err
		case d.IsDir():
			out[rel] = "dir " + fi.Mode().String()
		default:
			b, err := os.ReadFile(p)
			out[rel] = "file " + fi.Mode().String() + " " + string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshotDiff describes the first differences between two snapshots, or "".
func snapshotDiff(before, after map[string]string) string {
	var diffs []string
	for p, b := range before {
		if a, ok := after[p]; !ok {
			diffs = append(diffs, p+" (removed)")
		} else if a != b {
			diffs = append(diffs, p+" (changed)")
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, p+" (added)")
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 8 {
		diffs = append(diffs[:8], "…")
	}
	return strings.Join(diffs, ", ")
}
