// Package servertest starts the local edge server of a tree for the tests of other packages
// (the OpenAPI proxy test, the browser tests). Only tests import it.
package servertest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/server"
)

// TreeHandler is the local edge server's handler of the tree in dir, with rateLimit
// requests per minute per client on the rate-limited routes (0 turns the limit off).
func TreeHandler(tb testing.TB, dir string, rateLimit int) *server.Handler {
	tb.Helper()
	h, err := server.New(server.Options{Dir: dir, RateLimit: rateLimit, RateWindow: time.Minute})
	if err != nil {
		tb.Fatalf("edge server of %s: %v", dir, err)
	}
	tb.Cleanup(func() { h.Close() })
	return h
}

// Serve serves h on 127.0.0.1:0 until the test ends, as serve does: through
// server.HTTPServer (its listener, which hands the handler request targets net/http alone
// would refuse, its timeouts and its connection limit).
func Serve(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	srv := httptest.NewUnstartedServer(h)
	hs := server.NewHTTPServer(h, server.ServerOptions{MaxConns: 1024, IPv6Bits: 64})
	srv.Config, srv.Listener = hs.Server, hs.Listener(srv.Listener)
	srv.Start()
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
