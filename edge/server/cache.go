package server

import "sync/atomic"

// bodyCache accounts for the bodies kept in memory, up to a byte budget. A body lives in
// its file's entry (entry.cached), checked against the manifest's sha256 when read, so a hit costs one atomic load and no lookup. Bodies are
// cached first come, first kept: the default budget holds every API body of the full tree,
// and for the API's near-uniform access to ~73,000 small records any eviction policy's hit
// ratio would be about budget/tree size anyway. A body leaves when its file changes (see
// reload.go).
type bodyCache struct {
	budget int64
	used   atomic.Int64
	// gen counts invalidations: a body read before one is not kept after it.
	gen atomic.Uint64
}

// newBodyCache returns a cache of at most budget bytes of bodies, nil when budget is 0 or
// less.
func newBodyCache(budget int64) *bodyCache {
	if budget <= 0 {
		return nil
	}
	return &bodyCache{budget: budget}
}

// cachedBody is a body kept in memory, with the identity and path of the file it was read
// from, checked before each answer.
type cachedBody struct {
	body []byte
	id   fileID
	path string
}

// put keeps a body in e if it fits and no invalidation happened since gen was read, before
// the body was.
func (c *bodyCache) put(e *entry, p *cachedBody, gen uint64) {
	n := int64(len(p.body))
	if c.used.Add(n) > c.budget {
		c.used.Add(-n)
		return
	}
	if !e.cached.CompareAndSwap(nil, p) {
		c.used.Add(-n)
		return
	}
	if c.gen.Load() != gen { // the file changed while it was read
		if e.cached.CompareAndSwap(p, nil) {
			c.used.Add(-n)
		}
	}
}

// remove drops the body of e.
func (c *bodyCache) remove(e *entry) {
	c.gen.Add(1)
	if old := e.cached.Swap(nil); old != nil {
		c.used.Add(-int64(len(old.body)))
	}
}

// size returns the bytes held.
func (c *bodyCache) size() int64 { return c.used.Load() }
