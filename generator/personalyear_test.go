package generator

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/rules"
)

// personalYearInputs are every birthday (a day of a leap year's calendar) in every target
// year of the range, 366 × 201; every 97th under -short, with the edges and the goldens.
func personalYearInputs(t *testing.T) []DateInput {
	t.Helper()
	var all []DateInput
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		for day := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() == 2000; day = day.AddDate(0, 0, 1) {
			all = append(all, DateInput{day.Day(), int(day.Month()), y})
		}
	}
	if len(all) != 366*201 {
		t.Fatalf("%d inputs, want %d", len(all), 366*201)
	}
	if !testing.Short() {
		return all
	}
	var out []DateInput
	for i, in := range all {
		if i%97 == 0 || i == len(all)-1 || (in.Day == 29 && in.Month == 2 && (in.Year == 1900 || in.Year == 2000)) {
			out = append(out, in)
		}
	}
	return out
}

// TestPersonalYearEncoderMatchesEncode holds the fast encoder byte-identical to encoding a
// PersonalYearRecord with go-json, for every birthday in every year (a sample under -short).
func TestPersonalYearEncoderMatchesEncode(t *testing.T) {
	s := testSite(t)
	forDates(t, personalYearInputs(t), func() (func(d, m, y int) error, error) {
		enc, err := newPersonalYearEncoder(s)
		if err != nil {
			return nil, err
		}
		var buf []byte
		return func(d, m, y int) error {
			want, err := Encode(s.PersonalYearRecord(d, m, y))
			if err != nil {
				return err
			}
			if buf = enc.Append(buf[:0], d, m, y); !bytes.Equal(buf, want) {
				return fmt.Errorf("fast encoder differs\n got: %s\nwant: %s", buf, want)
			}
			return nil
		}, nil
	})
}

// The personal year of docs/design.md §16 written again from its words, apart from
// generator/rules: the digital root (r9(n) = 1 + (n − 1) mod 9 for n > 0) and time.Time's
// calendar of the target year.
func digitalRoot(n int) int { return 1 + (n-1)%9 }

// personalYearOf is the personal year: the root of the birthday's day and month and the
// digits of the target year.
func personalYearOf(d, m, y int) int {
	ys := 0
	for _, c := range strconv.Itoa(y) {
		ys += int(c - '0')
	}
	return digitalRoot(d + m + ys)
}

// personalYearCalendar is the months and days of personal year py in the target year y,
// which depend on the birthday only through py.
func personalYearCalendar(py, y int) ([12]int, [12][]int) {
	var months [12]int
	var days [12][]int
	for day := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() == y; day = day.AddDate(0, 0, 1) {
		k := int(day.Month())
		months[k-1] = digitalRoot(py + k)
		days[k-1] = append(days[k-1], digitalRoot(months[k-1]+day.Day()))
	}
	return months, days
}

// TestPersonalYearRoute checks every record of the route, as its renderer writes it into
// the tree, for every birthday in every target year (a sample under -short): the numbers
// against a second implementation of the rule, against the hand-worked golden vectors
// (rules/testdata/personal-year.csv), the year's texts, the bound of 3 KB, and the largest
// record seen.
func TestPersonalYearRoute(t *testing.T) {
	s := testSite(t)
	encs, err := s.encoders()
	if err != nil {
		t.Fatal(err)
	}
	enc := encs[RoutePersonalYear]
	golden := personalYearGoldens(t)
	checked, largest := 0, 0
	var buf []byte
	// The rule's months and days depend on the date only through its personal year: the
	// second implementation runs once for each year and personal year (1,809 times, not
	// 73,566), which was a quarter of the test's time.
	type yearKey struct{ py, y int }
	byCalendar := map[yearKey]struct {
		months [12]int
		days   [12][]int
	}{}
	inputs := append(personalYearInputs(t), golden.inputs...)
	for _, in := range inputs {
		d, m, y := in.Day, in.Month, in.Year
		if buf, err = enc(buf[:0], []int{d, m, y}); err != nil {
			t.Fatalf("%d.%d in %d: %v", d, m, y, err)
		}
		largest = max(largest, len(buf))
		var r PersonalYearRecord
		if err := json.Unmarshal(buf, &r); err != nil {
			t.Fatal(err)
		}
		py := personalYearOf(d, m, y)
		cal, ok := byCalendar[yearKey{py, y}]
		if !ok {
			cal.months, cal.days = personalYearCalendar(py, y)
			byCalendar[yearKey{py, y}] = cal
		}
		months, days := cal.months, cal.days
		if r.Input != (PersonalYearInput{d, m, y}) || r.PersonalYear != py {
			t.Fatalf("%d.%d in %d: input %+v, personal year %d; the rule gives %d", d, m, y, r.Input, r.PersonalYear, py)
		}
		for k, mo := range r.Months {
			if mo.Month != k+1 || mo.Number != months[k] || !slices.Equal(mo.Days, days[k]) {
				t.Fatalf("%d.%d in %d: month %d is %+v; the rule gives %d %v", d, m, y, k+1, mo, months[k], days[k])
			}
		}
		if text := s.Content.Cycles.Years[py]; r.Title != text.Title || r.Reading != text.Short {
			t.Fatalf("%d.%d in %d: title %q, reading %q: not year %d's", d, m, y, r.Title, r.Reading, py)
		}
		if row, ok := golden.rows[in]; ok {
			var got bytes.Buffer
			for _, mo := range r.Months {
				got.WriteString(strconv.Itoa(mo.Number))
			}
			want := fmt.Sprintf("%s %s %s %s", row[3], row[4], row[5], row[6])
			have := fmt.Sprintf("%d %s %s %s", r.PersonalYear, got.String(), digits(r.Months[1].Days), digits(r.Months[11].Days))
			if have != want {
				t.Errorf("%d.%d in %d: %s, the golden vector %s", d, m, y, have, want)
			}
			checked++
		}
	}
	if checked < len(golden.inputs) {
		t.Errorf("only %d of %d golden vectors checked", checked, len(golden.inputs))
	}
	if largest > 3072 {
		t.Errorf("the largest record is %d bytes, over 3 KB", largest)
	}
	t.Logf("the largest record is %d bytes", largest)
}

