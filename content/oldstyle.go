package content

import (
	"regexp"
	"strconv"
	"time"
)

// A famous person's born is the New Style (Gregorian) date, from which the life path
// number is computed (docs/design.md §7). For a person born where the Julian calendar was
// in use (Russia until 1918), born_old_style gives the same day as it was written then:
// reference works print it, and a reader who sums its digits gets another number, so the
// page shows both. The loader checks that the two dates are one day.

var isoDateRe = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)

// checkOldStyle checks the Old Style date of the person at yp (field f), whose New Style
// date born has been read: a real date of the Julian calendar, the same day as born, and
// not written the same (then the calendars agree and it says nothing).
func (d *doc) checkOldStyle(yp, f string, p Person, born time.Time) {
	if p.BornOldStyle == "" {
		return
	}
	path, field := yp+".born_old_style", f+".born_old_style"
	if len(p.BornOldStyle) > len("YYYY-MM-DD") {
		d.at(path, field, "is not a date (YYYY-MM-DD)")
		return
	}
	m := isoDateRe.FindStringSubmatch(p.BornOldStyle)
	if m == nil {
		d.at(path, field, "%q is not a date (YYYY-MM-DD)", p.BornOldStyle)
		return
	}
	year, _ := strconv.Atoi(m[1])
	month, _ := strconv.Atoi(m[2])
	day, _ := strconv.Atoi(m[3])
	if month < 1 || month > 12 || day < 1 || day > julianDaysIn(month, year) {
		d.at(path, field, "%s is not a date of the Julian calendar", p.BornOldStyle)
		return
	}
	if p.BornOldStyle == p.Born {
		d.at(path, field, "is the same as born: give it only where the calendars differ")
		return
	}
	if got := gregorianOfJulian(year, month, day); !got.Equal(born) {
		d.at(path, field, "%s (Old Style) is %s in the Gregorian calendar, not %s (born)", p.BornOldStyle, got.Format(time.DateOnly), p.Born)
	}
}

// julianDaysIn returns the days of a month in a year of the Julian calendar, where every
// fourth year is a leap year.
func julianDaysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// gregorianOfJulian returns the Gregorian date of a date of the Julian calendar, through
// the Julian Day Number (the standard integer formulas for years after 4800 BC).
func gregorianOfJulian(year, month, day int) time.Time {
	a := (14 - month) / 12
	y := year + 4800 - a
	m := month + 12*a - 3
	jdn := day + (153*m+2)/5 + 365*y + y/4 - 32083
	// JDN 2440588 is 1970-01-01, the Unix epoch.
	return time.Unix(int64(jdn-2440588)*86400, 0).UTC()
}
