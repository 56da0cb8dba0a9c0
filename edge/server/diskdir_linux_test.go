package server

import "golang.org/x/sys/unix"

// memoryFS reports whether dir is on a memory file system (tmpfs, ramfs), where a write
// through mmap moves no modification time.
func memoryFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	return st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC
}
