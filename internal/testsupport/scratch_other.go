//go:build !linux

package testsupport

// isMemoryFS reports false: memory file systems are only looked for on Linux.
func isMemoryFS(string, uint64) bool { return false }
