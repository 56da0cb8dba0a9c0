package outtree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// TestRefusesTreesItDidNotMake checks that Begin replaces only generate's own trees: a
// folder with someone else's manifest.json (a browser extension), an imitation of generate's
// manifest, or a tree of generate's with files added or changed by hand is refused with a
// *RefusedError that says why and names the files, and nothing in it or beside it changes.
// Before, the imitation and files in subfolders (assets/my-logo.png) were accepted and
// deleted.
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
			name: "no manifest",
			setup: func(t *testing.T, out string) {
				writeFiles(t, out, map[string]string{"notes.txt": "mine"})
			},
			want: []string{"it is not empty and holds no manifest.json"},
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
			name: "files added in subfolders",
			setup: func(t *testing.T, out string) {
				miniTree(t, out)
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
			want:      []string{"1 file changed since generate wrote it: index.html (32 bytes, the manifest says 38)"},
			wantFiles: []string{"index.html"},
		},
		{
			name: "listed file missing",
			setup: func(t *testing.T, out string) {
				miniTree(t, out)
				if err := os.Remove(filepath.Join(out, "index.html")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"1 file of its manifest is missing: index.html"},
		},
		{
			name: "many files added",
			setup: func(t *testing.T, out string) {
				miniTree(t, out)
				for _, c := range "abcdefghijkl" {
					writeFiles(t, out, map[string]string{"mine/" + string(c): "x"})
				}
			},
			want:      []string{"12 files its manifest does not list: mine/a, mine/b, mine/c, mine/d, mine/e, mine/f, mine/g, mine/h, mine/i, mine/j and 2 more"},
			wantFiles: []string{"mine/a", "mine/b", "mine/c", "mine/d", "mine/e", "mine/f", "mine/g", "mine/h", "mine/i", "mine/j", "mine/k", "mine/l"},
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
			temp, err := Begin(out, false)
			if err == nil {
				temp.Close()
			}
			refused := refusal(err)
			if refused == nil || !strings.HasPrefix(err.Error(), "refusing to replace "+out+": ") {
				t.Fatalf("Begin error = %v, want a refusal to replace %s", err, out)
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

// TestAcceptsWhatItMayReplace checks what Begin accepts without force: nothing at out, an
// empty folder, a folder holding only .gitkeep, a clean tree of generate's, and one with
// the temporary files an interrupted pack leaves. Nothing of anyone's is deleted.
func TestAcceptsWhatItMayReplace(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, out string)
	}{
		{"absent", func(*testing.T, string) {}},
		{"empty folder", func(t *testing.T, out string) {
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{".gitkeep only", func(t *testing.T, out string) { writeFiles(t, out, map[string]string{".gitkeep": ""}) }},
		{"generate's tree", miniTree},
		{"pack's leftovers", func(t *testing.T, out string) {
			miniTree(t, out)
			writeFiles(t, out, map[string]string{
				".manifest.json.tmp-123":                      "{",
				"downloads/.numerology-dataset-1.0.zip.tmp-9": "PK",
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			tt.setup(t, out)
			deleted, err := replace(t, out, false, "new")
			if err != nil || len(deleted) > 0 {
				t.Fatalf("replace: %v, deleted %q", err, deleted)
			}
			if v := version(t, out); v != "new" {
				t.Errorf("out holds the %q tree, want the new one", v)
			}
			if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
				t.Errorf("beside the tree: %v, want only out", got)
			}
		})
	}
}

// TestForceReplacesAndNamesWhatItDeletes checks force: a tree of generate's with files
// added by hand (and without the generator mark, as an older numerology wrote it) is
// replaced, and Deleted names exactly the files that generate had not written.
func TestForceReplacesAndNamesWhatItDeletes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	miniTree(t, out)
	editManifest(t, out, func(m *manifest.Manifest) { m.Generator = "" })
	writeFiles(t, out, map[string]string{"assets/my-logo.png": "\x89PNG", "index.html": "edited by hand"})
	deleted, err := replace(t, out, true, "new")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"assets/my-logo.png", "index.html"}; !slices.Equal(deleted, want) {
		t.Errorf("Deleted = %q, want %q", deleted, want)
	}
	if v := version(t, out); v != "new" {
		t.Errorf("out holds the %q tree, want the new one", v)
	}
	if _, err := os.Lstat(filepath.Join(out, "assets")); err == nil {
		t.Errorf("the forced tree still holds the user's assets/")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside the tree: %v, want only out", got)
	}
	// A clean tree of generate's is replaced without force and deletes nothing of anyone's.
	deleted, err = replace(t, out, false, "newer")
	if err != nil || len(deleted) != 0 {
		t.Fatalf("replace again: %v, deleted %q", err, deleted)
	}
}

// TestForceStillRefusesForeignFolders checks that force does not extend to folders that are
// not a tree of generate's at all.
func TestForceStillRefusesForeignFolders(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	writeFiles(t, out, map[string]string{"manifest.json": `{"manifest_version":3}`, "src/app.js": "code"})
	if _, err := replace(t, out, true, "new"); refusal(err) == nil {
		t.Fatalf("replace with force: %v, want a refusal", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "src/app.js")); err != nil || string(b) != "code" {
		t.Errorf("src/app.js after the refusal: %q, %v", b, err)
	}
}

// TestRefusalTouchesNothingBeside is the example of issue 21: .photos.old beside a refused
// photos must survive. Before, recovery ran first and removed it (or renamed it to photos
// when photos was absent, or removed an unlocked .photos.tmp-x whatever it held).
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
			err := stopEarly(out, false)
			if tt.refused != (refusal(err) != nil) || !tt.refused && err != nil {
				t.Fatalf("Begin error = %v, want refused %v", err, tt.refused)
			}
			if diff := snapshotDiff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("the run changed %s", diff)
			}
		})
	}
}

