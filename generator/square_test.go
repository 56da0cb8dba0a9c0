package generator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	json "github.com/goccy/go-json"
	"github.com/opennumerology/numerology/generator/rules"
)

// TestSquareEncoderMatchesEncode holds the fast encoder byte-identical to encoding a
// SquareRecord with go-json, for every date of the range (a sample under -short).
func TestSquareEncoderMatchesEncode(t *testing.T) {
	s := testSite(t)
	encoderMatchesEncode(t, func() (func([]byte, int, int, int) ([]byte, error), error) {
		enc, err := newSquareEncoder(s)
		if err != nil {
			return nil, err
		}
		return enc.Append, nil
	}, func(d, m, y int) (any, error) { return s.SquareRecord(d, m, y) })
}

// TestSquareRecordSize renders the record of every date of the range (a sample under
// -short), as the route writes it, and holds the largest within the route's bound, 2.75 KB (§14). It logs
// the largest, its date and the share of the attribution fields.
func TestSquareRecordSize(t *testing.T) {
	s := testSite(t)
	encs, err := s.encoders()
	if err != nil {
		t.Fatal(err)
	}
	enc := encs[RouteSquare]
	var buf []byte
	worst, total, n, worstDate := 0, 0, 0, ""
	for _, in := range testDates(t) {
		if buf, err = enc(buf[:0], []int{in.Day, in.Month, in.Year}); err != nil {
			t.Fatal(err)
		}
		if len(buf) > worst {
			worst, worstDate = len(buf), fmt.Sprintf("%02d.%02d.%d", in.Day, in.Month, in.Year)
		}
		total += len(buf)
		n++
	}
	tail, _ := jsonFragment(s.attribution())
	t.Logf("largest record %d bytes (%s), mean %d bytes over %d dates; the attribution fields take %d", worst, worstDate, total/n, n, len(tail))
	if max := renderers()[RouteSquare].maxBytes; worst > max {
		t.Errorf("the record of %s is %d bytes, above the goal of %d", worstDate, worst, max)
	}
}

// squareByString is the rule of docs/design.md §14 written again from its words, apart from
// generator/rules, on the date as text: the digits of the day and month without leading
// zeros and the year's four; W1 their sum, W2 the sum of W1's digits, W3 W1 minus twice the
// day's first digit, W4 the sum of the digits of W3 without its sign; each cell counts its
// digit among all of those, zeros and signs aside; a line sums its three cells.
func squareByString(d, m, y int) (w [4]int, counts [9]int, lines map[string]int) {
	sum := func(s string) int {
		n := 0
		for _, c := range strings.TrimPrefix(s, "-") {
			n += int(c - '0')
		}
		return n
	}
	date := strconv.Itoa(d) + strconv.Itoa(m) + strconv.Itoa(y)
	w[0] = sum(date)
	w[1] = sum(strconv.Itoa(w[0]))
	w[2] = w[0] - 2*int(strconv.Itoa(d)[0]-'0')
	w[3] = sum(strconv.Itoa(w[2]))
	all := date
	for _, n := range w {
		all += strings.TrimPrefix(strconv.Itoa(n), "-")
	}
	for c := 1; c <= 9; c++ {
		counts[c-1] = strings.Count(all, strconv.Itoa(c))
	}
	lines = map[string]int{}
	for key, cells := range map[string]string{
		"purpose": "147", "family": "258", "habits": "369", "self_esteem": "123", "household": "456",
		"talent": "789", "spirituality": "159", "temperament": "357",
	} {
		for _, c := range cells {
			lines[key] += counts[c-'1']
		}
	}
	return w, counts, lines
}

