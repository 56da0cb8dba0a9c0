package outtree

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// What a slot beside (or at) --out holds in an arrangement.
type slotKind int

const (
	kindAbsent          slotKind = iota
	kindUserFile                 // a file of the user's
	kindUserDir                  // a folder of the user's, with files in subfolders
	kindEmptyDir                 // an empty folder
	kindGitkeep                  // a folder holding only .gitkeep
	kindUserLink                 // a link to a folder of the user's elsewhere
	kindOwnTree                  // a tree generate made
	kindOwnTreeUserFile          // a tree generate made, with a user's file added
	kindOwnTreeResized           // a tree generate made, with a listed file rewritten by hand
	kindLegacyTree               // a tree without the generator mark
	kindImitation                // an imitation manifest beside the user's files
	kindMarkedTree               // a tree with the marker (moved aside, or a stray marker)
	kindMarkedPartial            // a marked tree partly removed
	kindMarkedWriting            // a marked temporary tree being written (no manifest yet)
	kindMarkedUserFile           // a marked tree with a user's file in it
	kindTreeCopy                 // a copy of a tree without the marker (the user's backup)
	kindFakeMarker               // a user's folder with a file of the marker's name, other bytes
	kindLockedWriting            // a marked temporary tree a live run holds
)

var (
	outKinds  = []slotKind{kindAbsent, kindUserFile, kindUserDir, kindEmptyDir, kindGitkeep, kindUserLink, kindOwnTree, kindOwnTreeUserFile, kindOwnTreeResized, kindLegacyTree, kindImitation, kindMarkedTree}
	oldKinds  = []slotKind{kindAbsent, kindUserFile, kindUserDir, kindEmptyDir, kindUserLink, kindMarkedTree, kindMarkedPartial, kindMarkedUserFile, kindTreeCopy, kindFakeMarker}
	tmpKinds  = []slotKind{kindUserFile, kindUserDir, kindEmptyDir, kindUserLink, kindMarkedWriting, kindMarkedPartial, kindMarkedUserFile, kindTreeCopy, kindFakeMarker, kindLockedWriting}
	sibNames  = []string{"out2", ".out", "out.old", ".out.oldx", ".out.tmp", ".out.tmpx", "out.tmp-1", ".outx.tmp-1"}
	kindNames = map[slotKind]string{
		kindAbsent: "absent", kindUserFile: "user file", kindUserDir: "user folder", kindEmptyDir: "empty folder",
		kindGitkeep: ".gitkeep only", kindUserLink: "link to a user folder", kindOwnTree: "generate's tree",
		kindOwnTreeUserFile: "generate's tree + user file", kindOwnTreeResized: "generate's tree, a file resized",
		kindLegacyTree: "tree without the mark", kindImitation: "imitation manifest", kindMarkedTree: "marked tree",
		kindMarkedPartial: "marked partial tree", kindMarkedWriting: "marked tree being written",
		kindMarkedUserFile: "marked tree + user file", kindTreeCopy: "unmarked copy of a tree",
		kindFakeMarker: "fake marker", kindLockedWriting: "locked tree being written",
	}
)

// arrangement is one setup of names around --out.
type arrangement struct {
	out, old  slotKind
	tmps      []slotKind
	siblings  []string
	force     bool
	fullRun   bool // run to the end (otherwise the run stops once recovery is done)
	twoRename bool // the two-rename swap instead of the exchange
}

func (a arrangement) String() string {
	var tmps []string
	for _, k := range a.tmps {
		tmps = append(tmps, kindNames[k])
	}
	return fmt.Sprintf("out: %s; .out.old: %s; .out.tmp-*: [%s]; siblings %v; force %v, full run %v, two renames %v",
		kindNames[a.out], kindNames[a.old], strings.Join(tmps, ", "), a.siblings, a.force, a.fullRun, a.twoRename)
}

// userFiles records the user's files of an arrangement, by path, with their content, and
// which of them --force may delete.
type userFiles struct {
	files     map[string]string
	forceable map[string]bool
}

func (u *userFiles) add(t *testing.T, dir string, files map[string]string, forceable bool) {
	t.Helper()
	writeFiles(t, dir, files)
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		u.files[p] = body
		if forceable {
			u.forceable[p] = true
		}
	}
}

