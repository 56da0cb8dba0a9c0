package generator

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// Table is one CSV table of the dataset (docs/design.md §11), filled from the files of one
// route: `numerology pack` reads each file of the route, in the order of the route's
// values, and writes the rows Rows gives.
type Table struct {
	Name        string // the resource name; the file is Name + ".csv"
	Title       string // English, for datapackage.json
	Description string // English
	Russian     string // what a row holds, in Russian, for the dataset's README
	Fields      []TableField
	PrimaryKey  []string
	ForeignKeys []TableForeignKey
	// Rows returns the rows of one file of the route, one value per field, from the file's
	// canonical parameter values and its body.
	Rows func(vals []int, body []byte) ([][]string, error)
}

// File is the table's file name inside the archives.
func (t Table) File() string { return t.Name + ".csv" }

// TableField is one column of a Table, as a Table Schema field.
type TableField struct {
	Name        string
	Type        string // "integer", "string", "date"
	Description string
	// Min and Max bound an integer; a date field is bounded by the dates of the tree.
	Min, Max int
	Enum     []int
	Unique   bool
}

// TableForeignKey links a field to the primary key of another table.
type TableForeignKey struct {
	Field, Table, TableField string
}

// Tables returns the dataset's tables with the route that fills each, in route order.
func Tables() []RouteTable {
	var out []RouteTable
	rs := renderers()
	for _, r := range Routes() {
		for _, t := range rs[r.Name].tables {
			out = append(out, RouteTable{Route: r, Table: t})
		}
	}
	return out
}

// RouteTable is a table and the route whose files fill it.
type RouteTable struct {
	Route manifest.Route
	Table Table
}

func intField(name, desc string, lo, hi int) TableField {
	return TableField{Name: name, Type: "integer", Description: desc, Min: lo, Max: hi}
}

func strField(name, desc string) TableField {
	return TableField{Name: name, Type: "string", Description: desc}
}

// lifePathTable is life-path.csv: the 12 numbers, briefly, from the list.
func lifePathTable() Table {
	return Table{
		Name:        "life-path",
		Title:       "Life path numbers",
		Description: "The 12 life path numbers briefly, as in " + route(manifest.RouteLifePathList).File + "; full records are in " + route(manifest.RouteLifePath).File + ".",
		Russian:     "числа жизненного пути: число, архетип, девиз, краткое описание",
		Fields: []TableField{
			{Name: "number", Type: "integer", Description: "Life path number", Unique: true, Enum: rules.LifePathNumbers},
			strField("archetype", "Archetype (Russian)"), strField("tagline", "Tagline (Russian)"),
			strField("short_description", "Short description (Russian)"),
		},
		PrimaryKey: []string{"number"},
		Rows: func(_ []int, body []byte) ([][]string, error) {
			var items []LifePathItem
			if err := json.Unmarshal(body, &items); err != nil {
				return nil, fmt.Errorf("not a life path list: %w", err)
			}
			rows := make([][]string, len(items))
			for i, lp := range items {
				rows[i] = []string{strconv.Itoa(lp.Number), lp.Archetype, lp.Tagline, lp.ShortDescription}
			}
			return rows, nil
		},
	}
}

// lifePathDatesTable is life-path-dates.csv: the life path number of every date.
func lifePathDatesTable() Table {
	return Table{
		Name:        "life-path-dates",
		Title:       "Life path number of every birth date",
		Description: "One row per date: its life path number; the same values as " + route(manifest.RouteLifePathDate).File + ". The numbers are described in life-path.csv.",
		Russian:     "число жизненного пути для каждой даты: дата ISO, день, месяц, год и число",
		Fields: []TableField{
			{Name: "date", Type: "date", Description: "Birth date, ISO 8601 (YYYY-MM-DD)", Unique: true},
			intField("day", "Day of the month", 1, 31),
			intField("month", "Month", 1, 12),
			intField("year", "Year", rules.FirstYear, rules.LastYear),
			{Name: "number", Type: "integer", Description: "Life path number; see life-path.csv", Enum: rules.LifePathNumbers},
		},
		PrimaryKey:  []string{"date"},
		ForeignKeys: []TableForeignKey{{Field: "number", Table: "life-path", TableField: "number"}},
		Rows: func(vals []int, body []byte) ([][]string, error) {
			d, m, y, n, ok := scanLifePathDate(body)
			if !ok {
				var r LifePathDateRecord
				if err := json.Unmarshal(body, &r); err != nil {
					return nil, fmt.Errorf("not a life path record of a date: %w", err)
				}
				d, m, y, n = r.Input.Day, r.Input.Month, r.Input.Year, r.Number
			}
			if d != vals[0] || m != vals[1] || y != vals[2] {
				return nil, fmt.Errorf("holds the record of %d.%d.%d", d, m, y)
			}
			return [][]string{{fmt.Sprintf("%04d-%02d-%02d", y, m, d), strconv.Itoa(d), strconv.Itoa(m), strconv.Itoa(y), strconv.Itoa(n)}}, nil
		},
	}
}

