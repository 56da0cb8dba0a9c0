// Package server serves a generated out/ tree over HTTP with the full API semantics of
// DESIGN.md §3–§5: routing on the raw path, the header sets and prebuilt error bodies of the
// manifest, ETag and If-None-Match, CORS preflight and the per-client rate limit of the
// matrix route. It is the local server behind `numerology serve` and the reference the
// Cloudflare Worker is checked against (see edge/conformance).
package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
)

// Options configures a Handler.
type Options struct {
	// Dir is the out/ tree to serve.
	Dir string
	// Manifest is the tree's manifest; nil means load Dir/manifest.json.
	Manifest *manifest.Manifest
	// RateLimit is how many matrix requests one client may make per RateWindow; 0 turns
	// the limit off.
	RateLimit  int
	RateWindow time.Duration
	// RateClients bounds the clients the limiter tracks (DefaultRateClients when 0).
	RateClients int
	// TrustHeader, when set, names a request header holding the client address (the last
	// address of a comma-separated list, as appended by the proxy in front). A missing or
	// unparsable value falls back to the connection's peer address.
	TrustHeader string
	// Logger receives internal errors (a missing or unreadable file) and, with AccessLog,
	// one line per request. Nil discards.
	Logger    *slog.Logger
	AccessLog bool
	// Now is the limiter's clock; nil means time.Now.
	Now func() time.Time
	// CacheBytes bounds an in-memory cache of the API's bodies; 0 reads every answer from
	// the tree.
	CacheBytes int64
}

// Handler is the http.Handler of an out/ tree.
type Handler struct {
	dir       string
	files     map[string]*entry
	matrix    []*entry // matrix records by matrixIndex
	firstYear int
	router    *router
	limiter   *Limiter
	cache     *bodyCache
	trust     string
	ipv6Bits  int
	log       *slog.Logger
	accessLog bool

	hdr200, hdr304, preflight http.Header
	errs                      map[string]*errorAnswer
	// open opens a tree file by its path relative to the tree; tests wrap it to watch
	// that nothing outside the manifest is read.
	open func(name string) (*os.File, error)
	// stopWatch stops the watch that keeps the cache in step with the tree.
	stopWatch func()
}

// entry is what the handler keeps of one file of the manifest.
type entry struct {
	body atomic.Pointer[[]byte] // the cached body, nil when not cached
	path string
	size int64
	etag []string // the strong ETag, as a ready header value
	clen []string // Content-Length
}

// errorAnswer is a prebuilt error response.
type errorAnswer struct {
	status int
	hdr    http.Header
	body   []byte
}

