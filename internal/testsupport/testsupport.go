// Package testsupport holds the helpers the tests of several packages share: a buffer a
// test reads while a process writes it, hex sha256, a free loopback port, and the local edge
// server of a tree on 127.0.0.1:0. Only tests import it.
package testsupport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/server"
)

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

// TreeHandler is the local edge server's handler of the tree in dir, with rateLimit matrix
// requests per minute per client (0 turns the limit off).
func TreeHandler(tb testing.TB, dir string, rateLimit int) *server.Handler {
	tb.Helper()
	h, err := server.New(server.Options{Dir: dir, RateLimit: rateLimit, RateWindow: time.Minute})
	if err != nil {
		tb.Fatalf("edge server of %s: %v", dir, err)
	}
	tb.Cleanup(func() { h.Close() })
	return h
}

// Serve serves h on 127.0.0.1:0 until the test ends.
func Serve(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		tb.Fatalf("test server on %s, want 127.0.0.1", srv.URL)
	}
	return srv
}

// ServeTree serves the tree in dir with the local edge server on 127.0.0.1:0.
func ServeTree(tb testing.TB, dir string, rateLimit int) *httptest.Server {
	tb.Helper()
	return Serve(tb, TreeHandler(tb, dir, rateLimit))
}
