//go:build !unix

package server

import "os"

// fileIDOf is the identity of a file from its FileInfo: here its size and modification
// time only.
func fileIDOf(fi os.FileInfo) fileID {
	return fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
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
