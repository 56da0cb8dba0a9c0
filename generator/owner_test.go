package generator

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
)

// BenchmarkCheckReplaceable measures the ownership proof on a full 1900–2100 tree: the
// manifest parse and the stat walk a regenerate adds before it writes (docs/design.md §8).
// Compare with the ~2.5 s of a full generate (make bench-generate).
func BenchmarkCheckReplaceable(b *testing.B) {
	out := filepath.Join(b.TempDir(), "out")
	if _, err := Generate(context.Background(), Options{Site: testSite(b), Out: out}); err != nil {
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
