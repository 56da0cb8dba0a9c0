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
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
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
	if r := route(manifest.RouteMatrix); r.Packed == nil || r.Packed.File != manifest.MatrixMonthsPattern || r.Packed.Unit != manifest.UnitMonth {
		t.Errorf("the matrix route's packed files = %+v, want %s by month", r.Packed, manifest.MatrixMonthsPattern)
	}
	packed := 0
	for _, y := range m.Years {
		for mo := 1; mo <= 12; mo++ {
			rel := manifest.MatrixMonthFile(y, mo)
			got, err := os.ReadFile(filepath.Join(out, rel))
			if err != nil {
				t.Fatal(err)
			}
			var want []byte
			for d := 1; d <= rules.DaysIn(mo, y); d++ {
				b, err := os.ReadFile(filepath.Join(out, manifest.MatrixFile(d, mo, y)))
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, b...)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not the per-date files of %d.%d concatenated", rel, mo, y)
			}
			if n := bytes.Count(got, []byte("\n")); n != rules.DaysIn(mo, y) {
				t.Errorf("%s has %d lines, want %d", rel, n, rules.DaysIn(mo, y))
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
	rel := manifest.MatrixMonthFile(y, mo)
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
