package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/internal/calendar"
)

func TestReduce9(t *testing.T) {
	tests := []struct {
		name   string
		in     int
		r9, rk int
	}{
		{"one digit stays", 7, 7, 7},
		{"10 reduces to 1", 10, 1, 1},
		{"11 kept by rk only", 11, 2, 11},
		{"22 kept by rk only", 22, 4, 22},
		{"29 reduces to 11, kept by rk", 29, 2, 11},
		{"33 is not kept", 33, 6, 6},
		{"38 reduces to 11, then r9 to 2", 38, 2, 11},
		{"44 reduces to 8", 44, 8, 8},
		{"99 reduces twice", 99, 9, 9},
		{"2025 reduces to 9", 2025, 9, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r9(tt.in); got != tt.r9 {
				t.Errorf("r9(%d) = %d, want %d", tt.in, got, tt.r9)
			}
			if got := rk(tt.in); got != tt.rk {
				t.Errorf("rk(%d) = %d, want %d", tt.in, got, tt.rk)
			}
		})
	}
}

func TestValidBirthday(t *testing.T) {
	tests := []struct {
		name       string
		d, m, year int
		birthday   bool
		input      bool
	}{
		{"29 February in a leap target year", 29, 2, 2024, true, true},
		{"29 February in a common target year", 29, 2, 2025, true, true},
		{"29 February in 1900, not leap", 29, 2, 1900, true, true},
		{"29 February in 2100, not leap", 29, 2, 2100, true, true},
		{"30 February", 30, 2, 2000, false, false},
		{"31 April", 31, 4, 2000, false, false},
		{"31 December, last day", 31, 12, 2100, true, true},
		{"1 January, first day", 1, 1, 1900, true, true},
		{"day zero", 0, 1, 2000, false, false},
		{"day 32", 32, 1, 2000, false, false},
		{"month zero", 1, 0, 2000, false, false},
		{"month 13", 1, 13, 2000, false, false},
		{"target year before the range", 1, 1, 1899, true, false},
		{"target year after the range", 1, 1, 2101, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidBirthday(tt.d, tt.m); got != tt.birthday {
				t.Errorf("ValidBirthday(%d, %d) = %v, want %v", tt.d, tt.m, got, tt.birthday)
			}
			if got := ValidPersonalYearInput(tt.d, tt.m, tt.year); got != tt.input {
				t.Errorf("ValidPersonalYearInput(%d, %d, %d) = %v, want %v", tt.d, tt.m, tt.year, got, tt.input)
			}
		})
	}
	// Exactly the 366 days of a leap year's calendar, walked by time.Time.
	want := map[[2]int]bool{}
	for day := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC); day.Year() == 2024; day = day.AddDate(0, 0, 1) {
		want[[2]int{day.Day(), int(day.Month())}] = true
	}
	n := 0
	for m := -1; m <= 14; m++ {
		for d := -1; d <= 33; d++ {
			got := ValidBirthday(d, m)
			if got != want[[2]int{d, m}] {
				t.Errorf("ValidBirthday(%d, %d) = %v", d, m, got)
			}
			if got {
				n++
			}
		}
	}
	if n != 366 {
		t.Errorf("%d valid birthdays, want 366", n)
	}
}

func digitString(ds []uint8) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(strconv.Itoa(int(d)))
	}
	return b.String()
}

