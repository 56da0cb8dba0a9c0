package pack

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/goccy/go-json"
	kgzip "github.com/klauspost/compress/gzip"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// The tests share one tree of fixtureYears, generated, packed and published once (TestMain);
// what needs every date of 1900–2100 (the 73,414 rows of matrix.csv) reads the full-range
// tree of generatortest.FullTree in TestFullRangeTables.
var (
	fixtureDir  string // the tree, packed and published
	fixtureDist string // the archives
	fixture     *Result
	fixtureOpts Options
	fixtureSite *generator.Site
)

// fixtureYears are the years of the fixture's tree: two, so that the tables run across a
// year, one of them a leap year.
var fixtureYears = []int{1990, 2000}

// fixtureDates is how many dates the fixture's tree has.
var fixtureDates = rules.DatesInYears(fixtureYears)

const fullDates = 73414

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	defer testsupport.MemoryTempDir()()
	tmp, err := os.MkdirTemp("", "pack-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if err := setup(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "pack test setup:", err)
		return 1
	}
	return m.Run()
}

func setup(tmp string) error {
	fixtureDir, fixtureDist = filepath.Join(tmp, "out"), filepath.Join(tmp, "dist")
	site, err := generatortest.Generate(fixtureDir, fixtureYears...)
	if err != nil {
		return err
	}
	fixtureSite = site
	c := site.Content
	fixtureOpts = Options{Dir: fixtureDir, To: fixtureDist, Publish: true, Publisher: c.Site.Publisher, Title: c.Site.Title, LicenseName: c.Site.LicenseName,
		Disclaimer: c.Site.Disclaimer, DisclaimerEN: c.Site.DisclaimerEN}
	fixture, err = Pack(context.Background(), fixtureOpts)
	return err
}

// archiveEntry is one entry as read back from an archive.
type archiveEntry struct {
	name    string
	dir     bool
	mode    int64
	modTime time.Time
	body    []byte
}

func archivePath(ext string) string {
	return filepath.Join(fixtureDist, BaseName(manifest.APIVersion)+ext)
}

func readTarGz(t *testing.T, file string) []archiveEntry {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := kgzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.Equal(DefaultModTime) {
		t.Errorf("gzip header: name %q time %v, want no name and %v", gz.Name, gz.ModTime, DefaultModTime)
	}
	tr := tar.NewReader(gz)
	var out []archiveEntry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || len(h.PAXRecords) != 0 {
			t.Errorf("%s: owner %d:%d %q:%q, PAX %v; want 0:0, no names, no PAX records", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.PAXRecords)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, archiveEntry{h.Name, h.Typeflag == tar.TypeDir, h.Mode, h.ModTime, body})
	}
}

