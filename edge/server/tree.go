package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/opennumerology/numerology/generator/manifest"
)

// tree is everything the handler derives from one manifest: the file index, the router,
// the header sets and error answers, and the body cache of that tree's files. A request
// takes the current tree once and answers from it alone, so a reload (see reload.go) never
// mixes two trees in one answer.
type tree struct {
	files  map[string]*entry  // the files the manifest's root lists
	routed map[fileKey]*entry // the route files among them, by what the router matches
	// shards are the manifest's shards: the files of the packed routes, read on first use
	// (see shards.go).
	shards *shardSet
	router *router
	cache  *bodyCache
	// root is the tree's folder: every file is opened through it (see files.go). dir is
	// the same folder, open for fstatat (dirFD), which checks the identity of a file.
	root  *os.Root
	dir   *os.File
	dirFD int
	// static holds what was read of the static files (see static.go).
	static staticFiles
	// rules are the tree's _headers rules, applied to every static answer.
	rules headerRules

	hdr200, hdr304, preflight http.Header
	errs                      map[string]*errorAnswer // every error of the config, by key
	edgeErrs                  manifest.EdgeErrors     // the keys of the errors no route owns
	// stopWatch stops the watch that drops cached bodies when their files change; watch
	// adds a folder to it (see watchTree).
	stopWatch func()
	watch     func(dir string)
	// manifest is the manifest file this tree was loaded from, to tell whether it changed.
	manifest os.FileInfo
}

// entry is what the handler knows of one file of the manifest: kept for each file of the
// root, made for each answer from a shard (shardSet.entry).
type entry struct {
	own  atomic.Uint64  // the cache slot of a file of the root
	slot *atomic.Uint64 // where the cache holds the body (see bodyCache), 0 when it does not
	// key is the route file's key; path is "" for a file of a shard until it is read
	// (tree.pathOf).
	key   fileKey
	path  string
	size  int64
	sum   [sha256.Size]byte // the manifest's sha256: a body read is answered only if it matches
	etag  []string          // the strong ETag, as a ready header value
	clen  []string          // Content-Length
	shape *bodyShape        // the dictionary its body is stored against, nil for none
}

// errorAnswer is a prebuilt error response.
type errorAnswer struct {
	status int
	hdr    http.Header
	body   []byte
}

// headerValues hands out one []string per distinct header value: the handler assigns these
// slices to response header maps directly, which net/http only reads.
type headerValues map[string][]string

func (v headerValues) of(s string) []string {
	vs, ok := v[s]
	if !ok {
		vs = []string{s}
		v[s] = vs
	}
	return vs
}

// set merges header sets into one http.Header.
func (v headerValues) set(sets ...map[string]string) http.Header {
	hd := http.Header{}
	for _, s := range sets {
		for k, val := range s {
			hd[http.CanonicalHeaderKey(k)] = v.of(val)
		}
	}
	return hd
}

