package outtree

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

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
	m := &manifest.Manifest{APIVersion: manifest.APIVersion, Generator: manifest.Generator, Edge: miniEdge()}
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

// TestScanFilesAgreesWithDecoding checks the ownership proof's fast reader of the file list
// against the JSON decoder on lists of several shapes, and that it refuses what generate
// never writes.
func TestScanFilesAgreesWithDecoding(t *testing.T) {
	good := []string{
		`[]`,
		`[["a.json",12,"` + strings.Repeat("ab", 32) + `"]]`,
		` [ [ "a/b.json" , 0 , "x" ] ,["c\"d\\e\u00e9.json",7,"y"]] `,
		"[[\"index.html\",\n19094,\"z\"],[\"z.txt\",0,\"\"]]",
	}
	for _, in := range good {
		got, err := scanFiles([]byte(in))
		var want []manifest.File
		if derr := json.Unmarshal([]byte(in), &want); derr != nil || err != nil || !slices.Equal(got, want) && len(want) > 0 {
			t.Errorf("scanFiles(%s) = %v, %v; the decoder gives %v, %v", in, got, err, want, derr)
		}
	}
	for _, in := range []string{``, `{}`, `[`, `[["a",1,"x"]`, `[["a",1,"x"],]`, `[["a","1","x"]]`, `[["a",1.5,"x"]]`, `[["a",1,"x",4]]`, `[["a",1,"x"]] x`, `[["a",-1,"x"]]`, `[["a",01,"x"]]`, "[[\"\xff\",1,\"x\"]]", "[[\"a\nb\",1,\"x\"]]"} {
		if got, err := scanFiles([]byte(in)); err == nil {
			t.Errorf("scanFiles(%q) = %v, want an error", in, got)
		}
	}
}

// FuzzScanFiles checks that whatever the fast reader accepts, the JSON decoder reads the same.
func FuzzScanFiles(f *testing.F) {
	f.Add(`[["a.json",12,"x"],["b",0,"y"]]`)
	f.Add(`[["a\u0041\\",1,"\n"]]`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := scanFiles([]byte(in))
		if err != nil {
			return
		}
		var want []manifest.File
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("scanFiles(%q) accepted what the decoder refuses: %v", in, err)
		}
		if len(got) != len(want) || len(got) > 0 && !slices.Equal(got, want) {
			t.Fatalf("scanFiles(%q) = %v, the decoder gives %v", in, got, want)
		}
	})
}
