package server

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/opennumerology/numerology/generator/manifest"
)

// How serve reads the files of the packed routes (docs/serve.md, "The manifest's shards"):
//
//   - The manifest's root lists the shards, one per packed route and year, with their size
//     and sha256; a tree keeps only that list. A shard is read on the first request of its
//     route and year and is trusted only when its bytes are the root's (size and sha256):
//     its files' sizes and sha256 then answer as the root's do.
//   - A read shard keeps a size and a sha256 per file, by the file's place in its year, and
//     nothing else (its paths and ETags are made again when needed): about 15 KB for a year
//     of records. At most maxLoadedShards are kept; the next one read takes the place of one
//     not used since the clock hand last passed (CLOCK). A reload drops them with the tree.
//   - The body cache's slots of a shard's files outlive the shard: a body kept stays found
//     when its shard is read again.

// maxLoadedShards is how many shards a tree keeps read: about 15 MB, every shard of five
// date routes over 1900–2100.
const maxLoadedShards = 1024

// shardKey names a shard by its route (the index in the table) and year.
type shardKey struct{ route, year int32 }

// shardSet is a tree's shards: the root's entries, the shards read so far, and the body
// cache's slots of their files.
type shardSet struct {
	entries []manifest.File
	index   map[shardKey]int32
	routes  []manifest.Route // the route table, for the places of values
	shapes  []*bodyShape     // per route: the dictionary shape of its bodies, nil for none
	loaded  []atomic.Pointer[shardFiles]
	ref     []atomic.Bool // CLOCK's bits: used since the hand last passed
	slots   []atomic.Pointer[[]atomic.Uint64]
	loadMu  []sync.Mutex // one read of a shard at a time
	max     int

	mu   sync.Mutex // n and hand
	n    int
	hand int
}

// shardFiles is what a read shard keeps: a size and a sha256 per value of its year, by the
// value's place (Place.InYear − 1); a size of −1 where the shard lists no file.
type shardFiles struct {
	files []shardFile
}

type shardFile struct {
	size int64
	sum  [32]byte
}

// newShardSet prepares the shards the root m lists, checking each entry; none is read.
func newShardSet(m *manifest.Manifest, rt *router) (*shardSet, error) {
	n := len(m.Shards)
	s := &shardSet{
		entries: m.Shards, index: make(map[shardKey]int32, n), routes: m.Edge.Routes,
		shapes: make([]*bodyShape, len(m.Edge.Routes)),
		loaded: make([]atomic.Pointer[shardFiles], n), ref: make([]atomic.Bool, n),
		slots: make([]atomic.Pointer[[]atomic.Uint64], n), loadMu: make([]sync.Mutex, n),
		max: maxLoadedShards,
	}
	byName := map[string]int32{}
	for i, r := range m.Edge.Routes {
		if r.Sharded() {
			byName[r.Name] = int32(i)
		}
	}
	years := map[int32][]int{} // per route, the years of its shards
	for i, f := range m.Shards {
		name, year, ok := manifest.ParseShardPath(f.Path)
		route, known := byName[name]
		if !ok || !known || !cleanTreePath(f.Path) || len(f.SHA256) != 64 {
			return nil, fmt.Errorf("shard %q: not a shard of a date route", f.Path)
		}
		if _, err := hex.DecodeString(f.SHA256); err != nil {
			return nil, fmt.Errorf("shard %s: bad sha256 %q", f.Path, f.SHA256)
		}
		s.index[shardKey{route, int32(year)}] = int32(i)
		years[route] = append(years[route], year)
	}
	// The bodies of a date route share a dictionary made of a few of them, spread over its
	// years and days.
	for route, ys := range years {
		r := &m.Edge.Routes[route]
		if m.Counts.Routes[r.Name] < dictShapeFiles {
			continue
		}
		sh := &bodyShape{files: m.Counts.Routes[r.Name]}
		for k := range dictSamples {
			vals := r.YearValues(ys[k*len(ys)/dictSamples])
			if len(vals) == 0 {
				continue
			}
			key := fileKey{route: route}
			for j, v := range vals[(k*len(vals)/dictSamples+k*37)%len(vals)] {
				key.params[j] = int32(v)
			}
			sh.samples = append(sh.samples, key)
		}
		s.shapes[route] = sh
	}
	return s, nil
}

// sharded reports whether the route's files are listed in shards.
func (s *shardSet) sharded(route int32) bool { return s.routes[route].Sharded() }

// place returns the shard of a route file's key and the file's index in it.
func (s *shardSet) place(key fileKey) (shard int32, ord int, ok bool) {
	r := &s.routes[key.route]
	var buf [maxParams]int
	vals := buf[:r.Arity()]
	for i := range vals {
		vals[i] = int(key.params[i])
	}
	pl := r.Place(vals)
	shard, ok = s.index[shardKey{key.route, int32(pl.Year)}]
	return shard, pl.InYear - 1, ok
}

// slot returns the body cache's slot of the file ord of shard i, which holds n files.
func (s *shardSet) slot(i int32, ord, n int) *atomic.Uint64 {
	p := s.slots[i].Load()
	if p == nil {
		fresh := make([]atomic.Uint64, n)
		if s.slots[i].CompareAndSwap(nil, &fresh) {
			p = &fresh
		} else {
			p = s.slots[i].Load()
		}
	}
	if ord >= len(*p) {
		return nil
	}
	return &(*p)[ord]
}