// New builds the handler of a tree. It does not read the files; see CheckTree.
func New(opts Options) (*Handler, error) {
	m := opts.Manifest
	if m == nil {
		var err error
		if m, err = manifest.Load(opts.Dir); err != nil {
			return nil, err
		}
	}
	cfg := &m.Edge
	h := &Handler{
		dir:       opts.Dir,
		files:     make(map[string]*entry, len(m.Files)),
		matrix:    make([]*entry, max(cfg.LastYear-cfg.FirstYear+1, 0)*372),
		firstYear: cfg.FirstYear,
		router:    newRouter(cfg),
		trust:     opts.TrustHeader,
		ipv6Bits:  cfg.RateLimit.IPv6Prefix,
		log:       opts.Logger,
		accessLog: opts.AccessLog && opts.Logger != nil,
		errs:      map[string]*errorAnswer{},
		cache:     newBodyCache(opts.CacheBytes),
	}
	h.open = func(name string) (*os.File, error) { return os.Open(h.dir + "/" + name) }
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.ipv6Bits <= 0 || h.ipv6Bits > 128 {
		h.ipv6Bits = 64
	}
	if opts.RateLimit > 0 {
		if opts.RateWindow <= 0 {
			return nil, fmt.Errorf("rate window %v: must be positive", opts.RateWindow)
		}
		h.limiter = NewLimiter(opts.RateLimit, opts.RateWindow, opts.RateClients, opts.Now)
	}
	// One []string per distinct value: the handler assigns these slices to response header
	// maps directly, which net/http only reads.
	values := map[string][]string{}
	val := func(v string) []string {
		s, ok := values[v]
		if !ok {
			s = []string{v}
			values[v] = s
		}
		return s
	}
	for i := range m.Files {
		f := &m.Files[i]
		if !cleanTreePath(f.Path) {
			return nil, fmt.Errorf("%w: unsafe path %q", ErrMismatch, f.Path)
		}
		e := &entry{path: f.Path, size: f.Size, etag: []string{f.ETag()}, clen: val(strconv.FormatInt(f.Size, 10))}
		h.files[f.Path] = e
		if d, mo, y, ok := matrixDate(f.Path); ok {
			if i := h.matrixIndex(d, mo, y); i >= 0 && i < len(h.matrix) {
				h.matrix[i] = e
			}
		}
	}
	set := func(sets ...map[string]string) http.Header {
		hd := http.Header{}
		for _, s := range sets {
			for k, v := range s {
				hd[http.CanonicalHeaderKey(k)] = val(v)
			}
		}
		return hd
	}
	h.hdr200 = set(cfg.Headers.Common, cfg.Headers.ByStatus["200"])
	h.hdr304 = set(cfg.Headers.Common, cfg.Headers.ByStatus["304"])
	h.preflight = set(cfg.Headers.Preflight)
	for _, key := range []string{manifest.ErrInvalidDate, manifest.ErrNumberNotFound, manifest.ErrNotFound,
		manifest.ErrMethodNotAllowed, manifest.ErrTooManyRequests, manifest.ErrInternal} {
		e, ok := cfg.Errors[key]
		if !ok {
			return nil, fmt.Errorf("%w: no %s error in the edge config", ErrMismatch, key)
		}
		hd := set(cfg.Headers.Common, cfg.Headers.ByStatus[strconv.Itoa(e.Status)])
		hd["Content-Length"] = val(strconv.Itoa(len(e.Body)))
		h.errs[key] = &errorAnswer{status: e.Status, hdr: hd, body: []byte(e.Body)}
	}
	if h.cache != nil {
		// A file deleted or replaced while serving must not be answered from memory.
		stop, err := watchTree(opts.Dir, m.Files, h.uncache, h.uncacheAll)
		if err != nil {
			h.log.Warn("cannot watch the tree: restart serve after changing its files", "err", err)
			stop = func() {}
		}
		h.stopWatch = stop
	}
	return h, nil
}

// uncache drops the cached body of a tree file.
func (h *Handler) uncache(name string) {
	if e := h.files[name]; e != nil {
		h.cache.remove(e)
	}
}

// uncacheAll empties the cache.
func (h *Handler) uncacheAll() {
	h.cache.gen.Add(1)
	for _, e := range h.files {
		h.cache.remove(e)
	}
}

// Close stops watching the tree. The handler keeps answering.
func (h *Handler) Close() error {
	if h.stopWatch != nil {
		h.stopWatch()
	}
	return nil
}