// TestPersonalYearVectors checks the hand-worked vectors of testdata/personal-year.csv.
func TestPersonalYearVectors(t *testing.T) {
	header, rows := readVectors(t, "personal-year.csv")
	if got := strings.Join(header, ","); got != "day,month,year,personal_year,months,february,december" {
		t.Fatalf("vector columns %s", got)
	}
	if len(rows) < 20 {
		t.Fatalf("%d vectors, want at least 20", len(rows))
	}
	var leapFeb29, commonFeb29, first, last, day31 bool
	for _, row := range rows {
		t.Run(strings.Join(row[:3], "."), func(t *testing.T) {
			d, m, y := atoi(t, "day", row[0]), atoi(t, "month", row[1]), atoi(t, "year", row[2])
			if !ValidPersonalYearInput(d, m, y) {
				t.Fatalf("the vector's input is not valid")
			}
			p := ComputePersonalYear(d, m, y)
			if got := strconv.Itoa(int(p.Number)); got != row[3] {
				t.Errorf("personal year = %s, want %s", got, row[3])
			}
			if got := digitString(p.Months[:]); got != row[4] {
				t.Errorf("months = %s, want %s", got, row[4])
			}
			if got := digitString(p.MonthDays(2)); got != row[5] {
				t.Errorf("February = %s, want %s", got, row[5])
			}
			if got := digitString(p.MonthDays(12)); got != row[6] {
				t.Errorf("December = %s, want %s", got, row[6])
			}
		})
		if row[0] == "29" && row[1] == "2" {
			if len(row[5]) == 29 {
				leapFeb29 = true
			} else {
				commonFeb29 = true
			}
		}
		first = first || row[2] == "1900"
		last = last || row[2] == "2100"
		day31 = day31 || row[0] == "31"
	}
	if !leapFeb29 || !commonFeb29 || !first || !last || !day31 {
		t.Errorf("vectors lack a case: 29/2 in a leap year %v, in a common year %v, 1900 %v, 2100 %v, day 31 %v",
			leapFeb29, commonFeb29, first, last, day31)
	}
}

// TestPinnacleVectors checks the hand-worked vectors of testdata/pinnacles.csv.
func TestPinnacleVectors(t *testing.T) {
	header, rows := readVectors(t, "pinnacles.csv")
	if got := strings.Join(header, ","); got != "date,life_path,p1,p2,p3,p4,end1,end2,end3,c1,c2,c3,c4" {
		t.Fatalf("vector columns %s", got)
	}
	if len(rows) < 20 {
		t.Fatalf("%d vectors, want at least 20", len(rows))
	}
	var masters [4]map[int]bool
	for i := range masters {
		masters[i] = map[int]bool{}
	}
	for _, row := range rows {
		t.Run(row[0], func(t *testing.T) {
			d, m, y := parseDate(t, row[0])
			want := make([]int, len(row)-1)
			for i, cell := range row[1:] {
				want[i] = atoi(t, header[i+1], cell)
			}
			if got := LifePath(d, m, y); got != want[0] {
				t.Errorf("life path = %d, want %d", got, want[0])
			}
			lc := ComputeLifeCycles(d, m, y)
			from := 0
			for i, p := range lc.Pinnacles {
				wantTo := 0
				if i < 3 {
					wantTo = want[5+i]
				}
				if w := (Pinnacle{Number: uint8(want[1+i]), From: uint8(from), To: uint8(wantTo)}); p != w {
					t.Errorf("P%d = %+v, want %+v", i+1, p, w)
				}
				from = wantTo
				masters[i][want[1+i]] = true
			}
			for i, c := range lc.Challenges {
				if int(c) != want[8+i] {
					t.Errorf("C%d = %d, want %d", i+1, c, want[8+i])
				}
			}
		})
	}
	for i, seen := range masters {
		if !seen[11] || !seen[22] {
			t.Errorf("no vector gives P%d = 11 and one 22 (%v)", i+1, seen)
		}
	}
}

// TestCyclesIssueExamples checks the examples of the issue as it writes them.
func TestCyclesIssueExamples(t *testing.T) {
	if got := ComputePersonalYear(23, 4, 2025).Number; got != 9 {
		t.Errorf("personal year of 23 April in 2025 = %d, want 9", got)
	}
	lc := ComputeLifeCycles(15, 5, 1990)
	want := [4]Pinnacle{{11, 0, 33}, {7, 33, 42}, {9, 42, 51}, {6, 51, 0}}
	if lc.Pinnacles != want {
		t.Errorf("pinnacles of 15.05.1990 = %v, want %v", lc.Pinnacles, want)
	}
	if lc.Pinnacles[3].HasEnd() || !lc.Pinnacles[2].HasEnd() {
		t.Errorf("only the fourth pinnacle runs on")
	}
	if lc.Challenges != [4]uint8{1, 5, 4, 4} {
		t.Errorf("challenges of 15.05.1990 = %v, want [1 5 4 4]", lc.Challenges)
	}
}

