package pack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/calendar"
)

// maxDiffs is the most files of a zip whose difference from what the rules and the content
// give is looked for and named; the others are only said to differ.
const maxDiffs = 20

// maxDiffBytes bounds what is kept of the files that differ, to name where: 64 MiB.
const maxDiffBytes = 64 << 20

// checkContent derives the zip's files again, from the content for the site URL, years and
// date its datapackage.json states, and reports every file that is missing, extra or
// different; for a table's CSV or a JSON file it names the first row and column, or field,
// that differs.
func (c *archiveCheck) checkContent(ctx context.Context, facts *pkgFacts, content func(string) (*Content, error),
	names func(context.Context, []int32) (map[int32]string, error), member func(context.Context, int32) (io.ReadCloser, error)) error {
	if facts == nil {
		return nil // datapackage.json is missing or unreadable: reported
	}
	cont, m, problem := deriveMeta(facts, content)
	if problem != "" {
		c.add(ProblemInvalid, DataPackageFile, "the dataset cannot be derived again from the rules and the content: %s", problem)
		return nil
	}
	tmp, err := os.MkdirTemp("", "numerology-verify-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	d, err := derive(ctx, cont, m)
	if err != nil {
		return err
	}
	expected := map[nameKey]bool{}
	type differs struct {
		ord  int32
		want []byte
		name string
	}
	var diffs []differs
	kept := 0 // bytes of the diffs' wants kept
	if err := d.emit(ctx, tmp, func(name string, body []byte) error {
		key := keyOf(name)
		expected[key] = true
		i, ok := c.index[key]
		switch {
		case !ok && c.stopped:
			c.add(ProblemMissing, name, "a file of the dataset, not among the entries read before reading stopped")
		case !ok:
			c.add(ProblemMissing, name, "a file of the dataset, not in the archive")
		case c.entries[i].broken:
		case c.entries[i].sum != sha256.Sum256(body):
			// What a file should hold is kept to say where it differs, within a bound.
			if len(diffs) < maxDiffs && kept+len(body) <= maxDiffBytes {
				kept += len(body)
				diffs = append(diffs, differs{c.entries[i].ord, body, name})
			} else {
				c.add(ProblemCorrupt, name, "differs from what pack makes of the rules and the content")
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for _, df := range diffs {
		detail := "differs from what pack makes of the rules and the content"
		if member != nil {
			r, err := member(ctx, df.ord)
			if err == nil {
				detail = describeDiff(df.name, r, df.want, cont.Diff)
				r.Close()
			}
		}
		c.add(ProblemCorrupt, df.name, "%s", detail)
	}
	// Files no dataset holds, named again as the listing's extras are.
	var ords []int32
	first := len(c.rep.Problems)
	for _, rec := range c.entries {
		if expected[rec.key] || rec.broken || !rec.listed {
			continue // the listing's extras are reported already
		}
		if c.full() {
			c.rep.More++
			continue
		}
		ords = append(ords, rec.ord)
		c.add(ProblemExtra, "", "not a file of the dataset")
	}
	if len(ords) > 0 {
		slices.Sort(ords)
		found, err := names(ctx, ords)
		if err != nil {
			return err
		}
		for i, ord := range ords {
			c.rep.Problems[first+i].Path = found[ord]
		}
	}
	return nil
}

// deriveMeta checks the facts a datapackage.json states and loads the content for its site
// URL; problem says why the dataset cannot be derived from them.
func deriveMeta(f *pkgFacts, content func(string) (*Content, error)) (*Content, meta, string) {
	if f.Problem != "" {
		return nil, meta{}, f.Problem
	}
	if f.Homepage == "" || len(f.Years) == 0 {
		return nil, meta{}, "it states no homepage (the site URL) or no years"
	}
	c, err := content(f.Homepage)
	if err != nil {
		return nil, meta{}, fmt.Sprintf("homepage %q: %v", f.Homepage, err)
	}
	if f.Version != manifest.APIVersion {
		return nil, meta{}, fmt.Sprintf("version %q: this numerology makes version %s", f.Version, manifest.APIVersion)
	}
	first, last := yearBounds(c.Routes)
	ascending := true
	for i := 1; i < len(f.Years); i++ {
		ascending = ascending && f.Years[i] > f.Years[i-1]
	}
	if !ascending || f.Years[0] < first || f.Years[len(f.Years)-1] > last {
		return nil, meta{}, fmt.Sprintf("years %v: not ascending years of %d–%d", f.Years, first, last)
	}
	date, ok := strings.CutSuffix(f.Created, "T00:00:00Z")
	if f.Created != "" && (!ok || !validISODate(date)) {
		return nil, meta{}, fmt.Sprintf("created %q is not the midnight of a date", f.Created)
	}
	return c, meta{APIVersion: f.Version, SiteURL: f.Homepage, APIBase: f.Homepage + manifest.APIPrefix, Years: f.Years, ContentDate: date}, ""
}

// yearBounds is the range of years of the date routes of a route table.
func yearBounds(routes []manifest.Route) (first, last int) {
	for _, r := range routes {
		for _, p := range r.Params {
			if p.Type == manifest.ParamDate {
				return p.FirstYear, p.LastYear
			}
		}
	}
	return 0, -1
}

// validISODate reports whether s is a YYYY-MM-DD date.
func validISODate(s string) bool {
	var y, m, d int
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	if _, err := fmt.Sscanf(s, "%4d-%2d-%2d", &y, &m, &d); err != nil {
		return false
	}
	return m >= 1 && m <= 12 && d >= 1 && d <= calendar.DaysIn(m, y)
}

// derive fills the dataset's tables and routes' files from the renderers, as pack fills
// them from a tree of the years.
func derive(ctx context.Context, c *Content, m meta) (*dataset, error) {
	b, err := newBuild(c.Routes, c.Sources())
	if err != nil {
		return nil, err
	}
	for _, r := range append(b.otherRoutes, b.dateRoutes...) {
		fill := b.fill[r.Name]
		if fill == nil && r.Packed != nil {
			continue
		}
		if err := routeRecords(ctx, c, r, r.Values(m.Years), func(vals []int, body []byte) error {
			if r.Packed == nil {
				b.api = append(b.api, file{r.FilePath(vals), bytes.Clone(body)})
			}
			if fill == nil {
				return nil
			}
			if err := fill(vals, body); err != nil {
				return fmt.Errorf("route %s, %v: %w", r.Name, vals, err)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return &dataset{m: m, c: c, build: b}, nil
}

// describeDiff names where a file of the zip (r) differs from what it should hold (want):
// for a CSV its first row and column that differ, for a JSON file its first field (diff),
// for another text its first line; for a binary file its size.
func describeDiff(name string, r io.Reader, want []byte, diff func(got, want []byte) string) string {
	const what = "pack makes of the rules and the content"
	switch {
	case strings.HasSuffix(name, ".csv"):
		return csvDiff(r, want)
	case strings.HasSuffix(name, ".json") && diff != nil:
		got, err := io.ReadAll(io.LimitReader(r, int64(len(want))+1<<20))
		if err != nil {
			return "cannot be read: " + err.Error()
		}
		return diff(got, want)
	case strings.HasSuffix(name, ".parquet") || name == SQLite:
		n, _ := io.Copy(io.Discard, r)
		return fmt.Sprintf("%d bytes that differ from the %d bytes %s (its table's CSV says which rows)", n, len(want), what)
	}
	got, err := io.ReadAll(io.LimitReader(r, int64(len(want))+1<<20))
	if err != nil {
		return "cannot be read: " + err.Error()
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d is %.80q, %s %.80q", i+1, gl[i], what, wl[i])
		}
	}
	return fmt.Sprintf("%d lines, %s %d", len(gl), what, len(wl))
}

// csvDiff names the first row and column at which a table's CSV differs from want.
func csvDiff(r io.Reader, want []byte) string {
	gr, wr := csv.NewReader(r), csv.NewReader(bytes.NewReader(want))
	gr.FieldsPerRecord, wr.FieldsPerRecord = -1, -1
	gr.ReuseRecord = true
	var header []string
	for row := 0; ; row++ {
		w, werr := wr.Read()
		g, gerr := gr.Read()
		switch {
		case errors.Is(werr, io.EOF) && errors.Is(gerr, io.EOF):
			return "the same rows, written otherwise than pack writes them (quoting or line ends)"
		case errors.Is(werr, io.EOF):
			return fmt.Sprintf("more rows than the %d the rules and the content give", row-1)
		case errors.Is(gerr, io.EOF):
			return fmt.Sprintf("%d rows, the rules and the content give more", row-1)
		case gerr != nil:
			return fmt.Sprintf("not CSV after row %d: %v", row-1, gerr)
		case werr != nil:
			return "cannot be compared: " + werr.Error()
		}
		if row == 0 {
			header = slices.Clone(w)
		}
		for i := range max(len(g), len(w)) {
			if i < len(g) && i < len(w) && g[i] == w[i] {
				continue
			}
			col := fmt.Sprintf("field %d", i+1)
			if i < len(header) {
				col = header[i]
			}
			if row == 0 {
				return fmt.Sprintf("the header's %s differs: %q", col, strings.Join(g, ","))
			}
			gv, wv := "(none)", "(none)"
			if i < len(g) {
				gv = fmt.Sprintf("%.60q", g[i])
			}
			if i < len(w) {
				wv = fmt.Sprintf("%.60q", w[i])
			}
			return fmt.Sprintf("row %d (%s %s), %s: %s, the rules and the content give %s", row, header[0], w[0], col, gv, wv)
		}
	}
}

// zipMember opens again the file at ord of the zip, whose bytes were read once already,
// counting what it expands against the budget.
func (c *archiveCheck) zipMember(d *zipDir, ord int32) (io.ReadCloser, error) {
	var found *zipEntry
	_, err := d.each(MaxEntries, func(i int, e *zipEntry) bool {
		if int32(i) == ord {
			cp := *e
			found = &cp
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, fmt.Errorf("no entry %d", ord)
	}
	_, data, _, err := d.span(found)
	if err != nil {
		return nil, err
	}
	rc, err := d.open(found, data)
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{budgeted{rc, c}, rc}, nil
}