// TestRecoversKilledRuns sets up what a run killed at each point leaves beside the tree and
// checks that the next run repairs it: a temporary tree being written or removed is removed,
// a previous tree moved aside by an unfinished two-rename swap is put back (even when the
// next run stops early) or dropped once the new tree is in place, and a marker left in the
// tree is dropped. Every leftover holds the marker, as the swap protocol writes it.
func TestRecoversKilledRuns(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, out string)
		stop  bool // the next run stops before it swaps
		// want is the tree at out afterwards: "new" (the next run's), "old" (miniTree's,
		// restored or left), or "" for none.
		want string
	}{
		{
			name: "killed while writing",
			setup: func(t *testing.T, dir, out string) {
				miniTree(t, out)
				tmp := filepath.Join(dir, ".out.tmp-12345")
				writeFiles(t, tmp, map[string]string{"api/public/life-path.json": "[]"})
				mustMark(t, tmp)
			},
			want: "new",
		},
		{
			name: "killed while writing, next run stops early",
			setup: func(t *testing.T, dir, out string) {
				miniTree(t, out)
				tmp := filepath.Join(dir, ".out.tmp-12345")
				writeFiles(t, tmp, map[string]string{"api/public/life-path.json": "[]"})
				mustMark(t, tmp)
			},
			stop: true,
			want: "old",
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
			want: "new",
		},
		{
			name: "killed between the renames, next run stops early",
			setup: func(t *testing.T, dir, out string) {
				old := filepath.Join(dir, ".out.old")
				miniTree(t, old)
				mustMark(t, old)
			},
			stop: true,
			want: "old",
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
			stop: true,
			want: "old",
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
			stop: true,
			want: "old",
		},
		{
			// Killed in the instant between os.MkdirTemp and the marker: an empty folder.
			name: "killed before marking its temporary folder",
			setup: func(t *testing.T, dir, out string) {
				miniTree(t, out)
				if err := os.Mkdir(filepath.Join(dir, ".out.tmp-3128956474"), 0o700); err != nil {
					t.Fatal(err)
				}
			},
			want: "new",
		},
		{
			// Killed while writing the marker: a part of its text, nothing else.
			name: "killed while marking its temporary folder",
			setup: func(t *testing.T, dir, out string) {
				miniTree(t, out)
				writeFiles(t, filepath.Join(dir, ".out.tmp-3504615639"), map[string]string{markerName: string(markerBody[:14])})
			},
			want: "new",
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
			stop: true,
			want: "old",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			tt.setup(t, dir, out)
			var err error
			if tt.stop {
				err = stopEarly(out, false)
			} else {
				_, err = replace(t, out, false, "new")
			}
			if err != nil {
				t.Fatalf("the next run: %v", err)
			}
			if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
				t.Errorf("beside the tree: %v, want only out", got)
			}
			if _, err := os.Lstat(filepath.Join(out, markerName)); err == nil {
				t.Errorf("the tree still holds the marker")
			}
			if v := version(t, out); v != tt.want {
				t.Errorf("out holds the %q tree, want %q", v, tt.want)
			}
		})
	}
}

