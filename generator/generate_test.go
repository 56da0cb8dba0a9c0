package generator

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// generate writes a tree of the given years into dir/out and returns its path.
func generate(t *testing.T, dir string, years ...int) string {
	t.Helper()
	out := filepath.Join(dir, "out")
	if _, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: years}); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return out
}

// TestGolden compares with testdata/golden the body of every route's example and of the values
// its renderer names (renderer.goldens), every error body and _headers; go test ./generator
// -update rewrites them and removes the golden files nothing pins any more. A new route gets
// its golden file from -update, with no line here.
func TestGolden(t *testing.T) {
	_, out := sharedTree(t)
	files := map[string]string{"headers.txt": manifest.HeadersFile}
	rs := renderers()
	for _, r := range Routes() {
		if rs[r.Name].noExample {
			continue // the OpenAPI document: its own tests pin it
		}
		vals, err := exampleValues(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range append([][]int{vals}, rs[r.Name].goldens...) {
			name := r.Name
			if len(v) > 0 {
				name += "-" + strings.ReplaceAll(valuesLabel(v), "/", "-")
			}
			files[name+".json"] = r.FilePath(v)
		}
	}
	errs, err := os.ReadDir(filepath.Join(out, manifest.ErrorsDir))
	if err != nil {
		t.Fatal(err)
	}
	if want := len(testSite(t).errorSpecs()); len(errs) != want {
		t.Fatalf("%d error bodies, want %d", len(errs), want)
	}
	for _, e := range errs {
		files["error-"+e.Name()] = manifest.ErrorsDir + "/" + e.Name()
	}
	dir := filepath.Join("testdata", "golden")
	have, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range have {
		if _, ok := files[e.Name()]; ok {
			continue
		}
		if *update {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s pins no file of the tree (go test ./generator -update removes it)", filepath.Join(dir, e.Name()))
	}
	for golden, rel := range files {
		t.Run(golden, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(out, rel))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", golden)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./generator -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s (review, then go test ./generator -update):\n got: %s\nwant: %s", rel, path, got, want)
			}
		})
	}
}

