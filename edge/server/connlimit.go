package server

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// ConnLimit bounds the connections a server holds open. When the bound is reached, room
// is made for the new connection by closing first the connection that has gone longest
// without sending a complete request, once that is SilentGrace or more (a silent or slow
// client), else the idle keep-alive connection that has waited longest. When none can be
// closed yet, accepting waits until a connection closes, goes idle (and is then closed) or
// has been silent for SilentGrace. A log line says when the bound is reached, at most once
// a minute.
//
// Use Listener for the server's listener and ConnState as its http.Server.ConnState.
type ConnLimit struct {
	max int
	log *slog.Logger

	mu      sync.Mutex
	open    int
	fresh   map[net.Conn]time.Time // accepted, no request read yet: since
	idle    map[net.Conn]time.Time // idle since
	waiting int
	wake    chan struct{}
	logged  time.Time
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
	return &ConnLimit{
		max: max(n, 1), log: log,
		fresh: map[net.Conn]time.Time{}, idle: map[net.Conn]time.Time{},
		wake: make(chan struct{}, 1),
	}
}

// Listener wraps ln so that it accepts within the bound.
func (l *ConnLimit) Listener(ln net.Listener) net.Listener { return &limitListener{Listener: ln, l: l} }

// ConnState tracks which connections are idle; set it as http.Server.ConnState.
func (l *ConnLimit) ConnState(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	switch state {
	case http.StateNew:
		l.fresh[c] = time.Now()
	case http.StateIdle:
		delete(l.fresh, c)
		if l.waiting > 0 {
			l.mu.Unlock()
			c.Close() // someone waits for room: this one goes first
			return
		}
		l.idle[c] = time.Now()
	case http.StateActive, http.StateClosed, http.StateHijacked:
		delete(l.fresh, c)
		delete(l.idle, c)
	}
	l.mu.Unlock()
}

// Open returns the connections held now.
func (l *ConnLimit) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// admit makes room for one more connection, waiting when none can be closed.
func (l *ConnLimit) admit(done <-chan struct{}) bool {
	l.mu.Lock()
	for l.open >= l.max {
		if time.Since(l.logged) > time.Minute {
			l.logged = time.Now()
			l.log.Warn("connection limit reached: closing silent and idle connections, new connections wait", "limit", l.max)
		}
		c, wait := l.victim(time.Now())
		if c != nil {
			delete(l.fresh, c)
			delete(l.idle, c)
			l.mu.Unlock()
			c.Close() // its limitConn.Close frees the slot
			l.mu.Lock()
			continue
		}
		l.waiting++
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
		l.mu.Lock()
		if stopped {
			l.waiting--
			l.mu.Unlock()
			return false
		}
		l.waiting--
	}
	l.open++
	l.mu.Unlock()
	return true
}

// victim picks the connection to close for room, or when there is none yet, how long until
// the oldest silent one has been silent for SilentGrace (0 when there is no silent one).
func (l *ConnLimit) victim(now time.Time) (net.Conn, time.Duration) {
	silent, since := oldest(l.fresh)
	if silent != nil && now.Sub(since) >= SilentGrace {
		return silent, 0
	}
	if c, _ := oldest(l.idle); c != nil {
		return c, 0
	}
	if silent != nil {
		return nil, SilentGrace - now.Sub(since)
	}
	return nil, 0
}

func oldest(m map[net.Conn]time.Time) (net.Conn, time.Time) {
	var oldest net.Conn
	var since time.Time
	for c, t := range m {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	return oldest, since
}

func (l *ConnLimit) release(c net.Conn) {
	l.mu.Lock()
	l.open--
	delete(l.fresh, c)
	delete(l.idle, c)
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
	if !ln.l.admit(ln.doneCh()) {
		c.Close()
		return nil, net.ErrClosed
	}
	return &limitConn{Conn: c, l: ln.l}, nil
}

func (ln *limitListener) Close() error {
	ln.closeOnce.Do(func() { close(ln.doneCh()) })
	return ln.Listener.Close()
}

type limitConn struct {
	net.Conn
	l    *ConnLimit
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c) })
	return err
}
