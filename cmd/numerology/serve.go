package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/opennumerology/numerology/edge/server"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/humanize"
)

// shutdownTimeout bounds the wait for requests in flight when serve stops.
const shutdownTimeout = 10 * time.Second

// wrapServeHandler wraps the server's handler; tests use it to hold a request in flight.
var wrapServeHandler = func(h http.Handler) http.Handler { return h }

type serveOptions struct {
	dir         string
	addr        string
	trustHeader string
	rateLimit   int
	rateWindow  time.Duration
	rateClients int
	accessLog   bool
	cacheMB     int
	maxConns    int
	clientConns int
}

// defaultMaxConns bounds the connections serve holds: far above what a local or
// proxied API needs, and about 80 MB of connection buffers at worst.
const defaultMaxConns = 4096

// defaultClientConns bounds the connections one client holds: a browser opens six to a
// host, and many users behind one address (a NAT, an office) stay well below it.
const defaultClientConns = 64

// reservedFiles are the descriptors kept free of connections (server.ReservedFiles): the
// tree's files, the watches, the listener.
const reservedFiles = server.ReservedFiles

// maxConnsFor is --max-conns, or its default below the process's descriptor limit.
func maxConnsFor(flag, fileLimit int) int {
	if flag > 0 {
		return flag
	}
	n := defaultMaxConns
	if fileLimit > 0 && fileLimit-reservedFiles < n {
		n = max(fileLimit-reservedFiles, 1)
	}
	return n
}

func newServeCmd() *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a generated tree locally with the full API semantics",
		Long: `serve answers the API of a generated out/ tree over HTTP exactly as the Cloudflare Worker
does: routing on the raw path, the manifest's headers and error bodies, ETag and
If-None-Match, CORS preflight, and the per-client rate limit of the date routes. Other
paths serve the tree's human pages and downloads as Cloudflare's assets do, the pages
gzipped for a client that accepts it (the API's answers never are).

The client of the rate limit is the connection's peer address (IPv6 grouped by /64). Behind
a reverse proxy, --trust-header names the header the proxy sets (the last address of the
header's last line is used); never set it when clients connect directly, or they choose
their own key.

serve follows its tree: when generate swaps in a regenerated tree (or pack rewrites the
manifest), serve loads the new manifest and switches to it without a restart; every body
is answered with the ETag of its own bytes.

At most --max-conns connections are held open; when the limit is reached, the connection
stuck longest (no request for a second, or an answer its client has not read for a
second) and then the idle keep-alive ones are closed for new clients, and a line is
logged. One client (its address, IPv6 by /64) holds at most --max-client-conns of them; its
next one takes the place of one of its own stuck or idle ones, or is closed. Behind a proxy
(--trust-header) every connection comes from the proxy, so that bound is off. Files of the
tree are held open only while they are read, at most 64 at once, so connections and files
stay within the descriptor limit.
The limit and window default to the manifest's (60 per 60s); --rate-limit 0 turns it off.

SIGINT or SIGTERM stops accepting connections and lets requests in flight finish.`,
		Example: `  numerology serve
  numerology serve --dir /srv/api --addr :8080 --access-log
  numerology serve --trust-header CF-Connecting-IP
  numerology serve --rate-limit 0                      # benchmarks`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.dir, "dir", "d", "out", "the generated tree to serve")
	f.StringVar(&opts.addr, "addr", "127.0.0.1:8080", "the address to listen on")
	f.StringVar(&opts.trustHeader, "trust-header", "", "a request header holding the client address, set by a trusted proxy (e.g. CF-Connecting-IP)")
	f.IntVar(&opts.rateLimit, "rate-limit", 60, "requests to the date routes per client per window, 0 for no limit; when not given, the manifest's")
	f.DurationVar(&opts.rateWindow, "rate-window", time.Minute, "the rate limit's sliding window; when not given, the manifest's")
	f.IntVar(&opts.rateClients, "rate-clients", server.DefaultRateClients, "most clients the rate limiter tracks at once (bounds its memory)")
	f.BoolVar(&opts.accessLog, "access-log", false, "log every request to stderr")
	f.IntVar(&opts.cacheMB, "cache-mb", 64, "MiB of memory for the API's bodies, kept compactly (the full tree's take about 20); 0 reads each answer from disk")
	f.IntVar(&opts.maxConns, "max-conns", 0, fmt.Sprintf("most connections held open; stuck and idle ones are closed for new clients when it is reached (0: %d, or less below the descriptor limit)", defaultMaxConns))
	f.IntVar(&opts.clientConns, "max-client-conns", defaultClientConns, "most connections one client address holds, 0 for no bound (off with --trust-header)")
	return cmd
}

