package generator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/calendar"
)

// TestPackedMonths: every packed month file is its per-date files concatenated in day
// order, byte for byte, and the manifest lists it with its size and sha256.
func TestPackedMonths(t *testing.T) {
	_, out := sharedTree(t)
	m, err := manifest.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Years, sharedYears) {
		t.Fatalf("the manifest lists the years %v, want %v", m.Years, sharedYears)
	}
	if r := route(RouteMatrix); r.Packed == nil || r.Packed.File != "api/public/matrix-months/{year}/{month}.jsonl" || r.Packed.Unit != manifest.UnitMonth {
		t.Errorf("the matrix route's packed files = %+v, want %s by month", r.Packed, "api/public/matrix-months/{year}/{month}.jsonl")
	}
	packed := 0
	for _, y := range m.Years {
		for mo := 1; mo <= 12; mo++ {
			rel := packedFile(RouteMatrix, 1, mo, y)
			got, err := os.ReadFile(filepath.Join(out, rel))
			if err != nil {
				t.Fatal(err)
			}
			var want []byte
			for d := 1; d <= calendar.DaysIn(mo, y); d++ {
				b, err := os.ReadFile(filepath.Join(out, routeFile(RouteMatrix, d, mo, y)))
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, b...)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not the per-date files of %d.%d concatenated", rel, mo, y)
			}
			if n := bytes.Count(got, []byte("\n")); n != calendar.DaysIn(mo, y) {
				t.Errorf("%s has %d lines, want %d", rel, n, calendar.DaysIn(mo, y))
			}
			sum := sha256.Sum256(got)
			if f, ok, err := m.Lookup(out, rel); !ok || err != nil || f.Size != int64(len(got)) || f.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("manifest entry of %s = %+v (%v, %v), want size %d sha256 %x", rel, f, ok, err, len(got), sum)
			}
			packed++
		}
	}
	if want := 12 * len(sharedYears); packed != want {
		t.Errorf("%d packed files, want %d", packed, want)
	}
	ignore, err := os.ReadFile(filepath.Join(out, manifest.AssetsIgnoreFile))
	if err != nil || !bytes.Equal(ignore, AssetsIgnore(Routes())) || m.Index()[manifest.AssetsIgnoreFile] == nil {
		t.Errorf("%s = %q (%v), listed %v; want AssetsIgnore()", manifest.AssetsIgnoreFile, ignore, err, m.Index()[manifest.AssetsIgnoreFile] != nil)
	}
}

// TestVerifyNamesThePackedDate: a packed record with one changed byte is reported naming
// the file, the date and the field, whether or not the manifest was rewritten to match.
func TestVerifyNamesThePackedDate(t *testing.T) {
	const d, mo, y = 15, 5, 2000
	rel := packedFile(RouteMatrix, 1, mo, y)
	tests := []struct {
		name   string
		resign bool   // rewrite the manifest's entry so only the record check can notice
		damage string // what to do to the file: "byte" or "drop-line"
		want   []VerifyProblem
	}{
		{"one byte, manifest as generated", false, "byte", []VerifyProblem{
			{Kind: ProblemCorrupt, Path: rel},
			{Kind: ProblemInvalid, Path: rel, Detail: "line 15, 15.05.2000: field matrix.personal.arcana is 14, the rules and the content give 15"},
		}},
		{"one byte, manifest re-signed", true, "byte", []VerifyProblem{
			{Kind: ProblemInvalid, Path: rel, Detail: "line 15, 15.05.2000: field matrix.personal.arcana is 14, the rules and the content give 15"},
		}},
		{"the last day left out, manifest re-signed", true, "drop-last", []VerifyProblem{
			{Kind: ProblemInvalid, Path: rel, Detail: "holds 30 records, 5.2000 has 31 days"},
		}},
	}
	// Each case changes the scratch tree's month file and manifest, and puts them back when
	// it ends.
	out := scratchTree(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(out, rel)
			restoreFile(t, p)
			restoreManifest(t, out, rel)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(b, []byte("\n"))
			switch tt.damage {
			case "byte":
				i := bytes.Index(lines[d-1], []byte(`"arcana":`)) + len(`"arcana":`) + 1
				lines[d-1][i] ^= 1 // the personal arcana's second digit, 15 → 14: still JSON, another number
			case "drop-last":
				lines = lines[:len(lines)-2] // SplitAfter leaves an empty last element
			}
			bad := bytes.Join(lines, nil)
			if err := os.WriteFile(p, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.resign {
				resign(t, out, rel, bad)
			}
			res, err := Verify(context.Background(), out, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Problems) != len(tt.want) {
				t.Fatalf("problems = %v, want %v", res.Problems, tt.want)
			}
			for i, w := range tt.want {
				g := res.Problems[i]
				if g.Kind != w.Kind || g.Path != w.Path || (w.Detail != "" && g.Detail != w.Detail) {
					t.Errorf("problem %d = %v, want %v", i, g, w)
				}
			}
		})
	}
}

