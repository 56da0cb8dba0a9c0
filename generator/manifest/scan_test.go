package manifest

import (
	"slices"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// TestScanFilesAgreesWithDecoding checks the fast reader of the file list
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
		got, err := ScanFiles([]byte(in))
		var want []File
		if derr := json.Unmarshal([]byte(in), &want); derr != nil || err != nil || !slices.Equal(got, want) && len(want) > 0 {
			t.Errorf("ScanFiles(%s) = %v, %v; the decoder gives %v, %v", in, got, err, want, derr)
		}
	}
	for _, in := range []string{``, `{}`, `[`, `[["a",1,"x"]`, `[["a",1,"x"],]`, `[["a","1","x"]]`, `[["a",1.5,"x"]]`, `[["a",1,"x",4]]`, `[["a",1,"x"]] x`, `[["a",-1,"x"]]`, `[["a",01,"x"]]`, "[[\"\xff\",1,\"x\"]]", "[[\"a\nb\",1,\"x\"]]"} {
		if got, err := ScanFiles([]byte(in)); err == nil {
			t.Errorf("ScanFiles(%q) = %v, want an error", in, got)
		}
	}
}

// FuzzScanFiles checks that whatever the fast reader accepts, the JSON decoder reads the same.
func FuzzScanFiles(f *testing.F) {
	f.Add(`[["a.json",12,"x"],["b",0,"y"]]`)
	f.Add(`[["a\u0041\\",1,"\n"]]`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ScanFiles([]byte(in))
		if err != nil {
			return
		}
		var want []File
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("ScanFiles(%q) accepted what the decoder refuses: %v", in, err)
		}
		if len(got) != len(want) || len(got) > 0 && !slices.Equal(got, want) {
			t.Fatalf("ScanFiles(%q) = %v, the decoder gives %v", in, got, want)
		}
	})
}
