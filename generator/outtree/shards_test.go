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

	"github.com/opennumerology/numerology/generator/manifest"
)

// datedRoute is a date route as the generator writes one: a file per date in folders by day
// and month, and packed files by month.
var datedRoute = manifest.Route{
	Name: "d", Pattern: manifest.APIPrefix + "/d/{day}/{month}/{year}", File: "api/public/d/{day}/{month}/{year}.json",
	Params: []manifest.ParamType{{Type: manifest.ParamDate, FirstYear: 1900, LastYear: 2100}},
	Packed: &manifest.Packed{File: "api/public/d-months/{year}/{month}.jsonl", Unit: manifest.UnitMonth},
}

// shardedTree writes into dir, as generate leaves a tree, the files of treeFiles("old"),
// datedRoute's files of years and their shards, and a root manifest that lists the first
// and the shards.
func shardedTree(tb testing.TB, dir string, years ...int) {
	tb.Helper()
	write := func(rel string, b []byte) manifest.File {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			tb.Fatal(err)
		}
		sum := sha256.Sum256(b)
		return manifest.File{Path: rel, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
	}
	edge := miniEdge()
	edge.Routes = []manifest.Route{datedRoute}
	m := &manifest.Manifest{Format: manifest.FormatVersion, APIVersion: manifest.APIVersion, Generator: manifest.Generator,
		Edge: edge, Years: years}
	var root []manifest.File
	for rel, body := range treeFiles("old") {
		root = append(root, write(rel, []byte(body)))
	}
	m.SetFiles(root...)
	for _, y := range years {
		s := manifest.Shard{Route: datedRoute.Name, Year: y}
		packed := map[string][]byte{}
		for _, vals := range datedRoute.YearValues(y) {
			body := []byte(`{"date":"` + strconv.Itoa(vals[0]) + "." + strconv.Itoa(vals[1]) + "." + strconv.Itoa(y) + `"}` + "\n")
			s.Files = append(s.Files, write(datedRoute.FilePath(vals), body))
			p, _ := datedRoute.PackedPath(vals)
			packed[p] = append(packed[p], body...)
		}
		for p, b := range packed {
			s.Files = append(s.Files, write(p, b))
		}
		slices.SortFunc(s.Files, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) })
		b, err := s.Encode()
		if err != nil {
			tb.Fatal(err)
		}
		m.Shards = append(m.Shards, write(manifest.ShardPath(s.Route, y), b))
	}
	slices.SortFunc(m.Shards, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) })
	b, err := m.Encode()
	if err != nil {
		tb.Fatal(err)
	}
	write(manifest.FileName, b)
}