// TestBodiesFollowContract checks the bytes rules of §5 on the generated files.
func TestBodiesFollowContract(t *testing.T) {
	_, out := sharedTree(t)
	m, err := manifest.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		if !strings.HasSuffix(f.Path, ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(b, []byte("}\n")) && !bytes.HasSuffix(b, []byte("]\n")) || bytes.HasSuffix(b, []byte("\n\n")) {
			t.Errorf("%s does not end in exactly one newline", f.Path)
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`, `\u04`} {
			if bytes.Contains(b, []byte(esc)) {
				t.Errorf("%s escapes %s: Cyrillic and <>& must stay unescaped", f.Path, esc)
			}
		}
	}
	var rec map[string]any
	b, _ := os.ReadFile(filepath.Join(out, routeFile(RouteMatrix, 1, 1, 2000)))
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if got := rec["attribution_html"]; got != `<a href="https://numerology.example" rel="nofollow noopener">«Открытые данные нумерологии», Open Numerology Data</a>` {
		t.Errorf("attribution_html = %v", got)
	}
	if c, _ := rec["suggested_citation"].(string); !strings.Contains(c, "01.01.2000") {
		t.Errorf("suggested_citation %q lacks the date as DD.MM.YYYY", c)
	}
}

// TestVectorsThroughRecords reads the golden vectors back from the generated JSON.
func TestVectorsThroughRecords(t *testing.T) {
	header, rows, dates := goldenVectors(t, "matrix.csv")
	s := testSite(t)
	for _, in := range dates {
		row, d, m, y := rows[in], in.Day, in.Month, in.Year
		b, err := Encode(s.MatrixRecord(d, m, y))
		if err != nil {
			t.Fatal(err)
		}
		var r MatrixRecord
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		for i, c := range r.Matrix.Cells() {
			if want, _ := strconv.Atoi(row[i+1]); c.Arcana != want {
				t.Errorf("%s %s = %d, want %d", row[0], header[i+1], c.Arcana, want)
			}
			if c.Name != s.Content.Arcana[c.Arcana-1].Name {
				t.Errorf("%s %s: name %q does not match arcana %d", row[0], header[i+1], c.Name, c.Arcana)
			}
		}
	}
}

// readTree returns every file of a tree by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestDeterministic compares two runs of the same years, the shared tree and the scratch
// tree, byte for byte.
func TestDeterministic(t *testing.T) {
	_, shared := sharedTree(t)
	a := readTree(t, shared)
	b := readTree(t, scratchTree(t))
	if len(a) != len(b) {
		t.Fatalf("runs wrote %d and %d files", len(a), len(b))
	}
	for p, body := range a {
		if !bytes.Equal(body, b[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
	want := rules.DatesInYears(sharedYears) + 12 + 1 + 6 + 4 // records, list, errors, edge+index+_headers+manifest
	if len(a) < want {
		t.Errorf("tree has %d files, want at least %d", len(a), want)
	}
}

// TestInterruptedKeepsPreviousTree cancels a run half-way: the previous tree stays byte for
// byte and no temporary directory remains.
func TestInterruptedKeepsPreviousTree(t *testing.T) {
	out := scratchTree(t)
	dir := filepath.Dir(out)
	before := readTree(t, out)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Generate(ctx, Options{
		Site: testSite(t), Out: out, Years: []int{1990, 1991, 1992, 1993},
		OnProgress: func(done, total int) {
			if done > 100 {
				cancel()
			}
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Generate error = %v, want context.Canceled", err)
	}
	after := readTree(t, out)
	if len(after) != len(before) {
		t.Fatalf("previous tree had %d files, now %d", len(before), len(after))
	}
	for p, b := range before {
		if !bytes.Equal(b, after[p]) {
			t.Errorf("%s changed", p)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %v, want only out", names)
	}
}

func TestRefusesToReplaceOtherDirectories(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "home")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Generate(context.Background(), Options{Site: testSite(t), Out: out, Years: []int{2000}})
	var ioErr *IOError
	if !errors.As(err, &ioErr) || !strings.Contains(err.Error(), "refusing to replace") {
		t.Fatalf("Generate error = %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "mine" {
		t.Fatal("notes.txt was touched")
	}
}

func TestYearRange(t *testing.T) {
	tests := []struct {
		name     string
		from, to int
		wantErr  bool
	}{
		{"whole range", 1900, 2100, false},
		{"one year", 2000, 2000, false},
		{"before 1900", 1899, 2100, true},
		{"after 2100", 1900, 2101, true},
		{"reversed", 2000, 1999, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := YearRange(tt.from, tt.to)
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, ErrRange)) {
				t.Errorf("YearRange(%d, %d) error = %v, want error %v", tt.from, tt.to, err, tt.wantErr)
			}
		})
	}
}

// TestVerifyFindsDamage: a deleted file, a stray file and a one-byte change are each
// reported with the path.
func TestVerifyFindsDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, out string)
		want   VerifyProblem
	}{
		{"deleted file", func(t *testing.T, out string) {
			p := filepath.Join(out, routeFile(RouteMatrix, 15, 5, 2000))
			restoreFile(t, p)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, VerifyProblem{Kind: ProblemMissing, Path: "api/public/matrix/15/5/2000.json"}},
		{"stray file", func(t *testing.T, out string) {
			p := filepath.Join(out, "api/public/stray.json")
			if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := os.Remove(p); err != nil {
					t.Error(err)
				}
			})
		}, VerifyProblem{Kind: ProblemExtra, Path: "api/public/stray.json"}},
		{"one byte changed", func(t *testing.T, out string) {
			p := filepath.Join(out, routeFile(RouteLifePath, 7))
			restoreFile(t, p)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[10] ^= 1
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, VerifyProblem{Kind: ProblemCorrupt, Path: "api/public/life-path/7.json"}},
	}
	// A changed byte of a route's file is also named by its field.
	fields := map[string]VerifyProblem{
		"one byte changed": {Kind: ProblemInvalid, Path: "api/public/life-path/7.json", Detail: "field number is 6, the rules and the content give 7"},
	}
	// Each case damages the scratch tree and puts it back when it ends.
	out := scratchTree(t)
	if res, err := Verify(context.Background(), out, nil); err != nil || len(res.Problems) != 0 {
		t.Fatalf("fresh tree: err %v, problems %v", err, res.Problems)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.damage(t, out)
			res, err := Verify(context.Background(), out, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := []VerifyProblem{tt.want}
			if f, ok := fields[tt.name]; ok {
				want = append(want, f)
			}
			if len(res.Problems) != len(want) {
				t.Fatalf("problems = %v, want %v", res.Problems, want)
			}
			for i, w := range want {
				g := res.Problems[i]
				if g.Kind != w.Kind || g.Path != w.Path || (w.Detail != "" && g.Detail != w.Detail) {
					t.Errorf("problem %d = %v, want %v", i, g, w)
				}
			}
		})
	}
}

// TestVerifyChecksTheRule: a record whose bytes match a rewritten manifest but whose arcana
// break the rule is reported as invalid, in its file and in its packed month's line.
func TestVerifyChecksTheRule(t *testing.T) {
	out := scratchTree(t)
	rel := routeFile(RouteMatrix, 1, 1, 2000)
	month := packedFile(RouteMatrix, 1, 1, 2000)
	p := filepath.Join(out, rel)
	for _, f := range []string{rel, month} {
		restoreFile(t, filepath.Join(out, f))
	}
	restoreManifest(t, out, rel)
	b, _ := os.ReadFile(p)
	bad := bytes.Replace(b, []byte(`"personal":{"arcana":1,`), []byte(`"personal":{"arcana":2,`), 1)
	if bytes.Equal(bad, b) {
		t.Fatal("fixture: personal arcana of 01.01.2000 is not 1")
	}
	if err := os.WriteFile(p, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	// The packed month holds the same record: change it alike, and re-sign the manifest so
	// only the rule check can notice.
	mb, _ := os.ReadFile(filepath.Join(out, month))
	mb = append(bad, mb[len(b):]...)
	if err := os.WriteFile(filepath.Join(out, month), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	resign(t, out, rel, bad)
	resign(t, out, month, mb)
	res, err := Verify(context.Background(), out, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []VerifyProblem{
		{ProblemInvalid, month, "line 1, 01.01.2000: field matrix.personal.arcana is 2, the rules and the content give 1"},
		{ProblemInvalid, rel, "field matrix.personal.arcana is 2, the rules and the content give 1"},
	}
	if !slices.Equal(res.Problems, want) {
		t.Fatalf("problems = %v, want %v", res.Problems, want)
	}
}

// TestLoadContentFamousPeople checks that the famous people's dates are checked where
// content meets the rules, reported sorted together with the loader's own problems.
func TestLoadContentFamousPeople(t *testing.T) {
	_, err := LoadContent(os.DirFS("../content/testdata/two-errors"), "content")
	var errs content.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("LoadContent error = %v, want content.Errors", err)
	}
	want := []string{
		`content/arcana.yaml:9: [1].emoji: "🌙🌙" is 2 characters, want exactly one emoji`,
		"content/life-path/3.yaml:20: famous_people[1].born: 1990-05-16 (Человек 3-1) gives life path 4, not 3",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(errs), len(want), err)
	}
	for i, w := range want {
		if got := errs[i].String(); got != w {
			t.Errorf("problem %d = %q, want %q", i, got, w)
		}
	}
}

// TestVerifyNamesTheField: one changed byte in a file of a route, or in a line of a packed
// month file, is reported with the file, the line and date where there is one, and the field
// whose value differs from what the rules and the content give.
func TestVerifyNamesTheField(t *testing.T) {
	lpDate := route(RouteLifePathDate)
	lpMonth, _ := lpDate.PackedPath([]int{15, 5, 2000})
	tests := []struct {
		name     string
		file     string
		old, new string
		want     string // the invalid entry; the corrupt entry is always there too
	}{
		{"life path of a date: its number", lpDate.FilePath([]int{15, 5, 2000}), `"number":4,"life_path"`, `"number":5,"life_path"`,
			"field number is 5, the rules and the content give 4"},
		{"life path of a date: its item", lpDate.FilePath([]int{15, 5, 2000}), `"archetype":"Строитель"`, `"archetype":"Строитеь"`,
			`field life_path.archetype is "Строитеь"`},
		{"life path of a date: a packed line", lpMonth, `{"input":{"day":15,"month":5,"year":2000},"number":4,`, `{"input":{"day":15,"month":5,"year":2000},"number":6,`,
			"line 15, 15.05.2000: field number is 6, the rules and the content give 4"},
	}
	tests = append(tests, []struct {
		name     string
		file     string
		old, new string
		want     string
	}{
		{"arcanum: its description", route(RouteArcana).FilePath([]int{7}), `целеустремлённость`, `целеустремленность`,
			`field description differs at character 74: "…это целеустремленность, дорога…", the rules and the content give "…это целеустремлённость, дорога…"`},
		{"arcana list: an emoji", route(RouteArcanaList).File, `"emoji":"🏇"`, `"emoji":"🐎"`,
			`field arcana[6].emoji is "🐎", the rules and the content give "🏇"`},
		{"positions: a title", route(RoutePositions).File, `"title":"Душа"`, `"title":"Дух"`,
			`field positions[2].title is "Дух", the rules and the content give "Душа"`},
		{"compatibility: its level", route(RouteCompatibility).FilePath([]int{3, 11}), `"level":"Взаимное дополнение"`, `"level":"Взаимное дополнениe"`,
			`field level is "Взаимное дополнениe", the rules and the content give "Взаимное дополнение"`},
		{"compatibility: a strength", route(RouteCompatibility).FilePath([]int{1, 1}), `"Каждая восхищается смелостью другой"`, `"Каждая восхищается смелостью другого"`,
			`field strengths[0] is "Каждая восхищается смелостью другого", the rules and the content give "Каждая восхищается смелостью другой"`},
	}...)
	out := scratchTree(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { verifyDamage(t, out, tt.file, tt.old, tt.new, tt.want) })
	}
}

// verifyDamage replaces the first old in file of the scratch tree out with new (put back
// when the test ends) and checks that Verify reports the file as corrupt and then the
// problem want, as the first words of its line.
func verifyDamage(t *testing.T, out, file, old, new, want string) {
	t.Helper()
	p := filepath.Join(out, filepath.FromSlash(file))
	restoreFile(t, p)
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(orig, []byte(old), []byte(new), 1)
	if bytes.Equal(bad, orig) {
		t.Fatalf("fixture: %s does not hold %s", file, old)
	}
	if err := os.WriteFile(p, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(context.Background(), out, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pr := range res.Problems {
		got = append(got, pr.String())
	}
	want = "invalid: " + file + ": " + want
	if len(res.Problems) != 2 || res.Problems[0].Kind != ProblemCorrupt || res.Problems[0].Path != file ||
		!strings.HasPrefix(res.Problems[1].String(), want) {
		t.Fatalf("problems:\n%s\nwant the corrupt entry and %q…", strings.Join(got, "\n"), want)
	}
}
