package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuf is a log sink the test reads while the server writes.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// keepAliveGet sends one GET on c and reads the answer, leaving c open.
func keepAliveGet(t *testing.T, c net.Conn, r *bufio.Reader, path string) int {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestConnLimit fills a server capped at 3 connections with idle keep-alive connections:
// a fourth client must still be answered (the oldest idle connection is closed for it), the
// server never holds more than 3, and the log says the limit was reached. Before, there
// was no cap: idle connections piled up to the descriptor limit and new clients timed out.
func TestConnLimit(t *testing.T) {
	h := newTestHandler(t, readOnlyTree(t), nil)
	var logs syncBuf
	cl := NewConnLimit(3, slog.New(slog.NewTextHandler(&logs, nil)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ConnState: cl.ConnState}
	go srv.Serve(cl.Listener(ln))
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().String()

	var conns []net.Conn
	for i := range 6 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if code := keepAliveGet(t, c, bufio.NewReader(c), "/api/public/life-path/7"); code != 200 {
			t.Fatalf("client %d: status %d", i, code)
		}
		conns = append(conns, c)
		if n := cl.Open(); n > 3 {
			t.Fatalf("%d connections open, limit 3", n)
		}
	}
	// The first clients' connections were closed for the later ones.
	conns[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := conns[0].Read(make([]byte, 1)); err == nil {
		t.Error("the oldest idle connection is still open")
	}
	if !strings.Contains(logs.String(), "connection limit reached") {
		t.Errorf("log %q does not say the limit was reached", logs.String())
	}
}
