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
	read, _ := assetsignore.WorkerFiles(m)
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