// TestLiveRunIsLeftAlone checks the lock: a second run's recovery leaves the temporary
// folder of a run still writing, and both can finish, the later Commit winning.
func TestLiveRunIsLeftAlone(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	miniTree(t, out)
	first, err := Begin(out, false)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	writeFiles(t, first.Dir, map[string]string{"api/public/index.json": "{}"})
	if _, err := replace(t, out, false, "second"); err != nil {
		t.Fatalf("the second run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(first.Dir, "api/public/index.json")); err != nil {
		t.Fatalf("the second run touched the first one's folder: %v", err)
	}
	writeTree(t, first.Dir, treeFiles("first"))
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	first.Close()
	if v := version(t, out); v != "first" {
		t.Errorf("out holds the %q tree, want the first run's, committed last", v)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside the tree: %v, want only out", got)
	}
}

// TestCloseWithoutCommit checks that a run that stops after writing leaves the previous
// tree as it was and no temporary folder.
func TestCloseWithoutCommit(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	miniTree(t, out)
	before := snapshot(t, dir)
	temp, err := Begin(out, false)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, temp.Dir, treeFiles("new"))
	temp.Close()
	temp.Close()
	if diff := snapshotDiff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("a run closed without Commit changed %s", diff)
	}
}

// TestFailedSwapKeepsThePreviousTree makes the exchange fail: Commit reports it, the
// previous tree stays in place without the marker, and Close removes the new one.
func TestFailedSwapKeepsThePreviousTree(t *testing.T) {
	failing := func(a, b string) (bool, error) {
		return false, &os.LinkError{Op: "renameat2", Old: a, New: b, Err: errors.New("injected failure")}
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	miniTree(t, out)
	before := snapshot(t, dir)
	_, err := replaceBy(t, out, false, "new", failing)
	if err == nil || !strings.Contains(err.Error(), "swap in the new tree: ") || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("replace error = %v, want the failed swap", err)
	}
	if diff := snapshotDiff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("a failed swap changed %s", diff)
	}
}

// TestTwoRenameSwap runs the swap without renameat2's exchange, as on other systems: the
// previous tree goes to .out.old and is removed once the new one is in place, and a user's
// .out.old in the way stops the run with the previous tree intact and the folder untouched.
func TestTwoRenameSwap(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	miniTree(t, out)
	if _, err := replaceBy(t, out, false, "new", noExchange); err != nil {
		t.Fatal(err)
	}
	if v := version(t, out); v != "new" {
		t.Errorf("out holds the %q tree, want the new one", v)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside the tree: %v, want only out", got)
	}
	writeFiles(t, dir, map[string]string{".out.old/mine.txt": "keep"})
	before := snapshot(t, dir)
	_, err := replaceBy(t, out, false, "newer", noExchange)
	if err == nil || !strings.Contains(err.Error(), ".out.old is in the way") {
		t.Fatalf("replace error = %v, want .out.old in the way", err)
	}
	if diff := snapshotDiff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("the failed run changed %s", diff)
	}
}