// TestSquareRoute checks the record the route gives for every one of the 73,414 dates (a
// sample under -short) against the rule written again from its words (squareByString), and
// against the shared golden vectors (rules/testdata/square.csv) where they fall in the range:
// the working numbers, each cell's digits, count, name and reading, and each line's sum.
func TestSquareRoute(t *testing.T) {
	s := testSite(t)
	_, golden, extra := goldenVectors(t, "square.csv")
	var checked atomic.Int64
	forDates(t, testDates(t, extra...), func() (func(d, m, y int) error, error) {
		encs, err := s.encoders()
		if err != nil {
			return nil, err
		}
		enc := encs[RouteSquare]
		var buf []byte
		return func(d, m, y int) error {
			if buf, err = enc(buf[:0], []int{d, m, y}); err != nil {
				return err
			}
			var rec SquareRecord
			if err := json.Unmarshal(buf, &rec); err != nil {
				return err
			}
			w, counts, lines := squareByString(d, m, y)
			if rec.Input != (DateInput{d, m, y}) || rec.WorkingNumbers != w {
				return fmt.Errorf("input %+v, working numbers %v; the rule gives %v", rec.Input, rec.WorkingNumbers, w)
			}
			for i, c := range rec.Cells.All() {
				texts := &s.Content.Square.Cells[i]
				if c.Count != counts[i] || c.Digits != strings.Repeat(strconv.Itoa(i+1), counts[i]) || c.Name != texts.Name || c.Reading != texts.Readings[counts[i]] || c.Reading == "" {
					return fmt.Errorf("cell %d is %+v; the rule gives %d", i+1, *c, counts[i])
				}
			}
			for l, sum := range rec.Lines.All() {
				if key := rules.SquareLine(l).Key(); *sum != lines[key] {
					return fmt.Errorf("line %s sums %d; the rule gives %d", key, *sum, lines[key])
				}
			}
			dotted := fmt.Sprintf("%02d.%02d.%d", d, m, y)
			if want := s.SquareDetailsURL(d, m, y); rec.SourceURL != want || !strings.HasSuffix(rec.SuggestedCitation, " "+want) || !strings.Contains(rec.SuggestedCitation, dotted) {
				return fmt.Errorf("source_url %s, citation %q", rec.SourceURL, rec.SuggestedCitation)
			}
			if row, ok := golden[DateInput{d, m, y}]; ok {
				checked.Add(1)
				return checkSquareVector(rec, row)
			}
			return nil
		}, nil
	})
	if checked.Load() < 20 {
		t.Errorf("only %d golden vectors fall in the range", checked.Load())
	}
}

// checkSquareVector compares a record with its row of rules/testdata/square.csv: the working
// numbers, then each cell's digits ("-" none, "?" left open by the vectors, for
// squareByString and TestSquareHandVectors to decide).
func checkSquareVector(rec SquareRecord, row []string) error {
	for i := range 4 {
		if row[1+i] == "?" {
			continue
		}
		if w, _ := strconv.Atoi(row[1+i]); rec.WorkingNumbers[i] != w {
			return fmt.Errorf("W%d %d, the golden vector %d", i+1, rec.WorkingNumbers[i], w)
		}
	}
	for i, c := range rec.Cells.All() {
		want := row[5+i]
		if want == "?" {
			continue
		}
		if want == "-" {
			want = ""
		}
		if c.Digits != want {
			return fmt.Errorf("cell %d %q, the golden vector %q", i+1, c.Digits, want)
		}
	}
	return nil
}

// TestSquareMeanings checks /square/meanings against the rule and the content: the grid's
// layout, the bands as rules.LineBand reads sums, one reading for every count each cell
// takes in the range, and the eight lines with their cells, in contract order.
func TestSquareMeanings(t *testing.T) {
	s := testSite(t)
	m, err := s.SquareMeanings()
	if err != nil {
		t.Fatal(err)
	}
	if m.Layout != [3][3]int{{1, 4, 7}, {2, 5, 8}, {3, 6, 9}} {
		t.Errorf("layout %v", m.Layout)
	}
	for sum := 0; sum <= 30; sum++ {
		i := slices.IndexFunc(m.Bands, func(b SquareBand) bool { return sum >= b.Min && (b.Max == 0 || sum <= b.Max) })
		if i < 0 || m.Bands[i].Key != rules.LineBand(sum).Key() {
			t.Errorf("sum %d falls in band %d of %+v, the rule says %s", sum, i, m.Bands, rules.LineBand(sum).Key())
		}
	}
	counts := rules.SquareCounts()
	for i, c := range m.Cells {
		var got []int
		for _, r := range c.Readings {
			got = append(got, r.Count)
			if r.Reading == "" {
				t.Errorf("cell %d, count %d: empty reading", c.Cell, r.Count)
			}
		}
		if c.Cell != i+1 || !slices.Equal(got, counts[i]) || c.Description == "" || c.Name == "" {
			t.Errorf("cell %d (%q): counts %v, the range has %v", c.Cell, c.Name, got, counts[i])
		}
	}
	if len(m.Cells) != 9 || len(m.Lines) != rules.NumSquareLines {
		t.Fatalf("%d cells and %d lines", len(m.Cells), len(m.Lines))
	}
	for l, line := range m.Lines {
		sl := rules.SquareLine(l)
		if line.Key != sl.Key() || line.Cells != sl.Cells() || line.Name == "" || line.Description == "" ||
			line.Readings.Low == "" || line.Readings.Medium == "" || line.Readings.High == "" {
			t.Errorf("line %d: %+v", l, line)
		}
	}
	if m.SourceURL != s.SquareSourceURL() || !strings.HasSuffix(m.SuggestedCitation, " "+m.SourceURL) {
		t.Errorf("source_url %s, citation %q", m.SourceURL, m.SuggestedCitation)
	}
}

