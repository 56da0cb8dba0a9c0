// Package outtree replaces a tree of files as a whole (docs/design.md §8): a run writes the
// new tree into a locked temporary folder beside the old one and swaps it in only when it
// is complete, so the tree's path always holds a whole tree, a failed or interrupted run
// leaves the previous tree as it was, and a folder that is not a tree generate made is never
// replaced.
//
// A run is Begin, writing into Temp.Dir (DirWriter writes many small files fast), a
// manifest.json written last and whole (by a rename), Commit, and Close. Every error it
// returns is about the file system or is a *RefusedError; the caller gives them their kind.
package outtree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
)

// Temp is a new tree being written beside the tree it is to replace.
type Temp struct {
	// Dir is the temporary folder to write the new tree into.
	Dir string

	out      string
	deleted  []string
	release  func()
	done     bool
	exchange func(a, b string) (bool, error) // exchange; tests replace it
}

// Begin starts replacing the tree out. It first decides whether out may be replaced (a
// *RefusedError if not, with nothing changed beside out or in it); then it repairs what a
// killed run left beside out, and makes a temporary folder there that holds the marker and
// the run's lock until Close. With force, a tree of generate's that holds files it did not
// write is accepted; Deleted names them.
func Begin(out string, force bool) (*Temp, error) {
	out = filepath.Clean(out)
	// Whose is out, first: a refused run changes nothing, beside out or in it.
	lost, err := checkReplaceable(out, force)
	if err != nil {
		return nil, err
	}
	restored, restoredLost, err := recoverSwap(out, force)
	if err != nil {
		return nil, err
	}
	if restored {
		lost = restoredLost // the tree a killed run had moved aside is back in place
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", parent, unwrapPath(err))
	}
	tmp, err := os.MkdirTemp(parent, tmpPrefix(out))
	if err != nil {
		return nil, fmt.Errorf("cannot write to %s: %w", parent, unwrapPath(err))
	}
	release, err := lockTemp(tmp)
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	t := &Temp{Dir: tmp, out: out, deleted: lost, release: release, exchange: exchange}
	if err := writeMarker(tmp); err != nil {
		t.Close()
		return nil, fmt.Errorf("mark %s: %w", tmp, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Deleted lists the files of the tree being replaced that generate had not written
// (unlisted in its manifest, or changed), which only force lets Commit delete, sorted.
func (t *Temp) Deleted() []string { return t.deleted }

// Commit puts the finished tree in place of the old one. On return the tree's path holds a
// whole tree: the new one, or on error the previous one.
func (t *Temp) Commit() error {
	if err := swap(t.Dir, t.out, t.exchange); err != nil {
		return err
	}
	t.done = true
	return nil
}

// Close releases the run's lock and, unless Commit succeeded, removes the temporary
// folder. It is safe to call more than once.
func (t *Temp) Close() {
	if t.release != nil {
		t.release()
		t.release = nil
	}
	if !t.done {
		removeOwned(t.Dir)
		t.done = true
	}
}

// ValidPath reports whether p names a file inside a tree: relative, slash-separated, no
// empty, "." or ".." segment, no backslash, and not the manifest or the swap marker.
func ValidPath(p string) bool {
	return fs.ValidPath(p) && p != "." && !strings.Contains(p, `\`) && p != manifest.FileName && p != markerName
}

// unwrapPath drops the *PathError wrapper, whose path the caller's message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
