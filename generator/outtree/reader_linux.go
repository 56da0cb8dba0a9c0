//go:build linux

package outtree

import (
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// DirReader reads files of a tree through their folder's descriptor, as DirWriter writes
// them: openat with a short name, fstat, one read, close — four system calls a file
// and no path walk, where os.Lstat and os.ReadFile make eleven (os.Open also offers every
// file to the poller: four fcntl and an epoll_ctl that fails). Files read one after another
// from one folder share its descriptor. A DirReader serves one goroutine; Close releases it.
type DirReader struct {
	root string
	dir  string // the folder open as fd
	fd   int    // -1: none
}

// NewDirReader returns a reader of the tree at root.
func NewDirReader(root string) *DirReader { return &DirReader{root: root, fd: -1} }

// ReadFile reads the file rel (a tree path) into buf, grown as needed, and returns its
// bytes. A link, or anything but a regular file, is not read: regular is then false, with
// no error. The folders on rel's path are the caller's to have checked (a link among them
// is followed); the file itself is opened without following a link. An error is an
// *fs.PathError naming rel, so fs.ErrNotExist matches a missing file or folder.
func (r *DirReader) ReadFile(rel string, buf []byte) (b []byte, regular bool, err error) {
	fail := func(op string, err error) ([]byte, bool, error) {
		return nil, false, &fs.PathError{Op: op, Path: rel, Err: err}
	}
	dir, name := pathDir(rel), pathBase(rel)
	if r.fd < 0 || r.dir != dir {
		r.Close()
		fd, err := retryEINTR(func() (int, error) {
			return unix.Open(filepath.Join(r.root, filepath.FromSlash(dir)), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		})
		if err != nil {
			return fail("open", err)
		}
		r.fd, r.dir = fd, dir
	}
	// O_NONBLOCK: opening a FIFO does not wait for a writer; it is then found not regular.
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(r.fd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	})
	if err != nil {
		// A link (ELOOP) or a socket (ENXIO) cannot be opened so: not a regular file.
		if _, reg, serr := statAt(uintptr(r.fd), "", name); serr == nil && !reg {
			return nil, false, nil
		}
		return fail("open", err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if _, err := retryEINTR(func() (int, error) { return 0, unix.Fstat(fd, &st) }); err != nil {
		return fail("stat", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false, nil
	}
	// One byte more than the size, so that a file which grew is read whole in as few calls.
	if want := int(st.Size) + 1; cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := retryEINTR(func() (int, error) { return unix.Read(fd, buf[len(buf):cap(buf)]) })
		if err != nil {
			return fail("read", err)
		}
		if n == 0 {
			return buf, true, nil
		}
		buf = buf[:len(buf)+n]
		// A short read of a regular file ends it: with its size as fstat gave it, no read
		// more is needed to see the end.
		if len(buf) < cap(buf) && int64(len(buf)) == st.Size {
			return buf, true, nil
		}
	}
}

// Close releases the folder held open, if any.
func (r *DirReader) Close() {
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd, r.dir = -1, ""
	}
}