// TestSquareTable checks square.csv's rows for a sample of dates, by the scanner and, for a
// record in another field order, by the full parse; and that a record of another date is
// refused.
func TestSquareTable(t *testing.T) {
	s := testSite(t)
	tb := squareTables()[0]
	for _, v := range [][]int{{15, 5, 1990}, {9, 1, 2000}, {1, 1, 1900}, {31, 12, 2100}, {19, 9, 1966}} {
		rec, err := s.SquareRecord(v[0], v[1], v[2])
		if err != nil {
			t.Fatal(err)
		}
		body, err := Encode(rec)
		if err != nil {
			t.Fatal(err)
		}
		w, counts, lineSums := squareByString(v[0], v[1], v[2])
		want := []string{fmt.Sprintf("%04d-%02d-%02d", v[2], v[1], v[0]), strconv.Itoa(v[0]), strconv.Itoa(v[1]), strconv.Itoa(v[2])}
		for _, n := range w {
			want = append(want, strconv.Itoa(n))
		}
		for _, n := range counts {
			want = append(want, strconv.Itoa(n))
		}
		for _, k := range rules.SquareLineKeys() {
			want = append(want, strconv.Itoa(lineSums[k]))
		}
		if _, _, _, _, _, ok := scanSquare(body); !ok {
			t.Errorf("%v: the scanner does not read the record", v)
		}
		// The same record with its fields reordered: the scanner gives up, the parse reads it.
		var generic map[string]any
		if err := json.Unmarshal(body, &generic); err != nil {
			t.Fatal(err)
		}
		sorted, err := json.Marshal(generic)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range [][]byte{body, sorted} {
			if rows := tableRows(t, squareTables()[0], v, b); len(rows) != 1 || !slices.Equal(rows[0], want) {
				t.Errorf("%v: rows %v, want %v", v, rows, want)
			}
		}
		other := squareTables()[0]
		if err := other.Rows(other.Table, []int{v[0], v[1], v[2] + 1}, body); err == nil {
			t.Errorf("%v: the record was accepted for another year", v)
		}
	}
	if len(tb.Columns) != 4+4+9+8 {
		t.Errorf("%d columns", len(tb.Columns))
	}
}

// TestVerifySquare: one changed byte in a square record, in a line of its packed month file
// or in the meanings is reported with the file, the line and date where there is one, and
// the field whose value differs from what the rule and the content give.
func TestVerifySquare(t *testing.T) {
	sq := route(RouteSquare)
	month, _ := sq.PackedPath([]int{9, 1, 2000})
	meanings := route(RouteSquareMeanings).FilePath(nil)
	tests := []struct {
		name     string
		file     string
		old, new string
		want     string // the invalid entry; the corrupt entry is always there too
	}{
		{"a working number", sq.FilePath([]int{9, 1, 2000}), `"working_numbers":[12,3,-6,6]`, `"working_numbers":[12,3,-5,6]`,
			"field working_numbers[2] is -5, the rules and the content give -6"},
		{"a cell's count", sq.FilePath([]int{9, 1, 2000}), `"digits":"9","count":1,`, `"digits":"9","count":2,`,
			"field cells.9.count is 2, the rules and the content give 1"},
		{"a line's sum", sq.FilePath([]int{9, 1, 2000}), `"purpose":2,`, `"purpose":7,`,
			"field lines.purpose is 7, the rules and the content give 2"},
		{"a packed line", month, `{"input":{"day":9,"month":1,"year":2000},"working_numbers":[12,3,-6,6]`, `{"input":{"day":9,"month":1,"year":2000},"working_numbers":[12,3,-6,7]`,
			"line 9, 09.01.2000: field working_numbers[3] is 7, the rules and the content give 6"},
		{"a reading of the meanings", meanings, `"count":0,"reading":"`, `"count":0,"reading":"x`,
			`field cells[0].readings[0].reading is "x`},
	}
	out := scratchTree(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { verifyDamage(t, out, tt.file, tt.old, tt.new, tt.want) })
	}
}

func BenchmarkSquareEncoder(b *testing.B) {
	s := testSite(b)
	enc, err := newSquareEncoder(s)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	for i := 0; b.Loop(); i++ {
		if buf, err = enc.Append(buf[:0], 1+i%28, 1+i%12, 1900+i%201); err != nil {
			b.Fatal(err)
		}
	}
}
