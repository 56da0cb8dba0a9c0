package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/opennumerology/numerology/generator/manifest"
)

// tree is everything the handler derives from one manifest: the file index, the router,
// the header sets and error answers, and the body cache of that tree's files. A request
// takes the current tree once and answers from it alone, so a reload (see reload.go) never
// mixes two trees in one answer.
type tree struct {
	files  map[string]*entry
	sums   map[string]string  // sha256 of the files too large to hash on each request
	routed map[fileKey]*entry // the route files, by what the router matches
	router *router
	cache  *bodyCache

	hdr200, hdr304, preflight http.Header
	errs                      map[string]*errorAnswer // every error of the config, by key
	edgeErrs                  manifest.EdgeErrors     // the keys of the errors no route owns
	// stopWatch stops the watch that drops cached bodies when their files change.
	stopWatch func()
	// manifest is the manifest file this tree was loaded from, to tell whether it changed.
	manifest os.FileInfo
}

// entry is what the handler keeps of one file of the manifest.
type entry struct {
	cached atomic.Pointer[[]byte] // the cached body, nil when not cached
	path   string
	size   int64
	sum    [sha256.Size]byte // the manifest's sha256: a body read is answered only if it matches
	etag   []string          // the strong ETag, as a ready header value
	clen   []string          // Content-Length
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

// newTree builds the tree of a manifest with a body cache of cacheBytes (none when 0).
func newTree(m *manifest.Manifest, cacheBytes int64) (*tree, error) {
	cfg := &m.Edge
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("%w: edge config: %w", ErrMismatch, err)
	}
	rt, err := newRouter(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMismatch, err)
	}
	t := &tree{
		files:     make(map[string]*entry, len(m.Files)),
		sums:      map[string]string{},
		routed:    make(map[fileKey]*entry, len(m.Files)),
		router:    rt,
		cache:     newBodyCache(cacheBytes),
		errs:      map[string]*errorAnswer{},
		edgeErrs:  cfg.EdgeErrors,
		stopWatch: func() {},
	}
	vals := headerValues{}
	for i := range m.Files {
		f := &m.Files[i]
		if !cleanTreePath(f.Path) {
			return nil, fmt.Errorf("%w: unsafe path %q", ErrMismatch, f.Path)
		}
		e := &entry{path: f.Path, size: f.Size, etag: []string{f.ETag()}, clen: vals.of(strconv.FormatInt(f.Size, 10))}
		if _, err := hex.Decode(e.sum[:], []byte(f.SHA256)); err != nil || len(f.SHA256) != 2*sha256.Size {
			return nil, fmt.Errorf("%w: %s: bad sha256 %q", ErrMismatch, f.Path, f.SHA256)
		}
		t.files[f.Path] = e
		if f.Size > maxHashedStatic {
			t.sums[f.Path] = f.SHA256
		}
		if key, ok := rt.fileKeyOf(f.Path); ok {
			t.routed[key] = e
		}
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

// uncache drops the cached body of a tree file.
func (t *tree) uncache(name string) {
	if e := t.files[name]; e != nil && t.cache != nil {
		t.cache.remove(e)
	}
}

// uncacheAll empties the cache.
func (t *tree) uncacheAll() {
	if t.cache == nil {
		return
	}
	t.cache.gen.Add(1)
	for _, e := range t.files {
		t.cache.remove(e)
	}
}
