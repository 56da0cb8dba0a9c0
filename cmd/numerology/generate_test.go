package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// mkfiles creates files (relative path → content) under dir, with writeFile.
func mkfiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, []byte(body))
	}
}

// checkFiles fails unless every file (absolute path → content) is still there, unchanged.
func checkFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, want := range files {
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want it kept as %q", p, b, err, want)
		}
	}
}

// userFiles lists files under dir by absolute path, with their content.
func userFiles(t *testing.T, dir string, rels map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for rel, body := range rels {
		out[filepath.Join(dir, filepath.FromSlash(rel))] = body
	}
	return out
}

// TestGenerateRefusalTouchesNothingBeside runs the example: --out photos beside a
// .photos.old of the user's is refused (exit 5), and .photos.old survives. Before, recovery
// ran before the ownership check and removed .photos.old.
func TestGenerateRefusalTouchesNothingBeside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"photos/a": "x\n", ".photos.old/a": "y\n", ".photos.tmp-1/b": "z\n"}
	mkfiles(t, dir, files)
	code, _, stderr := run(t, "generate", "--out", filepath.Join(dir, "photos"), "--years", "2000")
	if code != exitIO || !strings.Contains(stderr, "refusing to replace") {
		t.Fatalf("exit %d, stderr %q; want %d and a refusal", code, stderr, exitIO)
	}
	checkFiles(t, userFiles(t, dir, files))
	// Without photos, a user's .photos.old is not taken for a tree to restore either.
	if err := os.RemoveAll(filepath.Join(dir, "photos")); err != nil {
		t.Fatal(err)
	}
	delete(files, "photos/a")
	if code, _, stderr := run(t, "generate", "--out", filepath.Join(dir, "photos"), "--years", "2000"); code != 0 {
		t.Fatalf("generate into a new photos: exit %d: %s", code, stderr)
	}
	checkFiles(t, userFiles(t, dir, files))
}

// TestGenerateRecognisesItsOwnTree checks the ownership proof from the command line: an
// imitation of generate's manifest beside the user's files is refused, a generated tree with
// the user's files in subfolders is refused naming them (exit 5) and replaced with --force,
// which names what it deleted, and a tree generate and pack made (make run) is replaced
// without --force. Before, the imitation and the subfolder files were deleted silently.
func TestGenerateRecognisesItsOwnTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")

	imitation := map[string]string{
		"manifest.json":   `{"api_version":"1.0","edge":{"prefix":"/api/public","errors":{"not_found":{"status":404}},"headers":{"common":{"a":"b"}}},"files":[["index.html",6,"00"],["assets/logo.png",4,"00"]]}`,
		"index.html":      "mine!\n",
		"assets/logo.png": "\x89PNG",
	}
	mkfiles(t, out, imitation)
	code, _, stderr := run(t, "generate", "--out", out, "--years", "2000")
	if code != exitIO || !strings.Contains(stderr, "not a numerology manifest") {
		t.Fatalf("imitation: exit %d, stderr %q; want %d, not a numerology manifest", code, stderr, exitIO)
	}
	if code, _, stderr := run(t, "generate", "--out", out, "--years", "2000", "--force"); code != exitIO {
		t.Fatalf("imitation with --force: exit %d, stderr %q; want %d: --force replaces only generate's trees", code, stderr, exitIO)
	}
	checkFiles(t, userFiles(t, out, imitation))
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}

	linkTree(t, sharedTree(t), out) // a tree generate made
	mine := map[string]string{"assets/my-logo.png": "\x89PNG", "api/notes.txt": "notes\n"}
	mkfiles(t, out, mine)
	code, _, stderr = run(t, "generate", "--out", out, "--years", "2000")
	if code != exitIO || !strings.Contains(stderr, "2 files its manifest does not list: api/notes.txt, assets/my-logo.png") || !strings.Contains(stderr, "--force") {
		t.Fatalf("tree with the user's files: exit %d, stderr %q; want %d naming both files and --force", code, stderr, exitIO)
	}
	checkFiles(t, userFiles(t, out, mine))
	code, _, stderr = run(t, "generate", "--out", out, "--years", "2000", "--force")
	if code != 0 || !strings.Contains(stderr, "--force: deleted 2 file(s)") || !strings.Contains(stderr, "  api/notes.txt\n  assets/my-logo.png\n") {
		t.Fatalf("--force: exit %d, stderr %q; want 0 naming the deleted files", code, stderr)
	}
	for rel := range mine {
		if _, err := os.Lstat(filepath.Join(out, rel)); !os.IsNotExist(err) {
			t.Errorf("%s survived --force: %v", rel, err)
		}
	}

	// make run: generate, pack (which publishes into downloads/), generate again. An
	// interrupted pack's temporary files are pack's too.
	if code, _, stderr := run(t, "pack", "--dir", out, "--to", filepath.Join(dir, "dist")); code != 0 {
		t.Fatalf("pack: exit %d: %s", code, stderr)
	}
	mkfiles(t, out, map[string]string{".manifest.json.tmp-123": "{", "downloads/.numerology-dataset-1.0.tar.gz.tmp-456": "partial"})
	code, _, stderr = run(t, "generate", "--out", out, "--years", "2000")
	if code != 0 || strings.Contains(stderr, "deleted") {
		t.Fatalf("generate after pack: exit %d, stderr %q; want 0 without --force", code, stderr)
	}
	err := filepath.WalkDir(filepath.Dir(out), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), "numerology-generate") || strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSiteURLLookalikes checks the site URLs of issue 21 that were accepted (or passed the
// check and then failed with exit 1): each is a usage error, exit 2, naming the problem.
func TestSiteURLLookalikes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct{ url, want string }{
		{"https://x.example:+80", `port "+80": must be a number 1–65535, digits only`},
		{"https://x.example..", `host "x.example..": empty label`},
		{"https://0x7f.1", `host "0x7f.1": ends in a number, so browsers read it as an IPv4 address`},
		{"https://x.example/a&b", `character "&" must be percent-encoded (%26)`},
		{"https://x.example/%2e%2e/b", `path segment "%2e%2e": a .. segment spelled with %2e`}, // issue 27
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			code, _, stderr := run(t, "generate", "--years", "2000", "--site-url", tt.url, "--out", filepath.Join(dir, "out"))
			if code != exitUsage || !strings.Contains(stderr, "--site-url") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("a refused --site-url wrote the tree: %v", err)
	}
}