// resign rewrites the manifest entry of rel for the content b: the root's, or its shard's
// and the root's entry of the shard (restore both with restoreManifest).
func resign(t *testing.T, out, rel string, b []byte) {
	t.Helper()
	m, err := manifest.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if err := m.Update(out, manifest.File{Path: rel, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}); err != nil {
		t.Fatal(err)
	}
}

// restoreManifest puts back, when tb ends, the root of the manifest of out and the shard
// that lists rel, if any (see resign).
func restoreManifest(tb testing.TB, out, rel string) {
	tb.Helper()
	restoreFile(tb, filepath.Join(out, manifest.FileName))
	m, err := manifest.Load(out)
	if err != nil {
		tb.Fatal(err)
	}
	if sp := m.Edge.ShardOf(rel); sp != "" {
		restoreFile(tb, filepath.Join(out, filepath.FromSlash(sp)))
	}
}

// TestAssetsIgnoreKeepsWhatTheWorkerReads: the ignore list names the per-date files of
// every packed route and the error bodies, and nothing the worker reads.
func TestAssetsIgnoreKeepsWhatTheWorkerReads(t *testing.T) {
	var rules []string
	for _, line := range strings.Split(string(AssetsIgnore(Routes())), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			rules = append(rules, line)
		}
	}
	var want, perDate, read []string
	for _, r := range Routes() {
		vals, err := exampleValues(r)
		if err != nil {
			t.Fatal(err)
		}
		if r.Packed == nil {
			read = append(read, r.FilePath(vals))
			continue
		}
		want = append(want, "/"+strings.NewReplacer("{day}", "*", "{month}", "*", "{year}", "*").Replace(r.File))
		perDate = append(perDate, r.FilePath(vals))
		p, _ := r.PackedPath(vals)
		read = append(read, p)
	}
	want = append(want, "/"+manifest.ErrorsDir+"/", "/"+manifest.ShardsDir+"/")
	if !slices.Equal(rules, want) {
		t.Errorf("AssetsIgnore patterns = %q, want %q", rules, want)
	}
	ignored := func(pattern, file string) bool {
		re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(strings.TrimPrefix(pattern, "/")), `\*`, "[^/]*"))
		if strings.HasSuffix(pattern, "/") {
			return re.MatchString(file)
		}
		return re.FindString(file) == file
	}
	for _, f := range perDate {
		if !slices.ContainsFunc(rules, func(p string) bool { return ignored(p, f) }) {
			t.Errorf("no pattern leaves out the per-date file %s", f)
		}
	}
	read = append(read, manifest.EdgeFile)
	for _, line := range rules {
		for _, f := range read {
			if ignored(line, f) {
				t.Errorf("pattern %q would leave out %s, which the worker reads", line, f)
			}
		}
	}
}

// yearPacked is the matrix route as a route packed by year would be: one file per year, the
// day of the year its line.
func yearPacked() manifest.Route {
	r := route(RouteMatrix)
	r.Packed = &manifest.Packed{File: "api/public/matrix-years/{year}.jsonl", Unit: manifest.UnitYear}
	return r
}