func readZip(t *testing.T, file string) []archiveEntry {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var out []archiveEntry
	for _, f := range zr.File {
		if len(f.Extra) != 0 || f.Comment != "" {
			t.Errorf("%s: extra field %x comment %q, want none", f.Name, f.Extra, f.Comment)
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		out = append(out, archiveEntry{f.Name, f.Mode().IsDir(), int64(f.Mode().Perm()), f.Modified, body})
	}
	return out
}

// files maps the archive's regular files, below the top folder, to their bodies.
func files(t *testing.T, entries []archiveEntry) map[string][]byte {
	t.Helper()
	top := BaseName(manifest.APIVersion) + "/"
	m := map[string][]byte{}
	for _, e := range entries {
		rel, ok := strings.CutPrefix(e.name, top)
		if !ok {
			t.Fatalf("entry %s is outside %s", e.name, top)
		}
		if !e.dir {
			m[rel] = e.body
		}
	}
	return m
}

func TestArchiveFileList(t *testing.T) {
	m, err := manifest.LoadFull(fixtureDir) // every file, the shards' too
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"CITATION.cff", "LICENSE", "README.md", "SHA256SUMS", "datapackage.json"}
	docs := len(want)
	for _, rt := range generator.Tables() {
		want = append(want, rt.Table.File())
	}
	tables := len(want) - docs
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, "api/public/") && f.Path != manifest.EdgeFile && !strings.HasSuffix(f.Path, ".jsonl") {
			want = append(want, f.Path)
		}
	}
	slices.Sort(want)
	if n := len(want) - docs - tables - 12 - 1; n < fixtureDates {
		t.Fatalf("the tree lists %d matrix records, want at least %d", n, fixtureDates)
	}
	for _, tc := range []struct {
		name string
		read func(*testing.T, string) []archiveEntry
		ext  string
	}{
		{"tar.gz", func(t *testing.T, _ string) []archiveEntry { return tarEntriesOf(t) }, TarGz},
		{"zip", readZip, Zip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := tc.read(t, archivePath(tc.ext))
			var names, got []string
			for _, e := range entries {
				names = append(names, e.name)
				wantMode := int64(0o644)
				if e.dir {
					wantMode = 0o755
				}
				if e.mode != wantMode {
					t.Errorf("%s: mode %o, want %o", e.name, e.mode, wantMode)
				}
				if tc.ext == TarGz && !e.modTime.Equal(DefaultModTime) {
					t.Errorf("%s: time %v, want %v", e.name, e.modTime, DefaultModTime)
				}
				if tc.ext == Zip && e.modTime.Format(time.DateTime) != DefaultModTime.Format(time.DateTime) {
					t.Errorf("%s: time %v, want %v", e.name, e.modTime, DefaultModTime)
				}
			}
			if !slices.IsSorted(names) {
				t.Error("entries are not sorted by name")
			}
			for name := range files(t, entries) {
				got = append(got, name)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("files: got %d, want %d; first difference: %s", len(got), len(want), firstDiff(got, want))
			}
			if slices.Contains(got, manifest.EdgeFile) || slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "downloads/") }) {
				t.Error("the archive holds edge.json or downloads/")
			}
			if fixture.Entries != len(want) {
				t.Errorf("Result.Entries = %d, want %d", fixture.Entries, len(want))
			}
		})
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("got %q, want %q", got[i], want[i])
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("extra %q", got[len(want)])
	}
	if len(want) > len(got) {
		return fmt.Sprintf("missing %q", want[len(got)])
	}
	return "none"
}

var (
	tarOnce    sync.Once
	tarEntries []archiveEntry
)

// tarEntriesOf reads the fixture's .tar.gz once for all tests.
func tarEntriesOf(t *testing.T) []archiveEntry {
	t.Helper()
	tarOnce.Do(func() { tarEntries = readTarGz(t, archivePath(TarGz)) })
	if tarEntries == nil {
		t.Fatal("the .tar.gz could not be read")
	}
	return tarEntries
}

// tarFiles maps the fixture's .tar.gz files to their bodies.
func tarFiles(t *testing.T) map[string][]byte {
	t.Helper()
	return files(t, tarEntriesOf(t))
}

func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// columns are the header of a table of generator.Tables.
func columns(t *testing.T, file string) []string {
	t.Helper()
	for _, rt := range generator.Tables() {
		if rt.Table.File() == file {
			var out []string
			for _, f := range rt.Table.Fields {
				out = append(out, f.Name)
			}
			return out
		}
	}
	t.Fatalf("no table %s", file)
	return nil
}

