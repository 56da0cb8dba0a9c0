// Package testsupport holds the leaf helpers the tests of several packages share: a buffer a
// test reads while a process writes it, hex sha256, a free loopback port, and the one way a
// test skips. It imports nothing of the project. Only tests import it.
package testsupport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"sync"
	"testing"
)

// NoSkipEnv names the environment variable that turns every skip into a failure. make test
// and CI set it, so that a test needing a tool that is missing fails loudly instead of being
// skipped in silence. A contributor's go test -short leaves it unset.
const NoSkipEnv = "NUMEROLOGY_TEST_NO_SKIP"

// Skip skips tb with the reason given, or fails it when NoSkipEnv is set to a non-empty
// value other than "0". Every skip in the project's tests goes through here (make check
// refuses a direct call of testing's Skip methods).
func Skip(tb testing.TB, reason string) {
	tb.Helper()
	if v := os.Getenv(NoSkipEnv); v != "" && v != "0" {
		tb.Fatalf("this test would skip (%s), but %s=%s allows no skip", reason, NoSkipEnv, v)
	}
	tb.Skip(reason)
}

// SkipShort skips tb under go test -short, with the reason given: what the test needs that
// the short suite does without (a browser, Node, Java, a full-range tree, a real minute).
// Without -short it returns, and the test then fails loudly if what it needs is missing.
func SkipShort(tb testing.TB, reason string) {
	tb.Helper()
	if testing.Short() {
		Skip(tb, reason)
	}
}

// SyncBuffer is an io.Writer that a test can read while other goroutines write to it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// SHA256Hex is the lowercase hex sha256 of b.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
