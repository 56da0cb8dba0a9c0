package table

import (
	"strings"
	"testing"
	"time"
)

// TestDates checks the date arithmetic against the standard library for every day of
// 1600–2400.
func TestDates(t *testing.T) {
	for d := time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() <= 2400; d = d.AddDate(0, 0, 1) {
		days := int(d.Unix() / 86400)
		if got := daysFromCivil(d.Year(), int(d.Month()), d.Day()); got != days {
			t.Fatalf("%s: %d days, want %d", d.Format(time.DateOnly), got, days)
		}
		v := DateOf(d.Year(), int(d.Month()), d.Day())
		if got := v.String(); got != d.Format(time.DateOnly) {
			t.Fatalf("%s is written %s", d.Format(time.DateOnly), got)
		}
		if got := string(v.AppendText(nil)); got != d.Format(time.DateOnly) {
			t.Fatalf("%s is appended as %s", d.Format(time.DateOnly), got)
		}
	}
}

func TestAppend(t *testing.T) {
	tb := &Table{Name: "t", Columns: []Column{
		{Name: "date", Type: Date}, {Name: "n", Type: Integer}, {Name: "s", Type: Text}, {Name: "max", Type: Integer, Nullable: true},
	}, PrimaryKey: []string{"date"}}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
	if err := tb.Append(DateOf(1990, 5, 15), Int(-3), Str("a,b"), Null()); err != nil {
		t.Fatal(err)
	}
	if err := tb.Append(DateOf(2000, 2, 29), Int(7), Str(""), Int(9)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		row  []Value
		want string
	}{
		{"short row", []Value{DateOf(2000, 1, 1)}, "a row of 1 values"},
		{"wrong type", []Value{Int(1), Int(1), Str(""), Null()}, "column date takes date values"},
		{"null in a required column", []Value{DateOf(2000, 1, 1), Null(), Str(""), Null()}, "column n takes integer values"},
	} {
		if err := tb.Append(tc.row...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if tb.Len() != 2 {
		t.Fatalf("%d rows", tb.Len())
	}
	var got []string
	for r := range tb.Len() {
		for _, v := range tb.Row(r) {
			got = append(got, v.String())
		}
	}
	for r := range tb.Len() {
		for i, v := range tb.Row(r) {
			if a := string(v.AppendText([]byte("x"))); a != "x"+v.String() {
				t.Errorf("row %d, column %d: AppendText gives %q, String %q", r, i, a[1:], v.String())
			}
		}
	}
	for _, v := range []Value{DateOf(-5, 1, 1), DateOf(12000, 3, 1), Int(-2147483648)} {
		if a := string(v.AppendText(nil)); a != v.String() {
			t.Errorf("AppendText gives %q, String %q", a, v.String())
		}
	}
	if want := "1990-05-15 -3 a,b  2000-02-29 7  9"; strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, " "), want)
	}
	if !tb.Value(0, 3).IsNull() || tb.Value(1, 3).Int32() != 9 || tb.Key(1) != "2000-02-29" {
		t.Error("Value or Key")
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    Table
		want string
	}{
		{"name", Table{Name: "life-path"}, "lower snake case"},
		{"column twice", Table{Name: "t", Columns: []Column{{Name: "a", Type: Text}, {Name: "a", Type: Text}}}, "column a twice"},
		{"no key", Table{Name: "t", Columns: []Column{{Name: "a", Type: Text}}}, "no primary key"},
		{"nullable key", Table{Name: "t", Columns: []Column{{Name: "a", Type: Text, Nullable: true}}, PrimaryKey: []string{"a"}}, "primary key a"},
		{"foreign key", Table{Name: "t", Columns: []Column{{Name: "a", Type: Text}}, PrimaryKey: []string{"a"}, ForeignKeys: []ForeignKey{{Column: "b"}}}, "foreign key b"},
	} {
		if err := tc.t.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
