package server

import (
	"strconv"
	"testing"
)

func TestBodyCacheBudget(t *testing.T) {
	tests := []struct {
		name   string
		budget int64
		bodies int
		size   int
		kept   int
	}{
		{"fits", 1 << 20, 100, 1000, 100},
		{"full", 64 << 10, 10_000, 2000, 32},
		{"body larger than the budget", 1000, 10, 4000, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newBodyCache(tt.budget)
			entries := make([]*entry, tt.bodies)
			for i := range entries {
				entries[i] = &entry{path: "api/public/matrix/" + strconv.Itoa(i) + ".json"}
				c.put(entries[i], &cachedBody{body: make([]byte, tt.size)}, c.gen.Load())
				if got := c.size(); got > tt.budget {
					t.Fatalf("after %d bodies the cache holds %d bytes, budget %d", i+1, got, tt.budget)
				}
			}
			kept := 0
			for _, e := range entries {
				if e.cached.Load() != nil {
					kept++
				}
			}
			if kept != tt.kept {
				t.Errorf("%d bodies kept, want %d", kept, tt.kept)
			}
			for _, e := range entries {
				c.remove(e)
			}
			if c.size() != 0 {
				t.Errorf("%d bytes held after removing every body", c.size())
			}
		})
	}
	if newBodyCache(0) != nil {
		t.Error("a zero budget should turn the cache off")
	}
}

func TestBodyCacheStaleRead(t *testing.T) {
	c := newBodyCache(1 << 20)
	e := &entry{path: "a"}
	gen := c.gen.Load()
	c.remove(&entry{path: "b"}) // a file changes while e's body is being read
	c.put(e, &cachedBody{body: []byte("old")}, gen)
	if e.cached.Load() != nil {
		t.Error("a body read before an invalidation was kept")
	}
}
