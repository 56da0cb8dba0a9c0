package pack

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"archive/zip"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// The fixture: a tree of two years (one with 29 February) and its pack, made once.
var (
	fixtureYears = []int{1996, 2000}
	fixtureTree  string
	fixtureDist  string
	fixtureRes   *Result
)

func TestMain(m *testing.M) {
	os.Exit(testsupport.RunTests(m, func() error {
		if fixtureTree == "" { // no test made the fixture
			return nil
		}
		return os.RemoveAll(filepath.Dir(fixtureTree))
	}))
}

// fixture makes the tree and packs it, once.
func fixture(tb testing.TB) {
	tb.Helper()
	if fixtureDist != "" {
		return
	}
	dir, err := os.MkdirTemp("", "pack-fixture-")
	if err != nil {
		tb.Fatal(err)
	}
	fixtureTree = filepath.Join(dir, "out")
	if _, err := generatortest.Generate(fixtureTree, fixtureYears...); err != nil {
		tb.Fatal(err)
	}
	fixtureDist = filepath.Join(dir, "dist")
	if fixtureRes, err = packTo(tb, fixtureTree, fixtureDist); err != nil {
		tb.Fatal(err)
	}
}

// testContent is the dataset's content of the built-in content, as cmd/numerology gives it.
func testContent(siteURL string) (*Content, error) {
	cont, err := generator.LoadContent(content.Embedded(), "content")
	if err != nil {
		return nil, err
	}
	site, err := generator.NewSite(cont, siteURL)
	if err != nil {
		return nil, err
	}
	c := site.Content.Site
	return &Content{
		Publisher: c.Publisher, Title: c.Title, LicenseName: c.LicenseName,
		Disclaimer: c.Disclaimer, DisclaimerEN: c.DisclaimerEN,
		Attribution: site.Attribution, AttributionHTML: site.AttributionHTML,
		Sources: generator.DatasetSources, Routes: generator.Routes(),
		Render: site.Renderer, Diff: generator.JSONDiff,
	}, nil
}

func packTo(tb testing.TB, tree, to string) (*Result, error) {
	return Pack(context.Background(), Options{Dir: tree, To: to, ContentDate: "2026-01-02", Content: testContent})
}

func archivePath(ext string) string {
	return filepath.Join(fixtureDist, BaseName(manifest.APIVersion)+ext)
}

// unpacked extracts the fixture's zip into a new folder and returns its top folder.
func unpacked(t *testing.T) string {
	t.Helper()
	fixture(t)
	zr, err := zip.OpenReader(archivePath(Zip))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dir := t.TempDir()
	for _, f := range zr.File {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if f.FileInfo().IsDir() {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := b.ReadFrom(r); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, BaseName(manifest.APIVersion))
}

// TestPackReproducible: packs on 1, 3 and 8 Ps give the same bytes as the fixture's (on
// every core). Pack works concurrently (the tables are filled while the database and the
// tables' files are made from those filled already, the zip's files are deflated a few at
// a time, the JSON Lines in parallel blocks), so no download may depend on the order the
// work is done in.
func TestPackReproducible(t *testing.T) {
	fixture(t)
	for _, procs := range []int{1, 3, 8} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			res, err := packTo(t, fixtureTree, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Archives) != len(fixtureRes.Archives) {
				t.Fatalf("%d downloads, then %d", len(fixtureRes.Archives), len(res.Archives))
			}
			for i, a := range res.Archives {
				if b := fixtureRes.Archives[i]; a.Name != b.Name || a.SHA256 != b.SHA256 {
					t.Errorf("%s %s on %d cores, %s %s on %d Ps", b.Name, b.SHA256, runtime.NumCPU(), a.Name, a.SHA256, procs)
				}
			}
		})
	}
}

