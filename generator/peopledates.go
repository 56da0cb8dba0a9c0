package generator

import (
	"strconv"
	"time"

	"github.com/opennumerology/numerology/content"
)

// monthsGenitive are the months as a Russian date names them: «6 июня».
var monthsGenitive = [...]string{"января", "февраля", "марта", "апреля", "мая", "июня",
	"июля", "августа", "сентября", "октября", "ноября", "декабря"}

// bornText is a famous person's birth date as their life path page prints it: the New
// Style date, from which the number is computed (docs/design.md §7), and, where Russian
// reference works give the Old Style date too, that date in brackets, as they print both: «6 июня 1799 г. (26 мая по старому стилю)», or with the Old Style year
// when it differs: «8 января 1910 г. (26 декабря 1909 г. по старому стилю)». The loader has
// checked both dates; a date it did not read is printed as written.
func bornText(p content.Person) string {
	ns, err := time.Parse(time.DateOnly, p.Born)
	if err != nil {
		return p.Born
	}
	out := dayMonth(ns.Day(), int(ns.Month())) + " " + strconv.Itoa(ns.Year()) + "\u00a0г."
	if p.BornOldStyle == "" {
		return out
	}
	// The Old Style date may be 29 February of a year the Gregorian calendar has no such
	// day in (1700), so it is read as numbers, not by package time.
	if len(p.BornOldStyle) != len("YYYY-MM-DD") {
		return out
	}
	y, err1 := strconv.Atoi(p.BornOldStyle[:4])
	m, err2 := strconv.Atoi(p.BornOldStyle[5:7])
	d, err3 := strconv.Atoi(p.BornOldStyle[8:])
	if err1 != nil || err2 != nil || err3 != nil || m < 1 || m > 12 {
		return out
	}
	old := dayMonth(d, m)
	if y != ns.Year() {
		old += " " + strconv.Itoa(y) + "\u00a0г."
	}
	return out + " (" + old + " по старому стилю)"
}

// dayMonth is «6 июня», the two held together by a no-break space.
func dayMonth(day, month int) string {
	return strconv.Itoa(day) + "\u00a0" + monthsGenitive[month-1]
}
