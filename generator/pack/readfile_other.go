//go:build !unix

package pack

import "os"

// readFile reads a file; size and buf are hints used on unix only.
func readFile(path string, _ int64, _ []byte) ([]byte, error) { return os.ReadFile(path) }