func TestTablesAgreeWithRecords(t *testing.T) {
	fs := tarFiles(t)
	t.Run("matrix.csv", func(t *testing.T) {
		if fixture.MatrixRows != fixtureDates {
			t.Errorf("Result.MatrixRows = %d, want %d", fixture.MatrixRows, fixtureDates)
		}
		checkMatrixCSV(t, fs[MatrixCSV], func(rel string) (matrixArcana, error) {
			body, ok := fs[rel]
			if !ok {
				return matrixArcana{}, errors.New("no JSON record in the archive")
			}
			return decodeMatrix(body)
		}, fixtureYears)
	})
	t.Run("arcana.csv", func(t *testing.T) {
		rows := readCSV(t, fs[ArcanaCSV])
		if cols := columns(t, ArcanaCSV); !slices.Equal(rows[0], cols) || len(rows) != 23 {
			t.Fatalf("header %v and %d rows, want %v and 22 rows", rows[0], len(rows)-1, cols)
		}
		var rec generator.MatrixRecord
		if err := json.Unmarshal(fs[manifest.MatrixFile(15, 5, 1990)], &rec); err != nil {
			t.Fatal(err)
		}
		for _, c := range rec.Matrix.Cells() {
			if got, want := rows[c.Arcana][:4], []string{strconv.Itoa(c.Arcana), c.Name, c.Keyword, c.Emoji}; !slices.Equal(got, want) {
				t.Errorf("arcana %d: %v, the matrix record says %v", c.Arcana, got, want)
			}
		}
		for _, row := range rows[1:] {
			var a generator.ArcanaRecord
			if err := json.Unmarshal(fs["api/public/arcana/"+row[0]+".json"], &a); err != nil {
				t.Fatal(err)
			}
			if want := []string{strconv.Itoa(a.Number), a.Name, a.Keyword, a.Emoji, a.Description}; !slices.Equal(row, want) {
				t.Errorf("arcana %s: %v, its record says %v", row[0], row, want)
			}
		}
		if got := rows[22][1]; got != "Шут" {
			t.Errorf("arcana 22 is %q, want Шут", got)
		}
	})
	t.Run("life-path.csv", func(t *testing.T) {
		rows := readCSV(t, fs[LifePathCSV])
		var items []generator.LifePathItem
		if err := json.Unmarshal(fs[manifest.ListFile], &items); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rows[0], columns(t, LifePathCSV)) || len(rows) != 13 || len(items) != 12 {
			t.Fatalf("header %v, %d rows, %d list items; want %v, 12, 12", rows[0], len(rows)-1, len(items), columns(t, LifePathCSV))
		}
		for i, it := range items {
			if want := []string{strconv.Itoa(it.Number), it.Archetype, it.Tagline, it.ShortDescription}; !slices.Equal(rows[i+1], want) {
				t.Errorf("row %d: %v, want %v", i+1, rows[i+1], want)
			}
		}
	})
	t.Run("SHA256SUMS", func(t *testing.T) {
		sums := map[string]string{}
		for l := range SumsLines(fs[SumsFile]) {
			if l.Sum == nil {
				t.Fatalf("line %d: not \"<sha256 hex>  <path>\"", l.N)
			}
			sums[string(l.Name)] = string(l.Sum)
		}
		if len(sums) != len(fs)-1 {
			t.Errorf("%d sums for %d other files", len(sums), len(fs)-1)
		}
		for name, body := range fs {
			if name != SumsFile && sums[name] != testsupport.SHA256Hex(body) {
				t.Errorf("%s: wrong or missing sum", name)
			}
		}
	})
	t.Run("CITATION.cff", func(t *testing.T) {
		cff := string(fs[CitationFile])
		for _, want := range []string{"cff-version: 1.2.0\n", "message: ", "title: ", "authors:\n  - name: \"Open Numerology Data\"\n", "license: CC-BY-4.0\n", "url: \"https://", "version: \"1.0\"\n"} {
			if !strings.Contains(cff, want) {
				t.Errorf("CITATION.cff lacks %q", want)
			}
		}
	})
}

// matrixArcana is what matrix.csv repeats of a matrix record: its date and its arcana.
type matrixArcana struct {
	input  generator.DateInput
	arcana [rules.NumPositions]int
}

func decodeMatrix(body []byte) (matrixArcana, error) {
	var rec generator.MatrixRecord
	if err := json.Unmarshal(body, &rec); err != nil {
		return matrixArcana{}, err
	}
	out := matrixArcana{input: rec.Input}
	for p, c := range rec.Matrix.Cells() {
		out.arcana[p] = c.Arcana
	}
	return out, nil
}

