//go:build unix

package outtree

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockTemp holds an exclusive lock on a run's temporary directory until release is called
// or the process dies, so that other runs can tell it from a stale one.
func lockTemp(dir string) (release func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "flock", Path: dir, Err: err}
	}
	return func() { f.Close() }, nil
}

// staleTemp reports whether no live run holds the temporary directory dir.
func staleTemp(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}
