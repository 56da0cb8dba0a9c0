package edge

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// cacheShards is the number of independently locked parts of the body cache.
const cacheShards = 32

// bodyCache keeps the bodies of served files in memory, up to a byte budget. Bodies are
// immutable for the life of the handler (a tree is replaced as a whole and re-served).
// When a shard is over its share of the budget, random entries go: for the API's
// near-uniform access to ~73,000 small records, any policy's hit ratio is about
// budget/tree size, and random eviction needs no bookkeeping per hit.
type bodyCache struct {
	// gen counts invalidations: a body read before one is not stored after it.
	gen      atomic.Uint64
	perShard int64
	seed     maphash.Seed
	shards   [cacheShards]cacheShard
}

type cacheShard struct {
	mu    sync.RWMutex
	m     map[string][]byte
	bytes int64
}

// newBodyCache returns a cache of at most budget bytes of bodies (plus their keys), nil
// when budget is 0 or less.
func newBodyCache(budget int64) *bodyCache {
	if budget <= 0 {
		return nil
	}
	c := &bodyCache{perShard: budget / cacheShards, seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = map[string][]byte{}
	}
	return c
}

func (c *bodyCache) shard(key string) *cacheShard {
	return &c.shards[maphash.String(c.seed, key)%cacheShards]
}

// get returns the cached body of key.
func (c *bodyCache) get(key string) ([]byte, bool) {
	s := c.shard(key)
	s.mu.RLock()
	b, ok := s.m[key]
	s.mu.RUnlock()
	return b, ok
}

// put stores a body read when the cache's generation was gen, evicting random entries of
// its shard to stay within the budget.
func (c *bodyCache) put(key string, body []byte, gen uint64) {
	cost := int64(len(body) + len(key))
	if cost > c.perShard {
		return
	}
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; ok || c.gen.Load() != gen {
		return
	}
	for k, v := range s.m {
		if s.bytes+cost <= c.perShard {
			break
		}
		delete(s.m, k)
		s.bytes -= int64(len(v) + len(k))
	}
	s.m[key] = body
	s.bytes += cost
}

// remove drops key.
func (c *bodyCache) remove(key string) {
	c.gen.Add(1)
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.m[key]; ok {
		delete(s.m, key)
		s.bytes -= int64(len(v) + len(key))
	}
}

// clear drops everything.
func (c *bodyCache) clear() {
	c.gen.Add(1)
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		clear(s.m)
		s.bytes = 0
		s.mu.Unlock()
	}
}

// size returns the bytes held.
func (c *bodyCache) size() int64 {
	var n int64
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += s.bytes
		s.mu.RUnlock()
	}
	return n
}
