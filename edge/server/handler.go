// Package server serves a generated out/ tree over HTTP with the full API semantics of
// docs/design.md §3–§5: routing on the raw path, the header sets and prebuilt error bodies of the
// manifest, ETag and If-None-Match, CORS preflight and the per-client rate limit of the
// rate-limited routes. It is the local server behind `numerology serve` and the reference
// the Cloudflare Worker is checked against (see edge/conformance). Everything it knows of
// the routes, their parameters, errors and limits comes from the manifest's edge config.
package server

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
)

// Options configures a Handler.
type Options struct {
	// Dir is the out/ tree to serve.
	Dir string
	// Manifest is the tree's manifest; nil means load Dir/manifest.json.
	Manifest *manifest.Manifest
	// RateLimit is how many requests to the rate-limited routes (together) one client may
	// make per RateWindow; 0 turns the limit off.
	RateLimit  int
	RateWindow time.Duration
	// RateClients bounds the clients the limiter tracks (DefaultRateClients when 0).
	RateClients int
	// TrustHeader, when set, names a request header holding the client address: the last
	// element of the header's last line, as appended by the proxy in front. A missing or
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
	// NoReload turns off following a regenerated tree (tests of a fixed tree).
	NoReload bool
}

// Handler is the http.Handler of an out/ tree. It follows the tree: when the tree is
// regenerated (swapped in) or its manifest rewritten, it loads the new manifest and
// switches to it atomically (see reload.go).
type Handler struct {
	dir        string
	cacheBytes int64
	cur        atomic.Pointer[tree]
	limiter    *Limiter
	trust      string
	ipv6Bits   int
	log        *slog.Logger
	accessLog  bool
	// open opens a file of a tree by its path relative to the tree; tests wrap it to
	// watch that nothing outside the manifest is read, or to change a file as it is read.
	open func(t *tree, name string) (treeFile, error)
	// slots bounds the tree files open at once (FileSlots).
	slots chan struct{}
	// reloads counts the trees loaded after the first; tests wait on it.
	reloads  atomic.Int64
	reloadMu sync.Mutex
	// stopWatch stops the watch for regenerated trees.
	stopWatch func()
	// mcp is the MCP endpoint's state of the current tree (mcp.go).
	mcp mcpCache
}

// New builds the handler of a tree. It does not read the files; see CheckTree. With
// CacheBytes, it watches the tree and reloads it when it is regenerated.
func New(opts Options) (*Handler, error) {
	m := opts.Manifest
	if m == nil {
		var err error
		if m, err = manifest.Load(opts.Dir); err != nil {
			return nil, err
		}
	}
	t, err := newTree(m, opts.CacheBytes)
	if err != nil {
		return nil, err
	}
	h := &Handler{
		dir:        opts.Dir,
		cacheBytes: opts.CacheBytes,
		trust:      opts.TrustHeader,
		ipv6Bits:   m.Edge.RateLimit.IPv6Prefix,
		log:        opts.Logger,
		accessLog:  opts.AccessLog && opts.Logger != nil,
		stopWatch:  func() {},
		open:       func(t *tree, name string) (treeFile, error) { return t.openFile(name) },
		slots:      make(chan struct{}, FileSlots),
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	t.open(opts.Dir, h.log)
	if h.ipv6Bits <= 0 || h.ipv6Bits > 128 {
		h.ipv6Bits = 64
	}
	if opts.RateLimit > 0 {
		if opts.RateWindow <= 0 {
			return nil, fmt.Errorf("rate window %v: must be positive", opts.RateWindow)
		}
		h.limiter = NewLimiter(opts.RateLimit, opts.RateWindow, opts.RateClients, opts.Now)
	}
	if fi, err := os.Stat(filepath.Join(opts.Dir, manifest.FileName)); err == nil {
		t.manifest = fi
	}
	h.watchTree(t, m.Files)
	h.cur.Store(t)
	if !opts.NoReload {
		if err := h.watchForReload(); err != nil {
			h.log.Warn("cannot watch for a regenerated tree: restart serve after regenerating", "err", err)
		}
	}
	return h, nil
}

// Close stops watching the tree. The handler keeps answering.
func (h *Handler) Close() error {
	h.stopWatch()
	h.cur.Load().stopWatch()
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
				slog.String("method", r.Method), slog.String("path", rawTarget(r)),
				slog.Int("status", lw.status), slog.Int64("bytes", lw.bytes),
				slog.String("client", r.RemoteAddr), slog.Duration("duration", time.Since(start)))
		}()
	}
	t := h.cur.Load()
	p := rawPath(r)
	if p == manifest.MCPPath {
		h.serveMCP(w, r, t) // docs/mcp.md
		return
	}
	if r.ContentLength != 0 {
		// No route reads a body. Closing the connection after the answer spares net/http
		// reading the body first, which for a body that never comes held the answer
		// until ReadTimeout; the past read deadline keeps net/http from waiting for the
		// body after the answer too (it drains a small one to keep the connection), so
		// the connection's slot is free at once.
		w.Header()["Connection"] = []string{"close"}
		http.NewResponseController(w).SetReadDeadline(time.Unix(1, 0))
	}
	if !t.router.isAPI(p) {
		h.serveStatic(w, r, t, p)
		return
	}
	if r.Method == http.MethodOptions {
		copyHeader(w.Header(), t.preflight)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if h.limiter != nil && t.router.isRateLimited(p) {
		if ok, retry := h.limiter.Allow(h.client(r)); !ok {
			w.Header()["Retry-After"] = []string{strconv.Itoa(retry)}
			writeError(w, r, t, t.edgeErrs.TooManyRequests)
			return
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, r, t, t.edgeErrs.MethodNotAllowed)
		return
	}
	rt := t.router.match(p)
	if rt.kind == routeError {
		writeError(w, r, t, rt.err)
		return
	}
	h.serveRecord(w, r, t, rt)
}

