package outtree

import (
	"os"
	"testing"

	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestMain runs the tests with their scratch folders on a memory file system when the
// machine has one (testsupport.MemoryTempDir).
func TestMain(m *testing.M) {
	os.Exit(testsupport.RunTests(m))
}
