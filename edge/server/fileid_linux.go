package server

import (
	"os"
	"syscall"
)

// fileIDOf is the identity of a file from its FileInfo.
func fileIDOf(fi os.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileIDOfStat(st)
	}
	return fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// statID is the identity of the file at path, following symlinks.
func statID(path string) (fileID, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileID{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return fileIDOfStat(&st), nil
}

func fileIDOfStat(st *syscall.Stat_t) fileID {
	return fileID{
		dev: st.Dev, ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}
}
