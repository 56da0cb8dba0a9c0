//go:build !unix

package server

import "os"

// fileIDOf is the identity of a file from its FileInfo: here its size and modification
// time only.
func fileIDOf(fi os.FileInfo) fileID {
	return fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// statID is the identity of the file at path, following symlinks.
func statID(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	return fileIDOf(fi), nil
}
