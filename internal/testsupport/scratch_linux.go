package testsupport

import "syscall"

// tmpfsMagic is the f_type statfs(2) reports for tmpfs.
const tmpfsMagic = 0x01021994

// isMemoryFS reports whether dir is on tmpfs with at least minFree bytes free to this user.
func isMemoryFS(dir string, minFree uint64) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	return st.Type == tmpfsMagic && st.Bavail*uint64(st.Bsize) >= minFree
}