func digits(ns []int) string {
	var b bytes.Buffer
	for _, n := range ns {
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// pinnacleGoldens reads rules/testdata/pinnacles.csv: date, life_path, p1–p4, end1–end3,
// c1–c4.
func pinnacleGoldens(t *testing.T) (map[DateInput][]string, []DateInput) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("rules", "testdata", "pinnacles.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[DateInput][]string{}
	var inputs []DateInput
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("date,")) {
			continue
		}
		cells := bytes.Split(line, []byte(","))
		row := make([]string, len(cells))
		for i, c := range cells {
			row[i] = string(c)
		}
		day, err := time.Parse(time.DateOnly, row[0])
		if err != nil || len(row) != 13 {
			t.Fatalf("pinnacles.csv: %q: want 13 fields, a date first (%v)", line, err)
		}
		in := DateInput{day.Day(), int(day.Month()), day.Year()}
		rows[in] = row
		inputs = append(inputs, in)
	}
	return rows, inputs
}

type pyGoldens struct {
	rows   map[DateInput][]string
	inputs []DateInput
}

// personalYearGoldens reads rules/testdata/personal-year.csv: day, month, year,
// personal_year, months, february, december.
func personalYearGoldens(t *testing.T) pyGoldens {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("rules", "testdata", "personal-year.csv"))
	if err != nil {
		t.Fatal(err)
	}
	g := pyGoldens{rows: map[DateInput][]string{}}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("day,")) {
			continue
		}
		row := bytes.Split(line, []byte(","))
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = string(c)
		}
		d, _ := strconv.Atoi(cells[0])
		m, _ := strconv.Atoi(cells[1])
		y, _ := strconv.Atoi(cells[2])
		in := DateInput{d, m, y}
		g.rows[in] = cells
		g.inputs = append(g.inputs, in)
	}
	if len(g.inputs) < 20 {
		t.Fatalf("personal-year.csv: %d vectors, want at least 20", len(g.inputs))
	}
	return g
}

// lifeCyclesByWords are the pinnacles and challenges of docs/design.md §16 written again
// from its words, apart from generator/rules: the date's digits as text, rk keeping 11 and
// 22, the digital root for the challenges; to is -1 for the fourth pinnacle.
func lifeCyclesByWords(day time.Time) ([4][3]int, [4]int) {
	sum := func(s string) int {
		n := 0
		for _, c := range s {
			n += int(c - '0')
		}
		return n
	}
	rk := func(n int) int {
		for n > 9 && n != 11 && n != 22 {
			n = sum(strconv.Itoa(n))
		}
		return n
	}
	abs := func(n int) int { return max(n, -n) }
	d, m, ys := day.Day(), int(day.Month()), sum(day.Format("2006"))
	p1, p2 := rk(rk(m)+rk(d)), rk(rk(d)+rk(ys))
	nums := [4]int{p1, p2, rk(p1 + p2), rk(rk(m) + rk(ys))}
	end := 36 - digitalRoot(lifePathByDigits(day))
	var pins [4][3]int
	for i, n := range nums {
		from, to := end+9*(i-1), end+9*i
		if i == 0 {
			from = 0
		}
		if i == 3 {
			to = -1
		}
		pins[i] = [3]int{n, from, to}
	}
	m1, d1, y1 := digitalRoot(m), digitalRoot(d), digitalRoot(ys)
	c1, c2 := abs(m1-d1), abs(d1-y1)
	return pins, [4]int{c1, c2, abs(c1 - c2), abs(m1 - y1)}
}

