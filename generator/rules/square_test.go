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

// squareCells renders a square's cells as the vectors write them: comma-separated, "-" for
// an empty cell.
func squareCells(s *Square) string {
	cells := make([]string, 9)
	for c := 1; c <= 9; c++ {
		cells[c-1] = s.Digits(c)
		if cells[c-1] == "" {
			cells[c-1] = "-"
		}
	}
	return strings.Join(cells, ",")
}

// TestSquareVectors checks the shared golden vectors (testdata/square.csv, a verbatim copy).
// Their "?" columns are the dates with W3 ≤ 0, left open for the project to decide
// (docs/design.md §14); each of those dates is worked by hand in TestSquareHandVectors.
func TestSquareVectors(t *testing.T) {
	rows := readCSV(t, "square.csv")
	if got := strings.Join(rows[0], ","); got != "date,w1,w2,w3,w4,c1,c2,c3,c4,c5,c6,c7,c8,c9" {
		t.Fatalf("vector columns %s", got)
	}
	for _, row := range rows[1:] {
		t.Run(row[0], func(t *testing.T) {
			d, m, y := parseDate(t, row[0])
			s := ComputeSquare(d, m, y)
			got := append(intsToStrings(s.Working[:]), strings.Split(squareCells(&s), ",")...)
			open := 0
			for i, want := range row[1:] {
				if want == "?" {
					open++
					continue
				}
				if got[i] != want {
					t.Errorf("%s = %s, want %s", rows[0][i+1], got[i], want)
				}
			}
			if open > 0 {
				if s.Working[2] > 0 {
					t.Errorf("%d columns left open, but W3 = %d is positive", open, s.Working[2])
				}
				if !slices.ContainsFunc(squareHandVectors, func(v squareVector) bool { return v.date == row[0] }) {
					t.Errorf("W3 ≤ 0 and no hand-worked vector decides this date")
				}
			}
		})
	}
}

func intsToStrings(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return out
}

type squareVector struct {
	date    string
	working [4]int
	cells   string // c1–c9, "-" for an empty cell
	lines   []int  // in SquareLine order; nil where the vector does not state them
}