// TestOwnershipWithShards checks the proof of docs/design.md §8 on a tree whose date
// route's files are listed by shards: a tree as generate left it is replaced; files of a
// year it does not hold, or a user's beside the records, are unlisted; a record of another
// size or missing is named; a shard that is not the one generate wrote (another size, other
// files listed) is named, and the files of its year are not proven generate's; a root whose
// shards are not those of its routes and years is no numerology manifest.
func TestOwnershipWithShards(t *testing.T) {
	shard := manifest.ShardPath(datedRoute.Name, 2000)
	record := datedRoute.FilePath([]int{15, 5, 2000})
	tests := []struct {
		name     string
		damage   func(t *testing.T, out string)
		want     string   // in the refusal; "" when the tree is replaced
		unlisted int      // files the refusal says replacing it deletes, when more than listed
		files    []string // the first of RefusedError.Files
	}{
		{name: "as generate left it", damage: func(*testing.T, string) {}},
		{name: "a record of a year the tree does not hold", damage: func(t *testing.T, out string) {
			writeFiles(t, out, map[string]string{"api/public/d/1/1/1999.json": "{}\n"})
		}, want: "1 file its manifest does not list: api/public/d/1/1/1999.json", files: []string{"api/public/d/1/1/1999.json"}},
		{name: "a user's file among the records", damage: func(t *testing.T, out string) {
			writeFiles(t, out, map[string]string{"api/public/d/1/1/notes.txt": "mine"})
		}, want: "1 file its manifest does not list: api/public/d/1/1/notes.txt", files: []string{"api/public/d/1/1/notes.txt"}},
		{name: "a record of another size", damage: func(t *testing.T, out string) {
			writeFiles(t, out, map[string]string{record: "{}\n"})
		}, want: "1 file changed since generate wrote it: " + record + " (3 bytes, the manifest says 21)", files: []string{record}},
		{name: "a record missing", damage: func(t *testing.T, out string) {
			if err := os.Remove(filepath.Join(out, record)); err != nil {
				t.Fatal(err)
			}
		}, want: "1 file of its manifest is missing: " + record},
		{name: "a shard of another size", damage: func(t *testing.T, out string) {
			f, err := os.OpenFile(filepath.Join(out, shard), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(" ")
			f.Close()
		}, want: "1 file changed since generate wrote it: " + shard + " (", unlisted: 366 + 12 + 1, files: []string{"api/public/d-months/2000/1.jsonl"}},
		{name: "a shard of its size listing other files", damage: func(t *testing.T, out string) {
			p := filepath.Join(out, shard)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b = []byte(strings.Replace(string(b), `"api/public/d/9/9/2000.json"`, `"api/public/d/9/9/2000.jsox"`, 1))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: shard + ` (not a shard generate wrote: file `, unlisted: 366 + 12 + 1},
		{name: "a root whose shards are not its routes' and years'", damage: func(t *testing.T, out string) {
			editManifest(t, out, func(m *manifest.Manifest) { m.Years = []int{2000, 2001, 2100} })
		}, want: "is not a numerology manifest (2 shards, its date routes and years have 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			shardedTree(t, out, 2000, 2100)
			tt.damage(t, out)
			deleted, err := replace(t, out, false, "new")
			if tt.want == "" {
				if err != nil || len(deleted) > 0 {
					t.Fatalf("replace: %v, deleted %q", err, deleted)
				}
				if v := version(t, out); v != "new" {
					t.Errorf("out holds the %q tree, want the new one", v)
				}
				return
			}
			refused := refusal(err)
			if refused == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("replace: %v, want a refusal with %q", err, tt.want)
			}
			if tt.unlisted > 0 && len(refused.Files) != tt.unlisted {
				t.Errorf("the refusal names %d files replacing the tree deletes, want %d", len(refused.Files), tt.unlisted)
			}
			if len(tt.files) > 0 && (len(refused.Files) == 0 || refused.Files[0] != tt.files[0]) {
				t.Errorf("RefusedError.Files = %q…, want %q first", refused.Files[:min(3, len(refused.Files))], tt.files[0])
			}
		})
	}
}

// TestForceReplacesAShardedTree: with force, a tree whose shard was changed is replaced, and
// Deleted names the shard and the files of its year, which the proof could not give to
// generate.
func TestForceReplacesAShardedTree(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	shardedTree(t, out, 2000)
	shard := manifest.ShardPath(datedRoute.Name, 2000)
	writeFiles(t, out, map[string]string{shard: "{}"})
	deleted, err := replace(t, out, true, "new")
	if err != nil {
		t.Fatal(err)
	}
	if len(deleted) != 366+12+1 || !slices.Contains(deleted, shard) || !slices.Contains(deleted, datedRoute.FilePath([]int{29, 2, 2000})) {
		t.Errorf("Deleted: %d files, want the shard and the 378 files of its year", len(deleted))
	}
	if v := version(t, out); v != "new" {
		t.Errorf("out holds the %q tree, want the new one", v)
	}
}

// TestOwnershipOfTheFirstFormat: a tree of the manifest format before shards (no format
// field, every file in the root) is still generate's, so an upgraded numerology replaces it
// without force.
func TestOwnershipOfTheFirstFormat(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	files := treeFiles("old")
	files["api/public/d/1/1/2000.json"] = "{}\n"
	writeFiles(t, out, files)
	var list []string
	for p, body := range files {
		sum := sha256.Sum256([]byte(body))
		list = append(list, `["`+p+`",`+strconv.Itoa(len(body))+`,"`+hex.EncodeToString(sum[:])+`"]`)
	}
	slices.Sort(list)
	edge, err := (&manifest.Manifest{Format: manifest.FormatVersion, APIVersion: manifest.APIVersion, Edge: miniEdge()}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	root := strings.Replace(string(edge), `"format":2,`, "", 1)
	root = strings.Replace(root, `"files":null`, `"files":[`+strings.Join(list, ",")+`]`, 1)
	root = strings.Replace(root, `"generator":""`, `"generator":"`+manifest.Generator+`"`, 1)
	writeFiles(t, out, map[string]string{manifest.FileName: root})
	if deleted, err := replace(t, out, false, "new"); err != nil || len(deleted) > 0 {
		t.Fatalf("replace: %v, deleted %q", err, deleted)
	}
	if v := version(t, out); v != "new" {
		t.Errorf("out holds the %q tree, want the new one", v)
	}
}
