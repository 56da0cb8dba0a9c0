package generator_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/assetsignore"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestVerifyWorkerAssets (issue 21, defect 6): verify reports an .assetsignore that leaves
// out what the worker reads, even when the manifest lists its new bytes: one problem per
// rule, on the first file it hides, with the count of the others.
func TestVerifyWorkerAssets(t *testing.T) {
	dir := generator.ScratchTreeForTest(t)
	tests := []struct {
		name  string
		extra string
		want  []string // each a problem's line
	}{
		{"the generated file", "", nil},
		{"the month files", "/api/public/matrix-months/\n", []string{
			`invalid: api/public/matrix-months/FIRST/1.jsonl: the worker reads it, but .assetsignore:LINE: "/api/public/matrix-months/" leaves it out of a Workers deploy (and MONTHS more files by the same rule)`}},
		{"edge.json", "edge.json\n", []string{
			`invalid: api/public/edge.json: the worker reads it, but .assetsignore:LINE: "edge.json" leaves it out of a Workers deploy`}},
		{"everything", "*\n", []string{
			`invalid: api/public/edge.json: the worker reads it, but .assetsignore:LINE: "*" leaves it out of a Workers deploy (and OTHERS more files by the same rule)`}},
		{"a rule wrangler cannot read", "[~-!]\n", []string{
			`invalid: .assetsignore: .assetsignore:LINE: "[~-!]": invalid regular expression: range out of order in character class (wrangler cannot read this rule either)`}},
	}
	line := strings.Count(string(generator.AssetsIgnore(generator.Routes())), "\n") + 1
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	read, _ := m.WorkerFiles()
	// Each case rewrites the scratch tree's .assetsignore and manifest, and puts them back
	// when it ends.
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			generator.RestoreFileForTest(t, filepath.Join(dir, manifest.AssetsIgnoreFile))
			generator.RestoreFileForTest(t, filepath.Join(dir, manifest.FileName))
			if tt.extra != "" {
				relist(t, dir, manifest.AssetsIgnoreFile, append(generator.AssetsIgnore(generator.Routes()), tt.extra...))
			}
			res, err := generator.Verify(context.Background(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range res.Problems {
				got = append(got, p.String())
			}
			var want []string
			for _, w := range tt.want {
				w = strings.ReplaceAll(w, "OTHERS", strconv.Itoa(len(read)-1))
				w = strings.ReplaceAll(w, "FIRST", strconv.Itoa(m.Years[0]))
				w = strings.ReplaceAll(w, "MONTHS", strconv.Itoa(12*len(m.Years)-1))
				want = append(want, strings.ReplaceAll(w, "LINE", strconv.Itoa(line)))
			}
			slices.Sort(got)
			slices.Sort(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// relist writes a file of the tree and updates its manifest entry to its new bytes.
func relist(t *testing.T, dir, rel string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Update(dir, manifest.File{Path: rel, Size: int64(len(b)), SHA256: testsupport.SHA256Hex(b)}); err != nil {
		t.Fatal(err)
	}
}

// TestWorkerFiles: the files the worker reads come from the route rows and edge config of
// the manifest: edge.json and every API file of the tree but the error bodies and the
// per-date files of the routes whose bodies are also packed (the worker reads the packed
// month files instead).
func TestWorkerFiles(t *testing.T) {
	dir := generator.ScratchTreeForTest(t)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, problems := m.WorkerFiles()
	if len(problems) > 0 {
		t.Errorf("problems %v", problems)
	}
	full, err := manifest.LoadFull(dir) // every file, the shards' too
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range full.Files {
		if !strings.HasPrefix(f.Path, manifest.APIDir+"/") || strings.HasPrefix(f.Path, manifest.ErrorsDir+"/") {
			continue
		}
		perDate := false
		for _, r := range m.Edge.Routes {
			if _, ok := r.MatchFile(f.Path); ok && r.Packed != nil {
				perDate = true
			}
		}
		if !perDate {
			want = append(want, f.Path)
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(files))
	if !slices.Equal(got, want) {
		t.Errorf("WorkerFiles = %v\nwant %v", got, want)
	}
	if files[0] != manifest.EdgeFile {
		t.Errorf("the first file is %s, want edge.json, which the worker reads first", files[0])
	}
}

// TestWorkerFilesCheck: the generated .assetsignore keeps everything the worker reads; a
// rule that leaves any of it out, a file the manifest does not list and a hole in edge.json
// are each named, with the rule (assetsignore.Check, with what the manifest says the worker
// reads and lists).
func TestWorkerFilesCheck(t *testing.T) {
	dir := generator.ScratchTreeForTest(t)
	load := func(t *testing.T) *manifest.Manifest {
		t.Helper()
		m, err := manifest.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := load(t).Years[0]
	years := len(load(t).Years)
	tests := []struct {
		name   string
		extra  string                     // appended to the generated .assetsignore
		change func(m *manifest.Manifest) // applied to the manifest
		first  string                     // the first problem, with LINE for the extra rule's line and FIRST for the tree's first year
		count  int                        // -1: every file the worker reads
	}{
		{name: "the generated file"},
		{name: "month files ignored", extra: "/api/public/matrix-months/\n",
			first: `api/public/matrix-months/FIRST/1.jsonl is left out by .assetsignore:LINE: "/api/public/matrix-months/"`, count: 12 * years},
		{name: "edge.json ignored", extra: "edge.json\n",
			first: `api/public/edge.json is left out by .assetsignore:LINE: "edge.json"`, count: 1},
		{name: "everything ignored", extra: "*\n",
			first: `api/public/edge.json is left out by .assetsignore:LINE: "*"`, count: -1},
		{name: "a route file ignored in any case", extra: "**/LIFE-PATH/7.JSON\n",
			first: `api/public/life-path/7.json is left out by .assetsignore:LINE: "**/LIFE-PATH/7.JSON"`, count: 1},
		{name: "a shard unlisted", change: func(m *manifest.Manifest) {
			m.Shards = slices.DeleteFunc(m.Shards, func(f manifest.File) bool { return f.Path == manifest.ShardPath(generator.RouteMatrix, first) })
		}, first: "api/public/matrix-months/FIRST/1.jsonl is not in the tree's manifest", count: 12},
		{name: "a root file unlisted", change: func(m *manifest.Manifest) {
			m.Files = slices.DeleteFunc(m.Files, func(f manifest.File) bool { return f.Path == "api/public/life-path/7.json" })
		}, first: "api/public/life-path/7.json is not in the tree's manifest", count: 1},
		{name: "an error body missing", change: func(m *manifest.Manifest) {
			e := m.Edge.Errors[manifest.ErrTooManyRequests]
			e.Body = ""
			m.Edge.Errors[manifest.ErrTooManyRequests] = e
		}, first: "api/public/edge.json has no body for the error too_many_requests, which the worker answers", count: 1},
		{name: "an unknown parameter type", change: func(m *manifest.Manifest) {
			for i := range m.Edge.Routes {
				if m.Edge.Routes[i].Name == generator.RouteLifePath {
					m.Edge.Routes[i].Params[0].Type = "zodiac"
				}
			}
		}, first: `api/public/edge.json gives route life-path the parameter type "zodiac", which the worker does not know`, count: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := load(t)
			if tt.count < 0 {
				files, _ := m.WorkerFiles()
				tt.count = len(files)
			}
			if tt.change != nil {
				tt.change(m)
			}
			ig, err := assetsignore.Parse(append(generator.AssetsIgnore(generator.Routes()), tt.extra...))
			if err != nil {
				t.Fatal(err)
			}
			files, problems := m.WorkerFiles()
			missing, err := assetsignore.Check(files, m.Listed(), ig)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range missing {
				got = append(got, m.String())
			}
			for _, p := range problems {
				got = append(got, manifest.EdgeFile+" "+p)
			}
			// The extra rule's line: the generated file ends with a newline.
			line := strconv.Itoa(strings.Count(string(generator.AssetsIgnore(generator.Routes())), "\n") + 1)
			want := strings.NewReplacer("LINE", line, "FIRST", strconv.Itoa(first)).Replace(tt.first)
			if len(got) != tt.count || len(got) > 0 && got[0] != want {
				t.Errorf("missing %d: %v\nwant %d, the first %q", len(got), got, tt.count, want)
			}
		})
	}
}
