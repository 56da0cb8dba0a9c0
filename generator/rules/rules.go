// Package rules holds the numerology rules of the API contract (docs/design.md §6–§7):
// the destiny matrix and the life path number. It is pure: no I/O, no state.
package rules

import "github.com/opennumerology/numerology/internal/calendar"

// FirstYear and LastYear bound the dates the API covers, inclusive.
const (
	FirstYear = 1900
	LastYear  = 2100
)

// Position is one of the 12 named places of the destiny matrix.
type Position int

// The positions, in the order of docs/design.md §5.
const (
	Personal Position = iota
	Social
	Soul
	Body
	Spirit
	Center
	Talents
	Karma
	Money
	Relationships
	Destiny
	Purpose
	NumPositions int = iota
)

var positionKeys = [NumPositions]string{
	"personal", "social", "soul", "body", "spirit", "center",
	"talents", "karma", "money", "relationships", "destiny", "purpose",
}

// Key returns the position's stable English key, as used in content and CSV headers.
func (p Position) Key() string { return positionKeys[p] }

// PositionKeys returns the 12 position keys in contract order.
func PositionKeys() []string { return append([]string(nil), positionKeys[:]...) }

// Matrix holds the arcana (1–22) of the 12 positions, indexed by Position.
type Matrix [NumPositions]int

// ArcanaNumbers are the numbers of the 22 major arcana, 1–22: the values R of §6 gives.
var ArcanaNumbers = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}

// LifePathNumbers are the 12 valid life path numbers in contract order.
var LifePathNumbers = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 22, 33}

// IsLifePathNumber reports whether n is one of LifePathNumbers.
func IsLifePathNumber(n int) bool {
	return (n >= 1 && n <= 9) || n == 11 || n == 22 || n == 33
}

// digitSum returns the sum of the decimal digits of a non-negative n.
func digitSum(n int) int {
	s := 0
	for ; n > 0; n /= 10 {
		s += n % 10
	}
	return s
}

// Reduce is R of §6: while n > 22, n becomes the sum of its digits.
func Reduce(n int) int {
	for n > 22 {
		n = digitSum(n)
	}
	return n
}

// ComputeMatrix applies the matrix rule of §6 to a date. The date is not validated.
func ComputeMatrix(day, month, year int) Matrix {
	a := Reduce(day)
	b := Reduce(month)
	c := Reduce(digitSum(year))
	d := Reduce(a + b + c)
	e := Reduce(a + b + c + d)
	f := Reduce(a + b)
	g := Reduce(b + c)
	h := Reduce(c + d)
	i := Reduce(d + a)
	spirit := Reduce(b + d)
	body := Reduce(a + c)
	purpose := Reduce(spirit + body)
	social := Reduce(Reduce(f+h) + Reduce(g+i))
	var m Matrix
	m[Personal] = a
	m[Talents] = b
	m[Money] = c
	m[Karma] = d
	m[Center] = e
	m[Spirit] = spirit
	m[Body] = body
	m[Purpose] = purpose
	m[Social] = social
	m[Destiny] = Reduce(purpose + social)
	m[Soul] = Reduce(b + e)
	m[Relationships] = h
	return m
}

// LifePath applies the life path rule of §7: the digits of DD, MM and YYYY are summed,
// then reduced while the sum is above 9 and not a master number (11, 22, 33).
func LifePath(day, month, year int) int {
	n := digitSum(day) + digitSum(month) + digitSum(year)
	for n > 9 && n != 11 && n != 22 && n != 33 {
		n = digitSum(n)
	}
	return n
}

// ValidDate reports whether day.month.year is a real Gregorian date within
// FirstYear–LastYear.
func ValidDate(day, month, year int) bool {
	return year >= FirstYear && year <= LastYear && calendar.Valid(day, month, year)
}

// DatesIn returns how many dates the years from–to (inclusive) hold.
func DatesIn(from, to int) int {
	n := 0
	for y := from; y <= to; y++ {
		n += 365
		if calendar.IsLeap(y) {
			n++
		}
	}
	return n
}

// DatesInYears returns how many dates the given years hold.
func DatesInYears(years []int) int {
	n := 0
	for _, y := range years {
		n += DatesIn(y, y)
	}
	return n
}
