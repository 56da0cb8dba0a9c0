//go:build linux

package outtree

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// DirWriter creates files in one folder of a tree through the folder's descriptor: openat
// with a short name, one write, close — three system calls a file, no path walk and no
// poller registration, which is most of the cost of writing a tree of small files.
type DirWriter struct {
	fd  int
	rel string
}

// OpenDir opens the existing folder rel (a tree path, "" for the root) of the tree at root
// for writing files into it.
func OpenDir(root, rel string) (*DirWriter, error) {
	fd, err := unix.Open(filepath.Join(root, filepath.FromSlash(rel)), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open directory %s: %w", rel, err)
	}
	return &DirWriter{fd: fd, rel: rel}, nil
}

// Create writes the new file name with body; it fails if the file exists.
func (d *DirWriter) Create(name string, body []byte) error {
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	})
	if err != nil {
		return fmt.Errorf("write %s/%s: %w", d.rel, name, err)
	}
	for len(body) > 0 {
		n, err := retryEINTR(func() (int, error) { return unix.Write(fd, body) })
		if err != nil {
			unix.Close(fd)
			return fmt.Errorf("write %s/%s: %w", d.rel, name, err)
		}
		body = body[n:]
	}
	if err := unix.Close(fd); err != nil {
		return fmt.Errorf("write %s/%s: %w", d.rel, name, err)
	}
	return nil
}

// Close releases the folder.
func (d *DirWriter) Close() error { return unix.Close(d.fd) }

func retryEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// sizeAt returns the size of the file name in the directory open as dirfd (at dirPath), not
// following a link: one fstatat on the directory's descriptor, no path walk.
func sizeAt(dirfd uintptr, _, name string) (int64, error) {
	var st unix.Stat_t
	if _, err := retryEINTR(func() (int, error) {
		return 0, unix.Fstatat(int(dirfd), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}); err != nil {
		return 0, err
	}
	return st.Size, nil
}

// statAt returns the size of the file rel (a tree path, forward slashes) below the directory
// open as dirfd (at dirPath), and whether it is a regular file, not following a link: one
// fstatat on the directory's descriptor.
func statAt(dirfd uintptr, _, rel string) (int64, bool, error) {
	var st unix.Stat_t
	if _, err := retryEINTR(func() (int, error) {
		return 0, unix.Fstatat(int(dirfd), rel, &st, unix.AT_SYMLINK_NOFOLLOW)
	}); err != nil {
		return 0, false, err
	}
	return st.Size, st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}