// TestLifePathDateCycles checks the pinnacles and challenges of the life path record of
// every date (a sample under -short) against a second implementation of the rule and
// against the hand-worked vectors (rules/testdata/pinnacles.csv), each with its number's
// short reading.
func TestLifePathDateCycles(t *testing.T) {
	s := testSite(t)
	encs, err := s.encoders()
	if err != nil {
		t.Fatal(err)
	}
	enc := encs["life-path-date"]
	golden, extra := pinnacleGoldens(t)
	if len(extra) < 20 {
		t.Fatalf("pinnacles.csv: %d vectors, want at least 20", len(extra))
	}
	checked := 0
	var buf []byte
	for _, in := range testDates(t, extra...) {
		day := time.Date(in.Year, time.Month(in.Month), in.Day, 0, 0, 0, 0, time.UTC)
		if buf, err = enc(buf[:0], []int{in.Day, in.Month, in.Year}); err != nil {
			t.Fatal(err)
		}
		var r LifePathDateRecord
		if err := json.Unmarshal(buf, &r); err != nil {
			t.Fatal(err)
		}
		pins, chals := lifeCyclesByWords(day)
		var got [4][3]int
		for i, p := range r.Pinnacles {
			to := -1
			if p.ToAge != nil {
				to = *p.ToAge
			}
			got[i] = [3]int{p.Number, p.FromAge, to}
			if p.Reading != s.Content.Cycles.Pinnacles[p.Number].Short {
				t.Fatalf("%s: pinnacle %d's reading is not pinnacle %d's", day.Format(time.DateOnly), i+1, p.Number)
			}
		}
		var gotC [4]int
		for i, c := range r.Challenges {
			gotC[i] = c.Number
			if c.Reading != s.Content.Cycles.Challenges[c.Number].Short {
				t.Fatalf("%s: challenge %d's reading is not challenge %d's", day.Format(time.DateOnly), i+1, c.Number)
			}
		}
		if got != pins || gotC != chals {
			t.Fatalf("%s: pinnacles %v, challenges %v; the rule gives %v, %v", day.Format(time.DateOnly), got, gotC, pins, chals)
		}
		if row, ok := golden[in]; ok {
			want := fmt.Sprint(row[2:])
			have := fmt.Sprint([]string{strconv.Itoa(got[0][0]), strconv.Itoa(got[1][0]), strconv.Itoa(got[2][0]), strconv.Itoa(got[3][0]),
				strconv.Itoa(got[0][2]), strconv.Itoa(got[1][2]), strconv.Itoa(got[2][2]),
				strconv.Itoa(gotC[0]), strconv.Itoa(gotC[1]), strconv.Itoa(gotC[2]), strconv.Itoa(gotC[3])})
			if have != want {
				t.Errorf("%s: %s, the golden vector %s", day.Format(time.DateOnly), have, want)
			}
			checked++
		}
	}
	if checked < len(extra) {
		t.Errorf("only %d of %d golden vectors checked", checked, len(extra))
	}
}

// BenchmarkPersonalYearEncoder is the cost of one personal year record (73,566 a generate).
func BenchmarkPersonalYearEncoder(b *testing.B) {
	s := testSite(b)
	e, err := newPersonalYearEncoder(s)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	i := 0
	for b.Loop() {
		d, m := i%28+1, i%12+1
		buf = e.Append(buf[:0], d, m, rules.FirstYear+i%201)
		i++
	}
	b.SetBytes(int64(len(buf)))
}

// BenchmarkLifePathDateEncoder is the cost of one life path record of a date, cycles
// included (73,414 a generate).
func BenchmarkLifePathDateEncoder(b *testing.B) {
	s := testSite(b)
	e, err := newLifePathDateEncoder(s)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	i := 0
	for b.Loop() {
		buf = e.Append(buf[:0], i%28+1, i%12+1, rules.FirstYear+i%201)
		i++
	}
	b.SetBytes(int64(len(buf)))
}
