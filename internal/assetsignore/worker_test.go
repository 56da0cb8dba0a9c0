package assetsignore_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/assetsignore"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// tree generates, once per test binary, the year-2000 tree whose manifest the tests read;
// TestMain removes it.
var tree = sync.OnceValues(func() (string, error) {
	root, err := os.MkdirTemp("", "assetsignore-test-")
	if err != nil {
		return "", err
	}
	treeRoot = root
	out := filepath.Join(root, "out")
	_, err = generatortest.Generate(out, 2000)
	return out, err
})

var treeRoot string

func TestMain(m *testing.M) {
	restore := testsupport.MemoryTempDir()
	code := m.Run()
	if treeRoot != "" {
		os.RemoveAll(treeRoot)
	}
	restore()
	os.Exit(code)
}

// load reads the shared tree's manifest, a new copy for each call.
func load(t *testing.T) *manifest.Manifest {
	t.Helper()
	dir, err := tree()
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWorkerFiles: the files the worker reads come from the route rows and edge config of
// the manifest: edge.json and every API file of the tree but the error bodies and the
// per-date files of the routes whose bodies are also packed (the worker reads the packed
// month files instead).
func TestWorkerFiles(t *testing.T) {
	m := load(t)
	files, problems := assetsignore.WorkerFiles(m)
	if len(problems) > 0 {
		t.Errorf("problems %v", problems)
	}
	dir, err := tree()
	if err != nil {
		t.Fatal(err)
	}
	full, err := manifest.LoadFull(dir) // every file, the shards' too
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range full.Files {
		if !strings.HasPrefix(f.Path, "api/public/") || strings.HasPrefix(f.Path, manifest.ErrorsDir+"/") {
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

// TestCheck: the generated .assetsignore keeps everything the worker reads; a rule that
// leaves any of it out, a file the manifest does not list and a hole in edge.json are
// each named, with the rule.
func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		extra  string                     // appended to the generated .assetsignore
		change func(m *manifest.Manifest) // applied to the manifest
		first  string                     // the first Missing's String, with LINE for the extra rule's line
		count  int                        // -1: every file the worker reads
	}{
		{name: "the generated file"},
		{name: "month files ignored", extra: "/api/public/matrix-months/\n",
			first: `api/public/matrix-months/2000/1.jsonl is left out by .assetsignore:LINE: "/api/public/matrix-months/"`, count: 12},
		{name: "edge.json ignored", extra: "edge.json\n",
			first: `api/public/edge.json is left out by .assetsignore:LINE: "edge.json"`, count: 1},
		{name: "everything ignored", extra: "*\n",
			first: `api/public/edge.json is left out by .assetsignore:LINE: "*"`, count: -1},
		{name: "a route file ignored in any case", extra: "**/LIFE-PATH/7.JSON\n",
			first: `api/public/life-path/7.json is left out by .assetsignore:LINE: "**/LIFE-PATH/7.JSON"`, count: 1},
		{name: "a shard unlisted", change: func(m *manifest.Manifest) {
			m.Shards = slices.DeleteFunc(m.Shards, func(f manifest.File) bool { return f.Path == manifest.ShardPath(generator.RouteMatrix, 2000) })
		}, first: "api/public/matrix-months/2000/1.jsonl is not in the tree's manifest", count: 12},
		{name: "a root file unlisted", change: func(m *manifest.Manifest) {
			m.Files = slices.DeleteFunc(m.Files, func(f manifest.File) bool { return f.Path == generatortest.File(generator.RouteLifePath, 7) })
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
				files, _ := assetsignore.WorkerFiles(m)
				tt.count = len(files)
			}
			if tt.change != nil {
				tt.change(m)
			}
			ig, err := assetsignore.Parse(append(generator.AssetsIgnore(generator.Routes()), tt.extra...))
			if err != nil {
				t.Fatal(err)
			}
			missing, err := assetsignore.Check(m, ig)
			if err != nil {
				t.Fatal(err)
			}
			// The extra rule's line: the generated file ends with a newline.
			line := strconv.Itoa(strings.Count(string(generator.AssetsIgnore(generator.Routes())), "\n") + 1)
			first := strings.ReplaceAll(tt.first, "LINE", line)
			if len(missing) != tt.count || len(missing) > 0 && missing[0].String() != first {
				t.Errorf("missing %d: %v\nwant %d, the first %q", len(missing), missing, tt.count, first)
			}
		})
	}
}