// Limiter returns the handler's rate limiter, nil when the limit is off.
func (h *Handler) Limiter() *Limiter { return h.limiter }

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.accessLog {
		start := time.Now()
		lw := &logWriter{ResponseWriter: w}
		w = lw
		defer func() {
			h.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method), slog.String("path", r.RequestURI),
				slog.Int("status", lw.status), slog.Int64("bytes", lw.bytes),
				slog.String("client", r.RemoteAddr), slog.Duration("duration", time.Since(start)))
		}()
	}
	p := rawPath(r)
	if !h.router.isAPI(p) {
		h.serveStatic(w, r, p)
		return
	}
	if r.Method == http.MethodOptions {
		copyHeader(w.Header(), h.preflight)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if h.limiter != nil && h.router.isRateLimited(p) {
		if ok, retry := h.limiter.Allow(h.client(r)); !ok {
			w.Header()["Retry-After"] = []string{strconv.Itoa(retry)}
			h.writeError(w, r, manifest.ErrTooManyRequests)
			return
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.writeError(w, r, manifest.ErrMethodNotAllowed)
		return
	}
	rt := h.router.match(p)
	switch rt.kind {
	case routeInvalidDate:
		h.writeError(w, r, manifest.ErrInvalidDate)
	case routeNumberNotFound:
		h.writeError(w, r, manifest.ErrNumberNotFound)
	case routeNotFound:
		h.writeError(w, r, manifest.ErrNotFound)
	default:
		h.serveRecord(w, r, rt)
	}
}

// matrixIndex is the index of a date in Handler.matrix: 31 slots per month.
func (h *Handler) matrixIndex(d, m, y int) int { return (y-h.firstYear)*372 + (m-1)*31 + d - 1 }

// matrixDate parses "api/public/matrix/{d}/{m}/{y}.json".
func matrixDate(p string) (d, m, y int, ok bool) {
	rest, ok := strings.CutPrefix(p, "api/public/matrix/")
	if !ok {
		return 0, 0, 0, false
	}
	rest, ok = strings.CutSuffix(rest, ".json")
	if !ok {
		return 0, 0, 0, false
	}
	ds, rest, _ := strings.Cut(rest, "/")
	ms, ys, _ := strings.Cut(rest, "/")
	d, ok1 := numeric(ds)
	m, ok2 := numeric(ms)
	y, ok3 := numeric(ys)
	return d, m, y, ok1 && ok2 && ok3 && d >= 1 && d <= 31 && m >= 1 && m <= 12
}

// entryOf returns the manifest entry of a route's body, nil when the tree lacks it.
func (h *Handler) entryOf(rt route) *entry {
	if rt.name == manifest.RouteMatrix {
		if i := h.matrixIndex(rt.day, rt.month, rt.year); i >= 0 && i < len(h.matrix) {
			return h.matrix[i]
		}
		return nil
	}
	return h.files[rt.file]
}

// serveRecord answers a valid route with its precomputed file, or 500 when the file is not
// in the manifest or cannot be read.
func (h *Handler) serveRecord(w http.ResponseWriter, r *http.Request, rt route) {
	e := h.entryOf(rt)
	if e == nil {
		h.log.Error("route file not in the tree", "file", rt.treeFile(), "path", r.RequestURI)
		h.writeError(w, r, manifest.ErrInternal)
		return
	}
	body, err := h.body(e)
	if err != nil {
		h.log.Error("read route file", "file", e.path, "err", err)
		h.writeError(w, r, manifest.ErrInternal)
		return
	}
	hd := w.Header()
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && etagMatch(inm, e.etag[0]) {
		copyHeader(hd, h.hdr304)
		hd["Etag"] = e.etag
		w.WriteHeader(http.StatusNotModified)
		return
	}
	copyHeader(hd, h.hdr200)
	hd["Etag"] = e.etag
	hd["Content-Length"] = e.clen
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// body returns the content of a tree file, from the cache when it holds it.
func (h *Handler) body(e *entry) ([]byte, error) {
	var gen uint64
	if h.cache != nil {
		if b := e.body.Load(); b != nil {
			return *b, nil
		}
		gen = h.cache.gen.Load()
	}
	b := make([]byte, e.size+1)
	f, err := h.open(e.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, b)
	switch {
	case int64(n) != e.size || err == nil:
		return nil, fmt.Errorf("%s: size differs from the manifest's %d", e.path, e.size)
	case err != io.ErrUnexpectedEOF && err != io.EOF:
		return nil, err
	}
	b = b[:n:n]
	if h.cache != nil {
		h.cache.put(e, b, gen)
	}
	return b, nil
}

// writeError writes a prebuilt error answer.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, key string) {
	e := h.errs[key]
	copyHeader(w.Header(), e.hdr)
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		w.Write(e.body)
	}
}

func copyHeader(dst, src http.Header) {
	for k, v := range src {
		dst[k] = v
	}
}

