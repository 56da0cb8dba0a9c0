package assetsignore_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/assetsignore"
)

func load(t *testing.T, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWorkerFiles: the files the worker reads come from the route rows of the manifest:
// edge.json, every route file of a route without packed files, and the packed month files
// of the tree's years for the others.
func TestWorkerFiles(t *testing.T) {
	m := load(t, generatortest.Tree(t, 2000))
	files, problems := assetsignore.WorkerFiles(m)
	if len(problems) > 0 {
		t.Errorf("problems %v", problems)
	}
	want := []string{manifest.EdgeFile, manifest.IndexFile, manifest.OpenAPIFile, manifest.ListFile, "api/public/square/meanings.json"}
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 22, 33} {
		want = append(want, manifest.LifePathFile(n))
	}
	for mo := 1; mo <= 12; mo++ {
		want = append(want, manifest.MatrixMonthFile(2000, mo), "api/public/life-path-months/2000/"+strconv.Itoa(mo)+".jsonl",
			"api/public/square-months/2000/"+strconv.Itoa(mo)+".jsonl")
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
		count  int
	}{
		{name: "the generated file"},
		{name: "month files ignored", extra: "/api/public/matrix-months/\n",
			first: `api/public/matrix-months/2000/1.jsonl is left out by .assetsignore:LINE: "/api/public/matrix-months/"`, count: 12},
		{name: "edge.json ignored", extra: "edge.json\n",
			first: `api/public/edge.json is left out by .assetsignore:LINE: "edge.json"`, count: 1},
		{name: "everything ignored", extra: "*\n",
			first: `api/public/edge.json is left out by .assetsignore:LINE: "*"`, count: 53},
		{name: "a route file ignored in any case", extra: "**/LIFE-PATH/7.JSON\n",
			first: `api/public/life-path/7.json is left out by .assetsignore:LINE: "**/LIFE-PATH/7.JSON"`, count: 1},
		{name: "a month file unlisted", change: func(m *manifest.Manifest) {
			m.Files = slices.DeleteFunc(m.Files, func(f manifest.File) bool { return f.Path == manifest.MatrixMonthFile(2000, 5) })
		}, first: "api/public/matrix-months/2000/5.jsonl is not in the tree's manifest", count: 1},
		{name: "an error body missing", change: func(m *manifest.Manifest) {
			e := m.Edge.Errors[manifest.ErrTooManyRequests]
			e.Body = ""
			m.Edge.Errors[manifest.ErrTooManyRequests] = e
		}, first: "api/public/edge.json has no body for the error too_many_requests, which the worker answers", count: 1},
		{name: "an unknown parameter type", change: func(m *manifest.Manifest) { m.Edge.Routes[3].Params[0].Type = "zodiac" },
			first: `api/public/edge.json gives route life-path parameter types the worker does not know, or not one per parameter`, count: 1},
	}
	dir := generatortest.Tree(t, 2000)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := load(t, dir)
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
