package pack

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// Table file names inside the archives.
const (
	MatrixCSV   = "matrix.csv"
	ArcanaCSV   = "arcana.csv"
	LifePathCSV = "life-path.csv"
)

// MatrixColumns are the columns of matrix.csv: the date, then the 12 positions in the
// contract's order (docs/design.md §5).
func MatrixColumns() []string {
	return append([]string{"date", "day", "month", "year"}, rules.PositionKeys()...)
}

// ArcanaColumns and LifePathColumns are the columns of arcana.csv and life-path.csv.
var (
	ArcanaColumns   = []string{"number", "name", "keyword", "emoji"}
	LifePathColumns = []string{"number", "archetype", "tagline", "short_description"}
)

// matrixRow is one date and its 12 arcana numbers.
type matrixRow struct {
	day, month, year int
	arcana           [rules.NumPositions]int
}

// matrixRecord is the part of a matrix record the tables need.
type matrixRecord struct {
	Input  generator.MatrixInput     `json:"input"`
	Matrix generator.MatrixPositions `json:"matrix"`
}

// lifePathRecord is the part of a life path record the documents need.
type lifePathRecord struct {
	Number          int    `json:"number"`
	License         string `json:"license"`
	LicenseURL      string `json:"license_url"`
	Attribution     string `json:"attribution"`
	AttributionHTML string `json:"attribution_html"`
}

// tables collects, from the tree's records, what the CSV files and documents hold.
type tables struct {
	mu        sync.Mutex
	matrix    []matrixRow // by file index until finish, then by date
	have      []bool
	arcana    map[int]generator.MatrixCell
	lifePaths []generator.LifePathItem
	record    *lifePathRecord // the licence and attribution wording, from a life path record
}

func newTables(n int) *tables {
	return &tables{matrix: make([]matrixRow, n), have: make([]bool, n), arcana: map[int]generator.MatrixCell{}}
}

