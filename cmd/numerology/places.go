package main

import (
	"os"
	"path/filepath"
	"strings"
)

// resolved returns p as an absolute path with its links resolved: those of its longest
// existing prefix, the rest appended as written (a folder a command is about to create).
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if parent := filepath.Dir(dir); parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// within reports whether the resolved path p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(resolved(dir), resolved(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkOut refuses, before any work, an --out that is the working directory or holds it:
// generate renders the new tree beside --out and swaps it in as a whole, which the folder a
// process runs in cannot take (it failed at the swap, after rendering everything).
func checkOut(out string) error {
	wd, err := os.Getwd()
	if err != nil || !within(wd, out) {
		return nil
	}
	what := "is the current directory"
	if resolved(wd) != resolved(out) {
		what = "holds the current directory " + wd
	}
	return usageErrorf("--out %s %s: generate replaces --out as a whole, which it cannot do to the folder it runs in; choose a folder of its own, such as out", out, what)
}

// checkPackTo refuses, before any work, a --to inside the tree of --dir: the archives would
// be files its manifest does not list, which verify reports and generate refuses to
// replace. (Publishing places them in the tree's downloads/ and lists them.) Without a tree
// at --dir, pack's own error says so.
func checkPackTo(to, dir string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || !within(to, dir) {
		return nil
	}
	return usageErrorf("--to %s is inside the tree %s: its archives would be files the manifest does not list (verify would fail and generate refuse the tree); write them outside it, such as dist (--publish places the ones that fit in its downloads/)", to, dir)
}