// TestGenerateKilledAtAnyPoint kills a real generate process at points spread over its run
// (rendering before anything is written, writing, swapping, removing the previous tree) and
// runs generate again: the next run must succeed and leave nothing of the killed one beside
// the tree, while the user's files and folders beside it, named like generate's own, stay
// as they were. The first previous tree is a copy of the shared one.
//
// The kill points follow the child's own run, watched, not a time measured elsewhere: a
// child first runs whole while the test notes when its temporary folder appears and when
// it exits; then one child is killed halfway to that folder, and the others once their
// folder has appeared, at delays spread over the writing that follows. A generate renders
// everything but the date records before it writes (the route budget), so on a loaded
// machine a child can spend seconds there: kills timed by the in-process run (which shares
// the test binary's warm caches) all fell before the folder, and none tested a recovery.
func TestGenerateKilledAtAnyPoint(t *testing.T) {
	t.Parallel()
	testsupport.SkipShort(t, "kills generate in child processes and reruns it, six times")
	bin, err := exec.LookPath("numerology")
	if err != nil {
		t.Fatalf("the numerology test command is not in PATH: %v", err)
	}
	out := treeCopy(t)
	dir := filepath.Dir(out)
	mine := map[string]string{"mine.txt": "m", ".out.tmp-mine/a.txt": "a", ".out.oldish/b.txt": "b"}
	mkfiles(t, dir, mine)
	args := []string{"generate", "--out", out, "--years", "2000"}
	// begun reports whether a run's temporary folder is beside the tree.
	begun := func() bool {
		for _, e := range mustReadDir(t, dir) {
			if n := e.Name(); strings.HasPrefix(n, ".out.tmp-") && n != ".out.tmp-mine" {
				return true
			}
		}
		return false
	}
	// start starts a child and waits until its temporary folder appears (false: it exited
	// first), returning how long that took.
	start := func() (*exec.Cmd, chan error, time.Duration, bool) {
		cmd := exec.Command(bin, args...)
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		for !begun() {
			select {
			case err := <-done:
				done <- err
				return cmd, done, time.Since(t0), false
			case <-time.After(time.Millisecond):
			}
		}
		return cmd, done, time.Since(t0), true
	}
	// The whole run of a child, watched. The folder is there for a fifth of a second or so;
	// a watcher starved by the package's other parallel tests can miss it (once in a run of
	// the package alone), so a run that ends unseen is run again, up to three times.
	var toBegin, writing time.Duration
	for attempt := 1; ; attempt++ {
		_, done, began, ok := start()
		t0 := time.Now()
		if err := <-done; err != nil {
			t.Fatalf("a whole generate: %v", err)
		}
		if ok {
			toBegin, writing = began, time.Since(t0)
			break
		}
		if attempt == 3 {
			t.Fatalf("three whole generates ended with their temporary folder never seen beside the tree")
		}
		t.Logf("a whole generate ended before its temporary folder was seen; once more")
	}
	t.Logf("a whole child run: its temporary folder after %v, the rest %v", toBegin, writing)

	const kills = 6
	leftovers := 0 // folders the killed runs left, for the next run to remove
	for i := range kills {
		var cmd *exec.Cmd
		if i == 0 {
			// Before anything is written: nothing to recover, the old tree stays.
			cmd = exec.Command(bin, args...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(toBegin / 2)
			cmd.Process.Kill()
			cmd.Wait()
		} else {
			var done chan error
			cmd, done, _, _ = start()
			time.Sleep(writing * time.Duration(i-1) / (kills - 1))
			cmd.Process.Kill()
			<-done
		}
		for _, e := range mustReadDir(t, dir) {
			if n := e.Name(); n == ".out.old" || strings.HasPrefix(n, ".out.tmp-") && n != ".out.tmp-mine" {
				leftovers++
			}
		}
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("kill %d: the next generate: exit %d: %s", i, code, stderr)
		}
		var beside []string
		for _, e := range mustReadDir(t, dir) {
			beside = append(beside, e.Name())
		}
		if want := []string{".out.oldish", ".out.tmp-mine", "mine.txt", "out"}; !slices.Equal(beside, want) {
			t.Fatalf("kill %d: beside the tree: %v, want %v", i, beside, want)
		}
		checkFiles(t, userFiles(t, dir, mine))
	}
	if code, stdout, stderr := run(t, "verify", "--dir", out); code != 0 {
		t.Fatalf("verify: exit %d: %s%s", code, stdout, stderr)
	}
	t.Logf("%d kills left %d folders to recover", kills, leftovers)
	if leftovers == 0 {
		t.Errorf("no kill left anything to recover, though five came after the run's temporary folder appeared")
	}
}