// build makes a slot of kind k at path p. elsewhere is a folder outside the parent for
// link targets. It returns a release func for a held lock, or nil.
func (u *userFiles) build(t *testing.T, k slotKind, p, elsewhere string, out bool) func() {
	t.Helper()
	switch k {
	case kindUserFile:
		u.add(t, filepath.Dir(p), map[string]string{filepath.Base(p): "user file " + p}, false)
	case kindUserDir:
		u.add(t, p, map[string]string{"a.txt": "a", "sub/b.txt": "b", "manifest.json": `{"manifest_version":3}`}, false)
	case kindEmptyDir:
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	case kindGitkeep:
		writeFiles(t, p, map[string]string{".gitkeep": ""})
	case kindUserLink:
		target, err := os.MkdirTemp(elsewhere, "target-")
		if err != nil {
			t.Fatal(err)
		}
		u.add(t, target, map[string]string{"photo.jpg": "jpeg", "deep/x.txt": "x"}, false)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	case kindOwnTree:
		miniTree(t, p)
	case kindOwnTreeUserFile:
		miniTree(t, p)
		u.add(t, p, map[string]string{"assets/my-logo.png": "\x89PNG"}, out)
	case kindOwnTreeResized:
		miniTree(t, p)
		u.add(t, p, map[string]string{"index.html": "my own page"}, out)
	case kindLegacyTree:
		miniTree(t, p)
		editManifest(t, p, func(m *manifest.Manifest) { m.Generator = "" })
	case kindImitation:
		u.add(t, p, map[string]string{
			"manifest.json":   `{"api_version":"1.0","edge":{"prefix":"/api/public","errors":{"not_found":{"status":404}},"headers":{"common":{"a":"b"}}},"files":[["index.html",5,"00"],["assets/logo.png",4,"00"]]}`,
			"index.html":      "mine!",
			"assets/logo.png": "\x89PNG",
		}, false)
	case kindMarkedTree:
		miniTree(t, p)
		mustMark(t, p)
	case kindMarkedPartial:
		miniTree(t, p)
		mustMark(t, p)
		os.Remove(filepath.Join(p, "index.html"))
	case kindMarkedWriting, kindLockedWriting:
		writeFiles(t, p, map[string]string{"api/public/index.json": "{}\n"})
		mustMark(t, p)
		if k == kindLockedWriting {
			release, err := lockTemp(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, rel := range []string{"api/public/index.json", markerName} {
				b, _ := os.ReadFile(filepath.Join(p, rel))
				u.files[filepath.Join(p, rel)] = string(b) // another run's: must survive
			}
			return release
		}
	case kindMarkedUserFile:
		miniTree(t, p)
		mustMark(t, p)
		u.add(t, p, map[string]string{"notes.txt": "mine"}, true)
	case kindTreeCopy:
		miniTree(t, p)
		for _, rel := range []string{"index.html", "api/public/index.json", "api/public/errors/not-found.json", manifest.FileName} {
			b, err := os.ReadFile(filepath.Join(p, rel))
			if err != nil {
				t.Fatal(err)
			}
			u.files[filepath.Join(p, rel)] = string(b)
		}
	case kindFakeMarker:
		u.add(t, p, map[string]string{markerName: "not generate's\n", "a.txt": "a"}, false)
	}
	return nil
}

// TestTouchesOnlyItsOwn is the property of issue 21 over 240 arrangements (fixed seed; the
// first 80 under -short) of out, .out.old, .out.tmp-* and the user's files: a refused run
// changes no byte of anything; any other run leaves every file of the user's as it was,
// except those force was given to delete (in out, or in a marked leftover), and leaves no
// temporary folder of its own. The arrangements run in parallel: each has a folder of its
// own, and the time is the file system's.
func TestTouchesOnlyItsOwn(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2100))
	n := 240
	if testing.Short() {
		n = 80
	}
	var refused, accepted, full atomic.Int64
	t.Run("arrangements", func(t *testing.T) {
		for i := range n {
			arrange(t, rng, i, &refused, &accepted, &full)
		}
	})
	t.Logf("%d arrangements refused, %d accepted (%d run to the end)", refused.Load(), accepted.Load(), full.Load())
	if least := int64(n / 5); refused.Load() < least || accepted.Load() < least {
		t.Errorf("the arrangements are lopsided: %d refused, %d accepted", refused.Load(), accepted.Load())
	}
}

