package server

import (
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// testYears are the years of the test trees: the range's ends and a leap century.
var testYears = []int{1900, 2000, 2100}

// shared is the package's tree of testYears, generated once per test binary (generating is
// the main cost of these tests).
var shared = generatortest.NewShared(testYears...)

// sharedTree returns the shared tree. No test may change it: copyTree gives a test a tree of
// its own.
func sharedTree(tb testing.TB) string {
	tb.Helper()
	return shared.Dir(tb)
}

func TestMain(m *testing.M) {
	os.Exit(testsupport.RunTests(m, shared.Close))
}

// copyTree returns a copy of the shared tree in a temporary directory of tb, for a test
// that changes the tree. The per-date records (api/public/<route>/<d>/<m>/<y>.json, most
// of the files) are hard links to the shared tree's, so a test may delete them but not
// write into them; the records named in writable (tree paths) are copied, for a test that
// does. TestMain fails the run when a test wrote through a link into the shared tree.
func copyTree(tb testing.TB, writable ...string) string {
	tb.Helper()
	return shared.Link(tb, func(rel string) bool {
		record := strings.HasPrefix(rel, manifest.APIPrefix[1:]+"/") && strings.Count(rel, "/") == 5
		return !record || slices.Contains(writable, rel)
	})
}

// newTestHandler builds the handler of dir as serve does by default (body cache on) with the
// contract's limit and window, trusting X-Test-Client.
func newTestHandler(t testing.TB, dir string, now func() time.Time) *Handler {
	t.Helper()
	return newWindowHandler(t, dir, now, 0)
}

// newWindowHandler is newTestHandler with the given rate window; 0 means the contract's
// (the tree's edge.json).
func newWindowHandler(t testing.TB, dir string, now func() time.Time, window time.Duration) *Handler {
	t.Helper()
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatalf("load manifest: %v", err)
	}
	if window == 0 {
		window = time.Duration(m.Edge.RateLimit.WindowSeconds) * time.Second
	}
	h, err := New(Options{
		Dir: dir, Manifest: m, RateLimit: m.Edge.RateLimit.Requests, RateWindow: window,
		TrustHeader: "X-Test-Client", Now: now, CacheBytes: 8 << 20, Logger: failureLog(t),
	})
	if err != nil {
		t.Fatalf("new handler: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// startServer serves h on 127.0.0.1:0 as serve does (HTTPServer: its listener, timeouts
// and connection limit) until the test ends.
func startServer(t testing.TB, h *Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(h, ServerOptions{MaxConns: 1024, IPv6Bits: 64, Logger: failureLog(t)})
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// failureLog is a logger whose lines the test shows only when it fails: a server's errors
// (net/http's, a handler's panic among them, and the connection limit's warnings) say why a
// client saw a connection end without an answer.
func failureLog(t testing.TB) *slog.Logger {
	var buf testsupport.SyncBuffer
	t.Cleanup(func() {
		if t.Failed() && buf.String() != "" {
			t.Logf("the server's log:\n%s", buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
