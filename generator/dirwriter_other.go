//go:build !linux

package generator

import (
	"fmt"
	"os"
	"path/filepath"
)

// dirWriter creates files in one directory.
type dirWriter struct {
	dir, rel string
}

func openDirWriter(root, rel string) (*dirWriter, error) {
	return &dirWriter{dir: filepath.Join(root, filepath.FromSlash(rel)), rel: rel}, nil
}

// create writes a new file; it fails if the file exists.
func (d *dirWriter) create(name string, body []byte) error {
	f, err := os.OpenFile(filepath.Join(d.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return &IOError{fmt.Errorf("write %s/%s: %w", d.rel, name, unwrapPath(err))}
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		return &IOError{fmt.Errorf("write %s/%s: %w", d.rel, name, unwrapPath(err))}
	}
	return f.Close()
}

func (d *dirWriter) close() error { return nil }

// sizeAt returns the size of the file name in the directory dirPath, not following a link.
func sizeAt(_ uintptr, dirPath, name string) (int64, error) {
	fi, err := os.Lstat(filepath.Join(dirPath, name))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