// uncache drops the cached body of the route file key, if its shard has a slot for it.
func (s *shardSet) uncache(c *bodyCache, key fileKey) {
	if !s.sharded(key.route) {
		return
	}
	i, ord, ok := s.place(key)
	if !ok {
		return
	}
	if p := s.slots[i].Load(); p != nil && ord >= 0 && ord < len(*p) {
		c.remove(&(*p)[ord])
	}
}

// uncacheAll drops every cached body of the shards' files.
func (s *shardSet) uncacheAll(c *bodyCache) {
	for i := range s.slots {
		if p := s.slots[i].Load(); p != nil {
			for j := range *p {
				c.remove(&(*p)[j])
			}
		}
	}
}

// routeEntry returns the entry of a route file: the root's, or, for a packed route, one
// filled into scratch from its shard (read if needed); nil when the manifest lists no such
// file. The error is the shard's: unreadable, or not the root's (errChanged).
func (h *Handler) routeEntry(t *tree, key fileKey, scratch *entry) (*entry, error) {
	if e := t.routed[key]; e != nil {
		return e, nil
	}
	s := t.shards
	if !s.sharded(key.route) {
		return nil, nil
	}
	i, ord, ok := s.place(key)
	if !ok {
		return nil, nil // a year the tree does not hold
	}
	sf, err := h.shard(t, i)
	if err != nil {
		return nil, err
	}
	if ord < 0 || ord >= len(sf.files) || sf.files[ord].size < 0 {
		return nil, nil
	}
	f := &sf.files[ord]
	e := scratch
	e.key, e.size, e.sum, e.shape = key, f.size, f.sum, s.shapes[key.route]
	e.etag, e.clen = etagValue(&f.sum), contentLength(f.size)
	if t.cache != nil {
		e.slot = s.slot(i, ord, len(sf.files))
	}
	return e, nil
}

// shard returns the files of shard i, reading it when it is not kept.
func (h *Handler) shard(t *tree, i int32) (*shardFiles, error) {
	s := t.shards
	if sf := s.loaded[i].Load(); sf != nil {
		if !s.ref[i].Load() {
			s.ref[i].Store(true)
		}
		return sf, nil
	}
	s.loadMu[i].Lock()
	defer s.loadMu[i].Unlock()
	if sf := s.loaded[i].Load(); sf != nil {
		return sf, nil
	}
	entry := s.entries[i]
	b, _, err := h.readWhole(t, entry.Path, min(entry.Size, manifest.MaxShardSize))
	if errors.Is(err, errTooLarge) {
		err = fmt.Errorf("%s: %w", entry.Path, errChanged)
	}
	if err != nil {
		return nil, err
	}
	sh, err := manifest.ParseShard(entry, b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errChanged, err)
	}
	name, _, _ := manifest.ParseShardPath(entry.Path)
	route := int32(-1)
	for j, r := range s.routes {
		if r.Name == name {
			route = int32(j)
		}
	}
	sf := &shardFiles{}
	for _, f := range sh.Files {
		key, ok := t.router.routeFileKey(route, f.Path)
		if !ok {
			continue // a packed file: serve answers from the files of the values
		}
		j, ord, ok := s.place(key)
		if !ok || j != i || ord < 0 || ord > 1<<16 {
			continue
		}
		var sum [32]byte
		if _, err := hex.Decode(sum[:], []byte(f.SHA256)); err != nil || len(f.SHA256) != 64 {
			return nil, fmt.Errorf("%w: %s: %s: bad sha256 %q", errChanged, entry.Path, f.Path, f.SHA256)
		}
		for len(sf.files) <= ord {
			sf.files = append(sf.files, shardFile{size: -1})
		}
		sf.files[ord] = shardFile{size: f.Size, sum: sum}
	}
	sf.files = sf.files[:len(sf.files):len(sf.files)]
	s.keep(i, sf)
	return sf, nil
}

// keep stores a read shard, first making room by CLOCK when maxLoadedShards are kept: the
// hand passes over the kept shards, clearing the bit of those used since it last passed,
// and drops the first whose bit is clear.
func (s *shardSet) keep(i int32, sf *shardFiles) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.n >= s.max {
		j := s.hand
		s.hand = (s.hand + 1) % len(s.loaded)
		if s.loaded[j].Load() == nil || s.ref[j].Swap(false) {
			continue
		}
		s.loaded[j].Store(nil)
		s.n--
	}
	s.loaded[i].Store(sf)
	s.ref[i].Store(true)
	s.n++
}

// etagValue is the ETag header value of a sha256.
func etagValue(sum *[32]byte) []string {
	var b [2*32 + 2]byte
	b[0], b[len(b)-1] = '"', '"'
	hex.Encode(b[1:], sum[:])
	return []string{string(b[:])}
}

// contentLengths are the Content-Length values of the sizes below 8 KiB, which every
// record of a date route is: made once, shared by every answer.
var contentLengths = sync.OnceValue(func() [][]string {
	out := make([][]string, 8<<10)
	vals := make([]string, len(out))
	for i := range out {
		vals[i] = strconv.Itoa(i)
		out[i] = vals[i : i+1 : i+1]
	}
	return out
})

// contentLength is the Content-Length header value of a size.
func contentLength(size int64) []string {
	if t := contentLengths(); size >= 0 && size < int64(len(t)) {
		return t[size]
	}
	return []string{strconv.FormatInt(size, 10)}
}