// forEachBirthday calls f for every valid birthday, by ValidBirthday.
func forEachBirthday(f func(d, m int)) {
	for m := 1; m <= 12; m++ {
		for d := 1; d <= 31; d++ {
			if ValidBirthday(d, m) {
				f(d, m)
			}
		}
	}
}

// TestPersonalYearProperties checks every birthday in every target year of the range.
func TestPersonalYearProperties(t *testing.T) {
	n := 0
	var seen [10]bool
	forEachBirthday(func(d, m int) {
		for y := FirstYear; y <= LastYear; y++ {
			n++
			p := ComputePersonalYear(d, m, y)
			label := fmt.Sprintf("%d.%d in %d", d, m, y)
			if p.Number < 1 || p.Number > 9 {
				t.Fatalf("%s: personal year %d, outside 1–9", label, p.Number)
			}
			seen[p.Number] = true
			next := func(n uint8) uint8 { return n%9 + 1 }
			total := 0
			for k := 1; k <= 12; k++ {
				pm := p.Months[k-1]
				prev := p.Number
				if k > 1 {
					prev = p.Months[k-2]
				}
				if pm != next(prev) {
					t.Fatalf("%s: month %d = %d after %d", label, k, pm, prev)
				}
				days := p.MonthDays(k)
				if len(days) != calendar.DaysIn(k, y) {
					t.Fatalf("%s: month %d has %d days, the calendar %d", label, k, len(days), calendar.DaysIn(k, y))
				}
				total += len(days)
				for j, pd := range days {
					prev := pm
					if j > 0 {
						prev = days[j-1]
					}
					if pd != next(prev) {
						t.Fatalf("%s: day %d.%d = %d after %d", label, j+1, k, pd, prev)
					}
				}
				for j := len(days); j < 31; j++ {
					if p.Days[k-1][j] != 0 {
						t.Fatalf("%s: day %d.%d, past the month's end, is %d", label, j+1, k, p.Days[k-1][j])
					}
				}
			}
			leap := y%4 == 0 && (y%100 != 0 || y%400 == 0)
			if (total == 366) != leap || (total != 365 && total != 366) {
				t.Fatalf("%s: %d days in the year (leap %v)", label, total, leap)
			}
		}
	})
	if n != 366*201 {
		t.Fatalf("%d inputs, want 366 × 201", n)
	}
	for py := 1; py <= 9; py++ {
		if !seen[py] {
			t.Errorf("personal year %d never occurs", py)
		}
	}
}

