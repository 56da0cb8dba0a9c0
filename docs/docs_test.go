// Package docs_test keeps the figures of the documents in step with the code: every count
// or size of a generated tree that the README or docs/ states is checked here against a
// tree, and a figure no test checks is not written into the prose.
package docs_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/edge/worker"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/humanize"
)

// doc returns the text of a document, by its path from the repository's root.
func doc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// figure returns the number the one match of re in the document holds in its first group
// ("7,600" is 7600).
func figure(t *testing.T, name string, re *regexp.Regexp) float64 {
	t.Helper()
	m := re.FindAllStringSubmatch(doc(t, name), -1)
	if len(m) != 1 {
		t.Fatalf("%s: %d matches of %q, want one: the sentence the test reads was changed", name, len(m), re)
	}
	n, err := strconv.ParseFloat(strings.ReplaceAll(m[0][1], ",", ""), 64)
	if err != nil {
		t.Fatalf("%s: %q: %v", name, m[0][0], err)
	}
	return n
}

// about checks that a rounded figure of a document is within tol (a fraction) of got.
func about(t *testing.T, name string, re *regexp.Regexp, got int, tol float64) {
	t.Helper()
	n := figure(t, name, re)
	if math.Abs(n-float64(got)) > tol*float64(got) {
		t.Errorf("%s says %s, the tree gives %s: write about %s", name, humanize.Count(int64(n)), humanize.Count(int64(got)), humanize.Count(int64(got)))
	}
}

// full holds the full tree's plan and manifest once planned: the tests only read them.
var full struct {
	sync.Mutex
	plan     *cloudflare.Plan
	manifest *manifest.Manifest
}