func mustReadDir(t *testing.T, dir string) []fs.DirEntry {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// TestGenerateRefusesWhatCardsCannotDraw checks that content with a character the share
// cards' fonts lack in a field a card shows (a stress mark in an archetype), and one no
// text may hold (a right-to-left override in a description), is refused by the loader with
// file:line and exit 3, both at once, before anything is written. Before, the loader took
// both and generate stopped at the card with exit 1 and no line to fix.
func TestGenerateRefusesWhatCardsCannotDraw(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "content")
	if err := os.CopyFS(dir, content.Embedded()); err != nil {
		t.Fatal(err)
	}
	for file, edit := range map[string][2]string{
		"life-path/7.yaml": {"archetype: Мыслитель", "archetype: Мысли\u0301тель"},
		"arcana.yaml":      {"name: Маг", "name: Маг\u202e"},
	} {
		p := filepath.Join(dir, filepath.FromSlash(file))
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(edit[0])) {
			t.Fatalf("%s: %v, or no %q", file, err, edit[0])
		}
		if err := os.WriteFile(p, bytes.Replace(b, []byte(edit[0]), []byte(edit[1]), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := run(t, "generate", "--years", "2000", "--content", dir, "--out", out)
	for _, want := range []string{
		"life-path/7.yaml:2: archetype: U+0301 '\u0301' is not in the fonts of the share cards",
		"arcana.yaml:3: [0].name: U+202E is a bidi control",
	} {
		if code != exitContent || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, want %d with %q; stderr:\n%s", code, exitContent, want, stderr)
		}
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("refused content wrote the tree: %v", err)
	}
}

// TestGenerateOutHoldsWorkingDir runs generate in a folder with --out the folder itself or
// one above it: each is refused before any work (exit 2), and nothing is written. Before,
// generate rendered the whole tree, then failed at the swap ("device or resource busy").
func TestGenerateOutHoldsWorkingDir(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("numerology")
	if err != nil {
		t.Fatalf("the numerology test command is not in PATH: %v", err)
	}
	parent := t.TempDir()
	wd := filepath.Join(parent, "empty")
	if err := os.Mkdir(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ out, want string }{
		{".", "--out . is the current directory"},
		{wd, "is the current directory"},
		{"..", "--out .. holds the current directory"},
	} {
		t.Run(tt.out, func(t *testing.T) {
			cmd := exec.Command(bin, "generate", "--years", "2000", "--out", tt.out)
			cmd.Dir = wd
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitUsage || !strings.Contains(string(out), tt.want) {
				t.Errorf("%v, output %q; want exit %d with %q", err, out, exitUsage, tt.want)
			}
		})
	}
	for _, dir := range []string{parent, wd} {
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != map[string]int{parent: 1, wd: 0}[dir] {
			t.Errorf("%s holds %v (%v) after the refusals", dir, entries, err)
		}
	}
}