// TestLifeCyclesProperties checks every date of the range.
func TestLifeCyclesProperties(t *testing.T) {
	var pinnacles [4]map[int]bool
	var challenges [4]map[int]bool
	for i := range 4 {
		pinnacles[i], challenges[i] = map[int]bool{}, map[int]bool{}
	}
	n := 0
	forEachDate(func(d, m, y int) {
		n++
		lc := ComputeLifeCycles(d, m, y)
		date := fmt.Sprintf("%02d.%02d.%04d", d, m, y)
		end := 36 - r9(LifePath(d, m, y))
		if end < 27 || end > 35 {
			t.Fatalf("%s: the first pinnacle ends at %d", date, end)
		}
		from := 0
		for i, p := range lc.Pinnacles {
			if !slices.Contains(PinnacleNumbers, int(p.Number)) {
				t.Fatalf("%s: P%d = %d, not a pinnacle number", date, i+1, p.Number)
			}
			pinnacles[i][int(p.Number)] = true
			to := end + 9*i
			if i == 3 {
				to = 0
			}
			if int(p.From) != from || int(p.To) != to || p.HasEnd() != (i < 3) {
				t.Fatalf("%s: P%d runs %d–%d, want %d–%d", date, i+1, p.From, p.To, from, to)
			}
			from = to
		}
		c := lc.Challenges
		for i, x := range c {
			if !slices.Contains(ChallengeNumbers, int(x)) {
				t.Fatalf("%s: C%d = %d, not a challenge number", date, i+1, x)
			}
			challenges[i][int(x)] = true
		}
		if int(c[2]) != absDiff(int(c[0]), int(c[1])) {
			t.Fatalf("%s: C3 = %d, not |C1 − C2|", date, c[2])
		}
	})
	if n != 73414 {
		t.Fatalf("dates in range = %d, want 73414", n)
	}
	// Every number occurs in every place, the master numbers 11 and 22 included: the content
	// needs a text for each, and none is dead.
	for i := range 4 {
		for _, p := range PinnacleNumbers {
			if !pinnacles[i][p] {
				t.Errorf("P%d is never %d", i+1, p)
			}
		}
		for _, c := range ChallengeNumbers {
			if !challenges[i][c] {
				t.Errorf("C%d is never %d", i+1, c)
			}
		}
	}
}

// TestPersonalYearAcceptance compares ComputePersonalYear, for every birthday in every
// target year, with a second implementation of docs/design.md §16 that calls nothing of the
// rules package: it reduces with the digital-root formula 1 + (n − 1) mod 9 (which equals
// the repeated digit sum for n ≥ 1), reads the year's digits from its decimal string, and
// takes the birthdays and each year's days from time.Time's calendar.
func TestPersonalYearAcceptance(t *testing.T) {
	root := func(n int) int { return 1 + (n-1)%9 }
	var birthdays [][2]int
	for day := time.Date(2000, 1, 1, 12, 0, 0, 0, time.UTC); day.Year() == 2000; day = day.AddDate(0, 0, 1) {
		birthdays = append(birthdays, [2]int{day.Day(), int(day.Month())})
	}
	n := 0
	for year := 1900; year <= 2100; year++ {
		yearDigits := 0
		for _, ch := range strconv.Itoa(year) {
			yearDigits += int(ch - '0')
		}
		var calendar [][2]int
		for day := time.Date(year, 1, 1, 12, 0, 0, 0, time.UTC); day.Year() == year; day = day.AddDate(0, 0, 1) {
			calendar = append(calendar, [2]int{int(day.Month()), day.Day()})
		}
		for _, b := range birthdays {
			n++
			py := root(b[0] + b[1] + yearDigits)
			got := ComputePersonalYear(b[0], b[1], year)
			if int(got.Number) != py {
				t.Fatalf("%d.%d in %d: personal year %d, the rule's text gives %d", b[0], b[1], year, got.Number, py)
			}
			var lengths [13]int
			for _, md := range calendar {
				k, j := md[0], md[1]
				lengths[k]++
				pm := root(py + k)
				if int(got.Months[k-1]) != pm {
					t.Fatalf("%d.%d in %d: month %d = %d, the rule's text gives %d", b[0], b[1], year, k, got.Months[k-1], pm)
				}
				if pd := root(pm + j); int(got.Days[k-1][j-1]) != pd {
					t.Fatalf("%d.%d in %d: day %d.%d = %d, the rule's text gives %d", b[0], b[1], year, j, k, got.Days[k-1][j-1], pd)
				}
			}
			for k := 1; k <= 12; k++ {
				if int(got.MonthLengths[k-1]) != lengths[k] {
					t.Fatalf("%d.%d in %d: month %d has %d days, the calendar %d", b[0], b[1], year, k, got.MonthLengths[k-1], lengths[k])
				}
			}
		}
	}
	if n != 366*201 {
		t.Fatalf("%d inputs, want 366 × 201", n)
	}
}

