package server

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// ConnLimit bounds the connections a server holds open. When the bound is reached, room
// is made for a new connection by closing first the connection that has gone longest
// without sending a complete request, once that is SilentGrace or more (a silent or slow
// client), else the idle keep-alive connection that has waited longest. When none can be
// closed yet, accepting waits until a connection closes, goes idle (and is then closed) or
// has been silent for SilentGrace. A log line says when the bound is reached, at most once
// a minute.
//
// Each connection keeps its own state in atomics, so that the two state changes of every
// request take no lock; the connections are only looked over when the bound is reached.
//
// Use Listener for the server's listener and ConnState as its http.Server.ConnState.
type ConnLimit struct {
	max       int
	perClient int // connections one client may hold, 0 for no bound
	ipv6Bits  int // the IPv6 prefix a client is keyed by
	log       *slog.Logger

	waiting atomic.Int32 // accepts waiting for room

	mu     sync.Mutex
	conns  map[*limitConn]struct{}
	wake   chan struct{}
	logged time.Time
}

// SilentGrace is how long a new connection may stay without a complete request before it is
// the first to be closed for room. A client that connects sends its request at once; one
// silent for a second is slow, idle or hostile.
const SilentGrace = time.Second

// NewConnLimit returns a bound of max connections (at least 1); log may be nil.
func NewConnLimit(n int, log *slog.Logger) *ConnLimit {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &ConnLimit{max: max(n, 1), log: log, conns: map[*limitConn]struct{}{}, wake: make(chan struct{}, 1)}
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

// admit makes room for c, waiting when none can be made; it reports false when done is
// closed first.
func (l *ConnLimit) admit(c *limitConn, done <-chan struct{}) bool {
	l.mu.Lock()
	for len(l.conns) >= l.max {
		if time.Since(l.logged) > time.Minute {
			l.logged = time.Now()
			l.log.Warn("connection limit reached: closing silent and idle connections, new connections wait", "limit", l.max)
		}
		victim, wait := l.victim(time.Now())
		if victim != nil {
			l.mu.Unlock()
			victim.Close() // frees its slot
			l.mu.Lock()
			continue
		}
		l.waiting.Add(1)
		l.mu.Unlock()
		var grown <-chan time.Time
		var timer *time.Timer
		if wait > 0 {
			timer = time.NewTimer(wait)
			grown = timer.C
		}
		stopped := false
		select {
		case <-l.wake:
		case <-grown:
		case <-done:
			stopped = true
		}
		if timer != nil {
			timer.Stop()
		}
		l.waiting.Add(-1)
		if stopped {
			return false
		}
		l.mu.Lock()
	}
	l.conns[c] = struct{}{}
	l.mu.Unlock()
	return true
}

// victim picks the connection to close for room, or when there is none yet, how long until
// the oldest silent one has been silent for SilentGrace (0 when there is no silent one).
// l.mu is held.
func (l *ConnLimit) victim(now time.Time) (*limitConn, time.Duration) {
	var silent, idle *limitConn
	var silentSince, idleSince int64
	for c := range l.conns {
		since := c.since.Load()
		switch http.ConnState(c.state.Load()) {
		case http.StateNew:
			if silent == nil || since < silentSince {
				silent, silentSince = c, since
			}
		case http.StateIdle:
			if idle == nil || since < idleSince {
				idle, idleSince = c, since
			}
		}
	}
	silentFor := time.Duration(now.UnixNano() - silentSince)
	switch {
	case silent != nil && silentFor >= SilentGrace:
		return silent, 0
	case idle != nil:
		return idle, 0
	case silent != nil:
		return nil, SilentGrace - silentFor
	}
	return nil, 0
}

func (l *ConnLimit) release(c *limitConn) {
	l.mu.Lock()
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

// Accept accepts a connection, then makes room for it (closing a silent or idle one) or
// waits for room: room is made only for a client that is really there, and while it
// waits, later clients wait in the kernel's backlog without holding descriptors.
func (ln *limitListener) Accept() (net.Conn, error) {
	c, err := ln.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitConn{Conn: c, l: ln.l}
	lc.since.Store(time.Now().UnixNano())
	if !ln.l.admit(lc, ln.doneCh()) {
		c.Close()
		return nil, net.ErrClosed
	}
	return lc, nil
}

func (ln *limitListener) Close() error {
	ln.closeOnce.Do(func() { close(ln.doneCh()) })
	return ln.Listener.Close()
}

// limitConn is a connection counted by a ConnLimit, with its HTTP state and since when.
type limitConn struct {
	net.Conn
	l       *ConnLimit
	once    sync.Once
	state   atomic.Int32 // http.ConnState
	since   atomic.Int64 // Unix nanoseconds of the last change to new or idle
	targets targetReader
}

// Read reads the connection through its targetReader.
func (c *limitConn) Read(p []byte) (int, error) { return c.targets.read(c.Conn, p) }

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c) })
	return err
}
