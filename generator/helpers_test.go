package generator

import (
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// routeFile is the tree path of the named route's file of canonical vals.
func routeFile(name string, vals ...int) string { return route(name).FilePath(vals) }

// packedFile is the packed file of the named date route that holds the body of canonical
// vals: a month file for packedFile(RouteMatrix, 1, 5, 2000).
func packedFile(name string, vals ...int) string {
	p, _ := route(name).PackedPath(vals)
	return p
}

// testRoot is the temporary folder of this test binary's shared trees (TestMain removes it).
var testRoot string

func TestMain(m *testing.M) {
	flag.Parse()
	restore := testsupport.MemoryTempDir()
	dir, err := os.MkdirTemp("", "generator-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		restore()
		os.Exit(1)
	}
	testRoot = dir
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	restore()
	os.Exit(code)
}

// loadTestSite builds the site of the built-in content once: it is never changed.
var loadTestSite = sync.OnceValues(func() (*Site, error) {
	c, err := LoadContent(content.Embedded(), "content")
	if err != nil {
		return nil, err
	}
	return NewSite(c, "")
})

// testSite returns the site of the built-in content.
func testSite(tb testing.TB) *Site {
	tb.Helper()
	s, err := loadTestSite()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// sharedYears are the years of the shared tree: both edges of the range, a leap year and
// the years of the examples (15.05.1990; the chart's 11.07.1996 of docs/design.md §15; the
// personal year's 23 April, 2025 of §16).
var sharedYears = []int{1900, 1990, 1996, 2000, 2025, 2100}

var generateShared = sync.OnceValues(func() (string, error) {
	s, err := loadTestSite()
	if err != nil {
		return "", err
	}
	out := filepath.Join(testRoot, "shared")
	if _, err := Generate(context.Background(), Options{Site: s, Out: out, Years: sharedYears}); err != nil {
		return "", fmt.Errorf("generate the shared tree: %w", err)
	}
	return out, nil
})

// sharedTree returns the site and a tree of sharedYears generated once for every test of
// the package. No test may change it: one that does works on scratchTree.
func sharedTree(tb testing.TB) (*Site, string) {
	tb.Helper()
	out, err := generateShared()
	if err != nil {
		tb.Fatal(err)
	}
	return testSite(tb), out
}

var generateScratch = sync.OnceValues(func() (string, error) {
	s, err := loadTestSite()
	if err != nil {
		return "", err
	}
	out := filepath.Join(testRoot, "scratch", "out")
	if _, err := Generate(context.Background(), Options{Site: s, Out: out, Years: sharedYears}); err != nil {
		return "", fmt.Errorf("generate the scratch tree: %w", err)
	}
	return out, nil
})

// scratchTree returns a second tree of sharedYears, generated once, alone in its parent
// folder, which tests may damage: each puts back what it changed when it ends
// (restoreFile), so every test finds it as generated. The package's tests run one at a
// time (none calls t.Parallel); one that left it damaged makes the next fail, since they
// all compare the problems Verify finds exactly.
func scratchTree(tb testing.TB) string {
	tb.Helper()
	out, err := generateScratch()
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// restoreFile puts back the bytes of path when tb ends, after tb changed or removed it.
func restoreFile(tb testing.TB, path string) {
	tb.Helper()
	orig, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			tb.Error(err)
		}
	})
}

// testDates returns the dates the walks over the range check: all 73,414 of them, counted
// by the calendar of package time rather than by the rules, or under go test -short every
// 97th (97 is prime: the sample meets every day and month) with the first and last dates of
// the range, and the extra dates of the range given (golden vectors), once each.
func testDates(t *testing.T, extra ...DateInput) []DateInput {
	t.Helper()
	var all []DateInput
	for day := time.Date(rules.FirstYear, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() <= rules.LastYear; day = day.AddDate(0, 0, 1) {
		all = append(all, DateInput{day.Day(), int(day.Month()), day.Year()})
	}
	if len(all) != 73414 {
		t.Fatalf("%d dates in the range, want 73414", len(all))
	}
	if !testing.Short() {
		return all
	}
	var dates []DateInput
	seen := map[DateInput]bool{}
	for i, d := range all {
		if i%97 == 0 || i == len(all)-1 {
			dates, seen[d] = append(dates, d), true
		}
	}
	for _, d := range extra {
		if !seen[d] && d.Year >= rules.FirstYear && d.Year <= rules.LastYear {
			dates, seen[d] = append(dates, d), true
		}
	}
	return dates
}

// forDates calls a check for each date of dates, the dates split in order between as many
// goroutines as GOMAXPROCS; newCheck gives each goroutine a check of its own (with its own
// buffers). A goroutine stops at its first error, which forDates reports.
func forDates(t *testing.T, dates []DateInput, newCheck func() (func(d, m, y int) error, error)) {
	t.Helper()
	workers := min(runtime.GOMAXPROCS(0), len(dates))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(dates)/workers, (w+1)*len(dates)/workers
		wg.Go(func() {
			check, err := newCheck()
			if err != nil {
				errs[w] = err
				return
			}
			for _, in := range dates[lo:hi] {
				if err := check(in.Day, in.Month, in.Year); err != nil {
					errs[w] = fmt.Errorf("%02d.%02d.%d: %w", in.Day, in.Month, in.Year, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// encoderMatchesEncode holds a route's fast encoder byte-identical to encoding its record with
// go-json, for every date of testDates: newEnc gives each goroutine an encoder of its own,
// record gives the record of a date.
func encoderMatchesEncode(t *testing.T, newEnc func() (func(dst []byte, d, m, y int) ([]byte, error), error), record func(d, m, y int) (any, error)) {
	t.Helper()
	forDates(t, testDates(t), func() (func(d, m, y int) error, error) {
		enc, err := newEnc()
		if err != nil {
			return nil, err
		}
		var buf []byte
		return func(d, m, y int) error {
			rec, err := record(d, m, y)
			if err != nil {
				return err
			}
			want, err := Encode(rec)
			if err != nil {
				return err
			}
			if buf, err = enc(buf[:0], d, m, y); err != nil {
				return err
			}
			if !bytes.Equal(buf, want) {
				return fmt.Errorf("fast encoder differs\n got: %s\nwant: %s", buf, want)
			}
			return nil
		}, nil
	})
}

// goldenVectors reads rules/testdata/<file>, the project's copy of the shared vectors: its
// header, its rows by date (the first column, YYYY-MM-DD) and those dates in file order.
func goldenVectors(t *testing.T, file string) (header []string, rows map[DateInput][]string, dates []DateInput) {
	t.Helper()
	f, err := os.Open(filepath.Join("rules", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows = map[DateInput][]string{}
	for _, row := range all[1:] {
		day, err := time.Parse(time.DateOnly, row[0])
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		in := DateInput{day.Day(), int(day.Month()), day.Year()}
		rows[in] = row
		dates = append(dates, in)
	}
	return all[0], rows, dates
}

// tableRows fills a fresh table of a route with one file's body and returns its rows as
// CSV writes them.
func tableRows(tb testing.TB, t Table, vals []int, body []byte) [][]string {
	tb.Helper()
	if err := t.Rows(t.Table, vals, body); err != nil {
		tb.Fatal(err)
	}
	var out [][]string
	for r := range t.Len() {
		var row []string
		for _, v := range t.Row(r) {
			row = append(row, v.String())
		}
		out = append(out, row)
	}
	return out
}
