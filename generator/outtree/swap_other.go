//go:build !linux

package outtree

// exchange is only available on Linux; elsewhere swap falls back to two renames.
func exchange(a, b string) (bool, error) { return false, nil }
