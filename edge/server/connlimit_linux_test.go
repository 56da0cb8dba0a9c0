package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests of this file hold connections whose answers are blocked on clients that never
// read: small socket buffers on both ends (the server's send buffer, the client's receive
// buffer) keep a ~130 KB answer (openapi.json) from fitting into them, and every client has
// a loopback address of its own (Linux answers on all of 127.0.0.0/8), as clients over a
// network have.

// stallingListener listens on 127.0.0.1 with a small send buffer for the connections it
// accepts.
func stallingListener(t *testing.T) net.Listener {
	t.Helper()
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096) })
		return err
	}}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// startStalling serves the shared tree as serve does on a stallingListener.
func startStalling(t *testing.T, opts ServerOptions) (*HTTPServer, string) {
	t.Helper()
	ln := stallingListener(t)
	srv := NewHTTPServer(newTestHandler(t, sharedTree(t), nil), opts)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return srv, ln.Addr().String()
}

// dialFrom connects to addr from the loopback address from, with a small receive buffer.
func dialFrom(addr, from string) (net.Conn, error) {
	d := net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)},
		Timeout:   5 * time.Second,
		Control: func(_, _ string, c syscall.RawConn) error {
			var err error
			c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
			return err
		},
	}
	return d.Dial("tcp", addr)
}

// stall connects from the address from and asks for the OpenAPI document, then never
// reads. The connection is closed when the test ends.
func stall(t *testing.T, addr, from string) {
	c, err := dialFrom(addr, from)
	if err != nil {
		t.Errorf("dial from %s: %v", from, err)
		return
	}
	t.Cleanup(func() { c.Close() })
	c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET /api/public/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
}

// attackerAddr is the loopback address of attacker i: 127.1.0.0/16, apart from the others.
func attackerAddr(i int) string { return fmt.Sprintf("127.1.%d.%d", i/250, i%250+1) }

// answeredWithin sends one request from the address from and fails unless it is answered
// 200 within d.
func answeredWithin(t *testing.T, addr, from string, d time.Duration) {
	t.Helper()
	start := time.Now()
	c, err := dialFrom(addr, from)
	if err != nil {
		t.Fatalf("dial from %s: %v", from, err)
	}
	defer c.Close()
	c.SetDeadline(start.Add(d))
	io.WriteString(c, "GET /api/public/life-path/7 HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a client at %s got no answer within %v (%v): locked out", from, d, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("a client at %s: status %d", from, resp.StatusCode)
	}
	t.Logf("a client at %s answered in %v", from, time.Since(start).Round(time.Millisecond))
}

// TestStalledWritersDoNotLockOut fills the connection limit with clients that ask for a
// large answer and never read it, then keeps such clients coming (an attacker reconnects):
// a new client must still be answered within a few seconds, however full, because the
// connection that has made no write progress for longest is closed for it. Before, blocked
// writers counted as active and were never closed: nobody else was answered until
// WriteTimeout (30 s). The second case is the limit serve picks under ulimit -n 1024 (1024
// descriptors less ReservedFiles), filled by 800 such clients.
func TestStalledWritersDoNotLockOut(t *testing.T) {
	for _, tt := range []struct {
		name              string
		maxConns, clients int
	}{
		{"limit of 8", 8, 12},
		{"limit under ulimit -n 1024", 1024 - ReservedFiles, 800},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, addr := startStalling(t, ServerOptions{MaxConns: tt.maxConns, MaxClientConns: 64, IPv6Bits: 64})
			var wg sync.WaitGroup
			for i := range tt.clients {
				wg.Go(func() { stall(t, addr, attackerAddr(i)) })
			}
			wg.Wait()
			waitFor(t, func() bool { return srv.Conns.Open() == tt.maxConns }, "the limit filled")
			time.Sleep(SilentGrace + 200*time.Millisecond) // every answer stalled
			// The attacker keeps reconnecting while clients come.
			stop, done := make(chan struct{}), make(chan struct{})
			defer func() { close(stop); <-done }()
			go func() {
				defer close(done)
				for i := tt.clients; ; i++ {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
						stall(t, addr, attackerAddr(i%60000))
					}
				}
			}()
			for i := range 3 {
				answeredWithin(t, addr, fmt.Sprintf("127.0.0.%d", 10+i), SilentGrace+3*time.Second)
			}
			if n := srv.Conns.Open(); n > tt.maxConns {
				t.Errorf("%d connections held, limit %d", n, tt.maxConns)
			}
		})
	}
}

// TestPerClientConnLimit lets one client open many connections that ask for a large answer
// and never read: it must hold no more than MaxClientConns of them, another client must be
// answered at once, and the first client itself again once its stalled connections are old
// enough to be closed for its new one. Before, a client could hold the whole limit.
func TestPerClientConnLimit(t *testing.T) {
	const perClient = 4
	srv, addr := startStalling(t, ServerOptions{MaxConns: 64, MaxClientConns: perClient, IPv6Bits: 64})
	const greedy = "127.0.0.50"
	for range 20 {
		stall(t, addr, greedy)
	}
	time.Sleep(200 * time.Millisecond)
	if n := srv.Conns.Open(); n > perClient {
		t.Errorf("one client holds %d connections, want at most %d", n, perClient)
	}
	answeredWithin(t, addr, "127.0.0.60", 2*time.Second)
	time.Sleep(SilentGrace + 200*time.Millisecond)
	answeredWithin(t, addr, greedy, 2*time.Second)
	if n := srv.Conns.Open(); n > perClient+1 {
		t.Errorf("%d connections held, want at most %d of the greedy client's and the other's", n, perClient+1)
	}
}
