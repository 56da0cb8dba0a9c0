package server

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// ConnLimit bounds the connections a server holds open, and those one client holds.
//
// When the bound is reached, room is made for a new connection by closing the connection
// that has been stuck longest, once that is SilentGrace or more: one without a complete
// request since it connected (a silent or slow client), or one whose answer has made no
// write progress (a client that does not read it); else the idle keep-alive connection that
// has waited longest. When none can be closed yet, accepting waits until a connection
// closes, goes idle (and is then closed) or has been stuck for SilentGrace. An attacker that
// fills the bound with requests it never reads, and reconnects, so never keeps a new client
// waiting much longer than SilentGrace.
//
// A client (its peer address keyed as the rate limit keys it, ClientKey) holds at most
// perClient connections: a new one beyond them takes the place of the client's own stuck
// or idle one, or is closed at once. A log line says when either bound is reached, at most
// once a minute each.
//
// Each connection keeps its own state in atomics, so that the two state changes of every
// request and the writes of its answer take no lock; the connections are only looked over
// when a bound is reached.
//
// Use Listener for the server's listener and ConnState as its http.Server.ConnState.
type ConnLimit struct {
	max       int
	perClient int // connections one client may hold, 0 for no bound
	ipv6Bits  int // the IPv6 prefix a client is keyed by
	log       *slog.Logger

	waiting atomic.Int32 // accepts waiting for room

	mu           sync.Mutex
	conns        map[*limitConn]struct{}
	clients      map[netip.Addr]int // connections held by each client, with perClient
	wake         chan struct{}
	logged       time.Time
	loggedClient time.Time
}

// SilentGrace is how long a connection may be stuck (no complete request since it
// connected, or no write progress on its answer) before it is the first to be closed for
// room. A client that connects sends its request at once and reads its answer as it comes;
// one stuck for a second is slow, gone or hostile.
const SilentGrace = time.Second

// writeChunk is the most written to a connection in one call, so that a connection whose
// answer makes progress, however large, shows it at least every writeChunk bytes.
const writeChunk = 16 << 10

// NewConnLimit returns a bound of max connections (at least 1); log may be nil.
func NewConnLimit(n int, log *slog.Logger) *ConnLimit {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &ConnLimit{
		max: max(n, 1), log: log, conns: map[*limitConn]struct{}{}, clients: map[netip.Addr]int{},
		wake: make(chan struct{}, 1),
	}
}

// Listener wraps ln so that it accepts within the bound.
func (l *ConnLimit) Listener(ln net.Listener) net.Listener { return &limitListener{Listener: ln, l: l} }

// ConnState tracks which connections are silent or idle; set it as http.Server.ConnState.
func (l *ConnLimit) ConnState(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok {
		return
	}
	if state == http.StateNew || state == http.StateIdle {
		lc.since.Store(time.Now().UnixNano())
	}
	lc.state.Store(int32(state))
	if state == http.StateIdle && l.waiting.Load() > 0 {
		c.Close() // someone waits for room: this one goes first
	}
}

// Open returns the connections held now.
func (l *ConnLimit) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// admit makes room for c, waiting when none can be made; it reports false when c is not
// admitted (its client holds its bound and none of its connections can be closed) or done
// is closed first.
func (l *ConnLimit) admit(c *limitConn, done <-chan struct{}) bool {
	l.mu.Lock()
	if !l.clientRoom(c) {
		l.mu.Unlock()
		return false
	}
	for len(l.conns) >= l.max {
		if time.Since(l.logged) > time.Minute {
			l.logged = time.Now()
			l.log.Warn("connection limit reached: closing stuck and idle connections, new connections wait", "limit", l.max)
		}
		victim, wait := l.victim(time.Now(), netip.Addr{})
		if victim != nil {
			l.mu.Unlock()
			victim.Close() // frees its slot
			l.mu.Lock()
			continue
		}
		l.waiting.Add(1)
		l.mu.Unlock()
		stopped := l.wait(wait, done)
		l.waiting.Add(-1)
		if stopped {
			return false
		}
		l.mu.Lock()
	}
	l.conns[c] = struct{}{}
	if c.keyed {
		l.clients[c.key]++
	}
	l.mu.Unlock()
	return true
}

// clientRoom makes room for c among its client's connections, closing the client's own
// stuck or idle one when it holds perClient; it reports false when it cannot. l.mu is held
// (and released while a connection closes).
func (l *ConnLimit) clientRoom(c *limitConn) bool {
	if l.perClient <= 0 || !c.keyed {
		return true
	}
	for l.clients[c.key] >= l.perClient {
		if time.Since(l.loggedClient) > time.Minute {
			l.loggedClient = time.Now()
			l.log.Warn("a client reached its connection limit: closing its stuck and idle connections, refusing its others", "client", c.key, "limit", l.perClient)
		}
		victim, _ := l.victim(time.Now(), c.key)
		if victim == nil {
			return false
		}
		l.mu.Unlock()
		victim.Close()
		l.mu.Lock()
	}
	return true
}

