package pack

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// fullTables builds the dataset's tables and documents from the tree in dir as Pack does
// (newTables, buildFiles), reading only the files the tables draw on, and returns them by
// name with the matrix records' arcana by path. It writes no archive: the archives are
// checked on the fixture's pack, whose tables it gives alike (TestFullTablesAsPack).
func fullTables(t *testing.T, dir string) (map[string][]byte, map[string]matrixArcana) {
	t.Helper()
	m, src, err := packedFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	tb := newTables()
	var need []manifest.File
	for _, f := range src {
		if _, ok := tb.lifePath.MatchFile(f.Path); ok {
			need = append(need, f)
			continue
		}
		for _, rt := range tb.list {
			if _, ok := rt.Route.MatchFile(f.Path); ok {
				need = append(need, f)
				break
			}
		}
	}
	var matrix manifest.Route
	for _, r := range generator.Routes() {
		if r.Name == manifest.RouteMatrix {
			matrix = r
		}
	}
	var mu sync.Mutex
	records := map[string]matrixArcana{}
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(need); i += workers {
				f := need[i]
				body, err := readFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Size)
				if err == nil {
					err = tb.add(f.Path, body)
				}
				if _, ok := matrix.MatchFile(f.Path); ok && err == nil {
					var rec matrixArcana
					if rec, err = decodeMatrix(body); err == nil {
						mu.Lock()
						records[f.Path] = rec
						mu.Unlock()
					}
				}
				if err != nil {
					errs[w] = fmt.Errorf("%s: %w", f.Path, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.finish(m.Years); err != nil {
		t.Fatal(err)
	}
	opts := fixtureOpts
	opts.Dir = dir
	files, err := buildFiles(m, src, tb, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		out[f.name] = f.body
	}
	return out, records
}

// TestFullTablesAsPack checks that fullTables gives the fixture's tables and documents byte
// for byte as its pack holds them.
func TestFullTablesAsPack(t *testing.T) {
	got, _ := fullTables(t, fixtureDir)
	fs := tarFiles(t)
	for name, body := range got {
		if string(fs[name]) != string(body) {
			t.Errorf("%s: fullTables and the pack differ", name)
		}
	}
	if len(got) < len(generator.Tables())+5 {
		t.Errorf("fullTables gave %d files", len(got))
	}
}

// TestFullRangeTables checks the dataset of the full range, 1900–2100: matrix.csv has the
// 73,414 rows, one for every date, sorted, each agreeing with its JSON record; every table
// of a date route has a row for each date; and the README counts them as each of its
// languages writes numbers, 73 414 (a non-breaking space) and 73,414.
func TestFullRangeTables(t *testing.T) {
	dir := generatortest.FullTree(t)
	files, records := fullTables(t, dir)
	if len(records) != fullDates {
		t.Errorf("%d matrix records, want %d", len(records), fullDates)
	}
	checkMatrixCSV(t, files[MatrixCSV], func(rel string) (matrixArcana, error) {
		rec, ok := records[rel]
		if !ok {
			return matrixArcana{}, fmt.Errorf("no matrix record %s in the tree", rel)
		}
		return rec, nil
	}, allYears())
	for _, rt := range generator.Tables() {
		if len(rt.Route.Params) == 1 && rt.Route.Params[0].Type == manifest.ParamDate {
			if n := len(readCSV(t, files[rt.Table.File()])) - 1; n != fullDates {
				t.Errorf("%s: %d rows, want %d", rt.Table.File(), n, fullDates)
			}
		}
	}
	readme := string(files[ReadmeFile])
	for _, want := range []string{"(73\u00a0414 строк)", "(73,414 rows)"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
}

// allYears are the years of the range, 1900–2100.
func allYears() []int {
	var out []int
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		out = append(out, y)
	}
	return out
}