// squareHandVectors are worked by hand. Each comment lists the date's digits (day and month
// without leading zeros, then the year), W1 = their sum, W2 = the sum of W1's digits,
// W3 = W1 − 2 × the day's first digit, W4 = the sum of W3's digits, then the digits that go
// into the cells (date · W1 · W2 · W3 · W4; zeros are dropped). Lines are rows 1-4-7,
// 2-5-8, 3-6-9, columns 1-2-3, 4-5-6, 7-8-9, diagonals 1-5-9, 3-5-7.
var squareHandVectors = []squareVector{
	// 15.05.1990, the example of the issue: 1 5 5 1 9 9 0 → 30; 3; 30 − 2·1 = 28; 2+8 = 10.
	// Digits 1 5 5 1 9 9 · 3 · 3 · 2 8 · 1. Counts 3 1 2 0 2 0 0 1 2.
	// Lines 3+0+0, 1+2+1, 2+0+2, 3+1+2, 0+2+0, 0+1+2, 3+2+2, 2+2+0.
	{"1990-05-15", [4]int{30, 3, 28, 10}, "111,2,33,-,55,-,-,8,99", []int{3, 4, 4, 6, 2, 3, 7, 4}},
	// 01.01.1900, first date of the range: 1 1 1 9 0 0 → 12; 3; 12 − 2 = 10; 1.
	// Digits 1 1 1 9 · 1 2 · 3 · 1 · 1. Counts 6 1 1 0 0 0 0 0 1.
	// Lines 6, 1, 2, 8, 0, 1, 7, 1.
	{"1900-01-01", [4]int{12, 3, 10, 1}, "111111,2,3,-,-,-,-,-,9", []int{6, 1, 2, 8, 0, 1, 7, 1}},
	// 01.01.2000: 1 1 2 0 0 0 → 4; 4; 4 − 2 = 2; 2. Digits 1 1 2 · 4 · 4 · 2 · 2.
	// Counts 2 3 0 2 0 0 0 0 0. Lines 2+2+0, 3+0+0, 0, 2+3+0, 2, 0, 2, 0.
	{"2000-01-01", [4]int{4, 4, 2, 2}, "11,222,-,44,-,-,-,-,-", []int{4, 3, 0, 5, 2, 0, 2, 0}},
	// 31.12.2100, last date of the range: 3 1 1 2 2 1 0 0 → 10; 1; 10 − 2·3 = 4; 4.
	// Digits 3 1 1 2 2 1 · 1 · 1 · 4 · 4. Counts 5 2 1 2 0 0 0 0 0.
	// Lines 5+2, 2, 1, 5+2+1, 2, 0, 5, 1.
	{"2100-12-31", [4]int{10, 1, 4, 4}, "11111,22,3,44,-,-,-,-,-", []int{7, 2, 1, 8, 2, 0, 5, 1}},
	// 31.12.1900: 3 1 1 2 1 9 0 0 → 17; 8; 17 − 6 = 11; 2.
	// Digits 3 1 1 2 1 9 · 1 7 · 8 · 1 1 · 2. Counts 6 2 1 0 0 0 1 1 1.
	{"1900-12-31", [4]int{17, 8, 11, 2}, "111111,22,3,-,-,-,7,8,9", []int{7, 3, 2, 9, 0, 3, 7, 2}},
	// 04.07.1985, a one-digit day (its first digit is itself): 4 7 1 9 8 5 → 34; 7;
	// 34 − 8 = 26; 8. Digits 4 7 1 9 8 5 · 3 4 · 7 · 2 6 · 8. Counts 1 1 1 2 1 1 2 2 1:
	// every cell filled. Lines 1+2+2, 1+1+2, 1+1+1, 3, 2+1+1, 2+2+1, 3, 1+1+2.
	{"1985-07-04", [4]int{34, 7, 26, 8}, "1,2,3,44,5,6,77,88,9", []int{5, 4, 3, 3, 4, 5, 3, 4}},
	// 10.03.1975, day 10 (first digit 1): 1 0 3 1 9 7 5 → 26; 8; 26 − 2 = 24; 6.
	// Digits 1 3 1 9 7 5 · 2 6 · 8 · 2 4 · 6. Counts 2 2 1 1 1 2 1 1 1.
	{"1975-03-10", [4]int{26, 8, 24, 6}, "11,22,3,4,5,66,7,8,9", []int{4, 4, 4, 5, 4, 3, 4, 3}},
	// 31.08.1968, day 31 (first digit 3): 3 1 8 1 9 6 8 → 36; 9; 36 − 6 = 30; 3.
	// Digits 3 1 8 1 9 6 8 · 3 6 · 9 · 3 · 3 (the 0 of 30 is dropped). Counts 2 0 4 0 0 2 0 2 2.
	{"1968-08-31", [4]int{36, 9, 30, 3}, "11,-,3333,-,-,66,-,88,99", []int{2, 2, 8, 6, 2, 4, 4, 4}},
	// 20.06.1972, day 20 (first digit 2): 2 0 6 1 9 7 2 → 27; 9; 27 − 4 = 23; 5.
	// Digits 2 6 1 9 7 2 · 2 7 · 9 · 2 3 · 5. Counts 1 4 1 0 1 1 2 0 2.
	{"1972-06-20", [4]int{27, 9, 23, 5}, "1,2222,3,-,5,6,77,-,99", nil},
	// 21.10.1983, month 10: 2 1 1 0 1 9 8 3 → 25; 7; 25 − 4 = 21; 3.
	// Digits 2 1 1 1 9 8 3 · 2 5 · 7 · 2 1 · 3. Counts 4 3 2 0 1 0 1 1 1.
	{"1983-10-21", [4]int{25, 7, 21, 3}, "1111,222,33,-,5,-,7,8,9", []int{5, 5, 3, 9, 1, 3, 6, 4}},
	// 05.11.2024, month 11: 5 1 1 2 0 2 4 → 15; 6; 15 − 10 = 5; 5.
	// Digits 5 1 1 2 2 4 · 1 5 · 6 · 5 · 5. Counts 3 2 0 1 4 1 0 0 0.
	// Lines 3+1+0, 2+4+0, 0+1+0, 3+2+0, 1+4+1, 0, 3+4+0, 0+4+0.
	{"2024-11-05", [4]int{15, 6, 5, 5}, "111,22,-,4,5555,6,-,-,-", []int{4, 6, 1, 5, 6, 0, 7, 4}},
	// 19.12.1955, month 12: 1 9 1 2 1 9 5 5 → 33; 6; 33 − 2 = 31; 4.
	// Digits 1 9 1 2 1 9 5 5 · 3 3 · 6 · 3 1 · 4. Counts 4 1 3 1 2 1 0 0 2.
	{"1955-12-19", [4]int{33, 6, 31, 4}, "1111,2,333,4,55,6,-,-,99", nil},
	// 29.02.1904, a leap day: 2 9 2 1 9 0 4 → 27; 9; 27 − 4 = 23; 5.
	// Digits 2 9 2 1 9 4 · 2 7 · 9 · 2 3 · 5. Counts 1 4 1 1 1 0 1 0 3.
	{"1904-02-29", [4]int{27, 9, 23, 5}, "1,2222,3,4,5,-,7,-,999", nil},
	// 29.09.1989, W2 of two digits: 2 9 9 1 9 8 9 → 47; 4+7 = 11; 47 − 4 = 43; 7.
	// Digits 2 9 9 1 9 8 9 · 4 7 · 1 1 · 4 3 · 7. Counts 3 1 1 2 0 0 2 1 4.
	{"1989-09-29", [4]int{47, 11, 43, 7}, "111,2,3,44,-,-,77,8,9999", nil},
	// 31.12.2099: 3 1 1 2 2 0 9 9 → 27; 9; 27 − 6 = 21; 3.
	// Digits 3 1 1 2 2 9 9 · 2 7 · 9 · 2 1 · 3. Counts 3 4 2 0 0 0 1 0 3.
	{"2099-12-31", [4]int{27, 9, 21, 3}, "111,2222,33,-,-,-,7,-,999", []int{4, 4, 5, 9, 0, 4, 6, 3}},
	// 13.03.1933, the only date of the range with six 3s: 1 3 3 1 9 3 3 → 23; 5; 23 − 2 = 21;
	// 3. Digits 1 3 3 1 9 3 3 · 2 3 · 5 · 2 1 · 3. Counts 3 2 6 0 1 0 0 0 1.
	{"1933-03-13", [4]int{23, 5, 21, 3}, "111,22,333333,-,5,-,-,-,9", nil},
	// 09.09.1989, six 9s (the most in the range): 9 9 1 9 8 9 → 45; 9; 45 − 18 = 27; 9.
	// Digits 9 9 1 9 8 9 · 4 5 · 9 · 2 7 · 9. Counts 1 1 0 1 1 0 1 1 6.
	{"1989-09-09", [4]int{45, 9, 27, 9}, "1,2,-,4,5,-,7,8,999999", nil},
	// 22.02.2022, seven 2s (the most in the range): 2 2 2 2 0 2 2 → 12; 3; 12 − 4 = 8; 8.
	// Digits 2 2 2 2 2 2 · 1 2 · 3 · 8 · 8. Counts 1 7 1 0 0 0 0 2 0.
	{"2022-02-22", [4]int{12, 3, 8, 8}, "1,2222222,3,-,-,-,-,88,-", nil},

	// W3 ≤ 0 (docs/design.md §14). W3 is kept signed; its digits are those of its absolute
	// value, for W4 and for the cells alike, because a minus sign is not a digit.

	// 03.01.2000, W3 = 0: 3 1 2 0 0 0 → 6; 6; 6 − 6 = 0; 0. W3 and W4 add no digit.
	// Digits 3 1 2 · 6 · 6. Counts 1 1 1 0 0 2 0 0 0.
	{"2000-01-03", [4]int{6, 6, 0, 0}, "1,2,3,-,-,66,-,-,-", []int{1, 1, 3, 3, 2, 0, 1, 1}},
	// 30.01.2000, W3 = 0 with a two-digit day: 3 0 1 2 0 0 0 → 6; 6; 6 − 2·3 = 0; 0.
	// Digits 3 1 2 · 6 · 6, as for 03.01.2000.
	{"2000-01-30", [4]int{6, 6, 0, 0}, "1,2,3,-,-,66,-,-,-", nil},
	// 04.01.2000, the first negative W3 of the range: 4 1 2 → 7; 7; 7 − 8 = −1; 1.
	// Digits 4 1 2 · 7 · 7 · 1 · 1. Counts 3 1 0 1 0 0 2 0 0.
	{"2000-01-04", [4]int{7, 7, -1, 1}, "111,2,-,4,-,-,77,-,-", []int{6, 1, 0, 4, 1, 2, 3, 2}},
	// 09.01.2000, the lowest W3 of the range: 9 1 2 → 12; 3; 12 − 18 = −6; 6.
	// Digits 9 1 2 · 1 2 · 3 · 6 · 6. Counts 2 2 1 0 0 2 0 0 1.
	{"2000-01-09", [4]int{12, 3, -6, 6}, "11,22,3,-,-,66,-,-,9", []int{2, 2, 4, 5, 2, 1, 3, 1}},
	// 09.10.2000, month 10 and W3 = −6: 9 1 0 2 → 12; 3; −6; 6. Cells as for 09.01.2000.
	{"2000-10-09", [4]int{12, 3, -6, 6}, "11,22,3,-,-,66,-,-,9", nil},
	// 08.02.2001: 8 2 2 1 → 13; 4; 13 − 16 = −3; 3.
	// Digits 8 2 2 1 · 1 3 · 4 · 3 · 3. Counts 2 2 3 1 0 0 0 1 0.
	{"2001-02-08", [4]int{13, 4, -3, 3}, "11,22,333,4,-,-,-,8,-", []int{3, 3, 3, 7, 1, 1, 2, 3}},
	// 06.03.2000: 6 3 2 → 11; 2; 11 − 12 = −1; 1.
	// Digits 6 3 2 · 1 1 · 2 · 1 · 1. Counts 4 2 1 0 0 1 0 0 0.
	{"2000-03-06", [4]int{11, 2, -1, 1}, "1111,22,3,-,-,6,-,-,-", []int{4, 2, 2, 7, 1, 0, 4, 1}},
	// 09.01.2100, a negative W3 in the last year: 9 1 2 1 → 13; 4; 13 − 18 = −5; 5.
	// Digits 9 1 2 1 · 1 3 · 4 · 5 · 5. Counts 3 1 1 1 2 0 0 0 1.
	{"2100-01-09", [4]int{13, 4, -5, 5}, "111,2,3,4,55,-,-,-,9", nil},
}

