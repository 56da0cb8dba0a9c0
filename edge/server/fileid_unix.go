//go:build unix && !linux

package server

import (
	"os"
	"syscall"
)

// fileIDOf is the identity of a file from its FileInfo: device, inode, size and
// modification time (the change time's field is spelled differently on each system).
func fileIDOf(fi os.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), uint64(st.Ino)
	}
	return id
}

// statFile is the identity of a file of the tree, following symlinks.
func (t *tree) statFile(name string) (fileID, error) {
	if t.dir == nil {
		return fileID{}, errNoFolder
	}
	fi, err := os.Stat(t.dir.Name() + "/" + name)
	if err != nil {
		return fileID{}, err
	}
	return fileIDOf(fi), nil
}
