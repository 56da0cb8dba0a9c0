package manifest

import (
	"bytes"
	"testing"

	json "github.com/goccy/go-json"
)

// libraryFile is a File encoded by the library alone, as File was before it wrote its own.
type libraryFile File

func (f libraryFile) MarshalJSON() ([]byte, error) {
	return json.Marshal([3]any{f.Path, f.Size, f.SHA256})
}

// TestShardEncodeIsTheLibrarys checks that Shard.Encode, which writes its JSON by hand, gives
// the bytes goccy/go-json gives the same Shard (without HTML escaping, each File by the
// library's Marshal of [path, size, sha256], which escapes HTML): for tree paths, and for strings that need
// escaping, where it falls back to the library.
func TestShardEncodeIsTheLibrarys(t *testing.T) {
	library := func(s *Shard) []byte {
		var files []libraryFile
		if s.Files != nil {
			files = []libraryFile{}
		}
		for _, f := range s.Files {
			files = append(files, libraryFile(f))
		}
		b, err := json.MarshalWithOption(struct {
			Route string        `json:"route"`
			Year  int           `json:"year"`
			Files []libraryFile `json:"files"`
		}{s.Route, s.Year, files}, json.DisableHTMLEscape())
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	sum := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for _, s := range []*Shard{
		{Route: "matrix", Year: 1990, Files: []File{{"api/public/matrix/1/1/1990.json", 2048, sum}, {"api/public/matrix/months/1990/01.json", 63488, sum}}},
		{Route: "chart", Year: 2100, Files: []File{}},
		{Route: "chart", Year: 2100},
		{Route: "a<b>&\"c\\d\u2028é", Year: 1900, Files: []File{{"x/<&>/\"q\"\\\t\u00e9\u2029.json", 0, "A<>&"}, {"\xff bad utf-8", 1 << 40, ""}}},
	} {
		got, err := s.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if want := library(s); !bytes.Equal(got, want) {
			t.Errorf("Encode(%+v):\n got %s\nwant %s", s, got, want)
		}
	}
}