func TestSquareHandVectors(t *testing.T) {
	if len(squareHandVectors) < 20 {
		t.Fatalf("%d hand-worked vectors, want at least 20", len(squareHandVectors))
	}
	for _, v := range squareHandVectors {
		t.Run(v.date, func(t *testing.T) {
			d, m, y := parseDate(t, v.date)
			s := ComputeSquare(d, m, y)
			if s.Working != v.working {
				t.Errorf("working numbers = %v, want %v", s.Working, v.working)
			}
			if got := squareCells(&s); got != v.cells {
				t.Errorf("cells = %s, want %s", got, v.cells)
			}
			if v.lines != nil && !slices.Equal(s.Lines[:], v.lines) {
				t.Errorf("lines = %v, want %v", s.Lines, v.lines)
			}
		})
	}
}

// forEachDate calls f for every date of the range, by the rules package's own calendar.
func forEachDate(f func(d, m, y int)) {
	for y := FirstYear; y <= LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				f(d, m, y)
			}
		}
	}
}

// TestSquareProperties checks every date of the range for what must hold of any square.
func TestSquareProperties(t *testing.T) {
	n, nonPositive := 0, 0
	forEachDate(func(d, m, y int) {
		n++
		s := ComputeSquare(d, m, y)
		date := fmt.Sprintf("%02d.%02d.%04d", d, m, y)
		w := s.Working
		if want := digitSum(d) + digitSum(m) + digitSum(y); w[0] != want {
			t.Fatalf("%s: W1 = %d, want the date's digit sum %d", date, w[0], want)
		}
		if w[1] != digitSum(w[0]) {
			t.Fatalf("%s: W2 = %d, want the digit sum of W1 %d", date, w[1], w[0])
		}
		first := d
		if d >= 10 {
			first = d / 10
		}
		if w[2] != w[0]-2*first {
			t.Fatalf("%s: W3 = %d, want W1 − 2·%d", date, w[2], first)
		}
		if w[3] != digitSum(abs(w[2])) || w[3] < 0 {
			t.Fatalf("%s: W4 = %d, want the digit sum of |W3| = %d", date, w[3], abs(w[2]))
		}
		if w[2] <= 0 {
			nonPositive++
			if y < 2000 {
				t.Fatalf("%s: W3 = %d before 2000", date, w[2])
			}
		}
		// The counts are every non-zero digit of the date and of W1–W4.
		nonZero := 0
		for _, x := range []int{d, m, y, w[0], w[1], abs(w[2]), w[3]} {
			for ; x > 0; x /= 10 {
				if x%10 != 0 {
					nonZero++
				}
			}
		}
		total := 0
		for c := 1; c <= 9; c++ {
			cnt := s.Counts[c-1]
			total += cnt
			digits := s.Digits(c)
			if len(digits) != cnt || strings.Trim(digits, strconv.Itoa(c)) != "" {
				t.Fatalf("%s: cell %d = %q, want %d × %q", date, c, digits, cnt, strconv.Itoa(c))
			}
		}
		if total != nonZero {
			t.Fatalf("%s: counts sum to %d, want the %d non-zero digits", date, total, nonZero)
		}
		for l := range NumSquareLines {
			cells := SquareLine(l).Cells()
			if want := s.Counts[cells[0]-1] + s.Counts[cells[1]-1] + s.Counts[cells[2]-1]; s.Lines[l] != want {
				t.Fatalf("%s: line %s = %d, want %d", date, SquareLine(l).Key(), s.Lines[l], want)
			}
		}
	})
	if n != 73414 {
		t.Fatalf("dates in range = %d, want 73414", n)
	}
	// docs/design.md §14 states this figure: 159 dates with W3 = 0 and 264 below zero.
	if nonPositive != 423 {
		t.Errorf("%d dates with W3 ≤ 0, want 423", nonPositive)
	}
}