// checkMatrixCSV checks matrix.csv against the matrix records (record gives that of a file
// of the tree): its header, one row for every date of the years, sorted by date, each with
// its record's arcana.
func checkMatrixCSV(t *testing.T, csvBody []byte, record func(rel string) (matrixArcana, error), years []int) {
	t.Helper()
	rows := readCSV(t, csvBody)
	if !slices.Equal(rows[0], columns(t, MatrixCSV)) {
		t.Fatalf("header %v, want %v", rows[0], columns(t, MatrixCSV))
	}
	rows = rows[1:]
	want := rules.DatesInYears(years)
	if len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	seen := map[string]bool{}
	prev := ""
	for _, row := range rows {
		date := row[0]
		if date <= prev {
			t.Fatalf("row %s after %s: not sorted by date", date, prev)
		}
		prev, seen[date] = date, true
		d, m, y := atoi(t, row[1]), atoi(t, row[2]), atoi(t, row[3])
		if date != fmt.Sprintf("%04d-%02d-%02d", y, m, d) {
			t.Fatalf("row %v: date and day/month/year disagree", row)
		}
		rec, err := record(manifest.MatrixFile(d, m, y))
		if err != nil {
			t.Fatalf("row %s: %v", date, err)
		}
		if rec.input != (generator.DateInput{Day: d, Month: m, Year: y}) {
			t.Fatalf("row %s: record input %+v", date, rec.input)
		}
		for p, a := range rec.arcana {
			if got := atoi(t, row[4+p]); got != a {
				t.Fatalf("row %s, %s: %d in the CSV, %d in the JSON record", date, columns(t, MatrixCSV)[4+p], got, a)
			}
		}
	}
	if len(seen) != want {
		t.Errorf("%d distinct dates, want %d", len(seen), want)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestReproducible(t *testing.T) {
	opts := fixtureOpts
	opts.To, opts.Publish = t.TempDir(), false
	res, err := Pack(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range res.Archives {
		want, err := os.ReadFile(fixture.Archives[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: a second pack of the same tree differs", a.Name)
		}
		if a.SHA256 != fixture.Archives[i].SHA256 || a.Size != int64(len(got)) || a.SHA256 != testsupport.SHA256Hex(got) {
			t.Errorf("%s: Result size/sha256 %d/%s do not describe the file", a.Name, a.Size, a.SHA256)
		}
	}
}

func TestPublishedTreeVerifies(t *testing.T) {
	res, err := generator.Verify(context.Background(), fixtureDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Problems {
		t.Errorf("verify after pack: %s", p)
	}
	idx := res.Manifest.Index()
	for _, a := range fixture.Archives {
		f, listed := idx[manifest.DownloadsDir+"/"+a.Name]
		if a.Published != (a.Size <= MaxPublishSize) || listed != a.Published {
			t.Errorf("%s: %d bytes, published %v, listed %v; want published and listed exactly when ≤ %d", a.Name, a.Size, a.Published, listed, MaxPublishSize)
		}
		if listed && (f.Size != a.Size || f.SHA256 != a.SHA256) {
			t.Errorf("%s: manifest says %d/%s, the archive is %d/%s", a.Name, f.Size, f.SHA256, a.Size, a.SHA256)
		}
	}
	if !fixture.Archives[0].Published {
		t.Errorf("the .tar.gz (%d bytes) was not published", fixture.Archives[0].Size)
	}
	full, err := manifest.LoadFull(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, f := range full.Files {
		total += f.Size
	}
	if c := res.Manifest.Counts; c.Files != len(full.Files) || c.Bytes != total || c.Routes[manifest.RouteMatrix] != fixtureDates {
		t.Errorf("counts %+v, want files %d bytes %d matrix %d", c, len(full.Files), total, fixtureDates)
	}
}

func TestPublishReplacesStaleDownloads(t *testing.T) {
	dir := t.TempDir()
	edge, err := generatortest.Site(t).EdgeConfig()
	if err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{
		Format:     manifest.FormatVersion,
		APIVersion: manifest.APIVersion,
		Edge:       edge,
		Counts:     manifest.Counts{Files: 2, Bytes: 6},
		Files:      []manifest.File{{Path: "a.json", Size: 1, SHA256: "x"}, {Path: "downloads/old.zip", Size: 5, SHA256: "y"}}}
	if err := os.MkdirAll(filepath.Join(dir, "downloads"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"downloads/old.zip", "small.tar.gz", "big.zip"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("12345"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	archives := []Archive{
		{Name: "small.tar.gz", Path: filepath.Join(dir, "small.tar.gz"), Size: 5, SHA256: "s"},
		{Name: "big.zip", Path: filepath.Join(dir, "big.zip"), Size: MaxPublishSize + 1, SHA256: "b"},
	}
	if err := publish(dir, m, archives); err != nil {
		t.Fatal(err)
	}
	back, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []manifest.File{{Path: "a.json", Size: 1, SHA256: "x"}, {Path: "downloads/small.tar.gz", Size: 5, SHA256: "s"}}
	if !slices.Equal(back.Files, want) || back.Counts.Files != 2 || back.Counts.Bytes != 6 {
		t.Errorf("manifest files %v counts %+v, want %v, 2 files, 6 bytes", back.Files, back.Counts, want)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "downloads"))
	if len(entries) != 1 || entries[0].Name() != "small.tar.gz" {
		t.Errorf("downloads/ holds %v, want only small.tar.gz", entries)
	}
	if !archives[0].Published || archives[1].Published {
		t.Errorf("published flags %v %v, want true false", archives[0].Published, archives[1].Published)
	}
}

func TestInterruptedPackLeavesPreviousArchives(t *testing.T) {
	to := t.TempDir()
	prev := filepath.Join(to, BaseName(manifest.APIVersion)+TarGz)
	if err := os.WriteFile(prev, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts := fixtureOpts
	opts.To, opts.Publish = to, false
	if _, err := Pack(ctx, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(to)
	if b, _ := os.ReadFile(prev); string(b) != "previous" || len(entries) != 1 {
		t.Errorf("after an interrupted pack: %v in %s, previous archive %q", entries, to, b)
	}
}

// TestPublishRemovesOnlyItsOwn checks what publish may delete: the downloads its manifest
// lists and an interrupted publish's temporary files; the user's files in downloads/ stay,
// and a downloads/ that is a link is refused with the folder it points to untouched.
// Before, publish removed every file of downloads/ it did not keep, through a link too.
func TestPublishRemovesOnlyItsOwn(t *testing.T) {
	newManifest := func() *manifest.Manifest {
		return &manifest.Manifest{
			APIVersion: manifest.APIVersion,
			Edge: manifest.EdgeConfig{
				Errors:  map[string]manifest.ErrorResponse{"not_found": {Status: 404}},
				Headers: manifest.Headers{Common: map[string]string{"X": "y"}},
			},
			Files: []manifest.File{{Path: "a.json", Size: 1, SHA256: "x"}, {Path: "downloads/numerology-dataset-0.9.tar.gz", Size: 3, SHA256: "y"}},
		}
	}
	write := func(t *testing.T, dir string, files ...string) {
		t.Helper()
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("real folder", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "numerology-dataset-1.0.tar.gz", "downloads/numerology-dataset-0.9.tar.gz",
			"downloads/.numerology-dataset-1.0.tar.gz.tmp-42", "downloads/report.pdf", "downloads/.report.pdf.tmp-x", "downloads/numerology-dataset-0.8.zip")
		archives := []Archive{{Name: "numerology-dataset-1.0.tar.gz", Path: filepath.Join(dir, "numerology-dataset-1.0.tar.gz"), Size: 3, SHA256: "s"}}
		if err := publish(dir, newManifest(), archives); err != nil {
			t.Fatal(err)
		}
		var got []string
		entries, _ := os.ReadDir(filepath.Join(dir, "downloads"))
		for _, e := range entries {
			got = append(got, e.Name())
		}
		want := []string{".report.pdf.tmp-x", "numerology-dataset-0.8.zip", "numerology-dataset-1.0.tar.gz", "report.pdf"}
		if !slices.Equal(got, want) {
			t.Errorf("downloads/ holds %q, want %q", got, want)
		}
	})
	t.Run("link", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		write(t, dir, "numerology-dataset-1.0.tar.gz")
		write(t, elsewhere, "numerology-dataset-0.9.tar.gz", "photo.jpg")
		if err := os.Symlink(elsewhere, filepath.Join(dir, "downloads")); err != nil {
			t.Fatal(err)
		}
		archives := []Archive{{Name: "numerology-dataset-1.0.tar.gz", Path: filepath.Join(dir, "numerology-dataset-1.0.tar.gz"), Size: 3, SHA256: "s"}}
		err := publish(dir, newManifest(), archives)
		if err == nil || !strings.Contains(err.Error(), "it is not a folder of the tree (a link)") {
			t.Errorf("publish through a link: %v, want a refusal", err)
		}
		entries, _ := os.ReadDir(elsewhere)
		if len(entries) != 2 {
			t.Errorf("the linked folder holds %v, want its 2 files untouched", entries)
		}
		if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); !os.IsNotExist(err) {
			t.Errorf("the manifest was rewritten: %v", err)
		}
	})
}
