package pack

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite": SQLite translated to Go, no cgo

	"github.com/opennumerology/numerology/generator/pack/table"
)

// writeCSV writes a table as RFC 4180 CSV, byte for byte as encoding/csv writes it: a
// header row, then a row per row, \n line ends (as datapackage.json's dialect says), a Null
// as an empty field. The rows are appended to one buffer, written out as it fills, with no
// string made of a number.
func writeCSV(t *table.Table, out io.Writer) error {
	const flushAt = 64 << 10
	b := make([]byte, 0, flushAt+4<<10)
	for i, c := range t.Columns {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVField(b, c.Name)
	}
	b = append(b, '\n')
	for r := range t.Len() {
		for i := range t.Columns {
			if i > 0 {
				b = append(b, ',')
			}
			v := t.Value(r, i)
			if v.Kind() == table.Text {
				b = appendCSVField(b, v.Text())
			} else {
				b = v.AppendText(b)
			}
		}
		b = append(b, '\n')
		if len(b) >= flushAt {
			if _, err := out.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	_, err := out.Write(b)
	return err
}

// appendCSVField appends a field as encoding/csv's Writer writes it with a comma and \n
// line ends: quoted when it holds a comma, a quote, \r or \n, begins with a space, or is
// \. alone, its quotes doubled.
func appendCSVField(dst []byte, s string) []byte {
	if !csvNeedsQuotes(s) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// csvNeedsQuotes is encoding/csv's rule for quoting a field.
func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` || strings.ContainsAny(s, ",\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// parquetCreatedBy is the created_by of every Parquet file: fixed, so that a file does not
// change with the version of the library or of numerology.
const parquetCreatedBy = "numerology pack"

// parquetRowGroup is the most rows a row group holds: every table of the dataset fits one.
const parquetRowGroup = 1 << 20

// writeParquet writes a table as a Parquet file: a column per column in order (INT32,
// DATE, or UTF8 strings; a Nullable column optional), one row group, Snappy pages. The
// bytes depend on the rows only: the writer's created_by is fixed and it writes no time.
func writeParquet(t *table.Table, out io.Writer) error {
	fields := make([]reflect.StructField, len(t.Columns))
	for i, c := range t.Columns {
		typ, tag := reflect.TypeFor[int32](), c.Name
		switch c.Type {
		case table.Date:
			tag += ",date"
		case table.Text:
			typ = reflect.TypeFor[string]()
		}
		if c.Nullable {
			typ, tag = reflect.PointerTo(typ), tag+",optional"
		}
		// A struct keeps the columns' order; parquet.Group would sort them by name.
		fields[i] = reflect.StructField{Name: "F" + strconv.Itoa(i), Type: typ, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	schema := parquet.NewSchema(t.Name, parquet.SchemaOf(reflect.New(reflect.StructOf(fields)).Elem().Interface()))
	w := parquet.NewWriter(out, schema,
		parquet.CreatedBy(parquetCreatedBy, "", ""),
		parquet.Compression(&parquet.Snappy),
		parquet.MaxRowsPerRowGroup(parquetRowGroup))
	// The rows are written 1024 at a time, in one block of values used again for each:
	// the writer copies the values it is given.
	const batch = 1024
	values := make([]parquet.Value, batch*len(t.Columns))
	rows := make([]parquet.Row, 0, batch)
	flush := func() error {
		if _, err := w.WriteRows(rows); err != nil {
			return fmt.Errorf("%s.parquet: %w", t.Name, err)
		}
		rows = rows[:0]
		return nil
	}
	for r := range t.Len() {
		k := len(rows) * len(t.Columns)
		row := parquet.Row(values[k : k+len(t.Columns) : k+len(t.Columns)])
		for i, c := range t.Columns {
			v := t.Value(r, i)
			def := 0
			if c.Nullable {
				def = 1
			}
			switch {
			case v.IsNull():
				row[i] = parquet.NullValue().Level(0, 0, i)
			case c.Type == table.Text:
				row[i] = parquet.ByteArrayValue([]byte(v.Text())).Level(0, def, i)
			default:
				row[i] = parquet.Int32Value(v.Int32()).Level(0, def, i)
			}
		}
		if rows = append(rows, row); len(rows) == cap(rows) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s.parquet: %w", t.Name, err)
	}
	return nil
}

// SQLite is the file name of the database inside the zip.
const SQLite = "numerology.sqlite"

// sqlitePageSize is the database's page size, fixed rather than the library's default.
const sqlitePageSize = 4096

// metaRow is a row of the database's meta table.
type metaRow struct{ key, value string }

// sqliteDB is the dataset's database: built once, on its first write, in a file of its
// own in a new folder of dir, then copied to every writer. It is written by one goroutine
// at a time; remove deletes its folder.
type sqliteDB struct {
	dir    string
	tables []*table.Table
	meta   []metaRow
	// wait returns once a table is filled (nil: every table is).
	wait func(context.Context, *table.Table) error
	tmp  string // the folder, once made
	file string // the database, once built
}

// write writes the database's bytes to w, building it first if it is not built yet.
func (s *sqliteDB) write(ctx context.Context, w io.Writer) error {
	if s.file == "" {
		if s.tmp == "" {
			tmp, err := os.MkdirTemp(s.dir, ".sqlite-")
			if err != nil {
				return err
			}
			s.tmp = tmp
		}
		file := filepath.Join(s.tmp, SQLite)
		os.Remove(file) // what a failed build left
		if err := buildSQLite(ctx, file, s.tables, s.meta, s.wait); err != nil {
			return err
		}
		s.file = file
	}
	f, err := os.Open(s.file)
	if err != nil {
		return err
	}
	defer f.Close()
	// A buffer (verify's emit) is grown once to the file's size, and then written to, not
	// read into (ReadFrom would double it at the end, looking for more).
	if g, ok := w.(interface{ Grow(int) }); ok {
		if fi, err := f.Stat(); err == nil {
			g.Grow(int(fi.Size()))
		}
	}
	_, err = io.Copy(struct{ io.Writer }{w}, struct{ io.Reader }{f})
	return err
}

// remove deletes the database's folder.
func (s *sqliteDB) remove() {
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// buildSQLite builds the database of every table in file, with its primary key (a table
// of a date is kept in date order: WITHOUT ROWID, keyed by the date) and foreign keys, and
// a meta table. It has no journal, the tables are created and filled in one order, rows in
// key order, and nothing is deleted: the same rows give the same bytes, and the pages are
// as full as SQLite fills them. A table's rows are inserted once wait says it is filled
// (wait nil: at once), so that the database is built while later tables are still being
// filled. Its page cache is bounded (cache_size), so the memory it takes does not grow
// with the tables.
func buildSQLite(ctx context.Context, file string, tables []*table.Table, meta []metaRow, wait func(context.Context, *table.Table) error) error {
	db, err := sql.Open("sqlite", file)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection, whose pragmas hold
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// The driver's connection itself: its statements take the rows' values in one slice
	// kept from one statement to the next, where database/sql would copy and check every
	// value again on every statement.
	if err := conn.Raw(func(dc any) error {
		c, ok := dc.(interface {
			driver.ExecerContext
			driver.ConnPrepareContext
		})
		if !ok {
			return fmt.Errorf("%s: the driver's connection %T cannot execute statements", SQLite, dc)
		}
		exec := func(q string, args ...driver.NamedValue) error {
			if _, err := c.ExecContext(ctx, q, args); err != nil {
				return fmt.Errorf("%s: %.80s: %w", SQLite, q, err)
			}
			return nil
		}
		for _, q := range []string{
			"PRAGMA page_size = " + strconv.Itoa(sqlitePageSize),
			"PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF", "PRAGMA cache_size = -8192",
			"CREATE TABLE meta (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
		} {
			if err := exec(q); err != nil {
				return err
			}
		}
		for _, t := range tables {
			if err := exec(createTable(t)); err != nil {
				return err
			}
		}
		if err := exec("BEGIN"); err != nil {
			return err
		}
		for _, m := range meta {
			if err := exec("INSERT INTO meta VALUES (?, ?)", driver.NamedValue{Ordinal: 1, Value: m.key}, driver.NamedValue{Ordinal: 2, Value: m.value}); err != nil {
				return err
			}
		}
		for _, t := range tables {
			if wait != nil {
				if err := wait(ctx, t); err != nil {
					return err
				}
			}
			if err := insertRows(ctx, c, t); err != nil {
				return err
			}
		}
		return exec("COMMIT")
	}); err != nil {
		return err
	}
	if err := conn.Close(); err != nil {
		return err
	}
	return db.Close()
}

// createTable is the CREATE TABLE statement of a table.
func createTable(t *table.Table) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + t.Name + " (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := "INTEGER"
		if c.Type != table.Integer {
			typ = "TEXT"
		}
		b.WriteString(c.Name + " " + typ)
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
	}
	b.WriteString(", PRIMARY KEY (" + strings.Join(t.PrimaryKey, ", ") + ")")
	for _, fk := range t.ForeignKeys {
		b.WriteString(", FOREIGN KEY (" + fk.Column + ") REFERENCES " + fk.Table + " (" + fk.TableColumn + ")")
	}
	b.WriteString(") WITHOUT ROWID")
	return b.String()
}

// insertBatch is how many rows one INSERT statement holds.
const insertBatch = 64

// insertRows inserts a table's rows, many a statement.
func insertRows(ctx context.Context, c driver.ConnPrepareContext, t *table.Table) error {
	cols := len(t.Columns)
	stmt := func(n int) (driver.StmtExecContext, func(), error) {
		one := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
		q := "INSERT INTO " + t.Name + " VALUES " + strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
		s, err := c.PrepareContext(ctx, q)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: table %s: %w", SQLite, t.Name, err)
		}
		e, ok := s.(driver.StmtExecContext)
		if !ok {
			s.Close()
			return nil, nil, fmt.Errorf("%s: the driver's statement %T cannot execute", SQLite, s)
		}
		return e, func() { s.Close() }, nil
	}
	full, closeFull, err := stmt(insertBatch)
	if err != nil {
		return err
	}
	defer closeFull()
	args := make([]driver.NamedValue, insertBatch*cols)
	for i := range args {
		args[i].Ordinal = i + 1
	}
	for start := 0; start < t.Len(); start += insertBatch {
		n := min(insertBatch, t.Len()-start)
		k := 0
		for r := start; r < start+n; r++ {
			for i := range cols {
				v := t.Value(r, i)
				switch {
				case v.IsNull():
					args[k].Value = nil
				case v.Kind() == table.Integer:
					args[k].Value = int64(v.Int32())
				default:
					args[k].Value = v.String()
				}
				k++
			}
		}
		s := full
		if n < insertBatch {
			var closeS func()
			if s, closeS, err = stmt(n); err != nil {
				return err
			}
			defer closeS()
		}
		if _, err := s.ExecContext(ctx, args[:k]); err != nil {
			return fmt.Errorf("%s: table %s, row %s: %w", SQLite, t.Name, t.Key(start), err)
		}
	}
	return nil
}
