package server

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
)

// bodyCache keeps the API's bodies in memory, up to a byte budget, compactly enough that the
// whole API of a full tree fits the default budget (docs/serve.md, "Body cache and memory"):
//
//   - Bodies of the same shape of path (the path with its numbers as "#": the files of one
//     route with numeric parameters) share most of their bytes, so each is stored as
//     references into a dictionary made of a few sample bodies of that shape, plus its own
//     bytes (see bodyDict). Bodies of a shape with few files are stored as they are.
//   - A stored body sits in large byte slabs together with the identity of the file it
//     was read from, checked before each answer (see Handler.body), and its entry holds
//     only its position. The collector sees a few slabs rather than one object per
//     body, so a large cache costs it next to nothing.
//
// Bodies are kept first come, first kept: for the API's near-uniform access to a record
// per date any eviction policy's hit ratio would be about budget/tree size anyway, and
// the default budget holds every body of the full tree. A body leaves when its file
// changes; the space it took is reused only by the next tree.
type bodyCache struct {
	budget int64
	used   atomic.Int64 // bytes of slabs
	// gen counts invalidations: a body read before one is not kept after it.
	gen atomic.Uint64

	mu    sync.Mutex // appends
	slabs [maxSlabs]atomic.Pointer[[]byte]
	n     int // slabs in use
	pos   int // free offset in the last slab

	dicts  [maxDicts]atomic.Pointer[bodyDict]
	ndicts int
}

const (
	slabSize = 1 << 20
	maxSlabs = 1 << 14
	maxDicts = 256
	// rawBody marks a stored body kept as it is.
	rawBody = 0xffff
	// recordHeader is the size of a stored body's header: the file's identity (5×8
	// bytes), the body's length, the stored bytes' length and the dictionary.
	recordHeader = 40 + 4 + 4 + 2
)

// bodyShape is the bodies of one shape of path: enough of them share a dictionary.
type bodyShape struct {
	samples []fileKey // a few files spread over the shape's
	files   int
	dict    int // index in dicts plus one; 0 not yet made, -1 none
}

// newBodyCache returns a cache of at most budget bytes, nil when budget is 0 or less. The
// bodies of an entry with a shape (see shapesOf) are stored against its dictionary.
func newBodyCache(budget int64) *bodyCache {
	if budget <= 0 {
		return nil
	}
	return &bodyCache{budget: budget}
}

// cachedBody is a stored body as found in a slab: the identity of the file it was read from
// and its bytes, as they are or against a dictionary.
type cachedBody struct {
	id     fileID
	size   int // of the body
	stored []byte
	dict   *bodyDict // nil for a body kept as it is
}

// get returns the stored body of e, if any.
func (c *bodyCache) get(e *entry) (cachedBody, bool) {
	loc := e.slot.Load()
	if loc == 0 {
		return cachedBody{}, false
	}
	s := *c.slabs[loc>>32].Load()
	r := s[uint32(loc)-1:]
	le := binary.LittleEndian
	b := cachedBody{
		id: fileID{
			dev: le.Uint64(r[0:]), ino: le.Uint64(r[8:]), size: int64(le.Uint64(r[16:])),
			mtime: int64(le.Uint64(r[24:])), ctime: int64(le.Uint64(r[32:])),
		},
		size: int(le.Uint32(r[40:])),
	}
	stored, dict := int(le.Uint32(r[44:])), le.Uint16(r[48:])
	b.stored = r[recordHeader : recordHeader+stored : recordHeader+stored]
	if dict != rawBody {
		b.dict = c.dicts[dict].Load()
	}
	return b, true
}

// body returns the stored body's bytes, decoded into dst when it was stored against a
// dictionary (and then valid until dst is reused).
func (b cachedBody) body(dst []byte) []byte {
	if b.dict == nil {
		return b.stored
	}
	return b.dict.decode(dst[:0], b.stored)
}

