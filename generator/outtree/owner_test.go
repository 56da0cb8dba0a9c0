package outtree

import (
	"path/filepath"
	"testing"
)

// BenchmarkCheckReplaceable measures the ownership proof on a tree of the size and shape of
// a full 1900–2100 tree's records of one date route (a file per day, in folders by day and
// month, packed by month, one shard per year): the root's parse, the shards' reads and
// stats and the stat walk a regenerate adds before it writes (docs/design.md §8).
func BenchmarkCheckReplaceable(b *testing.B) {
	out := filepath.Join(b.TempDir(), "out")
	var years []int
	for y := 1900; y <= 2100; y++ {
		years = append(years, y)
	}
	shardedTree(b, out, years...)
	b.ResetTimer()
	for b.Loop() {
		if lost, err := checkReplaceable(out, false); err != nil || len(lost) > 0 {
			b.Fatalf("checkReplaceable: %v, %v", err, lost)
		}
	}
}