// TestPackDownloads: every date route has its JSON Lines, and the zip holds what
// datapackage.json lists; no download is over the published limit.
func TestPackDownloads(t *testing.T) {
	fixture(t)
	var want []string
	want = append(want, BaseName(manifest.APIVersion)+Zip)
	for _, r := range generator.Routes() {
		if r.Packed != nil {
			want = append(want, JSONLName(r.Name))
		}
	}
	var got []string
	for _, a := range fixtureRes.Archives {
		got = append(got, a.Name)
		if a.Size > MaxPublishSize {
			t.Errorf("%s: %d bytes, over %d", a.Name, a.Size, MaxPublishSize)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("downloads %v, want %v", got, want)
	}
}

// TestJSONLinesEqualTreeFiles: each date route's JSON Lines are its per-date files of the
// tree, byte for byte, one a line, for every date of the years, in date order.
func TestJSONLinesEqualTreeFiles(t *testing.T) {
	fixture(t)
	for _, r := range generator.Routes() {
		if r.Packed == nil {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			f, err := os.Open(filepath.Join(fixtureDist, JSONLName(r.Name)))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			gz, err := kgzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReaderSize(gz, 1<<20)
			values := r.Values(fixtureYears)
			for i, vals := range values {
				line, err := br.ReadBytes('\n')
				if err != nil {
					t.Fatalf("line %d: %v (want %d lines)", i+1, err, len(values))
				}
				want, err := os.ReadFile(filepath.Join(fixtureTree, r.FilePath(vals)))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(line, want) {
					t.Fatalf("line %d is not %s", i+1, r.FilePath(vals))
				}
			}
			if rest, _ := br.ReadBytes('\n'); len(rest) > 0 {
				t.Errorf("more than the %d records of the years", len(values))
			}
		})
	}
}

// TestDataPackageSchema validates datapackage.json against the Data Package JSON Schema
// (the Frictionless profile, testdata/data-package.schema.json).
func TestDataPackageSchema(t *testing.T) {
	dir := unpacked(t)
	c := jsonschema.NewCompiler()
	sf, err := os.Open("testdata/data-package.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	doc, err := jsonschema.UnmarshalJSON(sf)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("data-package.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	c.AssertFormat()
	sch, err := c.Compile("data-package.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	pf, err := os.Open(filepath.Join(dir, DataPackageFile))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	pkg, err := jsonschema.UnmarshalJSON(pf)
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(pkg); err != nil {
		t.Fatalf("datapackage.json: %v", err)
	}
	// And the schema fails a descriptor that breaks it: a resource without a path.
	broken := pkg.(map[string]any)
	broken["resources"] = []any{map[string]any{"name": "x"}}
	if err := sch.Validate(broken); err == nil {
		t.Error("the schema accepts a resource without a path")
	}
	// Every table resource's schema names its columns as the CSV's header does.
	var dp DataPackage
	b, _ := os.ReadFile(filepath.Join(dir, DataPackageFile))
	if err := json.Unmarshal(b, &dp); err != nil {
		t.Fatal(err)
	}
	for _, r := range dp.Resources {
		if r.Format != "csv" {
			continue
		}
		f, err := os.Open(filepath.Join(dir, r.Path))
		if err != nil {
			t.Fatal(err)
		}
		header, err := csv.NewReader(f).Read()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, fl := range r.Schema.Fields {
			names = append(names, fl.Name)
		}
		if !slices.Equal(header, names) {
			t.Errorf("%s: header %v, schema %v", r.Path, header, names)
		}
	}
}

// dateRouteKeywords is how the dataset's abstract and keywords name what a date route gives.
var dateRouteKeywords = map[string]string{
	generator.RouteLifePathDate: "life path number",
	generator.RouteMatrix:       "destiny matrix",
	generator.RouteChart:        "full destiny-matrix chart",
	generator.RouteSquare:       "Pythagoras square",
	generator.RoutePersonalYear: "personal year",
}

// TestDatasetNamesEveryDateRoute: CITATION.cff's abstract and keywords and datapackage.json's
// keywords name everything the dataset holds for a date (they once named neither the full
// chart nor the personal year).
func TestDatasetNamesEveryDateRoute(t *testing.T) {
	dir := unpacked(t)
	cff, err := os.ReadFile(filepath.Join(dir, CitationFile))
	if err != nil {
		t.Fatal(err)
	}
	var abstract string
	var cffKeywords []string
	inKeywords := false
	for _, line := range strings.Split(string(cff), "\n") {
		switch {
		case strings.HasPrefix(line, "abstract: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "abstract: ")), &abstract); err != nil {
				t.Fatalf("abstract: %v", err)
			}
		case line == "keywords:":
			inKeywords = true
		case inKeywords && strings.HasPrefix(line, "  - "):
			var k string
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "  - ")), &k); err != nil {
				t.Fatalf("keyword %s: %v", line, err)
			}
			cffKeywords = append(cffKeywords, k)
		default:
			inKeywords = false
		}
	}
	var dp DataPackage
	b, _ := os.ReadFile(filepath.Join(dir, DataPackageFile))
	if err := json.Unmarshal(b, &dp); err != nil {
		t.Fatal(err)
	}
	dates := 0
	for _, r := range generator.Routes() {
		if r.Packed == nil {
			continue
		}
		dates++
		k, ok := dateRouteKeywords[r.Name]
		if !ok {
			t.Errorf("route %s gives a record per date, but dateRouteKeywords has no name for it", r.Name)
			continue
		}
		if !strings.Contains(abstract, k) {
			t.Errorf("%s: the abstract does not name %q: %s", CitationFile, k, abstract)
		}
		if !slices.Contains(cffKeywords, k) {
			t.Errorf("%s: keywords %q lack %q", CitationFile, cffKeywords, k)
		}
		if !slices.Contains(dp.Keywords, k) {
			t.Errorf("%s: keywords %q lack %q", DataPackageFile, dp.Keywords, k)
		}
	}
	if dates < len(dateRouteKeywords) {
		t.Errorf("%d routes of a date, %d names: a name for a route that is gone", dates, len(dateRouteKeywords))
	}
}

