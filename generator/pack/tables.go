package pack

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
)

// Table file names inside the archives.
const (
	MatrixCSV   = "matrix.csv"
	ArcanaCSV   = "arcana.csv"
	LifePathCSV = "life-path.csv"
)

// lifePathRecord is the part of a life path record the documents need.
type lifePathRecord struct {
	Number          int    `json:"number"`
	License         string `json:"license"`
	LicenseURL      string `json:"license_url"`
	Attribution     string `json:"attribution"`
	AttributionHTML string `json:"attribution_html"`
}

// tables collects, from the tree's files, the rows of the dataset's tables (each filled by
// its route's files, generator.Tables) and what the documents need.
type tables struct {
	list []generator.RouteTable
	// lifePath is the route whose records give the documents their licence and
	// attribution wording.
	lifePath manifest.Route
	mu       sync.Mutex
	// rows holds the rows of each file of a table's route, by table and path, until finish
	// puts them in the order of the route's values.
	rows   map[tableFile][][]string
	record *lifePathRecord // the licence and attribution wording, from a life path record

	// After finish: each table's rows, in order.
	done []tableRows
}

type tableFile struct {
	table int
	path  string
}

// tableRows is a finished table.
type tableRows struct {
	generator.RouteTable
	rows [][]string
}

func newTables() *tables {
	t := &tables{list: generator.Tables(), rows: map[tableFile][][]string{}}
	for _, r := range generator.Routes() {
		if r.Name == manifest.RouteLifePath {
			t.lifePath = r
		}
	}
	return t
}

// add takes what the tables need from one file of the tree; it is safe for concurrent use.
func (t *tables) add(path string, body []byte) error {
	for i, rt := range t.list {
		vals, ok := rt.Route.MatchFile(path)
		if !ok || !rt.Route.Admit(slices.Clone(vals)) {
			continue
		}
		rows, err := rt.Table.Rows(vals, body)
		if err != nil {
			return &InputError{fmt.Errorf("%s: %w", path, err)}
		}
		t.mu.Lock()
		t.rows[tableFile{i, path}] = rows
		t.mu.Unlock()
	}
	if _, ok := t.lifePath.MatchFile(path); ok {
		var r lifePathRecord
		if err := json.Unmarshal(body, &r); err != nil {
			return &InputError{fmt.Errorf("%s: not a life path record: %w", path, err)}
		}
		t.mu.Lock()
		if t.record == nil || r.Number < t.record.Number {
			t.record = &r
		}
		t.mu.Unlock()
	}
	return nil
}

// finish puts each table's rows in the order of its route's values (dates by year, month
// and day) and checks that every value of the tree's years has its file.
func (t *tables) finish(years []int) error {
	for i, rt := range t.list {
		done := tableRows{RouteTable: rt}
		for _, vals := range rt.Route.Values(years) {
			p := rt.Route.FilePath(vals)
			rows, ok := t.rows[tableFile{i, p}]
			if !ok {
				return fmt.Errorf("%s: the tree has no %s (%s)", rt.Table.File(), p, rt.Route.Name)
			}
			done.rows = append(done.rows, rows...)
		}
		if len(done.rows) == 0 {
			return fmt.Errorf("%s: no rows", rt.Table.File())
		}
		t.done = append(t.done, done)
	}
	t.rows = nil
	if t.record == nil {
		return fmt.Errorf("the tree has no life path record")
	}
	return nil
}

// csvs renders the tables.
func (t *tables) csvs() []file {
	var out []file
	for _, d := range t.done {
		cols := make([]string, len(d.Table.Fields))
		for i, f := range d.Table.Fields {
			cols[i] = f.Name
		}
		out = append(out, file{d.Table.File(), writeCSV(append([][]string{cols}, d.rows...))})
	}
	return out
}

// rowsOf is how many rows the named table has.
func (t *tables) rowsOf(name string) int {
	for _, d := range t.done {
		if d.Table.File() == name {
			return len(d.rows)
		}
	}
	return 0
}

// writeCSV renders RFC 4180 CSV with \n line ends (declared in datapackage.json's dialect).
func writeCSV(rows [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.WriteAll(rows) // a bytes.Buffer does not fail
	return b.Bytes()
}

// dateRange is the first and last value of a table's date column, "" when it has none.
func (d tableRows) dateRange() (first, last string) {
	for i, f := range d.Table.Fields {
		if f.Type == "date" && len(d.rows) > 0 {
			return d.rows[0][i], d.rows[len(d.rows)-1][i]
		}
	}
	return "", ""
}
