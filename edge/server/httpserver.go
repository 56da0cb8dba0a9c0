package server

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Timeouts and bounds of HTTPServer against slow clients; every answer is small and
// precomputed. A client sends its request at once: one that takes seconds over its head is
// slow or hostile, and once the connection limit is reached it is the first to be closed
// anyway.
const (
	ReadHeaderTimeout = 3 * time.Second
	ReadTimeout       = 10 * time.Second
	WriteTimeout      = 30 * time.Second // downloads may be tens of MB on a slow link
	IdleTimeout       = 120 * time.Second
	MaxHeaderBytes    = 16 << 10
)

// ServerOptions configures an HTTPServer.
type ServerOptions struct {
	// MaxConns bounds the connections held open (see ConnLimit).
	MaxConns int
	// MaxClientConns bounds the connections one client holds, the client keyed by its peer
	// address as the rate limit keys it (ClientKey with IPv6Bits); 0 means no such bound
	// (behind a proxy, where every connection comes from the proxy).
	MaxClientConns int
	IPv6Bits       int // 64 when not in 1–128
	// Logger receives net/http's errors and the connection limit's warnings; nil discards.
	Logger *slog.Logger
}

// HTTPServer is the HTTP server of `numerology serve` around a Handler: net/http with the
// timeouts above, behind a ConnLimit whose connections hand net/http request targets it can
// parse (targetReader), so that every request the Workers runtime would hand the worker
// reaches the handler.
type HTTPServer struct {
	*http.Server
	Conns *ConnLimit
}

// NewHTTPServer returns the server of h.
func NewHTTPServer(h http.Handler, opts ServerOptions) *HTTPServer {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conns := NewConnLimit(opts.MaxConns, log)
	conns.perClient, conns.ipv6Bits = opts.MaxClientConns, opts.IPv6Bits
	if conns.ipv6Bits <= 0 || conns.ipv6Bits > 128 {
		conns.ipv6Bits = 64 // as the handler's limiter: a /64 a client
	}
	return &HTTPServer{
		Server: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: ReadHeaderTimeout,
			ReadTimeout:       ReadTimeout,
			WriteTimeout:      WriteTimeout,
			IdleTimeout:       IdleTimeout,
			MaxHeaderBytes:    MaxHeaderBytes,
			ConnState:         conns.ConnState,
			ConnContext:       connContext,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		Conns: conns,
	}
}

// Listener wraps ln as Serve does: within the connection limit, with targetReader on each
// connection. It is for a caller that runs the http.Server itself (httptest).
func (s *HTTPServer) Listener(ln net.Listener) net.Listener { return s.Conns.Listener(ln) }

// Serve serves ln until the server is shut down.
func (s *HTTPServer) Serve(ln net.Listener) error { return s.Server.Serve(s.Listener(ln)) }

// connContext marks the context of a connection of the limit's listener: its request
// heads were read by a targetReader.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if _, ok := c.(*limitConn); ok {
		return context.WithValue(ctx, targetsReadKey{}, true)
	}
	return ctx
}