// TestSquareCounts pins the counts each cell takes over the range (docs/design.md §14):
// content must have a short reading for each. When the rule or the range changes and this
// fails, the texts need the new counts.
func TestSquareCounts(t *testing.T) {
	want := [9][]int{
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, // 1: nine 1s on 11.11.1911
		{0, 1, 2, 3, 4, 5, 6, 7},       // 2: seven 2s on 22.02.2022
		{0, 1, 2, 3, 4, 5, 6},          // 3: six 3s on 13.03.1933 only
		{0, 1, 2, 3, 4, 5},
		{0, 1, 2, 3, 4, 5},
		{0, 1, 2, 3, 4, 5},
		{0, 1, 2, 3, 4, 5},
		{0, 1, 2, 3, 4, 5},
		{0, 1, 2, 3, 4, 5, 6}, // 9: six 9s on five dates, 09.09.1989 among them
	}
	got := SquareCounts()
	for c := range want {
		if !slices.Equal(got[c], want[c]) {
			t.Errorf("cell %d takes counts %v, want %v", c+1, got[c], want[c])
		}
	}
}

// TestSquareBands checks the band edges and how the dates of the range fall in the bands.
func TestSquareBands(t *testing.T) {
	for sum, want := range []Band{BandLow, BandLow, BandLow, BandMedium, BandMedium, BandMedium, BandHigh, BandHigh} {
		if got := LineBand(sum); got != want {
			t.Errorf("LineBand(%d) = %s, want %s", sum, got.Key(), want.Key())
		}
	}
	if got := LineBand(12); got != BandHigh {
		t.Errorf("LineBand(12) = %s, want high", got.Key())
	}
	// How many dates of the range fall in each band, low, medium, high (docs/design.md §14
	// gives these as shares). Every line takes every band, so no line reading is dead text.
	want := [NumSquareLines][NumBands]int{
		{8397, 46902, 18115},  // purpose 1-4-7
		{11052, 47194, 15168}, // family 2-5-8
		{24490, 42068, 6856},  // habits 3-6-9
		{270, 17393, 55751},   // self_esteem 1-2-3
		{39683, 32908, 823},   // household 4-5-6
		{28445, 42749, 2220},  // talent 7-8-9
		{8102, 38200, 27112},  // spirituality 1-5-9
		{32785, 37432, 3197},  // temperament 3-5-7
	}
	var got [NumSquareLines][NumBands]int
	forEachDate(func(d, m, y int) {
		s := ComputeSquare(d, m, y)
		for l, sum := range s.Lines {
			got[l][LineBand(sum)]++
		}
	})
	for l := range got {
		if got[l] != want[l] {
			t.Errorf("line %s: dates per band %v, want %v", SquareLine(l).Key(), got[l], want[l])
		}
		for b, n := range got[l] {
			if n == 0 {
				t.Errorf("line %s never falls in band %s", SquareLine(l).Key(), Band(b).Key())
			}
		}
	}
}

