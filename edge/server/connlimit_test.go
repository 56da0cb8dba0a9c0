package server

import (
	"bufio"
	"bytes"
	"errors"
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
	h := newTestHandler(t, sharedTree(t), nil)
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

// startLimited serves the test tree capped at n connections, with the timeouts given.
func startLimited(t *testing.T, n int, readHeader, read time.Duration) (*ConnLimit, string) {
	t.Helper()
	h := newTestHandler(t, sharedTree(t), nil)
	cl := NewConnLimit(n, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ConnState: cl.ConnState, ReadHeaderTimeout: readHeader, ReadTimeout: read}
	go srv.Serve(cl.Listener(ln))
	t.Cleanup(func() { srv.Close() })
	return cl, ln.Addr().String()
}

// TestConnLimitClosesSilentFirst fills a server capped at 3 connections with one idle
// keep-alive client and two that never send a request. Once those two have been silent for
// SilentGrace, a new client must be answered at once by closing the oldest silent
// connection, while the idle client keeps its connection; a server full of silent
// connections must take a new client within about SilentGrace. The server's header
// timeout is a minute, so it cannot be what frees the slots. Before, only idle
// connections were closed, and silent ones held their slots until the header timeout.
func TestConnLimitClosesSilentFirst(t *testing.T) {
	dialSilent := func(t *testing.T, addr string, n int) []net.Conn {
		var cs []net.Conn
		for range n {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			cs = append(cs, c)
		}
		return cs
	}
	newClient := func(t *testing.T, addr string, within time.Duration) {
		t.Helper()
		start := time.Now()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if code := keepAliveGet(t, c, bufio.NewReader(c), "/api/public/life-path/7"); code != 200 {
			t.Fatalf("new client: status %d", code)
		}
		if d := time.Since(start); d > within {
			t.Errorf("the new client waited %v, want at most %v", d, within)
		}
	}
	t.Run("silent before idle", func(t *testing.T) {
		cl, addr := startLimited(t, 3, time.Minute, time.Minute)
		idle, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer idle.Close()
		idleR := bufio.NewReader(idle)
		if code := keepAliveGet(t, idle, idleR, "/api/public/life-path/7"); code != 200 {
			t.Fatalf("idle client: status %d", code)
		}
		silent := dialSilent(t, addr, 2)
		waitFor(t, func() bool { return cl.Open() == 3 }, "three connections held")
		time.Sleep(SilentGrace)
		newClient(t, addr, 2*time.Second)
		silent[0].SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := silent[0].Read(make([]byte, 1)); err == nil || isTimeout(err) {
			t.Errorf("the oldest silent connection is still open (%v)", err)
		}
		if code := keepAliveGet(t, idle, idleR, "/api/public/life-path/8"); code != 200 {
			t.Errorf("the idle client lost its connection: status %d", code)
		}
	})
	t.Run("only silent", func(t *testing.T) {
		cl, addr := startLimited(t, 2, time.Minute, time.Minute)
		dialSilent(t, addr, 2)
		waitFor(t, func() bool { return cl.Open() == 2 }, "two connections held")
		newClient(t, addr, SilentGrace+2*time.Second)
	})
}

// TestBodyAnnouncedFreesSlot sends requests announcing a body that never comes: the
// server must answer and close the connection at once, not hold it until its read timeout
// (10 s before) waiting for the body.
func TestBodyAnnouncedFreesSlot(t *testing.T) {
	_, addr := startLimited(t, 16, time.Minute, 10*time.Second)
	for _, req := range []string{
		"GET /api/public/life-path/7 HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n",
		"POST /api/public/life-path/7 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		fmt.Fprint(c, req)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		r := bufio.NewReader(c)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("%q: no answer: %v", req, err)
		}
		io.Copy(io.Discard, resp.Body)
		if _, err := r.ReadByte(); err != io.EOF {
			t.Errorf("%q: the connection was not closed after the answer (%v)", req, err)
		} else if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q: the connection was held %v", req, d)
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
