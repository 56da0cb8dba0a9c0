package pack

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
	kgzip "github.com/klauspost/compress/gzip"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/humanize"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// Frictionless Data Package rules this validator enforces (datapackage v1 / v2 specs).
var (
	namePattern = regexp.MustCompile(`^[a-z0-9._-]+$`)
	hashPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	fieldTypes  = []string{"string", "number", "integer", "boolean", "object", "array", "date", "time",
		"datetime", "year", "yearmonth", "duration", "geopoint", "geojson", "any", "list"}
)

// validateDataPackage checks a datapackage.json against the Frictionless rules we claim,
// and each resource against the files of the package. It returns every problem.
func validateDataPackage(desc []byte, files map[string][]byte) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	var pkg map[string]any
	if err := json.Unmarshal(desc, &pkg); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	if name, _ := pkg["name"].(string); !namePattern.MatchString(name) {
		bad("package name %q is not lowercase [a-z0-9._-]", name)
	}
	for _, k := range []string{"title", "version", "homepage"} {
		if s, _ := pkg[k].(string); s == "" {
			bad("package %s is missing", k)
		}
	}
	licenses, _ := pkg["licenses"].([]any)
	if len(licenses) == 0 {
		bad("no licenses")
	}
	for _, l := range licenses {
		lm, _ := l.(map[string]any)
		if lm["name"] != LicenseID || lm["path"] != LicenseURL || lm["title"] == nil {
			bad("licence %v is not CC-BY-4.0 with path and title", l)
		}
	}
	sources, _ := pkg["sources"].([]any)
	if len(sources) == 0 {
		bad("no sources")
	}
	for _, s := range sources {
		sm, _ := s.(map[string]any)
		if t, _ := sm["title"].(string); t == "" {
			bad("source %v has no title", s)
		}
	}
	resources, _ := pkg["resources"].([]any)
	if len(resources) == 0 {
		bad("no resources")
	}
	names := map[string]map[string]bool{} // resource → its field names
	var fks []string
	for i, r := range resources {
		rm, _ := r.(map[string]any)
		name, _ := rm["name"].(string)
		if !namePattern.MatchString(name) {
			bad("resource %d: name %q is not lowercase [a-z0-9._-]", i, name)
		}
		if _, dup := names[name]; dup {
			bad("resource %q: duplicate name", name)
		}
		p, _ := rm["path"].(string)
		if p == "" || path.IsAbs(p) || strings.Contains(p, "://") || path.Clean(p) != p || strings.HasPrefix(p, "../") || p == ".." {
			bad("resource %q: path %q is not relative and inside the package", name, p)
		}
		for k, want := range map[string]string{"format": "csv", "mediatype": "text/csv", "encoding": "utf-8", "profile": "tabular-data-resource"} {
			if rm[k] != want {
				bad("resource %q: %s is %v, want %s", name, k, rm[k], want)
			}
		}
		body, ok := files[p]
		if !ok {
			bad("resource %q: %s is not in the package", name, p)
		}
		if n, _ := rm["bytes"].(float64); !ok || int(n) != len(body) {
			bad("resource %q: bytes %v, the file has %d", name, rm["bytes"], len(body))
		}
		h, _ := rm["hash"].(string)
		if !hashPattern.MatchString(h) {
			bad("resource %q: hash %q is not sha256:<64 lowercase hex>", name, h)
		} else if ok && h != "sha256:"+testsupport.SHA256Hex(body) {
			bad("resource %q: hash does not match %s", name, p)
		}
		schema, _ := rm["schema"].(map[string]any)
		fields, _ := schema["fields"].([]any)
		if len(fields) == 0 {
			bad("resource %q: schema has no fields", name)
		}
		names[name] = map[string]bool{}
		var header []string
		for _, f := range fields {
			fm, _ := f.(map[string]any)
			fn, _ := fm["name"].(string)
			ft, _ := fm["type"].(string)
			if fn == "" || names[name][fn] {
				bad("resource %q: field name %q empty or repeated", name, fn)
			}
			if !slices.Contains(fieldTypes, ft) {
				bad("resource %q: field %q has type %q, not a Table Schema type", name, fn, ft)
			}
			if c, ok := fm["constraints"].(map[string]any); ok {
				for k := range c {
					if !slices.Contains([]string{"required", "unique", "minimum", "maximum", "enum", "minLength", "maxLength", "pattern"}, k) {
						bad("resource %q: field %q has unknown constraint %q", name, fn, k)
					}
				}
			}
			names[name][fn] = true
			header = append(header, fn)
		}
		pk, _ := schema["primaryKey"].([]any)
		if len(pk) == 0 {
			bad("resource %q: no primaryKey", name)
		}
		for _, k := range pk {
			if ks, _ := k.(string); !names[name][ks] {
				bad("resource %q: primaryKey %v is not a field", name, k)
			}
		}
		fkList, _ := schema["foreignKeys"].([]any)
		for _, fk := range fkList {
			fkm, _ := fk.(map[string]any)
			ref, _ := fkm["reference"].(map[string]any)
			fks = append(fks, fmt.Sprintf("%s.%v>%v.%v", name, fkm["fields"], ref["resource"], ref["fields"]))
		}
		if ok && len(body) > 0 {
			first, _, _ := strings.Cut(string(body), "\n")
			if first != strings.Join(header, ",") {
				bad("resource %q: CSV header %q is not the schema's fields %q", name, first, strings.Join(header, ","))
			}
		}
	}
	for _, fk := range fks {
		from, to, _ := strings.Cut(fk, ">")
		res, field, _ := strings.Cut(from, ".")
		tres, tfield, _ := strings.Cut(to, ".")
		if !names[res][field] || !names[tres][tfield] {
			bad("foreign key %s: a field or resource does not exist", fk)
		}
	}
	return errs
}