// etagMatch reports whether an If-None-Match header matches etag, by the weak comparison
// of RFC 9110 §13.1.2: W/ prefixes are ignored, "*" matches any.
func etagMatch(values []string, etag string) bool {
	for _, v := range values {
		for {
			v = strings.TrimLeft(v, " \t,")
			if v == "" {
				break
			}
			if v[0] == '*' {
				return true
			}
			v = strings.TrimPrefix(v, "W/")
			if v == "" || v[0] != '"' {
				break // malformed: ignore the rest of this value
			}
			end := strings.IndexByte(v[1:], '"')
			if end < 0 {
				break
			}
			if v[:end+2] == etag {
				return true
			}
			v = v[end+2:]
		}
	}
	return false
}

// rawPath is the request target's path exactly as sent: no cleaning, no unescaping, without
// the query.
func rawPath(r *http.Request) string {
	u := r.RequestURI
	if u == "" {
		return r.URL.EscapedPath()
	}
	if u[0] != '/' {
		// absolute-form ("http://host/path") or "*"
		i := strings.Index(u, "://")
		if i < 0 {
			return u
		}
		rest := u[i+3:]
		j := strings.IndexAny(rest, "/?")
		if j < 0 || rest[j] == '?' {
			return "/"
		}
		u = rest[j:]
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	return u
}

// client is the rate limiter's key of the request's client.
func (h *Handler) client(r *http.Request) netip.Addr {
	if h.trust != "" {
		if v := r.Header.Get(h.trust); v != "" {
			if i := strings.LastIndexByte(v, ','); i >= 0 {
				v = v[i+1:]
			}
			v = strings.TrimSpace(v)
			if a, err := netip.ParseAddr(v); err == nil {
				return ClientKey(a, h.ipv6Bits)
			}
			if ap, err := netip.ParseAddrPort(v); err == nil {
				return ClientKey(ap.Addr(), h.ipv6Bits)
			}
		}
	}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ClientKey(ap.Addr(), h.ipv6Bits)
	}
	if a, err := netip.ParseAddr(r.RemoteAddr); err == nil {
		return ClientKey(a, h.ipv6Bits)
	}
	return netip.Addr{} // unknown peers share one bucket
}

// ErrMismatch reports a tree that does not match its manifest.
var ErrMismatch = errors.New("tree does not match its manifest")

// cleanTreePath reports whether p is a relative, clean, forward-slash path inside the tree.
func cleanTreePath(p string) bool {
	if p == "" || p[0] == '/' || strings.ContainsAny(p, "\\\x00") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// CheckTree checks, without reading the whole tree, that dir holds the files its manifest
// lists: every route and error file and an even sample of the others must exist with the
// listed size. One missing sampled file is tolerated (the handler answers 500 for it);
// more, or any size that differs, means the tree is not the manifest's.
func CheckTree(dir string, m *manifest.Manifest) error {
	const sample = 64
	var paths []string
	for _, e := range m.Edge.Errors {
		paths = append(paths, e.File)
	}
	paths = append(paths, manifest.ListFile)
	if n := len(m.Files); n > 0 {
		step := max(n/sample, 1)
		for i := 0; i < n; i += step {
			paths = append(paths, m.Files[i].Path)
		}
	}
	idx := make(map[string]int64, len(m.Files))
	for _, f := range m.Files {
		idx[f.Path] = f.Size
	}
	missing := 0
	var firstMissing string
	for _, p := range paths {
		size, ok := idx[p]
		if !ok {
			return fmt.Errorf("%w: %s is not listed", ErrMismatch, p)
		}
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if errors.Is(err, os.ErrNotExist) {
			if missing++; missing == 1 {
				firstMissing = p
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		if fi.Size() != size {
			return fmt.Errorf("%w: %s has %d bytes, the manifest lists %d (regenerate the tree)", ErrMismatch, p, fi.Size(), size)
		}
	}
	if missing > 1 {
		return fmt.Errorf("%w: %d of %d checked files are missing, first %s (regenerate the tree)", ErrMismatch, missing, len(paths), firstMissing)
	}
	return nil
}

// logWriter records the status and size of a response for the access log.
type logWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *logWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *logWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *logWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