// serveRecord answers a valid route with its precomputed file, or 500 when the file is not
// in the manifest or cannot be read.
func (h *Handler) serveRecord(w http.ResponseWriter, r *http.Request, t *tree, rt route) {
	var scratch entry
	e, err := h.routeEntry(t, rt.key, &scratch)
	if e == nil && err == nil {
		h.log.Error("route file not in the tree", "file", t.router.treeFile(rt.key), "path", r.RequestURI)
		writeError(w, r, t, t.edgeErrs.Internal)
		return
	}
	buf := bodyBufs.Get().(*[]byte)
	defer bodyBufs.Put(buf)
	var body []byte
	if err == nil {
		body, err = h.body(t, e, *buf)
	}
	if errors.Is(err, errChanged) || errors.Is(err, fs.ErrNotExist) {
		if nt := h.refresh(t); nt != t {
			// The tree was regenerated: answer from the new one, routed by its own table.
			if nrt := nt.router.match(rawPath(r)); nrt.kind == routeError {
				writeError(w, r, nt, nrt.err)
			} else {
				h.serveRecord(w, r, nt, nrt)
			}
			return
		}
	}
	if err != nil {
		h.log.Error("read route file", "file", t.router.treeFile(rt.key), "err", err)
		writeError(w, r, t, t.edgeErrs.Internal)
		return
	}
	hd := w.Header()
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && etagMatch(inm, e.etag[0]) {
		copyHeader(hd, t.hdr304)
		hd["Etag"] = e.etag
		w.WriteHeader(http.StatusNotModified)
		return
	}
	copyHeader(hd, t.hdr200)
	hd["Etag"] = e.etag
	hd["Content-Length"] = e.clen
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// errChanged reports a file whose content is not the one its manifest lists.
var errChanged = errors.New("differs from the manifest's sha256 and size (regenerate the tree)")

// body returns the content of a tree file, from the cache when it holds it and the file is
// still the one it was read from (a body stored against a dictionary is decoded into buf).
// A body read from disk is returned only when its size and sha256 are the manifest's, so
// the ETag answered with it is always its own (errChanged otherwise).
func (h *Handler) body(t *tree, e *entry, buf []byte) ([]byte, error) {
	var gen uint64
	if t.cache != nil {
		if c, ok := t.cache.get(e); ok {
			// A write through mmap reaches no file watch: the file's identity tells.
			if id, err := t.statFile(t.pathOf(e)); err == nil && id == c.id {
				if b := c.body(buf); len(b) == c.size {
					return b, nil
				}
			}
			t.cache.remove(e.slot)
		}
		t.watch(pathDir(t.pathOf(e))) // before gen: an event from now on drops the body
		gen = t.cache.gen.Load()
	}
	b, id, err := h.readRecord(t, e)
	if err != nil {
		return nil, err
	}
	if t.cache != nil {
		t.cache.put(e, id, b, gen, func(k fileKey) []byte {
			var scratch entry
			s, err := h.routeEntry(t, k, &scratch)
			if s == nil || err != nil {
				return nil
			}
			b, _, _ := h.readRecord(t, s)
			return b
		})
	}
	return b, nil
}

// readRecord reads a tree file whose size and sha256 must be the manifest's (errChanged
// otherwise). Nothing is allocated from the manifest's size before the file's own size
// agrees with it.
func (h *Handler) readRecord(t *tree, e *entry) ([]byte, fileID, error) {
	p := t.pathOf(e)
	b, id, err := h.readWhole(t, p, min(e.size, contract.MaxAssetSize))
	switch {
	case errors.Is(err, errTooLarge):
		return nil, id, fmt.Errorf("%s: %w", p, errChanged)
	case err != nil:
		return nil, id, err
	case int64(len(b)) != e.size || sha256.Sum256(b) != e.sum:
		return nil, id, fmt.Errorf("%s: %w", p, errChanged)
	}
	return b, id, nil
}

// bodyBufs are the buffers cached bodies are decoded into, one per answer in flight; a body
// that does not fit gets a buffer of its own.
var bodyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// writeError writes a prebuilt error answer. The tree holds every key a route or the edge
// can name (the config is checked when the tree is loaded); any other is a 500.
func writeError(w http.ResponseWriter, r *http.Request, t *tree, key string) {
	e := t.errs[key]
	if e == nil {
		e = t.errs[t.edgeErrs.Internal]
	}
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

// etagMatch reports whether an If-None-Match header matches etag (docs/design.md §4): an
// element of its comma-separated lists, OWS trimmed, matches when it is "*" or etag, strong
// or weak (the weak comparison of RFC 9110 §13.1.2); any other element matches nothing. The
// worker reads the header the same way (edge/testdata/vectors.json checks both).
func etagMatch(values []string, etag string) bool {
	for _, v := range values {
		for v != "" {
			var elem string
			elem, v, _ = strings.Cut(v, ",")
			elem = strings.Trim(elem, " \t")
			if elem == "*" || strings.TrimPrefix(elem, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// rawPath is the request target's path as the Workers runtime hands it to the worker: dot
// segments and backslashes resolved as a URL parser does (resolvePath), nothing unescaped,
// without the query and the fragment. The target is the client's own, also where net/http
// was handed another (rawTarget).
func rawPath(r *http.Request) string {
	u := rawTarget(r)
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
		j := strings.IndexAny(rest, "/?#")
		if j < 0 || rest[j] != '/' {
			return "/"
		}
		u = rest[j:]
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return resolvePath(u)
}

// client is the rate limiter's key of the request's client.
func (h *Handler) client(r *http.Request) netip.Addr {
	if h.trust != "" {
		// The proxy in front appends its line (and its element) last; earlier lines and
		// elements are the client's to choose.
		if vs := r.Header.Values(h.trust); len(vs) > 0 {
			if k, ok := headerClientKey(vs[len(vs)-1], h.ipv6Bits); ok {
				return k
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
var ErrMismatch = manifest.ErrMismatch

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
// lists: every route and error file of the root, an even sample of the root's other files
// and of the shards, and an even sample of the files of a few shards (each read and checked
// against the root) must exist with the listed size. One missing sampled file is tolerated
// (the handler answers 500 for it); more, or any size that differs, means the tree is not
// the manifest's.
func CheckTree(dir string, m *manifest.Manifest) error {
	const sample, shardSample, shardFileSample = 64, 8, 8
	var paths []string
	for _, e := range m.Edge.Errors {
		paths = append(paths, e.File)
	}
	for _, r := range m.Edge.Routes {
		if len(r.Params) == 0 {
			paths = append(paths, r.File)
		}
	}
	listed := append(slices.Clip(m.Files), m.Shards...) // the root's files and the shards
	if n := len(listed); n > 0 {
		step := max(n/sample, 1)
		for i := 0; i < n; i += step {
			paths = append(paths, listed[i].Path)
		}
	}
	idx := make(map[string]int64, len(listed))
	for _, f := range listed {
		idx[f.Path] = f.Size
	}
	if n := len(m.Shards); n > 0 {
		step := max(n/shardSample, 1)
		for i := 0; i < n; i += step {
			if _, _, ok := manifest.ParseShardPath(m.Shards[i].Path); !ok {
				return fmt.Errorf("%w: %q is not a shard", ErrMismatch, m.Shards[i].Path)
			}
			s, err := manifest.ReadShard(dir, m.Shards[i])
			if errors.Is(err, fs.ErrNotExist) {
				continue // the shard's own entry is among the paths
			}
			if err != nil {
				return fmt.Errorf("%w: %w (regenerate the tree)", ErrMismatch, err)
			}
			fstep := max(len(s.Files)/shardFileSample, 1)
			for j := 0; j < len(s.Files); j += fstep {
				paths = append(paths, s.Files[j].Path)
				idx[s.Files[j].Path] = s.Files[j].Size
			}
		}
	}
	missing := 0
	var firstMissing string
	for _, p := range paths {
		size, ok := idx[p]
		if !ok {
			return fmt.Errorf("%w: %s is not listed", ErrMismatch, p)
		}
		if !cleanTreePath(p) {
			return fmt.Errorf("%w: unsafe path %q", ErrMismatch, p)
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
