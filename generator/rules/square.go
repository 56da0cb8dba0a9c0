package rules

import (
	"slices"
	"strings"
	"sync"

	"github.com/opennumerology/numerology/internal/calendar"
)

// Square is the Pythagoras square (психоматрица) of a date by the classic method of
// docs/design.md §14.
type Square struct {
	// Working holds the working numbers W1–W4. W3 is zero or negative for some dates from
	// 2000 on; it is kept signed, so a record shows it as it came out. Its digits, for W4
	// and for the cells, are those of its absolute value: a minus sign is not a digit.
	Working [4]int
	// Counts[c-1] is how often the digit c (1–9) occurs among the date's digits and the
	// digits of W1–W4.
	Counts [9]int
	// Lines holds the sums of the eight lines, indexed by SquareLine.
	Lines [NumSquareLines]int
}

// Digits returns cell c (1–9) as written in the square: the digit c repeated Counts[c-1]
// times, "" for an empty cell.
func (s *Square) Digits(c int) string {
	n := s.Counts[c-1]
	if n <= maxCellDigits {
		return cellDigits[c][:n]
	}
	return strings.Repeat(cellDigits[c][:1], n)
}

// maxCellDigits is more digits than a cell can hold for any year up to 9999 (eight date
// digits and two for each working number); Digits slices these strings without allocating.
const maxCellDigits = 16

var cellDigits = func() (t [10]string) {
	for c := 1; c <= 9; c++ {
		t[c] = strings.Repeat(string(rune('0'+c)), maxCellDigits)
	}
	return t
}()

// SquareLine is one of the eight lines of the square, laid out as
//
//	1 4 7
//	2 5 8
//	3 6 9
type SquareLine int

// The lines in contract order: the three rows top to bottom, the three columns left to
// right, then the diagonals 1-5-9 and 3-5-7.
const (
	RowPurpose       SquareLine = iota // 1-4-7, цель
	RowFamily                          // 2-5-8, семья
	RowHabits                          // 3-6-9, привычки
	ColumnSelfEsteem                   // 1-2-3, самооценка
	ColumnHousehold                    // 4-5-6, быт
	ColumnTalent                       // 7-8-9, талант
	DiagonalSpirit                     // 1-5-9, духовность
	DiagonalTemper                     // 3-5-7, темперамент
	NumSquareLines   int        = iota
)

var squareLines = [NumSquareLines]struct {
	key   string
	cells [3]int
}{
	{"purpose", [3]int{1, 4, 7}},
	{"family", [3]int{2, 5, 8}},
	{"habits", [3]int{3, 6, 9}},
	{"self_esteem", [3]int{1, 2, 3}},
	{"household", [3]int{4, 5, 6}},
	{"talent", [3]int{7, 8, 9}},
	{"spirituality", [3]int{1, 5, 9}},
	{"temperament", [3]int{3, 5, 7}},
}

// Key returns the line's stable English key, as used in content and CSV headers.
func (l SquareLine) Key() string { return squareLines[l].key }

// Cells returns the three cells of the line.
func (l SquareLine) Cells() [3]int { return squareLines[l].cells }

// SquareLineKeys returns the eight line keys in contract order.
func SquareLineKeys() []string {
	keys := make([]string, NumSquareLines)
	for i := range keys {
		keys[i] = squareLines[i].key
	}
	return keys
}

// Band is how strong a line is, from its sum (docs/design.md §14).
type Band int

// The bands. A line has three cells, so a sum of 3 is one digit a cell: 3–5 is the middle,
// fewer than one digit a cell is low, two or more a cell is high.
const (
	BandLow    Band = iota // sum 0–2
	BandMedium             // sum 3–5
	BandHigh               // sum 6 and more
	NumBands   int  = iota
)

var bandKeys = [NumBands]string{"low", "medium", "high"}

// Key returns the band's stable English key, as used in content.
func (b Band) Key() string { return bandKeys[b] }

// BandKeys returns the band keys, low to high.
func BandKeys() []string { return append([]string(nil), bandKeys[:]...) }

// LineBand returns the band of a line sum.
func LineBand(sum int) Band {
	switch {
	case sum <= 2:
		return BandLow
	case sum <= 5:
		return BandMedium
	}
	return BandHigh
}

// ComputeSquare applies the square rule of docs/design.md §14 to a date. The date is not
// validated. Every date gets the same classic rule: no variant adds 19 for years from 2000.
func ComputeSquare(day, month, year int) Square {
	var s Square
	count := func(n int) {
		if n < 0 {
			n = -n
		}
		for ; n > 0; n /= 10 {
			if d := n % 10; d != 0 {
				s.Counts[d-1]++
			}
		}
	}
	// The day and month without leading zeros, then the year's four digits: zeros add
	// nothing to a sum or a cell, so the digits of the three numbers are the date's digits.
	count(day)
	count(month)
	count(year)
	w1 := digitSum(day) + digitSum(month) + digitSum(year)
	w2 := digitSum(w1)
	w3 := w1 - 2*firstDigit(day)
	w4 := digitSum(abs(w3))
	s.Working = [4]int{w1, w2, w3, w4}
	for _, w := range s.Working {
		count(w)
	}
	for l, line := range squareLines {
		for _, c := range line.cells {
			s.Lines[l] += s.Counts[c-1]
		}
	}
	return s
}

// firstDigit returns the leading decimal digit of a positive n.
func firstDigit(n int) int {
	for n >= 10 {
		n /= 10
	}
	return n
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// SquareCounts returns, for each cell (index c-1), the counts that cell takes over every
// date of FirstYear–LastYear, ascending. Content must give a reading for each of them. The
// walk over the range is done once per process; each call gets its own slices.
func SquareCounts() [9][]int {
	var out [9][]int
	for c, counts := range squareCounts() {
		out[c] = slices.Clone(counts)
	}
	return out
}

// squareCounts is squareCountsWalk, once.
var squareCounts = sync.OnceValue(squareCountsWalk)

// squareCountsWalk walks every date of the range.
func squareCountsWalk() [9][]int {
	var seen [9][maxCellDigits + 1]bool
	for y := FirstYear; y <= LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				s := ComputeSquare(d, m, y)
				for c, n := range s.Counts {
					seen[c][n] = true
				}
			}
		}
	}
	var out [9][]int
	for c := range seen {
		for n, ok := range seen[c] {
			if ok {
				out[c] = append(out[c], n)
			}
		}
	}
	return out
}
