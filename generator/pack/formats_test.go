package pack

import (
	"bytes"
	"context"
	"encoding/csv"
	"runtime"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/pack/table"
)

// csvOf is what encoding/csv writes of the rows (comma, \n line ends).
func csvOf(t testing.TB, rows [][]string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWriteCSV: writeCSV writes a table byte for byte as encoding/csv writes its values'
// strings, texts that need quotes among them, and across its buffer's flushes.
func TestWriteCSV(t *testing.T) {
	tb := &table.Table{Name: "t", Columns: []table.Column{
		{Name: "date", Type: table.Date}, {Name: "n", Type: table.Integer},
		{Name: "s", Type: table.Text}, {Name: "max", Type: table.Integer, Nullable: true},
	}, PrimaryKey: []string{"date"}}
	texts := []string{"", "plain", "a,b", `say "hi"`, "two\nlines", "cr\rhere", " leading", "\u00a0nbsp", `\.`, `\.x`, "тест, «кавычки»", "\t"}
	want := [][]string{{"date", "n", "s", "max"}}
	for i := range 5000 { // past the 64 KiB at which writeCSV writes out
		v := []table.Value{table.DateOf(1900+i%200, 1+i%12, 1+i%28), table.Int(i - 2500), table.Str(texts[i%len(texts)]), table.Null()}
		if i%3 == 0 {
			v[3] = table.Int(i)
		}
		if err := tb.Append(v...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(v))
		for j, x := range v {
			row[j] = x.String()
		}
		want = append(want, row)
	}
	var got bytes.Buffer
	if err := writeCSV(tb, &got); err != nil {
		t.Fatal(err)
	}
	if w := csvOf(t, want); !bytes.Equal(got.Bytes(), w) {
		t.Fatalf("writeCSV differs from encoding/csv: %d bytes, want %d", got.Len(), len(w))
	}
}

// FuzzCSVField: a field is written as encoding/csv writes it.
func FuzzCSVField(f *testing.F) {
	for _, s := range []string{"", "a", "a,b", `"`, "\r\n", " x", "\u2028", `\.`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := csvOf(t, [][]string{{"k", s}})
		got := append(appendCSVField([]byte("k,"), s), '\n')
		if !bytes.Equal(got, want) {
			t.Fatalf("%q is written %q, encoding/csv writes %q", s, got, want)
		}
	})
}

// TestSQLiteIntoBuffer: the database written into a buffer (as verify --archive's emit
// does) is a SQLite file, and the buffer is grown once to its size: not doubled up to it,
// nor past it at the end.
func TestSQLiteIntoBuffer(t *testing.T) {
	tb := &table.Table{Name: "t", Columns: []table.Column{{Name: "n", Type: table.Integer}, {Name: "s", Type: table.Text}}, PrimaryKey: []string{"n"}}
	for i := range 20000 {
		if err := tb.Append(table.Int(i), table.Str(strings.Repeat("x", i%50))); err != nil {
			t.Fatal(err)
		}
	}
	db := &sqliteDB{dir: t.TempDir(), tables: []*table.Table{tb}, meta: []metaRow{{"k", "v"}}}
	defer db.remove()
	for i := range 2 { // built on the first write, copied on the second
		var b bytes.Buffer
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := db.write(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if !bytes.HasPrefix(b.Bytes(), []byte("SQLite format 3\x00")) || b.Len()%sqlitePageSize != 0 {
			t.Fatalf("%d bytes that are not a SQLite database", b.Len())
		}
		if b.Cap() >= 2*b.Len() {
			t.Errorf("a database of %d bytes took a buffer of %d", b.Len(), b.Cap())
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; i == 1 && alloc > uint64(b.Len())*3/2 {
			t.Errorf("copying a database of %d bytes allocated %d", b.Len(), alloc)
		}
	}
}
