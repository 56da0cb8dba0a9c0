// Package table is the dataset's model of a table (docs/design.md §11): typed columns, the
// keys, and the rows, kept by column. A route family declares its tables with it, the
// generator fills them from the route's records, and pack writes each as CSV, Parquet and
// SQLite. It imports nothing of the project, so the generator and pack both can.
package table

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
)

// Type is the type of a column's values.
type Type uint8

// The column types, and what each is in the files pack writes.
const (
	// Integer is a whole number: INT32 in Parquet, INTEGER in SQLite, a decimal in CSV.
	Integer Type = iota + 1
	// Date is a calendar date: DATE in Parquet (days since 1970-01-01), TEXT YYYY-MM-DD in
	// SQLite and CSV (ISO 8601, which sorts and compares as dates do).
	Date
	// Text is a UTF-8 string: a UTF8 string in Parquet, TEXT in SQLite.
	Text
)

// SchemaType is the type's name in a Table Schema (Frictionless): integer, date, string.
func (t Type) SchemaType() string {
	switch t {
	case Integer:
		return "integer"
	case Date:
		return "date"
	case Text:
		return "string"
	}
	return "any"
}

// Column is one column of a table.
type Column struct {
	Name        string // lower snake case: a SQL name without quotes
	Type        Type
	Description string // English
	// Min and Max bound an Integer column when either is not zero; a Date column is bounded
	// by the table's own first and last date.
	Min, Max int
	Enum     []int // the only values an Integer column takes, when set
	Unique   bool
	// Nullable columns may hold no value (Null): an optional column in Parquet, NULL in
	// SQLite, an empty field in CSV. Every other column holds a value in every row.
	Nullable bool
}

// ForeignKey says that a column's values are values of a column of another table, that
// table's primary key.
type ForeignKey struct {
	Column      string
	Table       string
	TableColumn string
}

// Table is a table of the dataset: its schema and its rows. The zero value of the rows is
// an empty table; Append adds to it.
type Table struct {
	Name        string // lower snake case: the SQL table, and the files Name.csv and Name.parquet
	Title       string // English
	Description string // English
	Russian     string // what a row holds, in Russian, for the dataset's README
	Columns     []Column
	PrimaryKey  []string
	ForeignKeys []ForeignKey

	cols []column
	n    int
}

// column holds a column's values: ints for Integer and Date (bytes for an Integer column
// bounded to 0–255, such as an arcanum: a date table of the chart has 150 of them), texts
// for Text, and for a Nullable column which rows hold none.
type column struct {
	ints  []int32
	bytes []uint8
	texts []string
	null  []bool
}

// small reports whether an Integer column's values are kept as bytes: its bounds say they
// fit one.
func (c *Column) small() bool {
	return c.Type == Integer && (c.Min != 0 || c.Max != 0) && c.Min >= 0 && c.Max <= 255
}

// Value is one value of a row: an Integer, Date or Text, or Null.
type Value struct {
	kind Type // 0: null
	n    int32
	s    string
}

// Int is an Integer value.
func Int(n int) Value { return Value{kind: Integer, n: int32(n)} }

// Str is a Text value.
func Str(s string) Value { return Value{kind: Text, s: s} }

// DateOf is the Date value of a day of the Gregorian calendar.
func DateOf(year, month, day int) Value {
	return Value{kind: Date, n: int32(daysFromCivil(year, month, day))}
}

// Null is the value of a Nullable column that holds none.
func Null() Value { return Value{} }

// IsNull reports whether v holds no value.
func (v Value) IsNull() bool { return v.kind == 0 }

// Kind is the value's type, 0 for Null.
func (v Value) Kind() Type { return v.kind }

// Int32 is an Integer value, or a Date's days since 1970-01-01.
func (v Value) Int32() int32 { return v.n }

// Text is a Text value.
func (v Value) Text() string { return v.s }

// AppendText appends the value as String gives it, without making a string of it.
func (v Value) AppendText(dst []byte) []byte {
	switch v.kind {
	case Integer:
		return strconv.AppendInt(dst, int64(v.n), 10)
	case Date:
		y, m, d := civilFromDays(int(v.n))
		if y < 0 || y > 9999 {
			return append(dst, v.String()...)
		}
		return append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
			byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
	case Text:
		return append(dst, v.s...)
	}
	return dst
}

// String is the value as CSV and SQLite write it: a decimal, a YYYY-MM-DD date, the text,
// or "" for Null.
func (v Value) String() string {
	switch v.kind {
	case Integer:
		return strconv.Itoa(int(v.n))
	case Date:
		y, m, d := civilFromDays(int(v.n))
		return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
	case Text:
		return v.s
	}
	return ""
}