// add takes what the tables need from the file at index i; it is safe for concurrent use.
func (t *tables) add(i int, path string, body []byte) error {
	switch {
	case strings.HasPrefix(path, "api/public/matrix/"):
		row, ok := scanMatrix(body)
		t.mu.Lock()
		known := ok && t.knows(row.arcana)
		t.mu.Unlock()
		if !known {
			// A full parse the first time an arcana appears (for its name, keyword and
			// emoji) or when the quick scan fails; otherwise the numbers are enough.
			var r matrixRecord
			if err := json.Unmarshal(body, &r); err != nil {
				return &InputError{fmt.Errorf("%s: not a matrix record: %w", path, err)}
			}
			row = matrixRow{day: r.Input.Day, month: r.Input.Month, year: r.Input.Year}
			cells := r.Matrix.Cells()
			for p, c := range cells {
				row.arcana[p] = c.Arcana
			}
			if err := t.addArcana(path, cells); err != nil {
				return err
			}
		}
		if path != manifest.MatrixFile(row.day, row.month, row.year) || !rules.ValidDate(row.day, row.month, row.year) {
			return &InputError{fmt.Errorf("%s: holds the record of %d.%d.%d", path, row.day, row.month, row.year)}
		}
		for _, a := range row.arcana {
			if a < 1 || a > 22 {
				return &InputError{fmt.Errorf("%s: arcana %d is outside 1–22", path, a)}
			}
		}
		t.matrix[i], t.have[i] = row, true
	case path == manifest.ListFile:
		var items []generator.LifePathItem
		if err := json.Unmarshal(body, &items); err != nil {
			return &InputError{fmt.Errorf("%s: not a life path list: %w", path, err)}
		}
		t.mu.Lock()
		t.lifePaths = items
		t.mu.Unlock()
	case strings.HasPrefix(path, "api/public/life-path/"):
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

// knows reports whether every arcana of a row has been seen in full; t.mu is held.
func (t *tables) knows(arcana [rules.NumPositions]int) bool {
	for _, a := range arcana {
		if _, ok := t.arcana[a]; !ok {
			return false
		}
	}
	return true
}

func (t *tables) addArcana(path string, cells [rules.NumPositions]*generator.MatrixCell) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range cells {
		if c.Arcana < 1 || c.Arcana > 22 {
			return &InputError{fmt.Errorf("%s: arcana %d is outside 1–22", path, c.Arcana)}
		}
		if old, ok := t.arcana[c.Arcana]; ok && old != *c {
			return &InputError{fmt.Errorf("%s: arcana %d is %q here and %q elsewhere", path, c.Arcana, c.Name, old.Name)}
		}
		t.arcana[c.Arcana] = *c
	}
	return nil
}

// scanMatrix reads the date and the 12 arcana numbers of a matrix record as the generator
// writes it, without a full JSON parse (which costs more than gzip'ing the record). A key
// pattern such as "social":{"arcana": cannot occur inside a JSON string, whose quotes are
// escaped. ok is false for anything unexpected; the caller then parses the record.
func scanMatrix(b []byte) (row matrixRow, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"input":{"day":`))
	if !ok {
		return row, false
	}
	fields := []struct {
		after string
		dst   *int
	}{{`,"month":`, &row.day}, {`,"year":`, &row.month}, {`},"matrix":{`, &row.year}}
	for _, f := range fields {
		if rest, ok = scanInt(rest, f.dst); !ok {
			return row, false
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(f.after)); !ok {
			return row, false
		}
	}
	for p, pat := range positionPatterns {
		i := bytes.Index(rest, pat)
		if i < 0 || (p == 0 && i != 0) {
			return row, false
		}
		if rest, ok = scanInt(rest[i+len(pat):], &row.arcana[p]); !ok {
			return row, false
		}
	}
	return row, true
}

// positionPatterns are the keys of the 12 positions as they start a cell.
var positionPatterns = func() (pats [rules.NumPositions][]byte) {
	for p, key := range rules.PositionKeys() {
		pats[p] = []byte(`"` + key + `":{"arcana":`)
	}
	return pats
}()

// scanInt reads a positive decimal of at most 4 digits.
func scanInt(b []byte, dst *int) ([]byte, bool) {
	n, i := 0, 0
	for ; i < len(b) && i < 5 && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int(b[i]-'0')
	}
	if i == 0 || i == 5 {
		return b, false
	}
	*dst = n
	return b[i:], true
}

// finish drops the non-matrix slots and sorts the rows by date.
func (t *tables) finish() error {
	rows := t.matrix[:0]
	for i, ok := range t.have {
		if ok {
			rows = append(rows, t.matrix[i])
		}
	}
	slices.SortFunc(rows, func(a, b matrixRow) int {
		return cmp.Or(cmp.Compare(a.year, b.year), cmp.Compare(a.month, b.month), cmp.Compare(a.day, b.day))
	})
	t.matrix, t.have = rows, nil
	switch {
	case len(t.lifePaths) == 0:
		return fmt.Errorf("the tree has no %s", manifest.ListFile)
	case t.record == nil:
		return fmt.Errorf("the tree has no life path record")
	case len(rows) == 0:
		return fmt.Errorf("the tree has no matrix record")
	}
	return nil
}

func (t *tables) matrixCSV() []byte {
	var b bytes.Buffer
	b.Grow(len(t.matrix) * 64)
	b.WriteString(strings.Join(MatrixColumns(), ",") + "\n")
	num := make([]byte, 0, 64)
	for _, r := range t.matrix {
		num = fmt.Appendf(num[:0], "%04d-%02d-%02d,%d,%d,%d", r.year, r.month, r.day, r.day, r.month, r.year)
		for _, a := range r.arcana {
			num = append(num, ',')
			num = strconv.AppendInt(num, int64(a), 10)
		}
		num = append(num, '\n')
		b.Write(num)
	}
	return b.Bytes()
}

func (t *tables) arcanaCSV() []byte {
	rows := [][]string{ArcanaColumns}
	for _, n := range slices.Sorted(maps.Keys(t.arcana)) {
		a := t.arcana[n]
		rows = append(rows, []string{strconv.Itoa(n), a.Name, a.Keyword, a.Emoji})
	}
	return writeCSV(rows)
}

func (t *tables) lifePathCSV() []byte {
	rows := [][]string{LifePathColumns}
	for _, lp := range t.lifePaths {
		rows = append(rows, []string{strconv.Itoa(lp.Number), lp.Archetype, lp.Tagline, lp.ShortDescription})
	}
	return writeCSV(rows)
}

// writeCSV renders RFC 4180 CSV with \n line ends (declared in datapackage.json's dialect).
func writeCSV(rows [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.WriteAll(rows) // a bytes.Buffer does not fail
	return b.Bytes()
}
