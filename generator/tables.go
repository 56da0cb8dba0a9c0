package generator

import (
	"github.com/opennumerology/numerology/generator/manifest"
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
		if t := rs[r.Name].table; t != nil {
			out = append(out, RouteTable{Route: r, Table: t()})
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
