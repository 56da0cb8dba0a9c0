package generator

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
)

// The swap protocol (docs/serve.md, "Regenerating a served tree"). A run writes the new tree
// into ".<name>.tmp-*" beside <name>, holding a lock on that directory while it lives. When
// the tree is complete it is swapped in:
//
//   - on Linux, by renameat2(RENAME_EXCHANGE): <name> and the temporary directory trade
//     places in one step, so <name> always exists and always holds a whole tree; the old
//     tree, now under the temporary name, is then removed;
//   - elsewhere (or on a file system without the exchange), by two renames: <name> becomes
//     ".<name>.old", the new tree becomes <name>, ".<name>.old" is removed.
//
// A run killed at any point leaves names the next run recognises: recover completes or
// rolls back an interrupted two-rename swap and removes unlocked temporary directories.

// oldName is where the two-rename swap keeps the previous tree until the new one is in place.
func oldName(out string) string {
	return filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".old")
}

// tmpPrefix is the name prefix of the temporary directories of runs writing out.
func tmpPrefix(out string) string { return "." + filepath.Base(out) + ".tmp-" }

// recoverSwap repairs what a killed run left beside out: a previous tree moved aside by an
// unfinished two-rename swap goes back in place (or is removed when the new tree made it),
// and temporary directories no live run holds are removed.
func recoverSwap(out string) error {
	old := oldName(out)
	if _, err := os.Lstat(old); err == nil {
		if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
			if err := os.Rename(old, out); err != nil {
				return fmt.Errorf("restore the previous tree from %s: %w", old, err)
			}
		} else if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("remove the previous tree %s: %w", old, err)
		}
	}
	parent := filepath.Dir(out)
	entries, err := os.ReadDir(parent)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tmpPrefix(out)) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if !staleTemp(p) {
			continue // another run is writing it
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove the stale temporary tree %s: %w", p, err)
		}
	}
	return nil
}

// swap puts the finished tree tmp in place of out. On return out holds a whole tree (the
// new one, or on error the previous one).
func swap(tmp, out string) error {
	if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(tmp, out); err != nil {
			return fmt.Errorf("put new tree in place: %w", err)
		}
		return nil
	}
	if exchanged, err := exchange(tmp, out); err != nil {
		return fmt.Errorf("swap in the new tree: %w", err)
	} else if exchanged {
		if err := os.RemoveAll(tmp); err != nil {
			return fmt.Errorf("remove previous tree: %w", err)
		}
		return nil
	}
	old := oldName(out)
	if err := os.Rename(out, old); err != nil {
		return fmt.Errorf("move previous tree aside: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Rename(old, out)
		return fmt.Errorf("put new tree in place: %w", err)
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("remove previous tree: %w", err)
	}
	return nil
}

// checkReplaceable refuses to replace anything but a tree generate made or an empty
// directory, so that a mistyped --out never deletes unrelated files. A tree is recognised
// by its manifest (it must parse as this program's manifest: api_version, the API prefix,
// a file list) and by its shape: every top-level entry is manifest.json or the first
// segment of a listed file. The error says what did not match.
func checkReplaceable(out string) error {
	fi, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("refusing to replace %s: it is not a directory", out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	if len(entries) == 0 || len(entries) == 1 && entries[0].Name() == ".gitkeep" {
		return nil
	}
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("refusing to replace %s: %s; only a tree made by numerology generate (or an empty directory) is replaced", out, fmt.Sprintf(format, args...))
	}
	if _, err := os.Lstat(filepath.Join(out, manifest.FileName)); err != nil {
		return refuse("it is not empty and holds no %s", manifest.FileName)
	}
	m, err := manifest.Load(out)
	if err != nil {
		return refuse("its %s is not a numerology manifest (%v)", manifest.FileName, err)
	}
	if m.APIVersion == "" || m.Edge.Prefix != manifest.APIPrefix || len(m.Files) == 0 {
		return refuse("its %s is not a numerology manifest (no api_version, edge prefix %s or file list)", manifest.FileName, manifest.APIPrefix)
	}
	listed := map[string]bool{manifest.FileName: true}
	for _, f := range m.Files {
		top, _, _ := strings.Cut(f.Path, "/")
		listed[top] = true
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			return refuse("it holds %s, which its manifest does not list", e.Name())
		}
	}
	return nil
}
