//go:build !unix

package pack

import "os"

// readFile reads a file; size is a hint used on unix only.
func readFile(path string, _ int64) ([]byte, error) { return os.ReadFile(path) }
