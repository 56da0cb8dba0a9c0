package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

func TestFileJSONIsATuple(t *testing.T) {
	f := File{Path: "api/public/life-path/7.json", Size: 4321, SHA256: strings.Repeat("ab", 32)}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `["api/public/life-path/7.json",4321,"` + f.SHA256 + `"]`
	if string(b) != want {
		t.Fatalf("Marshal = %s, want %s", b, want)
	}
	var back File
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != f {
		t.Fatalf("round trip = %+v, want %+v", back, f)
	}
	if got := f.ETag(); got != `"`+f.SHA256+`"` {
		t.Errorf("ETag = %s", got)
	}
}

func TestFileJSONErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"object instead of tuple", `{"path":"a"}`, "file entry"},
		{"size is a string", `["a","12","00"]`, "file entry a size"},
		{"path is a number", `[1,12,"00"]`, "file entry path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f File
			err := json.Unmarshal([]byte(tt.in), &f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Unmarshal(%s) error = %v, want one mentioning %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); !errors.Is(err, ErrNoManifest) || !strings.Contains(err.Error(), "run numerology generate first") {
		t.Fatalf("Load of an empty directory: %v", err)
	}
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"api_version":"0.9"}`)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `API version "0.9"`) {
		t.Fatalf("Load of another version: %v", err)
	}
	write(`{"api_version":"1.0","files":[]}`)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "manifest format 0, this build reads format 2") {
		t.Fatalf("Load of a manifest of the first format: %v", err)
	}
	write(`{"format":2,"api_version":"1.0","files":[]}`)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "no edge config") {
		t.Fatalf("Load without edge config: %v", err)
	}
	const edge = `"prefix":"/api/public","rate_limit":{"requests":60,"window_seconds":60},` +
		`"headers":{"common":{"X-API-License":"CC-BY-4.0"},"by_status":{"404":{}},"not_modified":{"X-API-License":"CC-BY-4.0"},"preflight":{"X-API-License":"CC-BY-4.0"}},` +
		`"errors":{"not_found":{"status":404}},` +
		`"edge_errors":{"not_found":"not_found","method_not_allowed":"not_found","too_many_requests":"not_found","internal":"not_found"}`
	write(`{"format":2,"api_version":"1.0","edge":{` + edge + `,"routes":[{"name":"x","pattern":"/api/public/x/{n}","file":"x.json","error":"gone"}]},"files":[]}`)
	if _, err := Load(dir); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `route x: no "gone" error`) {
		t.Fatalf("Load of a config an edge cannot follow: %v", err)
	}
	write(`{"format":2,"api_version":"1.0","edge":{` + edge + `},"files":[["a.json",2,"00"],["b.json",3,"11"]],"shards":[["manifest.d/b/1.json",1,"00"],["manifest.d/a/1.json",1,"00"]]}`)
	if _, err := Load(dir); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "is not sorted after") {
		t.Fatalf("Load with unsorted shards: %v", err)
	}
	write(`{"format":2,"api_version":"1.0","edge":{` + edge + `},"files":[["a.json",2,"00"],["b.json",3,"11"]]}`)
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if idx := m.Index(); len(idx) != 2 || idx["b.json"].Size != 3 {
		t.Fatalf("Index = %v", idx)
	}
}
