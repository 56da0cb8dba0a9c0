package outtree

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// BenchmarkCheckReplaceable measures the ownership proof on a tree of the size and shape of
// a full 1900–2100 tree's date records (a file per day, in folders by day and month): the
// manifest parse and the stat walk a regenerate adds before it writes (docs/design.md §8).
func BenchmarkCheckReplaceable(b *testing.B) {
	out := filepath.Join(b.TempDir(), "out")
	var list []manifest.File
	body := []byte(strings.Repeat("x", 1500))
	sum := sha256.Sum256(body)
	for month := 1; month <= 12; month++ {
		for day := 1; day <= 31; day++ {
			dir := filepath.Join(out, "matrix", strconv.Itoa(day), strconv.Itoa(month))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for year := 1900; year <= 2100; year++ {
				if day > manifest.DaysIn(month, year) {
					continue
				}
				name := strconv.Itoa(year) + ".json"
				if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
					b.Fatal(err)
				}
				list = append(list, manifest.File{Path: "matrix/" + strconv.Itoa(day) + "/" + strconv.Itoa(month) + "/" + name, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])})
			}
		}
	}
	m := &manifest.Manifest{Format: manifest.FormatVersion, APIVersion: manifest.APIVersion, Generator: manifest.Generator, Edge: miniEdge()}
	m.SetFiles(list...)
	if err := m.Write(out); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if lost, err := checkReplaceable(out, false); err != nil || len(lost) > 0 {
			b.Fatalf("checkReplaceable: %v, %v", err, lost)
		}
	}
}
