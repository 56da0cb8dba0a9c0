//go:build !linux

package outtree

import (
	"fmt"
	"os"
	"path/filepath"
)

// DirWriter creates files in one folder of a tree.
type DirWriter struct {
	dir, rel string
}

// OpenDir opens the existing folder rel (a tree path, "" for the root) of the tree at root
// for writing files into it.
func OpenDir(root, rel string) (*DirWriter, error) {
	return &DirWriter{dir: filepath.Join(root, filepath.FromSlash(rel)), rel: rel}, nil
}

// Create writes the new file name with body; it fails if the file exists.
func (d *DirWriter) Create(name string, body []byte) error {
	f, err := os.OpenFile(filepath.Join(d.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s/%s: %w", d.rel, name, unwrapPath(err))
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		return fmt.Errorf("write %s/%s: %w", d.rel, name, unwrapPath(err))
	}
	return f.Close()
}

// Close releases the folder.
func (d *DirWriter) Close() error { return nil }

// sizeAt returns the size of the file name in the directory dirPath, not following a link.
func sizeAt(_ uintptr, dirPath, name string) (int64, error) {
	fi, err := os.Lstat(filepath.Join(dirPath, name))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// statAt returns the size of the file rel (a tree path, forward slashes) below the directory
// dirPath, and whether it is a regular file, not following a link.
func statAt(_ uintptr, dirPath, rel string) (int64, bool, error) {
	fi, err := os.Lstat(filepath.Join(dirPath, filepath.FromSlash(rel)))
	if err != nil {
		return 0, false, err
	}
	return fi.Size(), fi.Mode().IsRegular(), nil
}