// fullPlan plans the deploy of the full tree on Workers Free, as numerology deploy
// --dry-run does, and returns the plan and the tree's manifest, which callers must not
// change.
func fullPlan(t *testing.T) (*cloudflare.Plan, *manifest.Manifest) {
	t.Helper()
	dir := generatortest.FullTree(t)
	full.Lock()
	defer full.Unlock()
	if full.plan != nil {
		return full.plan, full.manifest
	}
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := cloudflare.LoadWorker(worker.WorkerFS, worker.WorkerConfig)
	if err != nil {
		t.Fatal(err)
	}
	limits, err := cloudflare.PlanLimits("free")
	if err != nil {
		t.Fatal(err)
	}
	p, err := cloudflare.NewPlan(dir, m, w, cloudflare.Options{Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Preflight(); err != nil {
		t.Fatalf("the full tree does not fit Workers Free: %v", err)
	}
	full.plan, full.manifest = p, m
	return p, m
}

// TestDryRunExample: the dry run docs/deploy.md shows is the full tree's, byte for byte
// (the tree's directory written as out).
func TestDryRunExample(t *testing.T) {
	p, _ := fullPlan(t)
	shown := *p
	shown.Dir = "out"
	var b bytes.Buffer
	shown.Write(&b)
	b.WriteString("dry run: within the limits; nothing was sent\n")
	text := doc(t, "docs/deploy.md")
	const start = "$ numerology deploy --dry-run\n"
	i := strings.Index(text, start)
	if i < 0 {
		t.Fatalf("docs/deploy.md has no %q example", strings.TrimSpace(start))
	}
	block, _, _ := strings.Cut(text[i+len(start):], "```")
	if block != b.String() {
		t.Errorf("docs/deploy.md's dry run differs from the full tree's; write it as:\n%s", b.String())
	}
}

// TestDeployFigures: the counts and sizes docs/deploy.md's transcripts show are the full
// tree's upload; the prose's rounded counts are within 2 % of it.
func TestDeployFigures(t *testing.T) {
	p, _ := fullPlan(t)
	files, size := humanize.Count(int64(len(p.Assets))), humanize.Bytes(p.Bytes)
	ignored := humanize.Count(int64(p.Ignored))
	text := doc(t, "docs/deploy.md")
	checks := []struct {
		name string
		re   *regexp.Regexp
		want []string
	}{
		{"the deploy's first line", regexp.MustCompile(`deploy: ([\d,]+) files, (\S+ \S+) → worker \S+ \(Workers free; ([\d,]+) files left out`), []string{files, size, ignored}},
		{"a first deploy's summary", regexp.MustCompile(`uploaded ([\d,]+) files, (\S+ \S+) in \d+ bucket\(s\); skipped 0 files`), []string{files, size}},
		{"the progress line", regexp.MustCompile(`upload: \d+/\d+ buckets, [\d,]+/([\d,]+) files, \S+ \S+/(\S+ \S+)` + "`"), []string{files, size}},
	}
	for _, c := range checks {
		m := c.re.FindAllStringSubmatch(text, -1)
		if len(m) != 1 {
			t.Errorf("docs/deploy.md: %d matches for %s, want one", len(m), c.name)
			continue
		}
		if got := m[0][1:]; strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("docs/deploy.md: %s shows %q, the full tree gives %q", c.name, got, c.want)
		}
	}
	about(t, "docs/deploy.md", regexp.MustCompile(`A full\s+tree uploads about ([\d,]+) files`), len(p.Assets), 0.02)
}

// TestFreePlanFigures: the README, docs/worker.md and docs/design.md round the full tree's
// file count and its upload to Workers Free correctly.
func TestFreePlanFigures(t *testing.T) {
	p, m := fullPlan(t)
	uploaded := len(p.Assets)
	about(t, "README.md", regexp.MustCompile(`a deploy holds about ([\d,]+) files`), uploaded, 0.02)
	about(t, "docs/worker.md", regexp.MustCompile(`about\s+([\d,]+), three fifths of Free's 20,000`), uploaded, 0.02)
	about(t, "docs/design.md", regexp.MustCompile(`upload the same files, about ([\d,]+) of a full tree`), uploaded, 0.02)
	// The manifest lists every file but itself.
	about(t, "docs/design.md", regexp.MustCompile(`The full tree has about ([\d,]+) files`), m.Counts.Files+1, 0.01)
	if share := float64(uploaded) / float64(p.Limits.MaxFiles); share < 0.55 || share > 0.65 {
		t.Errorf("the full tree uploads %d files, %.0f%% of Free's %d: docs/worker.md calls it three fifths", uploaded, 100*share, p.Limits.MaxFiles)
	}
}

// TestSquareRecordFigure: docs/design.md §14 names the largest square record of the range
// and its size.
func TestSquareRecordFigure(t *testing.T) {
	_, m := fullPlan(t)
	var route *manifest.Route
	for i := range m.Edge.Routes {
		if m.Edge.Routes[i].Name == generator.RouteSquare {
			route = &m.Edge.Routes[i]
		}
	}
	if route == nil {
		t.Fatalf("the tree has no %s route", generator.RouteSquare)
	}
	whole, err := manifest.LoadFull(generatortest.FullTree(t)) // the square's files are in the shards
	if err != nil {
		t.Fatal(err)
	}
	idx := whole.Index()
	var largest int64
	var date string
	for _, v := range route.Values(m.Years) {
		f := idx[route.FilePath(v)]
		if f == nil {
			t.Fatalf("the manifest lists no %s", route.FilePath(v))
		}
		if f.Size > largest {
			largest, date = f.Size, fmt.Sprintf("%02d.%02d.%d", v[0], v[1], v[2])
		}
	}
	re := regexp.MustCompile(`the largest \((\d\d\.\d\d\.\d{4})\) is ([\d,]+) bytes`)
	got := re.FindAllStringSubmatch(doc(t, "docs/design.md"), -1)
	want := []string{date, humanize.Count(largest)}
	if len(got) != 1 || got[0][1] != want[0] || got[0][2] != want[1] {
		t.Errorf("docs/design.md: the largest square record is %s, %s bytes; the text says %q", want[0], want[1], got)
	}
}

// TestMeaningsFigure: the size docs/design.md §14 gives the square's texts.
func TestMeaningsFigure(t *testing.T) {
	_, m := fullPlan(t)
	const file = "api/public/square/meanings.json"
	f := m.Index()[file]
	if f == nil {
		t.Fatalf("the manifest lists no %s", file)
	}
	kb := figure(t, "docs/design.md", regexp.MustCompile(`one file\s+of about (\d+) KB`))
	if got := float64(f.Size) / 1000; math.Abs(kb-got) > 1 {
		t.Errorf("docs/design.md says %s is about %.0f KB; it is %s", file, kb, humanize.Bytes(f.Size))
	}
}

// TestIdentityFigures: the sizes docs/design.md §4 gives to argue for identity answers, a
// matrix record's and openapi.json's, each with its gzip'ed size, are the full tree's (the
// document said 130 KB for an openapi.json that had grown to 267.5 KB).
func TestIdentityFigures(t *testing.T) {
	dir := generatortest.FullTree(t)
	text := doc(t, "docs/design.md")
	for _, c := range []struct {
		file string
		re   *regexp.Regexp
		unit float64 // of the figures: 1 for bytes, 1000 for KB
	}{
		{generatortest.File(generator.RouteMatrix, 15, 5, 2000), regexp.MustCompile(`the matrix of\s+15\.05\.2000: ([\d,]+) bytes, ([\d,]+) gzipped`), 1},
		{generatortest.File(generator.RouteOpenAPI), regexp.MustCompile(`openapi\.json \(([\d.]+) KB, ([\d.]+) KB gzipped\)`), 1000},
	} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(c.file)))
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		m := c.re.FindAllStringSubmatch(text, -1)
		if len(m) != 1 {
			t.Errorf("docs/design.md: %d matches of %q, want one: the sentence the test reads was changed", len(m), c.re)
			continue
		}
		for i, got := range []int{len(b), z.Len()} {
			n, err := strconv.ParseFloat(strings.ReplaceAll(m[0][i+1], ",", ""), 64)
			if err != nil {
				t.Fatalf("docs/design.md: %q: %v", m[0][0], err)
			}
			// One unit of rounding, and 2 % for the deflate of another gzip than Go's.
			if math.Abs(n*c.unit-float64(got)) > c.unit/2+0.02*float64(got) {
				t.Errorf("docs/design.md: %q; %s is %s bytes, %s gzipped", m[0][0], c.file, humanize.Count(int64(len(b))), humanize.Count(int64(z.Len())))
			}
		}
	}
}