// Len is how many rows the table has.
func (t *Table) Len() int { return t.n }

// Append adds a row, one value per column in order, each of its column's type (or Null in a
// Nullable column).
func (t *Table) Append(row ...Value) error {
	if len(row) != len(t.Columns) {
		return fmt.Errorf("table %s: a row of %d values, the table has %d columns", t.Name, len(row), len(t.Columns))
	}
	for i, v := range row {
		c := &t.Columns[i]
		if v.kind != c.Type && !(v.kind == 0 && c.Nullable) {
			return fmt.Errorf("table %s: column %s takes %s values, not %q", t.Name, c.Name, c.Type.SchemaType(), v.String())
		}
		if v.kind == Integer && (c.Min != 0 || c.Max != 0) && (int(v.n) < c.Min || int(v.n) > c.Max) {
			return fmt.Errorf("table %s: column %s: %d is outside %d–%d", t.Name, c.Name, v.n, c.Min, c.Max)
		}
	}
	if t.cols == nil {
		t.cols = make([]column, len(t.Columns))
	}
	for i, v := range row {
		c := &t.cols[i]
		switch {
		case t.Columns[i].Type == Text:
			c.texts = append(c.texts, v.s)
		case t.Columns[i].small():
			c.bytes = append(c.bytes, uint8(v.n))
		default:
			c.ints = append(c.ints, v.n)
		}
		if t.Columns[i].Nullable {
			c.null = append(c.null, v.kind == 0)
		}
	}
	t.n++
	return nil
}

// Value is the value of a row's column.
func (t *Table) Value(row, col int) Value {
	c := &t.cols[col]
	if c.null != nil && c.null[row] {
		return Value{}
	}
	switch {
	case t.Columns[col].Type == Text:
		return Value{kind: Text, s: c.texts[row]}
	case t.Columns[col].small():
		return Value{kind: Integer, n: int32(c.bytes[row])}
	}
	return Value{kind: t.Columns[col].Type, n: c.ints[row]}
}

// Row returns the values of a row.
func (t *Table) Row(row int) []Value {
	out := make([]Value, len(t.Columns))
	for i := range out {
		out[i] = t.Value(row, i)
	}
	return out
}

// Index is the place of the named column, or -1.
func (t *Table) Index(name string) int {
	return slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == name })
}

// Key is the row's primary key as text ("1990-05-15", "3/11"), to name the row in a message.
func (t *Table) Key(row int) string {
	s := ""
	for i, k := range t.PrimaryKey {
		if i > 0 {
			s += "/"
		}
		s += t.Value(row, t.Index(k)).String()
	}
	return s
}

// namePattern is a name pack writes unquoted into SQL and as a file name.
var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Check checks the schema: names that need no quoting anywhere, unique; keys that name
// columns; a primary key for every table.
func (t *Table) Check() error {
	if !namePattern.MatchString(t.Name) {
		return fmt.Errorf("table %q: a name is lower snake case", t.Name)
	}
	seen := map[string]bool{}
	for _, c := range t.Columns {
		switch {
		case !namePattern.MatchString(c.Name):
			return fmt.Errorf("table %s: column %q: a name is lower snake case", t.Name, c.Name)
		case seen[c.Name]:
			return fmt.Errorf("table %s: column %s twice", t.Name, c.Name)
		case c.Type < Integer || c.Type > Text:
			return fmt.Errorf("table %s: column %s has no type", t.Name, c.Name)
		}
		seen[c.Name] = true
	}
	if len(t.PrimaryKey) == 0 {
		return fmt.Errorf("table %s has no primary key", t.Name)
	}
	for _, k := range t.PrimaryKey {
		if i := t.Index(k); i < 0 || t.Columns[i].Nullable {
			return fmt.Errorf("table %s: primary key %s is not a column that always holds a value", t.Name, k)
		}
	}
	for _, fk := range t.ForeignKeys {
		if !seen[fk.Column] {
			return fmt.Errorf("table %s: foreign key %s is not a column", t.Name, fk.Column)
		}
	}
	return nil
}

// Source is a route whose files fill tables: the route's name in the tree's route table,
// its tables, and Fill, which appends to them the rows of one of the route's files from its
// canonical parameter values and its body. Fill is called once per value, in the order of
// the route's values.
type Source struct {
	Route  string
	Tables []*Table
	Fill   func(vals []int, body []byte) error
}

// daysFromCivil is the number of days from 1970-01-01 to a date of the proleptic Gregorian
// calendar (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the date of a number of days from 1970-01-01.
func civilFromDays(z int) (y, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// Civil is the year, month and day of a Date value.
func (v Value) Civil() (year, month, day int) { return civilFromDays(int(v.n)) }
