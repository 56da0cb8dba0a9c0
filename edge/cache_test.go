package edge

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
	}{
		{"fits", 1 << 20, 100, 1000},
		{"evicts", 64 << 10, 10_000, 2000},
		{"body larger than a shard", 32 << 10, 10, 4000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newBodyCache(tt.budget)
			body := make([]byte, tt.size)
			for i := range tt.bodies {
				key := "api/public/matrix/" + strconv.Itoa(i) + ".json"
				c.put(key, body, c.gen.Load())
				if got := c.size(); got > tt.budget {
					t.Fatalf("after %d bodies the cache holds %d bytes, budget %d", i+1, got, tt.budget)
				}
			}
			if int64(tt.bodies*tt.size) < tt.budget/2 {
				if _, ok := c.get("api/public/matrix/0.json"); !ok {
					t.Error("a body that fits was not kept")
				}
			}
		})
	}
	if newBodyCache(0) != nil {
		t.Error("a zero budget should turn the cache off")
	}
}
