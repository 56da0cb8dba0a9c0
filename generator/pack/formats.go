package pack

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite": SQLite translated to Go, no cgo

	"github.com/opennumerology/numerology/generator/pack/table"
)

// writeCSV renders a table as RFC 4180 CSV: a header row, then a row per row, \n line ends
// (as datapackage.json's dialect says), a Null as an empty field.
func writeCSV(t *table.Table) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	row := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		row[i] = c.Name
	}
	w.Write(row) // a bytes.Buffer does not fail
	for r := range t.Len() {
		for i := range row {
			row[i] = t.Value(r, i).String()
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes()
}

// parquetCreatedBy is the created_by of every Parquet file: fixed, so that a file does not
// change with the version of the library or of numerology.
const parquetCreatedBy = "numerology pack"

// parquetRowGroup is the most rows a row group holds: every table of the dataset fits one.
const parquetRowGroup = 1 << 20

// writeParquet renders a table as a Parquet file: a column per column in order (INT32,
// DATE, or UTF8 strings; a Nullable column optional), one row group, Zstandard pages. The
// bytes depend on the rows only: the writer's created_by is fixed and it writes no time.
func writeParquet(t *table.Table) ([]byte, error) {
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
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, schema,
		parquet.CreatedBy(parquetCreatedBy, "", ""),
		parquet.Compression(&parquet.Snappy),
		parquet.MaxRowsPerRowGroup(parquetRowGroup))
	rows := make([]parquet.Row, 0, 1024)
	flush := func() error {
		if _, err := w.WriteRows(rows); err != nil {
			return fmt.Errorf("%s.parquet: %w", t.Name, err)
		}
		rows = rows[:0]
		return nil
	}
	for r := range t.Len() {
		row := make(parquet.Row, len(t.Columns))
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
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("%s.parquet: %w", t.Name, err)
	}
	return buf.Bytes(), nil
}

// SQLite is the file name of the database inside the zip.
const SQLite = "numerology.sqlite"

// sqlitePageSize is the database's page size, fixed rather than the library's default.
const sqlitePageSize = 4096

// metaRow is a row of the database's meta table.
type metaRow struct{ key, value string }

// writeSQLite builds the database of every table, with its primary key (a table of a date
// is kept in date order: WITHOUT ROWID, keyed by the date) and foreign keys, and a meta
// table, then returns its bytes. It is built in a file of its own in dir, with no journal,
// the tables created and filled in one order, rows in key order, and nothing deleted: the
// same rows give the same bytes, and the pages are as full as SQLite fills them. Its page
// cache is bounded (cache_size), so the memory it takes does not grow with the tables.
func writeSQLite(ctx context.Context, dir string, tables []*table.Table, meta []metaRow) ([]byte, error) {
	tmp, err := os.MkdirTemp(dir, ".sqlite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, SQLite)
	db, err := sql.Open("sqlite", file)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection, whose pragmas hold
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	exec := func(q string, args ...any) error {
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
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
			return nil, err
		}
	}
	for _, t := range tables {
		if err := exec(createTable(t)); err != nil {
			return nil, err
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	for _, m := range meta {
		if _, err := tx.ExecContext(ctx, "INSERT INTO meta VALUES (?, ?)", m.key, m.value); err != nil {
			return nil, fmt.Errorf("%s: meta: %w", SQLite, err)
		}
	}
	for _, t := range tables {
		if err := insertRows(ctx, tx, t); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	if err := conn.Close(); err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(file)
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
func insertRows(ctx context.Context, tx *sql.Tx, t *table.Table) error {
	cols := len(t.Columns)
	stmt := func(n int) (*sql.Stmt, error) {
		one := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
		q := "INSERT INTO " + t.Name + " VALUES " + strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
		return tx.PrepareContext(ctx, q)
	}
	full, err := stmt(insertBatch)
	if err != nil {
		return err
	}
	defer full.Close()
	args := make([]any, 0, insertBatch*cols)
	for start := 0; start < t.Len(); start += insertBatch {
		n := min(insertBatch, t.Len()-start)
		args = args[:0]
		for r := start; r < start+n; r++ {
			for i := range cols {
				v := t.Value(r, i)
				switch {
				case v.IsNull():
					args = append(args, nil)
				case v.Kind() == table.Integer:
					args = append(args, int64(v.Int32()))
				default:
					args = append(args, v.String())
				}
			}
		}
		s := full
		if n < insertBatch {
			if s, err = stmt(n); err != nil {
				return err
			}
			defer s.Close()
		}
		if _, err := s.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("%s: table %s, row %s: %w", SQLite, t.Name, t.Key(start), err)
		}
	}
	return nil
}
