//go:build linux

package server

import (
	"errors"
	"os"
	"path"
	"strings"
	"syscall"
	"unsafe"

	"github.com/opennumerology/numerology/generator/manifest"
)

// watchTree keeps the body cache in step with the tree: an inotify watch on every
// directory holding API files calls remove for a file as soon as it is deleted, moved or
// rewritten, and clearAll when a directory goes (a regenerated tree swapped in).
// A deleted record then answers 500 at once, as without the cache.
func watchTree(dir string, files []manifest.File, remove func(name string), clearAll func()) (stop func(), err error) {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil, os.NewSyscallError("inotify_init1", err)
	}
	f := os.NewFile(uintptr(fd), "inotify") // non-blocking: Close interrupts Read
	dirs := map[int32]string{}
	seen := map[string]bool{}
	const mask = syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_CLOSE_WRITE |
		syscall.IN_CREATE | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
	for _, file := range files {
		d := path.Dir(file.Path)
		if seen[d] || !strings.HasPrefix(file.Path, "api/") {
			continue
		}
		seen[d] = true
		wd, err := syscall.InotifyAddWatch(fd, dir+"/"+d, mask)
		if err != nil {
			if errors.Is(err, syscall.ENOENT) {
				continue // a directory of the manifest the tree lacks: its files answer 500
			}
			f.Close()
			return nil, os.NewSyscallError("inotify_add_watch "+d, err)
		}
		dirs[int32(wd)] = d
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				nameStart := off + syscall.SizeofInotifyEvent
				name := strings.TrimRight(string(buf[nameStart:nameStart+int(ev.Len)]), "\x00")
				off = nameStart + int(ev.Len)
				switch {
				case ev.Mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF|syscall.IN_Q_OVERFLOW) != 0:
					clearAll()
				case name != "":
					if d, ok := dirs[ev.Wd]; ok {
						remove(d + "/" + name)
					}
				}
			}
		}
	}()
	return func() { f.Close(); <-done }, nil
}
