package generator

import (
	"fmt"
	"strconv"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/generator/rules"
)

// Table is one table of the dataset (docs/design.md §11) as a route family declares it: its
// schema, and Rows, which appends to it the rows of one file of the family's route, from the
// file's canonical parameter values and its body (the bytes the API serves). A date route
// gives one row per date, every number its record holds a column; the texts are tables of
// their own, filled from the routes that serve them, keyed, and not repeated per date.
type Table struct {
	*table.Table
	Rows func(t *table.Table, vals []int, body []byte) error
}

// RouteTable is a table and the route whose files fill it.
type RouteTable struct {
	Route manifest.Route
	Table Table
}

// Tables returns the dataset's tables with the route that fills each, in route order, each
// empty.
func Tables() []RouteTable {
	var out []RouteTable
	for _, u := range routeUnits() {
		if u.tables == nil {
			continue
		}
		for _, t := range u.tables() {
			out = append(out, RouteTable{Route: u.row, Table: t})
		}
	}
	return out
}

// DatasetSources returns, for every route with tables, in route order, the route's empty
// tables and the function that fills them from the route's files: what `numerology pack`
// fills from the tree and `verify --archive` from the renderers.
func DatasetSources() []table.Source {
	var out []table.Source
	for _, u := range routeUnits() {
		if u.tables == nil {
			continue
		}
		ts := u.tables()
		src := table.Source{Route: u.row.Name}
		for _, t := range ts {
			src.Tables = append(src.Tables, t.Table)
		}
		src.Fill = func(vals []int, body []byte) error {
			for _, t := range ts {
				if err := t.Rows(t.Table, vals, body); err != nil {
					return fmt.Errorf("table %s: %w", t.Name, err)
				}
			}
			return nil
		}
		out = append(out, src)
	}
	return out
}

// Renderer returns the function that renders the body of a canonical value of the named
// route of the site's table, as generate writes it: what verify compares a file or record
// with.
func (s *Site) Renderer(route string) (func(dst []byte, vals []int) ([]byte, error), error) {
	for _, u := range s.units {
		if u.row.Name != route {
			continue
		}
		enc, err := u.encoder(s)
		if err != nil {
			return nil, fmt.Errorf("route %s: %w", route, err)
		}
		if u.maxBytes > 0 {
			enc = boundedEncoder(enc, u.maxBytes)
		}
		return enc, nil
	}
	return nil, fmt.Errorf("no route %s", route)
}

func intColumn(name, desc string, lo, hi int) table.Column {
	return table.Column{Name: name, Type: table.Integer, Description: desc, Min: lo, Max: hi}
}

func textColumn(name, desc string) table.Column {
	return table.Column{Name: name, Type: table.Text, Description: desc}
}

// dateColumns are the first columns of every table of a date route: the date, its key, and
// its day, month and year.
func dateColumns() []table.Column {
	return []table.Column{
		{Name: "date", Type: table.Date, Description: "Birth date, ISO 8601 (YYYY-MM-DD)", Unique: true},
		intColumn("day", "Day of the month", 1, 31),
		intColumn("month", "Month", 1, 12),
		intColumn("year", "Year", rules.FirstYear, rules.LastYear),
	}
}

// dateValues are the values of dateColumns for a date.
func dateValues(d, m, y int) []table.Value {
	return []table.Value{table.DateOf(y, m, d), table.Int(d), table.Int(m), table.Int(y)}
}

// checkDate refuses a record of another date than its file's.
func checkDate(vals []int, d, m, y int) error {
	if d != vals[0] || m != vals[1] || y != vals[2] {
		return fmt.Errorf("holds the record of %d.%d.%d", d, m, y)
	}
	return nil
}

// ints are Integer values.
func ints[T ~int](ns ...T) []table.Value {
	out := make([]table.Value, len(ns))
	for i, n := range ns {
		out[i] = table.Int(int(n))
	}
	return out
}

// lines joins the items of a list, one a line, as a text column holds them.
func lines(items []string) string {
	s := ""
	for i, it := range items {
		if i > 0 {
			s += "\n"
		}
		s += it
	}
	return s
}

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

// itoa is strconv.Itoa, for descriptions.
func itoa(n int) string { return strconv.Itoa(n) }

// JSONDiff names the first field at which a JSON body differs from what it should be, as
// verify reports a file of a tree: what verify --archive says of a record or file of a
// download.
func JSONDiff(got, want []byte) string { return jsonDiff(got, want) }
