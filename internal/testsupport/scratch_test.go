package testsupport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryTempDir checks that MemoryTempDir keeps a TMPDIR set by hand, moves the scratch
// folders into a folder of their own on a memory file system when there is one, and that
// restoring removes that folder with what the tests left in it.
func TestMemoryTempDir(t *testing.T) {
	t.Run("TMPDIR set by hand", func(t *testing.T) {
		mine := t.TempDir()
		t.Setenv("TMPDIR", mine)
		restore := MemoryTempDir()
		if got := os.TempDir(); got != mine {
			t.Errorf("os.TempDir() = %s, want the TMPDIR set by hand, %s", got, mine)
		}
		restore()
		if got := os.Getenv("TMPDIR"); got != mine {
			t.Errorf("after restore TMPDIR = %q, want %q", got, mine)
		}
	})
	t.Run("no memory file system", func(t *testing.T) {
		t.Setenv("TMPDIR", "")
		os.Unsetenv("TMPDIR")
		saved := memoryFSCandidates
		memoryFSCandidates = []string{t.TempDir()} // a folder that is not a tmpfs root of room
		defer func() { memoryFSCandidates = saved }()
		if isMemoryFS(memoryFSCandidates[0], 1<<62) {
			t.Fatal("isMemoryFS reports 4 EiB free")
		}
		memoryFSCandidates = []string{filepath.Join(t.TempDir(), "missing")}
		restore := MemoryTempDir()
		defer restore()
		if v, ok := os.LookupEnv("TMPDIR"); ok {
			t.Errorf("TMPDIR = %q, want it left unset", v)
		}
	})
	t.Run("memory file system", func(t *testing.T) {
		root := ""
		for _, c := range memoryFSCandidates {
			if isMemoryFS(c, memoryFSMinFree) {
				root = c
				break
			}
		}
		if root == "" {
			Skip(t, "no tmpfs with room on this machine")
		}
		t.Setenv("TMPDIR", "")
		os.Unsetenv("TMPDIR")
		restore := MemoryTempDir()
		dir := os.TempDir()
		if filepath.Dir(dir) != root || !strings.HasPrefix(filepath.Base(dir), "numerology-test-") {
			restore()
			t.Fatalf("os.TempDir() = %s, want a numerology-test- folder in %s", dir, root)
		}
		if err := os.WriteFile(filepath.Join(dir, "left"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		restore()
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("after restore %s: %v, want it removed", dir, err)
		}
		if disk := DiskTempDir(t); strings.HasPrefix(disk, root+string(filepath.Separator)) {
			t.Errorf("DiskTempDir = %s, on the memory file system", disk)
		}
	})
}