// put stores body, read from e's file with identity id, in e's slot if it fits and no
// invalidation happened since gen was read, before the body was. read returns the verified
// body of one of the shape's samples, nil when it cannot.
func (c *bodyCache) put(e *entry, id fileID, body []byte, gen uint64, read func(fileKey) []byte) {
	if e.slot.Load() != 0 {
		return
	}
	d, dictIndex := c.dict(e.shape, read)
	stored := body
	if d != nil {
		stored = d.encode(make([]byte, 0, len(body)/4), body)
	}
	n := recordHeader + len(stored)
	c.mu.Lock()
	defer c.mu.Unlock()
	slab, off := c.room(n)
	if slab == nil {
		return
	}
	r := (*slab)[off : off+n]
	le := binary.LittleEndian
	le.PutUint64(r[0:], id.dev)
	le.PutUint64(r[8:], id.ino)
	le.PutUint64(r[16:], uint64(id.size))
	le.PutUint64(r[24:], uint64(id.mtime))
	le.PutUint64(r[32:], uint64(id.ctime))
	le.PutUint32(r[40:], uint32(len(body)))
	le.PutUint32(r[44:], uint32(len(stored)))
	le.PutUint16(r[48:], dictIndex)
	copy(r[recordHeader:], stored)
	loc := uint64(c.n-1)<<32 | uint64(off+1)
	if e.slot.CompareAndSwap(0, loc) && c.gen.Load() != gen {
		e.slot.CompareAndSwap(loc, 0) // the file changed while it was read
	}
}

// room reserves n bytes in a slab, allocating one when the last is full and the budget
// allows; it returns nil when it does not. c.mu is held.
func (c *bodyCache) room(n int) (*[]byte, int) {
	if c.n > 0 && c.pos+n <= len(*c.slabs[c.n-1].Load()) {
		off := c.pos
		c.pos += n
		return c.slabs[c.n-1].Load(), off
	}
	size := max(n, slabSize)
	if c.n == maxSlabs || c.used.Load()+int64(size) > c.budget {
		return nil, 0
	}
	s := make([]byte, size)
	c.slabs[c.n].Store(&s)
	c.n++
	c.used.Add(int64(size))
	c.pos = n
	return &s, 0
}

// dict returns the dictionary of the shape sh, making it on first use from the shape's
// samples (read returns a sample's verified body, nil when it cannot); nil and rawBody for
// no shape.
func (c *bodyCache) dict(sh *bodyShape, read func(fileKey) []byte) (*bodyDict, uint16) {
	if sh == nil {
		return nil, rawBody
	}
	c.mu.Lock()
	idx := sh.dict
	c.mu.Unlock()
	if idx == 0 {
		var sample []byte
		for _, e := range sh.samples {
			sample = append(sample, read(e)...)
		}
		c.mu.Lock()
		switch {
		case sh.dict != 0: // made meanwhile
		case len(sample) == 0 || c.ndicts == maxDicts:
			sh.dict = -1
		default:
			c.dicts[c.ndicts].Store(newBodyDict(sample))
			c.ndicts++
			sh.dict = c.ndicts
		}
		idx = sh.dict
		c.mu.Unlock()
	}
	if idx < 0 {
		return nil, rawBody
	}
	return c.dicts[idx-1].Load(), uint16(idx - 1)
}

// remove drops the body kept in slot.
func (c *bodyCache) remove(slot *atomic.Uint64) {
	c.gen.Add(1)
	slot.Store(0)
}

// size returns the bytes of slabs held.
func (c *bodyCache) size() int64 { return c.used.Load() }

// dictShapeFiles is how many files a shape of path needs for its bodies to be stored
// against a dictionary, and dictSamples how many of its bodies make the dictionary.
const (
	dictShapeFiles = 256
	dictSamples    = 8
)

// shapeOf is a path with each run of digits replaced by "#": the files of one route with
// numeric parameters share a shape.
func shapeOf(path string) string {
	b := make([]byte, 0, len(path))
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= '0' && c <= '9' {
			if len(b) == 0 || b[len(b)-1] != '#' {
				b = append(b, '#')
			}
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

// shapesOf groups the given files by shape and gives each file of a shape of at least
// dictShapeFiles files that shape, with dictSamples files spread evenly over it.
func shapesOf(files []*entry) {
	count := map[string]int{}
	for _, e := range files {
		count[shapeOf(e.path)]++
	}
	shapes := map[string]*bodyShape{}
	seen := map[string]int{}
	for _, e := range files {
		s := shapeOf(e.path)
		n := count[s]
		if n < dictShapeFiles {
			continue
		}
		sh := shapes[s]
		if sh == nil {
			sh = &bodyShape{files: n}
			shapes[s] = sh
		}
		i := seen[s]
		seen[s]++
		if len(sh.samples) < dictSamples && i == len(sh.samples)*n/dictSamples {
			sh.samples = append(sh.samples, e.key)
		}
		e.shape = sh
	}
}