// wait waits up to d (for ever when d is 0) for a connection to leave; it reports true when
// done is closed first.
func (l *ConnLimit) wait(d time.Duration, done <-chan struct{}) bool {
	var grown <-chan time.Time
	if d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		grown = timer.C
	}
	select {
	case <-l.wake:
	case <-grown:
	case <-done:
		return true
	}
	return false
}

// victim picks the connection to close for room (of the client key, when key is valid):
// the one stuck longest, once that is SilentGrace or more, else the one idle longest; when
// there is none yet, it returns how long until the one stuck longest has been stuck for
// SilentGrace (0 when none is stuck). l.mu is held.
func (l *ConnLimit) victim(now time.Time, key netip.Addr) (*limitConn, time.Duration) {
	var stuck, idle *limitConn
	var stuckSince, idleSince int64
	for c := range l.conns {
		if key.IsValid() && (!c.keyed || c.key != key) {
			continue
		}
		state := http.ConnState(c.state.Load())
		if since, ok := c.stuckSince(state); ok && (stuck == nil || since < stuckSince) {
			stuck, stuckSince = c, since
		}
		if since := c.since.Load(); state == http.StateIdle && (idle == nil || since < idleSince) {
			idle, idleSince = c, since
		}
	}
	stuckFor := time.Duration(now.UnixNano() - stuckSince)
	switch {
	case stuck != nil && stuckFor >= SilentGrace:
		return stuck, 0
	case idle != nil:
		return idle, 0
	case stuck != nil:
		return nil, SilentGrace - stuckFor
	}
	return nil, 0
}

func (l *ConnLimit) release(c *limitConn) {
	l.mu.Lock()
	if _, ok := l.conns[c]; ok && c.keyed {
		if l.clients[c.key]--; l.clients[c.key] <= 0 {
			delete(l.clients, c.key)
		}
	}
	delete(l.conns, c)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

type limitListener struct {
	net.Listener
	l         *ConnLimit
	closeOnce sync.Once
	done      chan struct{}
	initOnce  sync.Once
}

func (ln *limitListener) doneCh() chan struct{} {
	ln.initOnce.Do(func() { ln.done = make(chan struct{}) })
	return ln.done
}

// Accept accepts a connection, then makes room for it (closing a stuck or idle one) or
// waits for room: room is made only for a client that is really there, and while it
// waits, later clients wait in the kernel's backlog without holding descriptors. A
// connection its client has no room for is closed, and the next one accepted.
func (ln *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitConn{Conn: c, l: ln.l}
		lc.since.Store(time.Now().UnixNano())
		if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
			lc.key, lc.keyed = ClientKey(ap.Addr(), ln.l.ipv6Bits), true
		}
		if ln.l.admit(lc, ln.doneCh()) {
			return lc, nil
		}
		c.Close()
		select {
		case <-ln.doneCh():
			return nil, net.ErrClosed
		default:
		}
	}
}

func (ln *limitListener) Close() error {
	ln.closeOnce.Do(func() { close(ln.doneCh()) })
	return ln.Listener.Close()
}

// limitConn is a connection counted by a ConnLimit, with its HTTP state and since when,
// its client and when its write in progress began.
type limitConn struct {
	net.Conn
	l       *ConnLimit
	once    sync.Once
	state   atomic.Int32 // http.ConnState
	since   atomic.Int64 // Unix nanoseconds of the last change to new or idle
	writing atomic.Int64 // Unix nanoseconds since a write has waited, 0 when none does
	key     netip.Addr   // the client, when keyed
	keyed   bool
	targets targetReader
}

// stuckSince reports since when c has been stuck in state: since it connected without
// sending a request, or since its write in progress began.
func (c *limitConn) stuckSince(state http.ConnState) (int64, bool) {
	switch state {
	case http.StateNew:
		return c.since.Load(), true
	case http.StateActive:
		w := c.writing.Load()
		return w, w != 0
	}
	return 0, false
}

// Read reads the connection through its targetReader.
func (c *limitConn) Read(p []byte) (int, error) { return c.targets.read(c.Conn, p) }

// Write writes p in pieces of at most writeChunk bytes, noting when each began: a piece
// that does not end is an answer its client does not read.
func (c *limitConn) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), writeChunk)
		c.writing.Store(time.Now().UnixNano())
		m, err := c.Conn.Write(p[:k])
		c.writing.Store(0)
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c) })
	return err
}
