package server

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileIDOf is the identity of a file from its FileInfo.
func fileIDOf(fi os.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileIDOfStat(st)
	}
	return fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// statFile is the identity of a file of the tree, following symlinks: one fstatat
// relative to the tree's folder as it was when the tree was loaded.
func (t *tree) statFile(name string) (fileID, error) {
	if t.dir == nil {
		return fileID{}, errNoFolder
	}
	var st unix.Stat_t
	if err := unix.Fstatat(t.dirFD, name, &st, 0); err != nil {
		return fileID{}, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	return fileID{
		dev: st.Dev, ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, nil
}

func fileIDOfStat(st *syscall.Stat_t) fileID {
	return fileID{
		dev: st.Dev, ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}
}