// TestLifeCyclesAcceptance compares ComputeLifeCycles, for every date of the range, with a
// second implementation of docs/design.md §16 (and §7's life path) that calls nothing of
// the rules package: it works on the date written as DD.MM.YYYY, reduces on decimal
// strings, and walks the calendar with time.Time.
func TestLifeCyclesAcceptance(t *testing.T) {
	digits := func(s string) int {
		n := 0
		for _, ch := range s {
			if ch >= '0' && ch <= '9' {
				n += int(ch - '0')
			}
		}
		return n
	}
	reduce := func(n int, keep ...int) int {
		for n > 9 && !slices.Contains(keep, n) {
			n = digits(strconv.Itoa(n))
		}
		return n
	}
	abs := func(n int) int {
		if n < 0 {
			return -n
		}
		return n
	}
	n := 0
	for day := time.Date(1900, 1, 1, 12, 0, 0, 0, time.UTC); day.Year() <= 2100; day = day.AddDate(0, 0, 1) {
		n++
		date := day.Format("02.01.2006")
		dd, _ := strconv.Atoi(date[0:2])
		mm, _ := strconv.Atoi(date[3:5])
		ys := digits(date[6:])
		lifePath := reduce(digits(date), 11, 22, 33)
		m, d, y := reduce(mm, 11, 22), reduce(dd, 11, 22), reduce(ys, 11, 22)
		p1, p2 := reduce(m+d, 11, 22), reduce(d+y, 11, 22)
		p3, p4 := reduce(p1+p2, 11, 22), reduce(m+y, 11, 22)
		end := 36 - reduce(lifePath)
		want := [4]Pinnacle{
			{uint8(p1), 0, uint8(end)},
			{uint8(p2), uint8(end), uint8(end + 9)},
			{uint8(p3), uint8(end + 9), uint8(end + 18)},
			{uint8(p4), uint8(end + 18), 0},
		}
		m1, d1, y1 := reduce(mm), reduce(dd), reduce(ys)
		c1, c2 := abs(m1-d1), abs(d1-y1)
		wantC := [4]uint8{uint8(c1), uint8(c2), uint8(abs(c1 - c2)), uint8(abs(m1 - y1))}

		got := ComputeLifeCycles(day.Day(), int(day.Month()), day.Year())
		if got.Pinnacles != want {
			t.Fatalf("%s: pinnacles %v, the rule's text gives %v", date, got.Pinnacles, want)
		}
		if got.Challenges != wantC {
			t.Fatalf("%s: challenges %v, the rule's text gives %v", date, got.Challenges, wantC)
		}
	}
	if n != 73414 {
		t.Fatalf("walked %d dates, want 73414", n)
	}
}

func TestCyclesDoNotAllocate(t *testing.T) {
	var py PersonalYear
	if n := testing.AllocsPerRun(1000, func() { py = ComputePersonalYear(29, 2, 2024) }); n != 0 {
		t.Errorf("ComputePersonalYear allocates %g times a call, want 0", n)
	}
	var lc LifeCycles
	if n := testing.AllocsPerRun(1000, func() { lc = ComputeLifeCycles(15, 5, 1990) }); n != 0 {
		t.Errorf("ComputeLifeCycles allocates %g times a call, want 0", n)
	}
	_, _ = py, lc
}

func BenchmarkPersonalYear(b *testing.B) {
	b.ReportAllocs()
	var sink PersonalYear
	for i := 0; b.Loop(); i++ {
		sink = ComputePersonalYear(1+i%28, 1+i%12, FirstYear+i%201)
	}
	_ = sink
}

func BenchmarkLifeCycles(b *testing.B) {
	b.ReportAllocs()
	var sink LifeCycles
	for i := 0; b.Loop(); i++ {
		sink = ComputeLifeCycles(1+i%28, 1+i%12, FirstYear+i%201)
	}
	_ = sink
}