// TestSwapNeverLeavesTheTreeMissing replaces a tree repeatedly while another goroutine keeps
// reading its manifest: with the exchange the manifest must always be there (serve never
// sees a missing tree).
func TestSwapNeverLeavesTheTreeMissing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	miniTree(t, out)
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
	for i := range 50 {
		if _, err := replace(t, out, false, "v"+strings.Repeat("i", i%3)); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if n := missing.Load(); n > 0 {
		t.Errorf("the manifest was missing %d times during replacements", n)
	}
}

// TestDirWriter checks the fast file writer: files land in their folder with their bytes,
// an existing file is not overwritten, and the error names the tree path.
func TestDirWriter(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a/b/old.json": "old"})
	w, err := OpenDir(root, "a/b")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1<<20)
	for name, body := range map[string]string{"1.json": "{}", "empty": "", "big": big} {
		if err := w.Create(name, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(root, "a", "b", name)); err != nil || string(b) != body {
			t.Errorf("%s: %d bytes, %v; want %d bytes", name, len(b), err, len(body))
		}
	}
	err = w.Create("old.json", []byte("new"))
	if !errors.Is(err, os.ErrExist) || !strings.HasPrefix(err.Error(), "write a/b/old.json: ") {
		t.Errorf("Create over an existing file: %v, want a/b/old.json exists", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a", "b", "old.json")); string(b) != "old" {
		t.Errorf("old.json = %q, overwritten", b)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(root, "missing"); err == nil || !strings.HasPrefix(err.Error(), "open directory missing: ") {
		t.Errorf("OpenDir of a missing folder: %v", err)
	}
}

// TestValidPath checks which manifest entries name a file inside a tree.
func TestValidPath(t *testing.T) {
	for p, want := range map[string]bool{
		"index.html": true, "api/public/index.json": true, ".assetsignore": true,
		"": false, ".": false, "/etc/passwd": false, "../x": false, "a/../b": false, "a//b": false,
		"a/": false, `a\b`: false, manifest.FileName: false, markerName: false,
		"api/" + manifest.FileName: true,
	} {
		if got := ValidPath(p); got != want {
			t.Errorf("ValidPath(%q) = %v, want %v", p, got, want)
		}
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

// TestUnmarkedTempIsOnlyAKilledRunsFolder: of the folders named like a run's temporary
// folder and not marked, recovery removes only one that holds nothing or a part of the
// marker's text; a user's file, a marker-named file with other bytes, a longer name or a
// link stay.
func TestUnmarkedTempIsOnlyAKilledRunsFolder(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string // in the folder
		removed bool
	}{
		{".out.tmp-1", nil, true},
		{".out.tmp-2", map[string]string{markerName: ""}, true},
		{".out.tmp-3", map[string]string{markerName: string(markerBody[:len(markerBody)-1])}, true},
		{".out.tmp-4", map[string]string{markerName: "numerology generate: mine"}, false},
		{".out.tmp-5", map[string]string{"a.txt": "a"}, false},
		{".out.tmp-6", map[string]string{markerName: "", "a.txt": "a"}, false},
		{".out.tmp-x7", nil, false},
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	miniTree(t, out)
	for _, tt := range tests {
		p := filepath.Join(dir, tt.name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, p, tt.files)
	}
	if err := os.Symlink(filepath.Join(dir, ".out.tmp-1"), filepath.Join(dir, ".out.tmp-8")); err != nil {
		t.Fatal(err)
	}
	if err := stopEarly(out, false); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		_, err := os.Lstat(filepath.Join(dir, tt.name))
		if gone := errors.Is(err, fs.ErrNotExist); gone != tt.removed {
			t.Errorf("%s holding %v: removed %v, want %v", tt.name, tt.files, gone, tt.removed)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, ".out.tmp-8")); err != nil {
		t.Errorf("the link .out.tmp-8: %v, want it left", err)
	}
}