// newTree builds the tree of a manifest's root with a body cache of cacheBytes (none when
// 0). The tree keeps nothing of the manifest: the entries, their paths and their ETags are
// a few large allocations rather than several per file, which the collector marks at once.
// The shards are read later, on first use.
func newTree(m *manifest.Manifest, cacheBytes int64) (*tree, error) {
	cfg := m.Edge // a copy: the router's checks must not hold the manifest's file list
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("%w: edge config: %w", ErrMismatch, err)
	}
	rt, err := newRouter(&cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMismatch, err)
	}
	t := &tree{
		files:     make(map[string]*entry, len(m.Files)),
		routed:    make(map[fileKey]*entry, len(m.Files)),
		router:    rt,
		errs:      map[string]*errorAnswer{},
		edgeErrs:  cfg.EdgeErrors,
		stopWatch: func() {},
		watch:     func(string) {},
	}
	var pathBytes int
	for i := range m.Files {
		pathBytes += len(m.Files[i].Path)
	}
	var pb, eb strings.Builder
	pb.Grow(pathBytes)
	eb.Grow(len(m.Files) * (2*sha256.Size + 2))
	for i := range m.Files {
		f := &m.Files[i]
		if !cleanTreePath(f.Path) {
			return nil, fmt.Errorf("%w: unsafe path %q", ErrMismatch, f.Path)
		}
		if len(f.SHA256) != 2*sha256.Size {
			return nil, fmt.Errorf("%w: %s: bad sha256 %q", ErrMismatch, f.Path, f.SHA256)
		}
		pb.WriteString(f.Path)
		eb.WriteString(manifest.ETag(f.SHA256))
	}
	paths, etags := pb.String(), eb.String()
	entries := make([]entry, len(m.Files))
	etagValues := make([]string, len(m.Files))
	vals := headerValues{}
	var routed []*entry
	for i, off := 0, 0; i < len(m.Files); i++ {
		f := &m.Files[i]
		e := &entries[i]
		e.path = paths[off : off+len(f.Path)]
		off += len(f.Path)
		etagValues[i] = etags[i*(2*sha256.Size+2) : (i+1)*(2*sha256.Size+2)]
		e.size, e.etag, e.clen = f.Size, etagValues[i:i+1:i+1], vals.of(strconv.FormatInt(f.Size, 10))
		e.slot = &e.own
		if _, err := hex.Decode(e.sum[:], []byte(f.SHA256)); err != nil {
			return nil, fmt.Errorf("%w: %s: bad sha256 %q", ErrMismatch, f.Path, f.SHA256)
		}
		t.files[e.path] = e
		if key, ok := rt.fileKeyOf(e.path); ok && !cfg.Routes[key.route].Sharded() {
			e.key = key
			t.routed[key] = e
			routed = append(routed, e)
		}
	}
	if t.shards, err = newShardSet(m, rt); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMismatch, err)
	}
	if cacheBytes > 0 {
		t.cache = newBodyCache(cacheBytes)
		shapesOf(routed)
	}
	t.hdr200 = vals.set(cfg.Headers.Common, cfg.Headers.ByStatus["200"])
	t.hdr304 = vals.set(cfg.Headers.NotModified)
	t.preflight = vals.set(cfg.Headers.Preflight)
	// Every error of the config, whatever its key: Check has made sure that each key a
	// route or EdgeErrors names has one, and that its status has a header set.
	for key, e := range cfg.Errors {
		hd := vals.set(cfg.Headers.Common, cfg.Headers.ByStatus[strconv.Itoa(e.Status)])
		hd["Content-Length"] = vals.of(strconv.Itoa(len(e.Body)))
		t.errs[key] = &errorAnswer{status: e.Status, hdr: hd, body: []byte(e.Body)}
	}
	return t, nil
}

// open opens the tree's folder and reads its _headers rules. A folder that cannot be opened
// leaves every file unreadable (500 for the routes, a log line for each).
func (t *tree) open(dir string, log *slog.Logger) {
	root, err := os.OpenRoot(dir)
	var d *os.File
	if err == nil {
		d, err = os.Open(dir)
	}
	if err != nil {
		log.Error("open the tree's folder", "dir", dir, "err", err)
		return
	}
	t.root, t.dir, t.dirFD = root, d, int(d.Fd())
	if _, ok := t.files[manifest.HeadersFile]; !ok {
		return
	}
	b, err := fs.ReadFile(root.FS(), manifest.HeadersFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		log.Warn("read _headers: static answers go without its headers", "err", err)
	case len(b) > maxHeadersFile:
		log.Warn("_headers is too large: static answers go without its headers", "bytes", len(b))
	default:
		t.rules = parseHeaderRules(string(b))
	}
}

// maxHeadersFile bounds the _headers file read: 100 rules of a few lines of at most 2,000
// characters are far below it.
const maxHeadersFile = 1 << 20

// uncache drops the cached body of a tree file.
func (t *tree) uncache(name string) {
	if t.cache == nil {
		return
	}
	if e := t.files[name]; e != nil {
		t.cache.remove(e.slot)
		return
	}
	if key, ok := t.router.fileKeyOf(name); ok {
		t.shards.uncache(t.cache, key)
	}
}

// uncacheAll empties the cache.
func (t *tree) uncacheAll() {
	if t.cache == nil {
		return
	}
	t.cache.gen.Add(1)
	for _, e := range t.files {
		t.cache.remove(e.slot)
	}
	t.shards.uncacheAll(t.cache)
}

// pathOf returns the tree path of a route file's entry, made from its key for a file of a
// shard.
func (t *tree) pathOf(e *entry) string {
	if e.path == "" {
		e.path = t.router.treeFile(e.key)
	}
	return e.path
}
