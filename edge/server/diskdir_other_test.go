//go:build unix && !linux

package server

// memoryFS reports whether dir is on a memory file system; outside Linux the tests assume
// it is not.
func memoryFS(string) bool { return false }
