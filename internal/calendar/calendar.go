// Package calendar is the module's one Gregorian calendar: the days of a month, a date's
// day of the year, and whether three numbers are a real date. The rules, the route table's
// date types (generator/manifest) and pack's checks all count days with it. It imports
// nothing of the project.
package calendar

// LeapYear is a leap year: the calendar that holds every day a birthday can be, 29
// February included (docs/design.md §16).
const LeapYear = 2000

// IsLeap reports whether year is a leap year of the Gregorian calendar.
func IsLeap(year int) bool { return year%4 == 0 && (year%100 != 0 || year%400 == 0) }

// DaysIn is the number of days of a month (1–12) in a year of the Gregorian calendar.
func DaysIn(month, year int) int {
	switch month {
	case 2:
		if IsLeap(year) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	default:
		return 31
	}
}

// DayOfYear is the ordinal (from 1) of a date within its year.
func DayOfYear(day, month, year int) int {
	for m := 1; m < month; m++ {
		day += DaysIn(m, year)
	}
	return day
}

// Valid reports whether day.month.year is a real date of the Gregorian calendar, of any
// year: the month 1–12, the day within the month's length in that year.
func Valid(day, month, year int) bool {
	return month >= 1 && month <= 12 && day >= 1 && day <= DaysIn(month, year)
}
