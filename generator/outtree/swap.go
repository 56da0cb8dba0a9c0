package outtree

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
)

// The swap protocol (docs/design.md §8, docs/serve.md). A run writes the new tree into
// ".<name>.tmp-*" beside <name>, holding a lock on that directory while it lives. When the
// tree is complete it is swapped in:
//
//   - on Linux, by renameat2(RENAME_EXCHANGE): <name> and the temporary directory trade
//     places in one step, so <name> always exists and always holds a whole tree; the old
//     tree, now under the temporary name, is then removed;
//   - elsewhere (or on a file system without the exchange), by two renames: <name> becomes
//     ".<name>.old", the new tree becomes <name>, ".<name>.old" is removed.
//
// Every directory the protocol leaves beside <name> carries the marker file markerName
// from the moment it could be left behind: a temporary directory gets it first thing, and
// the previous tree gets it just before it is moved aside. Recovery (recoverSwap) moves or
// removes only unlocked directories with the marker, so a user's ".<name>.old" or
// ".<name>.tmp-x" is never touched; removal deletes the marker last, so a run killed while
// removing leaves a directory the next run still recognises.

// markerName is the marker file of the directories generate leaves beside the tree.
const markerName = ".numerology-generate"

// markerBody is the marker's exact content; a file of that name with other bytes is not it.
var markerBody = []byte("numerology generate: a tree being written, swapped or removed; the next run removes it\n")

// oldName is where the two-rename swap keeps the previous tree until the new one is in place.
func oldName(out string) string {
	return filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".old")
}

// tmpPrefix is the name prefix of the temporary directories of runs writing out.
func tmpPrefix(out string) string { return "." + filepath.Base(out) + ".tmp-" }

// isMarker reports whether dir holds the marker: a regular file with markerBody.
func isMarker(dir string) bool {
	p := filepath.Join(dir, markerName)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(markerBody)) {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(len(markerBody))+1))
	return err == nil && bytes.Equal(b, markerBody)
}