// TestWritePackedByYear writes a route packed by year: each year file is its per-date files
// joined in the order of the days of the year, byte for byte, and the year's shard lists
// every file of the year, the year file among them, with its size and sha256.
func TestWritePackedByYear(t *testing.T) {
	s := testSite(t)
	encs, err := s.encoders()
	if err != nil {
		t.Fatal(err)
	}
	r := yearPacked()
	root := t.TempDir()
	years := []int{1900, 2000, 2001}
	g := &gen{site: s, w: newTreeWriter(root), years: years, workers: 3, encs: encs,
		counts: map[string]*atomic.Int64{r.Name: {}}}
	g.edge.Routes = []manifest.Route{r}
	if err := g.writeDates(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := g.counts[r.Name].Load(); got != int64(rules.DatesInYears(years)) {
		t.Errorf("%d files counted, want %d", got, rules.DatesInYears(years))
	}
	if len(g.shards) != len(years) {
		t.Fatalf("%d shards, want one per year", len(g.shards))
	}
	for i, y := range years {
		got, err := os.ReadFile(filepath.Join(root, "api/public/matrix-years", strconv.Itoa(y)+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, vals := range r.YearValues(y) {
			want = append(want, mustReadFile(t, filepath.Join(root, r.FilePath(vals)))...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("the year file of %d is not its per-date files joined in order", y)
		}
		if n, days := bytes.Count(got, []byte("\n")), len(r.YearValues(y)); n != days {
			t.Errorf("the year file of %d has %d lines, want %d", y, n, days)
		}
		shard, err := manifest.ReadShard(root, g.shards[i])
		if err != nil {
			t.Fatal(err)
		}
		if shard.Route != r.Name || shard.Year != y || len(shard.Files) != len(r.ShardFiles(y)) {
			t.Fatalf("shard of %s %d lists %d files, want %d", shard.Route, shard.Year, len(shard.Files), len(r.ShardFiles(y)))
		}
		for j, f := range shard.Files {
			b := mustReadFile(t, filepath.Join(root, f.Path))
			sum := sha256.Sum256(b)
			if f.Path != r.ShardFiles(y)[j] || f.Size != int64(len(b)) || f.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("shard entry %+v, want %s of %d bytes, sha256 %x", f, r.ShardFiles(y)[j], len(b), sum)
			}
		}
	}

	// verify names the file, the line, the date and the field of a changed byte of a year
	// file, whose line is the day of the year.
	v := &verifier{dir: root, encs: encs}
	file := "api/public/matrix-years/2000.jsonl"
	b := mustReadFile(t, filepath.Join(root, file))
	lines := bytes.SplitAfter(b, []byte("\n"))
	const line = 136 // 15.05.2000
	i := bytes.Index(lines[line-1], []byte(`"arcana":`)) + len(`"arcana":`) + 1
	lines[line-1][i] ^= 1 // the personal arcana's second digit, 15 → 14
	if err := os.WriteFile(filepath.Join(root, file), bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	v.checkFile(manifest.File{Path: file}, v.shardExpect(&r, 2000)[file], false, v.newScratch())
	want := []VerifyProblem{{ProblemInvalid, file, "line 136, 15.05.2000: field matrix.personal.arcana is 14, the rules and the content give 15"}}
	if !slices.Equal(v.problems, want) {
		t.Errorf("problems %v, want %v", v.problems, want)
	}
	v.problems = nil
	if err := os.WriteFile(filepath.Join(root, file), bytes.Join(lines[:365], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	v.checkFile(manifest.File{Path: file}, v.shardExpect(&r, 2000)[file], false, v.newScratch())
	if len(v.problems) == 0 || v.problems[0].Detail != "holds 365 records, 2000 has 366 days" {
		t.Errorf("a year file one line short: problems %v", v.problems)
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyChecksTheShards: a shard is checked against the root before its entries are
// trusted, and each of its entries against its file; what a shard lists is exactly the files
// of its route and year. Each problem names the file.
func TestVerifyChecksTheShards(t *testing.T) {
	shard := manifest.ShardPath(RouteMatrix, 2000)
	record := routeFile(RouteMatrix, 15, 5, 2000)
	tests := []struct {
		name   string
		damage func(t *testing.T, out string, m *manifest.Manifest, s *manifest.Shard)
		want   []VerifyProblem
	}{
		{"one byte of a shard", func(t *testing.T, out string, _ *manifest.Manifest, _ *manifest.Shard) {
			p := filepath.Join(out, shard)
			b := mustReadFile(t, p)
			b[bytes.Index(b, []byte(`"api/public/`))+2] ^= 1
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, []VerifyProblem{{Kind: ProblemCorrupt, Path: shard}}},
		{"the root's entry of a shard", func(t *testing.T, out string, m *manifest.Manifest, _ *manifest.Shard) {
			for i := range m.Shards {
				if m.Shards[i].Path == shard {
					m.Shards[i].SHA256 = strings.Repeat("0", 64)
				}
			}
			if err := m.Write(out); err != nil {
				t.Fatal(err)
			}
		}, []VerifyProblem{{Kind: ProblemCorrupt, Path: shard}}},
		{"a shard re-signed with a record's size changed", func(t *testing.T, out string, m *manifest.Manifest, s *manifest.Shard) {
			for i := range s.Files {
				if s.Files[i].Path == record {
					s.Files[i].Size++
				}
			}
			writeShard(t, out, m, s)
		}, []VerifyProblem{{Kind: ProblemCorrupt, Path: record}, {Kind: ProblemInvalid, Path: manifest.FileName, Detail: "counts.bytes is"}}},
		{"a shard re-signed without a record", func(t *testing.T, out string, m *manifest.Manifest, s *manifest.Shard) {
			s.Files = slices.DeleteFunc(s.Files, func(f manifest.File) bool { return f.Path == record })
			writeShard(t, out, m, s)
		}, []VerifyProblem{
			{Kind: ProblemMissing, Path: record, Detail: "required file is not in the manifest (its shard " + shard + " does not list it)"},
			{Kind: ProblemInvalid, Path: manifest.FileName, Detail: "counts.bytes is"},
			{Kind: ProblemInvalid, Path: manifest.FileName, Detail: "counts.files is"},
		}},
		{"a shard re-signed with a file of no date", func(t *testing.T, out string, m *manifest.Manifest, s *manifest.Shard) {
			s.Files = append(s.Files, manifest.File{Path: "api/public/matrix/31/2/2000.json", Size: 1, SHA256: strings.Repeat("0", 64)})
			writeShard(t, out, m, s)
		}, []VerifyProblem{
			{Kind: ProblemInvalid, Path: shard, Detail: "lists api/public/matrix/31/2/2000.json, which is no file of matrix in 2000"},
			{Kind: ProblemInvalid, Path: manifest.FileName, Detail: "counts.bytes is"},
			{Kind: ProblemInvalid, Path: manifest.FileName, Detail: "counts.files is"},
		}},
	}
	out := scratchTree(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			restoreFile(t, filepath.Join(out, manifest.FileName))
			restoreFile(t, filepath.Join(out, shard))
			m, err := manifest.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			entry, _ := m.Shard(shard)
			s, err := manifest.ReadShard(out, entry)
			if err != nil {
				t.Fatal(err)
			}
			tt.damage(t, out, m, s)
			res, err := Verify(context.Background(), out, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Problems) != len(tt.want) {
				t.Fatalf("problems = %v, want %v", res.Problems, tt.want)
			}
			for i, w := range tt.want {
				g := res.Problems[i]
				if g.Kind != w.Kind || g.Path != w.Path || !strings.HasPrefix(g.Detail, w.Detail) {
					t.Errorf("problem %d = %v, want %v", i, g, w)
				}
			}
		})
	}
}

// writeShard writes s, sorted, and the root's entry of it, as generate would, leaving the
// counts.
func writeShard(t *testing.T, out string, m *manifest.Manifest, s *manifest.Shard) {
	t.Helper()
	slices.SortFunc(s.Files, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) })
	b, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p := manifest.ShardPath(s.Route, s.Year)
	if err := os.WriteFile(filepath.Join(out, p), b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	for i := range m.Shards {
		if m.Shards[i].Path == p {
			m.Shards[i].Size, m.Shards[i].SHA256 = int64(len(b)), hex.EncodeToString(sum[:])
		}
	}
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
}

// TestRootDoesNotGrowWithTheDates: the root of the manifest lists the same files whatever
// the years, and one shard per date route and year; every file of a date route is in its
// shard (docs/design.md §9).
func TestRootDoesNotGrowWithTheDates(t *testing.T) {
	_, out := sharedTree(t)
	one := generate(t, t.TempDir(), 2000)
	roots := map[string]*manifest.Manifest{}
	for _, dir := range []string{out, one} {
		m, err := manifest.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		roots[dir] = m
		sharded := 0
		for _, r := range m.Edge.Routes {
			if r.Sharded() {
				sharded++
			}
		}
		if len(m.Shards) != sharded*len(m.Years) || !slices.Equal(shardPaths(m), m.ShardPaths()) {
			t.Errorf("%d years: %d shards, want one per date route and year", len(m.Years), len(m.Shards))
		}
		for _, f := range m.Files {
			if sp := m.Edge.ShardOf(f.Path); sp != "" {
				t.Errorf("the root lists %s, a file of the shard %s", f.Path, sp)
			}
		}
	}
	a, b := roots[out].Files, roots[one].Files
	if len(a) != len(b) {
		t.Fatalf("the root lists %d files for %d years and %d for one", len(a), len(roots[out].Years), len(b))
	}
	for i := range a {
		if a[i].Path != b[i].Path {
			t.Errorf("root file %d: %s for %d years, %s for one", i, a[i].Path, len(roots[out].Years), b[i].Path)
		}
	}
}

func shardPaths(m *manifest.Manifest) []string {
	var out []string
	for _, f := range m.Shards {
		out = append(out, f.Path)
	}
	return out
}
