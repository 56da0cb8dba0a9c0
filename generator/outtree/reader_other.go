//go:build !linux

package outtree

import (
	"os"
	"path/filepath"
)

// DirReader reads files of a tree.
type DirReader struct{ root string }

// NewDirReader returns a reader of the tree at root.
func NewDirReader(root string) *DirReader { return &DirReader{root: root} }

// ReadFile reads the file rel (a tree path) and returns its bytes; buf is not used here. A
// link, or anything but a regular file, is not read: regular is then false, with no error.
// An error is an *fs.PathError, so fs.ErrNotExist matches a missing file.
func (r *DirReader) ReadFile(rel string, buf []byte) (b []byte, regular bool, err error) {
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return nil, false, nil
	}
	b, err = os.ReadFile(p)
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// Close releases nothing here.
func (r *DirReader) Close() {}