// tool returns the path of a command the test drives; it fails when it is missing.
func tool(t *testing.T, name, install string) string {
	t.Helper()
	testsupport.SkipShort(t, "drives "+name)
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found: %s", name, install)
	}
	return p
}

// TestSQLite3: Debian's sqlite3 runs the README's example queries on the database, and
// PRAGMA integrity_check and foreign_key_check find nothing wrong; every table has the
// rows pack counted.
func TestSQLite3(t *testing.T) {
	sqlite := tool(t, "sqlite3", "apt-get install sqlite3 (make test-tools)")
	dir := unpacked(t)
	db := filepath.Join(dir, SQLite)
	run := func(q string) string {
		t.Helper()
		out, err := exec.Command(sqlite, "-readonly", "-bail", db, q).CombinedOutput()
		if err != nil {
			t.Fatalf("sqlite3 %q: %v\n%s", q, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run("PRAGMA integrity_check;"); got != "ok" {
		t.Errorf("integrity_check: %s", got)
	}
	if got := run("PRAGMA foreign_key_check;"); got != "" {
		t.Errorf("foreign_key_check: %s", got)
	}
	readme, err := os.ReadFile(filepath.Join(dir, ReadmeFile))
	if err != nil {
		t.Fatal(err)
	}
	queries := ExampleQueries(readme)
	if len(queries) < 4 {
		t.Fatalf("the README has %d example queries", len(queries))
	}
	for _, q := range queries {
		if out := run(q); out == "" {
			t.Errorf("%s: no rows", q)
		}
	}
	for _, tr := range fixtureRes.Tables {
		if got := run("SELECT count(*) FROM " + tr.Name + ";"); got != strconv.Itoa(tr.Rows) {
			t.Errorf("%s: %s rows, pack counted %d", tr.Name, got, tr.Rows)
		}
	}
	if got := run("SELECT value FROM meta WHERE key = 'content_date';"); got != "2026-01-02" {
		t.Errorf("meta content_date %q", got)
	}
	// A date is looked up by the primary key's index, not a scan, in every table of a date.
	dated := strings.Fields(run("SELECT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS p WHERE m.type = 'table' AND p.name = 'date' AND p.pk = 1;"))
	if len(dated) < 4 {
		t.Errorf("tables keyed by the date: %v", dated)
	}
	for _, name := range dated {
		plan := run("EXPLAIN QUERY PLAN SELECT * FROM " + name + " WHERE date = '2000-02-29';")
		if strings.Contains(plan, "SCAN") {
			t.Errorf("%s: a date's lookup scans: %s", name, plan)
		}
	}
}

// TestDuckDB: DuckDB reads every Parquet and CSV table; its row counts are pack's, the
// Parquet columns have types (not strings), and a sample of rows equals the CSV's.
func TestDuckDB(t *testing.T) {
	node := tool(t, "node", "install Node.js")
	script, err := filepath.Abs("packtest/tables.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("packtest/node_modules/@duckdb/node-api"); err != nil {
		t.Fatal("packtest's npm packages are not installed: run make test-tools")
	}
	dir := unpacked(t)
	// The sample: the first, middle and last row of each table whose first column tells
	// its rows apart.
	want := map[string][]string{}
	for _, tr := range fixtureRes.Tables {
		rows := readCSV(t, filepath.Join(dir, CSVDir, tr.Name+".csv"))
		firsts := map[string]bool{}
		for _, row := range rows[1:] {
			firsts[row[0]] = true
		}
		if len(firsts) != len(rows)-1 {
			continue
		}
		for _, i := range []int{1, len(rows) / 2, len(rows) - 1} {
			want[tr.Name] = append(want[tr.Name], rows[i][0])
		}
	}
	if len(want) < 8 {
		t.Fatalf("a sample of %d tables", len(want))
	}
	arg, _ := json.Marshal(want)
	out, err := exec.Command(node, script, dir, string(arg)).Output()
	if err != nil {
		t.Fatalf("node tables.mjs: %v\n%s", err, out)
	}
	var got map[string]struct {
		Rows    int                 `json:"rows"`
		Columns [][2]string         `json:"columns"`
		Sample  map[string][]string `json:"sample"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	for _, tr := range fixtureRes.Tables {
		rows := readCSV(t, filepath.Join(dir, CSVDir, tr.Name+".csv"))
		for _, ext := range []string{"parquet", "csv"} {
			name := ext + "/" + tr.Name + "." + ext
			g, ok := got[name]
			switch {
			case !ok:
				t.Errorf("%s: DuckDB did not read it", name)
				continue
			case g.Rows != tr.Rows:
				t.Errorf("%s: DuckDB counts %d rows, pack %d", name, g.Rows, tr.Rows)
			}
			for _, row := range rows[1:] {
				s, ok := g.Sample[row[0]]
				if !ok || !slices.Contains(want[tr.Name], row[0]) {
					continue
				}
				if !slices.Equal(s, row) {
					t.Errorf("%s, row %s: DuckDB reads %v, the CSV holds %v", name, row[0], s, row)
				}
			}
			if len(g.Sample) != len(slices.Compact(slices.Clone(want[tr.Name]))) {
				t.Errorf("%s: DuckDB found %d of the sample's rows %v", name, len(g.Sample), want[tr.Name])
			}
			if ext == "parquet" {
				for i, c := range g.Columns {
					if i < len(rows[0]) && c[0] != rows[0][i] {
						t.Errorf("%s: column %d is %s, the CSV's %s", name, i, c[0], rows[0][i])
					}
					if c[0] == "date" && c[1] != "DATE" || c[0] == "year" && c[1] != "INTEGER" {
						t.Errorf("%s: column %s is %s", name, c[0], c[1])
					}
				}
			}
		}
	}
}

func readCSV(t *testing.T, p string) [][]string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestVerifyArchiveClean: verify --archive finds nothing wrong in the fixture's downloads.
func TestVerifyArchiveClean(t *testing.T) {
	fixture(t)
	for _, a := range fixtureRes.Archives {
		rep, err := VerifyArchive(t.Context(), a.Path, VerifyOptions{Content: testContent})
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		if len(rep.Problems) > 0 || rep.Files == 0 {
			t.Errorf("%s: %d files, problems %v", a.Name, rep.Files, rep.Problems)
		}
	}
}

// TestVerifyArchiveChangedRecord: one changed record of a JSON Lines download is reported
// with its line, date and field.
func TestVerifyArchiveChangedRecord(t *testing.T) {
	fixture(t)
	var route manifest.Route
	for _, r := range generator.Routes() {
		if r.Packed != nil {
			route = r
			break
		}
	}
	src := filepath.Join(fixtureDist, JSONLName(route.Name))
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := kgzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	all.ReadFrom(gz)
	f.Close()
	lines := bytes.SplitAfter(all.Bytes(), []byte("\n"))
	lines[59] = bytes.Replace(lines[59], []byte(`"year":1996`), []byte(`"year":1997`), 1)
	var out bytes.Buffer
	w := kgzip.NewWriter(&out)
	w.Write(bytes.Join(lines, nil))
	w.Close()
	bad := filepath.Join(t.TempDir(), JSONLName(route.Name))
	if err := os.WriteFile(bad, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyArchive(t.Context(), bad, VerifyOptions{Content: testContent})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) == 0 || !strings.Contains(fmt.Sprint(rep.Problems), "line 60") {
		t.Errorf("problems %v, want one of line 60", rep.Problems)
	}
}