// scanLifePathDate reads the date and the number of a life path record of a date as the
// generator writes it, without a full JSON parse; ok is false for anything unexpected.
func scanLifePathDate(b []byte) (d, m, y, n int, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"input":{"day":`))
	if !ok {
		return
	}
	fields := []struct {
		after string
		dst   *int
	}{{`,"month":`, &d}, {`,"year":`, &m}, {`},"number":`, &y}, {`,"life_path":`, &n}}
	for _, f := range fields {
		if rest, ok = scanInt(rest, f.dst); !ok {
			return
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(f.after)); !ok {
			return
		}
	}
	return d, m, y, n, true
}

// arcanaTable is arcana.csv: the 22 arcana, one row each, from their records.
func arcanaTable() Table {
	return Table{
		Name:        "arcana",
		Title:       "The 22 arcana",
		Description: "Number, Russian name, keyword, emoji and description of each major arcana, as in api/public/arcana/{number}.json; the matrix records name them by number.",
		Russian:     "старшие арканы: номер, название, ключевое слово, эмодзи, описание",
		Fields: []TableField{
			{Name: "number", Type: "integer", Description: "Arcana number", Unique: true, Min: 1, Max: len(rules.ArcanaNumbers)},
			strField("name", "Name (Russian)"), strField("keyword", "Keyword (Russian)"), strField("emoji", "Emoji"),
			strField("description", "Description (Russian)"),
		},
		PrimaryKey: []string{"number"},
		Rows: func(vals []int, body []byte) ([][]string, error) {
			var r ArcanaRecord
			if err := json.Unmarshal(body, &r); err != nil {
				return nil, fmt.Errorf("not an arcana record: %w", err)
			}
			if r.Number != vals[0] {
				return nil, fmt.Errorf("holds arcanum %d", r.Number)
			}
			return [][]string{{strconv.Itoa(r.Number), r.Name, r.Keyword, r.Emoji, r.Description}}, nil
		},
	}
}

// positionsTable is positions.csv: the 12 positions, from /positions.
func positionsTable() Table {
	return Table{
		Name:        "positions",
		Title:       "The 12 positions of the destiny matrix",
		Description: "Key, Russian title and description of each position, in the order of matrix.csv's columns, as in api/public/positions.json.",
		Russian:     "позиции матрицы: ключ (столбец matrix.csv), название, описание",
		Fields: []TableField{
			{Name: "key", Type: "string", Description: "Position key: a column of matrix.csv", Unique: true},
			strField("title", "Title (Russian)"), strField("description", "Description (Russian)"),
		},
		PrimaryKey: []string{"key"},
		Rows: func(_ []int, body []byte) ([][]string, error) {
			var l PositionsList
			if err := json.Unmarshal(body, &l); err != nil {
				return nil, fmt.Errorf("not the positions: %w", err)
			}
			rows := make([][]string, len(l.Positions))
			for i, p := range l.Positions {
				rows[i] = []string{p.Key, p.Title, p.Description}
			}
			return rows, nil
		},
	}
}

// compatibilityTable is compatibility.csv: the 78 pairs of life path numbers.
func compatibilityTable() Table {
	return Table{
		Name:        "compatibility",
		Title:       "Compatibility of the life path numbers",
		Description: "One row per unordered pair of life path numbers (78): the level as a word, the summary, strengths, challenges (one item a line) and advice, as in api/public/compatibility/{a}/{b}.json.",
		Russian:     "совместимость 78 пар чисел жизненного пути: числа, уровень, суть, сильные стороны и трудности (по пункту в строке), совет",
		Fields: []TableField{
			{Name: "a", Type: "integer", Description: "The smaller life path number of the pair; see life-path.csv", Enum: rules.LifePathNumbers},
			{Name: "b", Type: "integer", Description: "The larger (or the same) life path number of the pair", Enum: rules.LifePathNumbers},
			strField("level", "Level of compatibility, a word (Russian), not a score"),
			strField("summary", "Summary (Russian)"),
			strField("strengths", "Strengths (Russian), one a line"),
			strField("challenges", "Challenges (Russian), one a line"),
			strField("advice", "Advice (Russian)"),
		},
		PrimaryKey:  []string{"a", "b"},
		ForeignKeys: []TableForeignKey{{Field: "a", Table: "life-path", TableField: "number"}, {Field: "b", Table: "life-path", TableField: "number"}},
		Rows: func(vals []int, body []byte) ([][]string, error) {
			var r CompatibilityRecord
			if err := json.Unmarshal(body, &r); err != nil {
				return nil, fmt.Errorf("not a compatibility record: %w", err)
			}
			if len(r.Numbers) != 2 || r.Numbers[0] != vals[0] || r.Numbers[1] != vals[1] {
				return nil, fmt.Errorf("holds the pair %v", r.Numbers)
			}
			return [][]string{{strconv.Itoa(vals[0]), strconv.Itoa(vals[1]), r.Level, r.Summary,
				strings.Join(r.Strengths, "\n"), strings.Join(r.Challenges, "\n"), r.Advice}}, nil
		},
	}
}

// matrixTable is matrix.csv: the date and the arcana of the 12 positions, one row a date.
func matrixTable() Table {
	fields := []TableField{
		{Name: "date", Type: "date", Description: "Birth date, ISO 8601 (YYYY-MM-DD)", Unique: true},
		intField("day", "Day of the month", 1, 31),
		intField("month", "Month", 1, 12),
		intField("year", "Year", rules.FirstYear, rules.LastYear),
	}
	var fks []TableForeignKey
	for _, k := range rules.PositionKeys() {
		fields = append(fields, intField(k, "Arcana number (1–22) of the matrix position "+k+"; see arcana.csv", 1, 22))
		fks = append(fks, TableForeignKey{Field: k, Table: "arcana", TableField: "number"})
	}
	return Table{
		Name:        "matrix",
		Title:       "Destiny matrix of every birth date",
		Description: "One row per date: the arcana number of each of the 12 positions, in the order of the API's matrix record. The same values as " + route(manifest.RouteMatrix).File + ".",
		Russian:     "матрица судьбы для каждой даты: дата ISO, день, месяц, год и номера арканов 12 позиций в порядке API",
		Fields:      fields,
		PrimaryKey:  []string{"date"},
		ForeignKeys: fks,
		Rows: func(vals []int, body []byte) ([][]string, error) {
			d, m, y, arcana, ok := scanMatrix(body)
			if !ok {
				var r MatrixRecord
				if err := json.Unmarshal(body, &r); err != nil {
					return nil, fmt.Errorf("not a matrix record: %w", err)
				}
				d, m, y = r.Input.Day, r.Input.Month, r.Input.Year
				for p, c := range r.Matrix.Cells() {
					arcana[p] = c.Arcana
				}
			}
			if d != vals[0] || m != vals[1] || y != vals[2] {
				return nil, fmt.Errorf("holds the record of %d.%d.%d", d, m, y)
			}
			row := make([]string, 0, 4+rules.NumPositions)
			row = append(row, fmt.Sprintf("%04d-%02d-%02d", y, m, d), strconv.Itoa(d), strconv.Itoa(m), strconv.Itoa(y))
			for _, a := range arcana {
				if a < 1 || a > 22 {
					return nil, fmt.Errorf("arcana %d is outside 1–22", a)
				}
				row = append(row, strconv.Itoa(a))
			}
			return [][]string{row}, nil
		},
	}
}

// scanMatrix reads the date and the 12 arcana numbers of a matrix record as the generator
// writes it, without a full JSON parse (which costs more than gzip'ing the record). A key
// pattern such as "social":{"arcana": cannot occur inside a JSON string, whose quotes are
// escaped. ok is false for anything unexpected; the caller then parses the record.
func scanMatrix(b []byte) (d, m, y int, arcana [rules.NumPositions]int, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"input":{"day":`))
	if !ok {
		return
	}
	fields := []struct {
		after string
		dst   *int
	}{{`,"month":`, &d}, {`,"year":`, &m}, {`},"matrix":{`, &y}}
	for _, f := range fields {
		if rest, ok = scanInt(rest, f.dst); !ok {
			return
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(f.after)); !ok {
			return
		}
	}
	for p, pat := range positionPatterns {
		i := bytes.Index(rest, pat)
		if i < 0 || (p == 0 && i != 0) {
			return d, m, y, arcana, false
		}
		if rest, ok = scanInt(rest[i+len(pat):], &arcana[p]); !ok {
			return
		}
	}
	return d, m, y, arcana, true
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