// writeMarker puts the marker into dir, a directory generate made or may replace. Whatever
// else holds the marker's name is removed first (without following a link), so the write
// never lands outside dir.
func writeMarker(dir string) error {
	if isMarker(dir) {
		return nil
	}
	p := filepath.Join(dir, markerName)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(markerBody); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// dropMarker removes the marker from dir, if it is there.
func dropMarker(dir string) error {
	if !isMarker(dir) {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, markerName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// removeOwned deletes dir, a directory that holds the marker, deleting its manifest first
// and the marker last: a removal killed half-way leaves a marked folder without a manifest,
// which the next run recognises as generate's (leftoverOwned), rather than files whose
// shard is already gone.
func removeOwned(dir string) error {
	if err := os.Remove(filepath.Join(dir, manifest.FileName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == markerName {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	for _, p := range []string{filepath.Join(dir, markerName), dir} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// recoverSwap repairs what a killed run left beside out, touching only directories with the
// marker whose files are all generate's (see leftoverOwned): a previous tree moved aside by
// an unfinished two-rename swap goes back in place when out is missing and it passes
// checkReplaceable (restored reports it, with the files replacing it would delete), or is
// removed otherwise; temporary directories no live run holds are removed; a marker left in
// out is dropped. It runs only after out has passed checkReplaceable.
func recoverSwap(out string, force bool) (restored bool, lost []string, err error) {
	old := oldName(out)
	if leftoverOwned(old, force) {
		if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
			if lost, err = checkReplaceable(old, force); err == nil {
				if err := os.Rename(old, out); err != nil {
					return false, nil, fmt.Errorf("restore the previous tree from %s: %w", old, err)
				}
				restored = true
			}
		}
		if !restored {
			if err := removeOwned(old); err != nil {
				return false, nil, fmt.Errorf("remove the previous tree %s: %w", old, err)
			}
		}
	}
	if err := dropMarker(out); err != nil {
		return restored, lost, fmt.Errorf("remove the swap marker from %s: %w", out, err)
	}
	parent := filepath.Dir(out)
	entries, err := os.ReadDir(parent)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return restored, lost, nil
		}
		return restored, lost, err
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tmpPrefix(out)) {
			continue // a link or a file of that name is not generate's
		}
		p := filepath.Join(parent, e.Name())
		if unmarkedTemp(out, e.Name()) && staleTemp(p) {
			// A run killed between making its folder and marking it: it holds nothing, or
			// a part of the marker's fixed text and nothing else. The partial marker goes
			// first, then the folder, which rmdir removes only while it is empty: nothing
			// but generate's own bytes is lost, whoever made the folder.
			if err := removeUnmarked(p); err != nil {
				return restored, lost, fmt.Errorf("remove the stale temporary folder %s: %w", p, err)
			}
			continue
		}
		if !leftoverOwned(p, force) || !staleTemp(p) {
			continue // not provably generate's, or another run is writing it
		}
		if err := removeOwned(p); err != nil {
			return restored, lost, fmt.Errorf("remove the stale temporary tree %s: %w", p, err)
		}
	}
	return restored, lost, nil
}

// unmarkedTemp reports whether name, beside out, is named as os.MkdirTemp names a run's
// temporary folder (the prefix and a decimal number) and is a directory that holds nothing,
// or only a partial marker (partialMarker): what a run killed in the instant between
// making its folder and finishing the marker leaves.
func unmarkedTemp(out, name string) bool {
	n := strings.TrimPrefix(name, tmpPrefix(out))
	if n == name || n == "" || strings.Trim(n, "0123456789") != "" {
		return false
	}
	dir := filepath.Join(filepath.Dir(out), name)
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	return len(names) == 0 || len(names) == 1 && names[0] == markerName && partialMarker(dir)
}

// partialMarker reports whether dir's marker file is a regular file holding a proper prefix
// of markerBody (none of it included): the marker of a run killed while writing it.
func partialMarker(dir string) bool {
	p := filepath.Join(dir, markerName)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() >= int64(len(markerBody)) {
		return false
	}
	b, err := os.ReadFile(p)
	return err == nil && bytes.HasPrefix(markerBody, b)
}

// removeUnmarked removes a folder unmarkedTemp found: its partial marker, if it is still
// one, then the folder, which the file system removes only while it is empty (a folder
// that filled in between stays).
func removeUnmarked(dir string) error {
	if partialMarker(dir) {
		if err := os.Remove(filepath.Join(dir, markerName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if entries, rerr := os.ReadDir(dir); rerr == nil && len(entries) > 0 {
			return nil // not empty after all: not ours to remove
		}
		return err
	}
	return nil
}

// leftoverOwned reports whether dir is a directory a run left that recovery may move or
// remove: a real directory holding the marker, and either no manifest yet (a tree being
// written) or a manifest of generate's that accounts for every file present (a tree being
// swapped or removed; files already removed do not count). Files generate did not write
// make it generate's only with force.
func leftoverOwned(dir string, force bool) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || !isMarker(dir) {
		return false
	}
	if _, err := os.Lstat(filepath.Join(dir, manifest.FileName)); errors.Is(err, fs.ErrNotExist) {
		return true
	}
	m, err := loadOwnManifest(dir)
	if err != nil {
		return false
	}
	d, err := diffTree(dir, m)
	return err == nil && (force || len(d.unlisted) == 0 && len(d.changed) == 0)
}

// swap puts the finished tree tmp (which holds the marker) in place of out, by exchangeDirs
// (exchange; a test passes another to run the two-rename fallback on Linux). On return out
// holds a whole tree (the new one, or on error the previous one) without the marker.
func swap(tmp, out string, exchangeDirs func(a, b string) (bool, error)) error {
	if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(tmp, out); err != nil {
			return fmt.Errorf("put new tree in place: %w", err)
		}
		return dropMarker(out)
	}
	// Mark the previous tree before it moves: from here on a killed run leaves it under a
	// name the next run recognises (at worst a marker in out, which that run drops).
	if err := writeMarker(out); err != nil {
		return fmt.Errorf("mark the previous tree: %w", err)
	}
	exchanged, err := exchangeDirs(tmp, out)
	if err != nil {
		dropMarker(out)
		return fmt.Errorf("swap in the new tree: %w", err)
	}
	if exchanged {
		if err := dropMarker(out); err != nil {
			return fmt.Errorf("remove the swap marker: %w", err)
		}
		if err := removeOwned(tmp); err != nil {
			return fmt.Errorf("remove previous tree: %w", err)
		}
		return nil
	}
	old := oldName(out)
	if _, err := os.Lstat(old); err == nil {
		dropMarker(out)
		return fmt.Errorf("move previous tree aside: %s is in the way and is not generate's (move it elsewhere)", old)
	}
	if err := os.Rename(out, old); err != nil {
		dropMarker(out)
		return fmt.Errorf("move previous tree aside: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Rename(old, out)
		dropMarker(out)
		return fmt.Errorf("put new tree in place: %w", err)
	}
	if err := dropMarker(out); err != nil {
		return fmt.Errorf("remove the swap marker: %w", err)
	}
	if err := removeOwned(old); err != nil {
		return fmt.Errorf("remove previous tree: %w", err)
	}
	return nil
}