func TestSquareLineKeys(t *testing.T) {
	want := "purpose family habits self_esteem household talent spirituality temperament"
	if got := strings.Join(SquareLineKeys(), " "); got != want {
		t.Errorf("SquareLineKeys = %s, want %s", got, want)
	}
	// Every cell is on exactly one row and one column; 5 is on both diagonals.
	var onLines [10]int
	for l := range NumSquareLines {
		for _, c := range SquareLine(l).Cells() {
			onLines[c]++
		}
	}
	for c, want := range [10]int{1: 3, 2, 3, 2, 4, 2, 3, 2, 3} {
		if onLines[c] != want {
			t.Errorf("cell %d is on %d lines, want %d", c, onLines[c], want)
		}
	}
}

// TestSquareAcceptance compares ComputeSquare, for every date of the range, with a second
// implementation of docs/design.md §14 written here from the text of the rule: it works on
// the date as a string of digits, walks the calendar with time.Time, reads the lines off a
// drawn grid, and calls nothing of the rules package.
func TestSquareAcceptance(t *testing.T) {
	grid := []string{"147", "258", "369"} // the square as drawn, row by row
	// Lines in contract order: the rows, the columns (read down the grid), the diagonals.
	var lines []string
	lines = append(lines, grid...)
	for col := range 3 {
		lines = append(lines, string([]byte{grid[0][col], grid[1][col], grid[2][col]}))
	}
	lines = append(lines,
		string([]byte{grid[0][0], grid[1][1], grid[2][2]}),
		string([]byte{grid[2][0], grid[1][1], grid[0][2]}))

	sumDigits := func(s string) int {
		n := 0
		for _, r := range s {
			if r >= '0' && r <= '9' {
				n += int(r - '0')
			}
		}
		return n
	}
	n := 0
	for day := time.Date(1900, 1, 1, 12, 0, 0, 0, time.UTC); day.Year() <= 2100; day = day.AddDate(0, 0, 1) {
		n++
		dd, mm := strconv.Itoa(day.Day()), strconv.Itoa(int(day.Month()))
		date := dd + mm + fmt.Sprintf("%04d", day.Year())
		w1 := sumDigits(date)
		w2 := sumDigits(strconv.Itoa(w1))
		w3 := w1 - 2*int(dd[0]-'0')
		w4 := sumDigits(strconv.Itoa(w3)) // "-6" sums to 6: the sign is not a digit
		all := date + strconv.Itoa(w1) + strconv.Itoa(w2) + strconv.Itoa(w3) + strconv.Itoa(w4)
		var cells [10]string
		for _, r := range all {
			if r >= '1' && r <= '9' {
				cells[r-'0'] += string(r)
			}
		}

		got := ComputeSquare(day.Day(), int(day.Month()), day.Year())
		label := day.Format("02.01.2006")
		if got.Working != [4]int{w1, w2, w3, w4} {
			t.Fatalf("%s: working numbers %v, the rule's text gives %v", label, got.Working, [4]int{w1, w2, w3, w4})
		}
		for c := 1; c <= 9; c++ {
			if got.Digits(c) != cells[c] || got.Counts[c-1] != len(cells[c]) {
				t.Fatalf("%s: cell %d = %q (count %d), the rule's text gives %q", label, c, got.Digits(c), got.Counts[c-1], cells[c])
			}
		}
		for i, line := range lines {
			sum := 0
			for _, c := range line {
				sum += len(cells[c-'0'])
			}
			if got.Lines[i] != sum {
				t.Fatalf("%s: line %s = %d, the rule's text gives %d", label, line, got.Lines[i], sum)
			}
		}
	}
	if n != 73414 {
		t.Fatalf("walked %d dates, want 73414", n)
	}
}

func BenchmarkComputeSquare(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		ComputeSquare(1+i%28, 1+i%12, FirstYear+i%201)
	}
}

// BenchmarkSquareCounts is the cost SquareCounts adds to a content load: the walk over the
// range (once per process) and the copy every call makes.
func BenchmarkSquareCounts(b *testing.B) {
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			squareCountsWalk()
		}
	})
	b.Run("call", func(b *testing.B) {
		for b.Loop() {
			SquareCounts()
		}
	})
}