// arrange draws arrangement i from rng and checks a run on it in a parallel subtest,
// counting the outcomes.
func arrange(t *testing.T, rng *rand.Rand, i int, refused, accepted, full *atomic.Int64) {
	a := arrangement{
		out:       outKinds[rng.IntN(len(outKinds))],
		old:       oldKinds[rng.IntN(len(oldKinds))],
		force:     rng.IntN(5) == 0,
		fullRun:   i%8 == 0,
		twoRename: i%16 == 8,
	}
	for range rng.IntN(3) {
		a.tmps = append(a.tmps, tmpKinds[rng.IntN(len(tmpKinds))])
	}
	for range rng.IntN(3) {
		a.siblings = append(a.siblings, sibNames[rng.IntN(len(sibNames))])
	}
	t.Run(fmt.Sprint(i), func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		dir, elsewhere := filepath.Join(root, "parent"), filepath.Join(root, "elsewhere")
		for _, d := range []string{dir, elsewhere} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(dir, "out")
		u := &userFiles{files: map[string]string{}, forceable: map[string]bool{}}
		u.build(t, a.out, out, elsewhere, true)
		u.build(t, a.old, filepath.Join(dir, ".out.old"), elsewhere, false)
		for j, k := range a.tmps {
			if release := u.build(t, k, filepath.Join(dir, fmt.Sprintf(".out.tmp-%d", 100+j)), elsewhere, false); release != nil {
				defer release()
			}
		}
		for _, s := range a.siblings {
			if _, err := os.Lstat(filepath.Join(dir, s)); err == nil {
				continue
			}
			u.add(t, dir, map[string]string{s: "sibling " + s}, false)
		}
		before := snapshot(t, root)
		tmpsBefore := tempNames(t, dir)

		var deleted []string
		var err error
		switch {
		case a.twoRename:
			deleted, err = replaceBy(t, out, a.force, "new", noExchange)
		case a.fullRun:
			deleted, err = replace(t, out, a.force, "new")
		default:
			err = stopEarly(out, a.force)
		}

		if refusal(err) != nil {
			refused.Add(1)
			if diff := snapshotDiff(before, snapshot(t, root)); diff != "" {
				t.Fatalf("%s\nrefused (%v), yet changed %s", a, err, diff)
			}
			return
		}
		accepted.Add(1)
		switch {
		case err == nil && a.fullRun:
			full.Add(1)
			if v := version(t, out); v != "new" {
				t.Errorf("%s\nout holds the %q tree, want the new one", a, v)
			}
		case err == nil:
		case a.twoRename && strings.Contains(err.Error(), "is in the way"):
		default:
			t.Fatalf("%s\nerror = %v", a, err)
		}
		for p, body := range u.files {
			b, rerr := os.ReadFile(p)
			if rerr == nil && string(b) == body {
				continue
			}
			if a.force && u.forceable[p] && (err == nil && a.fullRun || !strings.HasPrefix(p, out+string(filepath.Separator))) {
				continue // --force was given to delete it
			}
			t.Errorf("%s\n%s: the user's file was removed or changed (%v)", a, p, err)
		}
		for _, p := range deleted {
			rel := filepath.FromSlash(p)
			if !u.forceable[filepath.Join(out, rel)] && !u.forceable[filepath.Join(dir, ".out.old", rel)] {
				t.Errorf("%s\nDeleted names %s, which the user did not add", a, p)
			}
		}
		for name := range tempNames(t, dir) {
			if !tmpsBefore[name] {
				t.Errorf("%s\nthe run left its temporary folder %s", a, name)
			}
		}
	})
}

// tempNames lists the .out.tmp-* names in dir.
func tempNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, n := range names(t, dir) {
		if strings.HasPrefix(n, ".out.tmp-") {
			out[n] = true
		}
	}
	return out
}