func TestDataPackage(t *testing.T) {
	fs := tarFiles(t)
	desc := fs[DataPackageFile]
	if errs := validateDataPackage(desc, fs); len(errs) > 0 {
		t.Fatalf("datapackage.json of the pack: %s", strings.Join(errs, "; "))
	}
	var pkg DataPackage
	if err := json.Unmarshal(desc, &pkg); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range pkg.Resources {
		got = append(got, r.Path)
	}
	var want []string
	for _, rt := range generator.Tables() {
		want = append(want, rt.Table.File())
	}
	if !slices.Equal(got, want) {
		t.Errorf("resources %v, want one per CSV: %v", got, want)
	}

	// The validator itself must catch what it claims to.
	mutate := func(f func(pkg map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(desc, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	res0 := func(m map[string]any) map[string]any { return m["resources"].([]any)[0].(map[string]any) }
	field0 := func(m map[string]any) map[string]any {
		return res0(m)["schema"].(map[string]any)["fields"].([]any)[0].(map[string]any)
	}
	tests := []struct {
		name   string
		desc   []byte
		wantIn string
	}{
		{"uppercase package name", mutate(func(m map[string]any) { m["name"] = "Numerology" }), "package name"},
		{"no resources", mutate(func(m map[string]any) { m["resources"] = []any{} }), "no resources"},
		{"no licence", mutate(func(m map[string]any) { delete(m, "licenses") }), "no licenses"},
		{"md5-style hash", mutate(func(m map[string]any) { res0(m)["hash"] = strings.Repeat("a", 32) }), "is not sha256:"},
		{"wrong hash", mutate(func(m map[string]any) { res0(m)["hash"] = "sha256:" + strings.Repeat("0", 64) }), "hash does not match"},
		{"wrong bytes", mutate(func(m map[string]any) { res0(m)["bytes"] = 1 }), "bytes 1"},
		{"absolute path", mutate(func(m map[string]any) { res0(m)["path"] = "/etc/matrix.csv" }), "not relative"},
		{"escaping path", mutate(func(m map[string]any) { res0(m)["path"] = "../matrix.csv" }), "not relative"},
		{"unknown field type", mutate(func(m map[string]any) { field0(m)["type"] = "int" }), "not a Table Schema type"},
		{"resource name with space", mutate(func(m map[string]any) { res0(m)["name"] = "the matrix" }), "is not lowercase"},
		{"primary key not a field", mutate(func(m map[string]any) {
			res0(m)["schema"].(map[string]any)["primaryKey"] = []any{"nope"}
		}), "primaryKey"},
		{"renamed field", mutate(func(m map[string]any) { field0(m)["name"] = "birth_date" }), "CSV header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := validateDataPackage(tc.desc, fs)
			if !strings.Contains(strings.Join(errs, "; "), tc.wantIn) {
				t.Errorf("problems %q, want one containing %q", errs, tc.wantIn)
			}
		})
	}
}

func TestVerifyArchiveGood(t *testing.T) {
	for _, ext := range []string{TarGz, Zip} {
		t.Run(ext, func(t *testing.T) {
			rep, err := VerifyArchive(context.Background(), archivePath(ext), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Problems) > 0 || rep.Files != fixture.Entries || rep.Format != ext {
				t.Errorf("%s: format %s, %d files, problems %v; want %d files and no problem", ext, rep.Format, rep.Files, rep.Problems, fixture.Entries)
			}
		})
	}
}

// rewriteTarGz copies the fixture's .tar.gz to a new file, passing each entry through edit
// (which may change its body, or return false to drop it), then appending extra.
func rewriteTarGz(t *testing.T, edit func(h *tar.Header, body []byte) ([]byte, bool), extra map[string][]byte) string {
	t.Helper()
	in, err := os.Open(archivePath(TarGz))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	gr, err := kgzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "edited.tar.gz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gw, _ := kgzip.NewWriterLevel(f, kgzip.BestSpeed)
	tw := tar.NewWriter(gw)
	tr := tar.NewReader(gr)
	write := func(h *tar.Header, body []byte) {
		h.Size = int64(len(body))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if body, keep := edit(h, body); keep {
			write(h, body)
		}
	}
	for name, body := range extra {
		write(&tar.Header{Name: BaseName(manifest.APIVersion) + "/" + name, Mode: 0o644, Typeflag: tar.TypeReg}, body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVerifyArchiveFindsProblems damages one copy of the .tar.gz in several ways at once
// (rewriting 150 MB per case would cost more than the rest of the tests) and checks that
// each problem is reported, naming its file.
func TestVerifyArchiveFindsProblems(t *testing.T) {
	const record = "api/public/matrix/15/5/1990.json"
	edits := map[string]func([]byte) []byte{ // nil drops the file
		record:    func(b []byte) []byte { return bytes.Replace(b, []byte(`"arcana":15`), []byte(`"arcana":16`), 1) },
		MatrixCSV: func(b []byte) []byte { return append(b, "2101-01-01,1,1,2101,1,1,1,1,1,1,1,1,1,1,1,1\n"...) },
		"LICENSE": nil,
	}
	file := rewriteTarGz(t, func(h *tar.Header, body []byte) ([]byte, bool) {
		rel := strings.TrimPrefix(h.Name, BaseName(manifest.APIVersion)+"/")
		edit, ok := edits[rel]
		switch {
		case !ok:
			return body, true
		case edit == nil:
			return nil, false
		}
		return edit(body), true
	}, map[string][]byte{"notes.txt": []byte("hello\n")})
	rep, err := VerifyArchive(context.Background(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, p.String())
	}
	tests := []struct {
		name string
		want string // the start of a reported problem
	}{
		{"changed record", "corrupt: " + record + ": sha256"},
		{"changed table against SHA256SUMS", "corrupt: matrix.csv: sha256"},
		{"changed table against datapackage.json", "corrupt: matrix.csv: 3"},
		{"missing file", "missing: LICENSE: listed in SHA256SUMS"},
		{"extra file", "extra: notes.txt: not listed in SHA256SUMS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, tc.want) }) {
				t.Errorf("problems:\n%s\nwant one starting %q", strings.Join(got, "\n"), tc.want)
			}
		})
	}
	if len(got) != len(tests) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(tests), strings.Join(got, "\n"))
	}
}

func TestVerifyArchiveCorruptZip(t *testing.T) {
	const record = "api/public/matrix/15/5/1990.json"
	b, err := os.ReadFile(archivePath(Zip))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(zr.File, func(f *zip.File) bool { return strings.HasSuffix(f.Name, "/"+record) })
	if i < 0 {
		t.Fatalf("%s is not in the zip", record)
	}
	off, err := zr.File[i].DataOffset()
	if err != nil {
		t.Fatal(err)
	}
	b[off+10] ^= 0x01 // one bit of the record's bytes
	file := filepath.Join(t.TempDir(), "corrupt.zip")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyArchive(context.Background(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, p := range rep.Problems {
		if p.Kind == ProblemCorrupt && p.Path == record {
			found = true
		} else {
			t.Errorf("unexpected problem %s", p)
		}
	}
	if !found {
		t.Errorf("problems %v, want corrupt: %s", rep.Problems, record)
	}
}

func TestVerifyArchiveNotAnArchive(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.tar.gz")
	if err := os.WriteFile(file, []byte("hello, world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyArchive(context.Background(), file, nil); err == nil || !strings.Contains(err.Error(), ErrNotArchive.Error()) {
		t.Errorf("err = %v, want %v", err, ErrNotArchive)
	}
}

// TestVerifyArchiveBounds checks the bounds on what VerifyArchive holds: an entry name over
// MaxEntryName bytes is reported and not kept, and an archive of more than MaxEntries
// entries is reported and not read further. (A SHA256SUMS over MaxKeptEntry is checked under
// a memory limit by the command's tests.)
func TestVerifyArchiveBounds(t *testing.T) {
	top := BaseName(manifest.APIVersion) + "/"
	file := filepath.Join(t.TempDir(), "bounds.tar.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	gw, _ := kgzip.NewWriterLevel(f, kgzip.BestSpeed)
	tw := tar.NewWriter(gw)
	long := top + strings.Repeat("x", MaxEntryName)
	if err := tw.WriteHeader(&tar.Header{Name: long, Typeflag: tar.TypeReg, Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	for i := range MaxEntries {
		if err := tw.WriteHeader(&tar.Header{Name: top + "d" + strconv.Itoa(i) + "/", Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []io.Closer{tw, gw, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := VerifyArchive(context.Background(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, p.String())
	}
	for _, want := range []string{
		fmt.Sprintf("entry name of %d bytes, longer than %d", len(long), MaxEntryName),
		fmt.Sprintf("the archive has more than %s entries; the rest is not checked", humanize.Count(MaxEntries)),
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("problems:\n%s\nwant one with %q", strings.Join(got, "\n"), want)
		}
	}
}

// testEntry is a file of a hand-made archive, below the dataset's top folder.
type testEntry struct {
	name string
	body []byte
}

// writeTestArchive writes entries as a .tar.gz or a .zip (ext) in that order.
func writeTestArchive(t *testing.T, ext string, entries []testEntry) string {
	t.Helper()
	top := BaseName(manifest.APIVersion) + "/"
	file := filepath.Join(t.TempDir(), "test"+ext)
	var buf bytes.Buffer
	switch ext {
	case TarGz:
		gw, _ := kgzip.NewWriterLevel(&buf, kgzip.BestSpeed)
		tw := tar.NewWriter(gw)
		for _, e := range entries {
			if err := tw.WriteHeader(&tar.Header{Name: top + e.name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(e.body))}); err != nil {
				t.Fatal(err)
			}
			tw.Write(e.body)
		}
		if err := errors.Join(tw.Close(), gw.Close()); err != nil {
			t.Fatal(err)
		}
	case Zip:
		zw := zip.NewWriter(&buf)
		for _, e := range entries {
			w, err := zw.Create(top + e.name)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(e.body)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// sumsOf is a SHA256SUMS listing entries.
func sumsOf(entries ...testEntry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, "%s  %s\n", testsupport.SHA256Hex(e.body), e.name)
	}
	return b.Bytes()
}

// problemLines are a report's problems as printed.
func problemLines(rep *ArchiveReport) []string {
	var out []string
	for _, p := range rep.Problems {
		out = append(out, p.String())
	}
	return out
}

// TestVerifyArchiveProblemsCapped checks that a report keeps the first MaxProblems problems,
// in the order of the listing's lines, and counts the others.
func TestVerifyArchiveProblemsCapped(t *testing.T) {
	for _, ext := range []string{TarGz, Zip} {
		t.Run(ext, func(t *testing.T) {
			file := writeTestArchive(t, ext, []testEntry{{SumsFile, bytes.Repeat([]byte("\n"), 150)}})
			rep, err := VerifyArchive(t.Context(), file, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := problemLines(rep)
			// 150 malformed lines (the last newline ends the 150th) and no datapackage.json.
			if len(got) != MaxProblems || rep.More != 51 || got[0] != "invalid: SHA256SUMS: line 1: not \"<sha256 hex>  <path>\"" ||
				!strings.Contains(got[MaxProblems-1], "line 100:") {
				t.Errorf("%d problems and %d more, want %d and 51, from line 1 to 100:\n%s", len(got), rep.More, MaxProblems, strings.Join(got, "\n"))
			}
		})
	}
}

// TestVerifyArchiveListingLast checks an archive whose SHA256SUMS comes after the files: the
// files it does not list are still named (found again by a second reading), one it lists
// twice is reported, and a file of the listing that is absent is missing.
func TestVerifyArchiveListingLast(t *testing.T) {
	a, b := testEntry{"a.txt", []byte("a\n")}, testEntry{"b.txt", []byte("b\n")}
	c := testEntry{"c.txt", []byte("c\n")}
	for _, ext := range []string{TarGz, Zip} {
		t.Run(ext, func(t *testing.T) {
			sums := append(sumsOf(b, c, b), sumsOf(testEntry{"gone.txt", nil})...)
			file := writeTestArchive(t, ext, []testEntry{a, b, c, {"d/e.txt", nil}, {SumsFile, sums}, {DataPackageFile, []byte(`{"resources":[]}`)}})
			rep, err := VerifyArchive(t.Context(), file, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{ // sorted by path, then kind
				"invalid: SHA256SUMS: line 3: b.txt is listed a second time",
				"extra: a.txt: not listed in SHA256SUMS",
				"extra: d/e.txt: not listed in SHA256SUMS",
				"extra: datapackage.json: not listed in SHA256SUMS",
				"invalid: datapackage.json: no resources",
				"missing: gone.txt: listed in SHA256SUMS but not in the archive",
			}
			if got := problemLines(rep); !slices.Equal(got, want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestVerifyArchiveExpansionBudget checks that reading stops once the archive has expanded
// past the budget, says so, and reports what the listing names past that point as not
// reached rather than absent.
func TestVerifyArchiveExpansionBudget(t *testing.T) {
	defer func(old int64) { maxExpanded = old }(maxExpanded)
	maxExpanded = 1 << 20
	big := func(name string) testEntry { return testEntry{name, bytes.Repeat([]byte{'x'}, 700<<10)} }
	x, y, z := big("x.txt"), big("y.txt"), big("z.txt")
	for _, ext := range []string{TarGz, Zip} {
		t.Run(ext, func(t *testing.T) {
			file := writeTestArchive(t, ext, []testEntry{{SumsFile, sumsOf(x, y, z)}, x, y, z})
			rep, err := VerifyArchive(t.Context(), file, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(problemLines(rep), "\n")
			for _, want := range []string{
				"invalid: y.txt: the archive expands to more than 1 MiB, more than any dataset; reading stopped here",
				"missing: z.txt: listed in SHA256SUMS, not among the entries read before reading stopped",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("problems:\n%s\nwant %q", got, want)
				}
			}
			if rep.Expanded > maxExpanded+1 {
				t.Errorf("expanded %d bytes, budget %d", rep.Expanded, maxExpanded)
			}
		})
	}
}

// TestVerifyArchiveCancelled checks that a cancelled check returns the context's error, not
// a problem of the archive.
func TestVerifyArchiveCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, ext := range []string{TarGz, Zip} {
		if _, err := VerifyArchive(ctx, archivePath(ext), nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", ext, err)
		}
	}
}
