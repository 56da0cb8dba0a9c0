//go:build !unix

package outtree

import (
	"os"
	"time"
)

// lockTemp is a no-op where flock is missing; staleTemp then goes by age.
func lockTemp(string) (func(), error) { return func() {}, nil }

// staleTemp reports whether the temporary directory dir was left more than a day ago: no
// run takes that long.
func staleTemp(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && time.Since(fi.ModTime()) > 24*time.Hour
}