func runServe(ctx context.Context, cmd *cobra.Command, opts *serveOptions) error {
	if err := checkServeFlags(opts); err != nil {
		return err
	}
	m, err := loadServedTree(opts.dir)
	if err != nil {
		return err
	}
	fl := cmd.Flags()
	if !fl.Changed("rate-limit") && m.Edge.RateLimit.Requests > 0 {
		opts.rateLimit = m.Edge.RateLimit.Requests
	}
	if !fl.Changed("rate-window") && m.Edge.RateLimit.WindowSeconds > 0 {
		opts.rateWindow = time.Duration(m.Edge.RateLimit.WindowSeconds) * time.Second
	}
	logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
	h, err := server.New(server.Options{
		Dir: opts.dir, Manifest: m,
		RateLimit: opts.rateLimit, RateWindow: opts.rateWindow, RateClients: opts.rateClients,
		TrustHeader: opts.trustHeader, Logger: logger, AccessLog: opts.accessLog,
		CacheBytes: int64(opts.cacheMB) << 20,
	})
	if err != nil {
		return withCode(exitVerify, fmt.Errorf("serve %s: %w", opts.dir, err))
	}
	defer h.Close()
	setProcs()
	files, years, ipv6Bits := m.Counts.Files, len(m.Years), m.Edge.RateLimit.IPv6Prefix
	m = nil // the handler keeps what it needs; let the file list go

	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return withCode(exitIO, fmt.Errorf("listen %s: %w", opts.addr, err))
	}
	clientConns := opts.clientConns
	if opts.trustHeader != "" {
		clientConns = 0 // every connection is the proxy's
	}
	srv := server.NewHTTPServer(wrapServeHandler(h), server.ServerOptions{
		MaxConns: maxConnsFor(opts.maxConns, openFileLimit()), MaxClientConns: clientConns,
		IPv6Bits: ipv6Bits, Logger: logger,
	})
	limit := "off"
	if opts.rateLimit > 0 {
		limit = fmt.Sprintf("%d per %v per client", opts.rateLimit, opts.rateWindow)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "serving %s (%s files, %d years) on http://%s/api/public — rate limit %s; Ctrl-C stops\n",
		opts.dir, humanize.Count(int64(files)), years, ln.Addr(), limit)
	return serveUntilDone(ctx, cmd, srv.Server, srv.Listener(ln))
}

// checkServeFlags rejects flag values serve cannot use.
func checkServeFlags(opts *serveOptions) error {
	switch {
	case opts.rateLimit < 0:
		return usageErrorf("--rate-limit %d: must be 0 (off) or more", opts.rateLimit)
	case opts.rateWindow <= 0:
		return usageErrorf("--rate-window %v: must be positive", opts.rateWindow)
	case opts.cacheMB < 0:
		return usageErrorf("--cache-mb %d: must be 0 (off) or more", opts.cacheMB)
	case opts.rateClients <= 0:
		return usageErrorf("--rate-clients %d: must be positive", opts.rateClients)
	case opts.maxConns < 0:
		return usageErrorf("--max-conns %d: must be 0 (the default) or more", opts.maxConns)
	case opts.clientConns < 0:
		return usageErrorf("--max-client-conns %d: must be 0 (no bound) or more", opts.clientConns)
	}
	return nil
}

// loadServedTree loads the manifest of dir and checks the tree against it.
func loadServedTree(dir string) (*manifest.Manifest, error) {
	m, err := manifest.Load(dir)
	if err != nil {
		if errors.Is(err, manifest.ErrNoManifest) {
			return nil, withCode(exitIO, err)
		}
		return nil, withCode(exitVerify, fmt.Errorf("serve %s: %w", dir, err))
	}
	if err := server.CheckTree(dir, m); err != nil {
		if errors.Is(err, server.ErrMismatch) {
			return nil, withCode(exitVerify, fmt.Errorf("serve %s: %w", dir, err))
		}
		return nil, withCode(exitIO, fmt.Errorf("serve %s: %w", dir, err))
	}
	return m, nil
}

// setProcs runs the server with twice as many Ps as CPUs unless GOMAXPROCS is set. The
// server shares its CPUs with the kernel's network stack and other processes; when the OS
// deschedules a thread that holds runnable goroutines, spare Ps keep answering
// (docs/serve.md, "Benchmark", has the measurements).
func setProcs() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(2 * runtime.NumCPU())
	}
}

// serveUntilDone serves ln until ctx is done, then shuts down gracefully.
func serveUntilDone(ctx context.Context, cmd *cobra.Command, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return withCode(exitIO, fmt.Errorf("serve: %w", err))
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	fmt.Fprintln(cmd.OutOrStdout(), "stopped")
	return nil
}
