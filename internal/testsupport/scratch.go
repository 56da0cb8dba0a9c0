package testsupport

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The tests write trees of thousands of small files and folders. On a disk file system
// each creation is a journalled metadata update (about a millisecond each on a small
// virtual machine's disk), so a suite's scratch costs more than its tests; on a memory file
// system it costs next to nothing. MemoryTempDir moves a test binary's scratch there.

// memoryFSCandidates are the memory file systems MemoryTempDir looks at, in order.
var memoryFSCandidates = []string{"/dev/shm"}

// memoryFSMinFree is the room a memory file system must have left for the scratch folders:
// a test tree of a few years is tens of MB, the full range under 1 GB.
const memoryFSMinFree = 2 << 30

// diskTempDir is the temporary folder in effect before MemoryTempDir moved it.
var diskTempDir string

// MemoryTempDir moves the scratch folders of a test binary (t.TempDir, os.MkdirTemp("", …),
// and the processes it starts, through TMPDIR) into a folder of its own on a memory file
// system, when the machine has one (tmpfs) with room for them and TMPDIR is not set: a
// TMPDIR set by hand is kept. It returns the function that removes that folder and restores
// TMPDIR, for TestMain to call when the tests end.
func MemoryTempDir() (restore func()) {
	diskTempDir = os.TempDir()
	if os.Getenv("TMPDIR") != "" {
		return func() {}
	}
	for _, root := range memoryFSCandidates {
		if !isMemoryFS(root, memoryFSMinFree) {
			continue
		}
		dir, err := os.MkdirTemp(root, "numerology-test-")
		if err != nil {
			continue
		}
		if err := os.Setenv("TMPDIR", dir); err != nil {
			os.Remove(dir)
			continue
		}
		return func() {
			os.Unsetenv("TMPDIR")
			if err := os.RemoveAll(dir); err != nil {
				fmt.Fprintln(os.Stderr, "remove the tests' scratch folder:", err)
			}
		}
	}
	return func() {}
}

// DiskTempDir returns a new folder, removed when tb ends, under the temporary folder that
// was in effect before MemoryTempDir moved it: on most machines a disk file system, for a
// test of behaviour that memory file systems lack (such as a write through mmap moving the
// file's modification time).
func DiskTempDir(tb testing.TB) string {
	tb.Helper()
	root := diskTempDir
	if root == "" {
		root = os.TempDir()
	}
	dir, err := os.MkdirTemp(root, "numerology-test-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Clean(dir)
}

// RunTests is a TestMain's body: it runs m with the scratch folders on a memory file system
// (MemoryTempDir), then each check in after (such as a shared tree's Close), whose error
// fails the run, and returns the exit code for os.Exit.
func RunTests(m *testing.M, after ...func() error) int {
	restore := MemoryTempDir()
	defer restore()
	code := m.Run()
	for _, check := range after {
		if err := check(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			code = 1
		}
	}
	return code
}
