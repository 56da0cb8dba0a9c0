package rules

import "github.com/opennumerology/numerology/internal/calendar"

// r9 reduces n to one digit: while n > 9, n becomes the sum of its digits. Master numbers
// are reduced too (docs/design.md §16).
func r9(n int) int {
	for n > 9 {
		n = digitSum(n)
	}
	return n
}

// rk is r9 that keeps the master numbers 11 and 22 (not 33, which the life path of §7
// keeps) (docs/design.md §16).
func rk(n int) int {
	for n > 9 && n != 11 && n != 22 {
		n = digitSum(n)
	}
	return n
}

// ValidBirthday reports whether day.month is a day of a leap year's calendar, so that
// 29 February is a birthday whatever the target year.
func ValidBirthday(day, month int) bool {
	return month >= 1 && month <= 12 && day >= 1 && day <= calendar.DaysIn(month, calendar.LeapYear)
}

// ValidPersonalYearInput reports whether day.month is a valid birthday and year a target
// year of the range, FirstYear–LastYear: the input of the personal year (§16).
func ValidPersonalYearInput(day, month, year int) bool {
	return ValidBirthday(day, month) && year >= FirstYear && year <= LastYear
}

// PersonalYear is the personal year of a birthday in a target year, with its personal
// months and days (docs/design.md §16). Every number is 1–9.
type PersonalYear struct {
	Number uint8     // the personal year
	Months [12]uint8 // Months[k-1] is the personal month k
	// Days[k-1][j-1] is the personal day j of month k, for j up to MonthLengths[k-1];
	// the rest is 0.
	Days         [12][31]uint8
	MonthLengths [12]uint8 // the days of each month in the target year's real calendar
}

// MonthDays returns the personal days of month k (1–12), in order.
func (p *PersonalYear) MonthDays(k int) []uint8 { return p.Days[k-1][:p.MonthLengths[k-1]] }

// ComputePersonalYear applies the personal cycles of docs/design.md §16 to a birthday
// (day, month) in the target year: PY = r9(day + month + the sum of the year's digits),
// the personal month k = r9(PY + k), the personal day j of month k = r9(month k + j) for
// every day of the year's calendar (29 February only in a leap year). The input is not
// validated; see ValidPersonalYearInput. It does not allocate.
func ComputePersonalYear(day, month, year int) PersonalYear {
	var p PersonalYear
	py := r9(day + month + digitSum(year))
	p.Number = uint8(py)
	for k := 1; k <= 12; k++ {
		pm := r9(py + k)
		p.Months[k-1] = uint8(pm)
		n := calendar.DaysIn(k, year)
		p.MonthLengths[k-1] = uint8(n)
		// Day j is r9(pm + j): each day is the one before plus 1, 9 wrapping to 1 (r9 of a
		// positive n is 1 + (n − 1) mod 9), so the month is the cycle read from r9(pm + 1).
		first := r9(pm + 1)
		copy(p.Days[k-1][:n], digitCycle[first-1:])
	}
	return p
}

// digitCycle is the digits 1–9 in turn, long enough to read a month of personal days from
// any of them.
var digitCycle = func() (t [8 + 31]uint8) {
	for i := range t {
		t[i] = uint8(i%9 + 1)
	}
	return t
}()

// PinnacleNumbers are the numbers a pinnacle takes: 1–9 and the master numbers 11 and 22.
var PinnacleNumbers = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 22}

// ChallengeNumbers are the numbers a challenge takes, 0–8.
var ChallengeNumbers = []int{0, 1, 2, 3, 4, 5, 6, 7, 8}

// Pinnacle is one of the four pinnacles of a life, with the ages it runs between.
type Pinnacle struct {
	Number uint8 // one of PinnacleNumbers
	From   uint8 // the age in years at which it begins
	To     uint8 // the age at which the next begins; 0 for the fourth, which has no end
}

// HasEnd reports whether the pinnacle ends: all but the fourth.
func (p Pinnacle) HasEnd() bool { return p.To != 0 }

// LifeCycles are the four pinnacles and the four challenges of a birth date.
type LifeCycles struct {
	Pinnacles  [4]Pinnacle
	Challenges [4]uint8 // each one of ChallengeNumbers
}

// ComputeLifeCycles applies the pinnacle and challenge rules of docs/design.md §16 to a
// birth date. The first pinnacle runs from 0 to 36 − r9 of the life path (§7), the second
// and third nine years each, the fourth from then on. The date is not validated.
func ComputeLifeCycles(day, month, year int) LifeCycles {
	var lc LifeCycles
	ys := digitSum(year)

	m, d, y := rk(month), rk(day), rk(ys)
	p1 := rk(m + d)
	p2 := rk(d + y)
	numbers := [4]int{p1, p2, rk(p1 + p2), rk(m + y)}
	from := 0
	to := 36 - r9(LifePath(day, month, year))
	for i, n := range numbers {
		lc.Pinnacles[i] = Pinnacle{Number: uint8(n), From: uint8(from)}
		if i < 3 {
			lc.Pinnacles[i].To = uint8(to)
			from, to = to, to+9
		}
	}

	m1, d1, y1 := r9(month), r9(day), r9(ys)
	c1, c2 := absDiff(m1, d1), absDiff(d1, y1)
	lc.Challenges = [4]uint8{uint8(c1), uint8(c2), uint8(absDiff(c1, c2)), uint8(absDiff(m1, y1))}
	return lc
}

func absDiff(a, b int) int { return abs(a - b) }
