//go:build linux

package outtree

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b in one step (renameat2 RENAME_EXCHANGE). It
// reports false, with no error, where the file system cannot, for the caller's fallback.
func exchange(a, b string) (bool, error) {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		return false, nil
	}
	if err != nil {
		return false, &os.LinkError{Op: "renameat2", Old: a, New: b, Err: err}
	}
	return true, nil
}
