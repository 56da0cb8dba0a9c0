package server

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// ConnLimit bounds the connections a server holds open. When the bound is reached, the
// idle keep-alive connection that has waited longest is closed to make room for the new
// one; when none is idle, accepting waits until a connection closes or goes idle (and is
// then closed). A log line says when the bound is reached, at most once a minute.
//
// Use Listener for the server's listener and ConnState as its http.Server.ConnState.
type ConnLimit struct {
	max int
	log *slog.Logger

	mu      sync.Mutex
	open    int
	idle    map[net.Conn]time.Time // idle since
	waiting int
	wake    chan struct{}
	logged  time.Time
}

// NewConnLimit returns a bound of max connections (at least 1); log may be nil.
func NewConnLimit(n int, log *slog.Logger) *ConnLimit {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &ConnLimit{max: max(n, 1), log: log, idle: map[net.Conn]time.Time{}, wake: make(chan struct{}, 1)}
}

// Listener wraps ln so that it accepts within the bound.
func (l *ConnLimit) Listener(ln net.Listener) net.Listener { return &limitListener{Listener: ln, l: l} }

// ConnState tracks which connections are idle; set it as http.Server.ConnState.
func (l *ConnLimit) ConnState(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	switch state {
	case http.StateIdle:
		if l.waiting > 0 {
			l.mu.Unlock()
			c.Close() // someone waits for room: this one goes first
			return
		}
		l.idle[c] = time.Now()
	case http.StateActive, http.StateClosed, http.StateHijacked:
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
			l.log.Warn("connection limit reached: closing idle keep-alive connections, new connections wait", "limit", l.max)
		}
		if c := l.oldestIdle(); c != nil {
			delete(l.idle, c)
			l.mu.Unlock()
			c.Close() // its limitConn.Close frees the slot
			l.mu.Lock()
			continue
		}
		l.waiting++
		l.mu.Unlock()
		select {
		case <-l.wake:
		case <-done:
			l.mu.Lock()
			l.waiting--
			l.mu.Unlock()
			return false
		}
		l.mu.Lock()
		l.waiting--
	}
	l.open++
	l.mu.Unlock()
	return true
}

func (l *ConnLimit) oldestIdle() net.Conn {
	var oldest net.Conn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	return oldest
}

func (l *ConnLimit) release(c net.Conn) {
	l.mu.Lock()
	l.open--
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

// Accept waits for room before accepting, so that connections beyond the bound wait in
// the kernel's backlog instead of holding descriptors.
func (ln *limitListener) Accept() (net.Conn, error) {
	if !ln.l.admit(ln.doneCh()) {
		return nil, net.ErrClosed
	}
	c, err := ln.Listener.Accept()
	if err != nil {
		ln.l.release(nil)
		return nil, err
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
