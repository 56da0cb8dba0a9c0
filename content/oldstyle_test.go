package content

import (
	"strings"
	"testing"
	"time"
)

// TestGregorianOfJulian checks the calendar conversion against dates every reference
// gives both ways: the reform itself, a 29 February only the Julian calendar has, and
// people of the content, one per century.
func TestGregorianOfJulian(t *testing.T) {
	tests := []struct{ julian, gregorian string }{
		{"1582-10-05", "1582-10-15"}, // the day after 4 October 1582, the reform's first day
		{"1672-05-30", "1672-06-09"}, // Пётр I: 10 days in the 17th century
		{"1700-02-29", "1700-03-11"}, // a leap day of the Julian calendar alone
		{"1711-11-08", "1711-11-19"}, // Ломоносов: 11 days in the 18th century
		{"1799-05-26", "1799-06-06"}, // Пушкин
		{"1828-08-28", "1828-09-09"}, // Толстой: 12 days in the 19th century
		{"1900-02-28", "1900-03-12"}, // the last day with 12 …
		{"1900-02-29", "1900-03-13"}, // … and the first with 13
		{"1909-12-26", "1910-01-08"}, // Уланова: the year changes too
		{"1918-01-31", "1918-02-13"}, // the last Julian day of Russia's civil calendar
	}
	for _, tt := range tests {
		y, m, d := atoi(tt.julian[:4]), atoi(tt.julian[5:7]), atoi(tt.julian[8:])
		if got := gregorianOfJulian(y, m, d).Format(time.DateOnly); got != tt.gregorian {
			t.Errorf("gregorianOfJulian(%s) = %s, want %s", tt.julian, got, tt.gregorian)
		}
	}
}

// atoi reads the digits of a date's part.
func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestOldStyleProblems checks the loader's checks of born_old_style.
func TestOldStyleProblems(t *testing.T) {
	const born = "born: 1950-07-05\n" // Человек 9-0, line 17 of the fixture's life-path/9.yaml
	tests := []struct {
		name, oldStyle string
		want           []string
	}{
		{"the same day", "1950-06-22", nil},
		{"another day", "1950-06-21", []string{"content/life-path/9.yaml:18: famous_people[0].born_old_style: 1950-06-21 (Old Style) is 1950-07-04 in the Gregorian calendar, not 1950-07-05 (born)"}},
		{"the same date as born", "1950-07-05", []string{"content/life-path/9.yaml:18: famous_people[0].born_old_style: is the same as born"}},
		{"not a date", "22.06.1950", []string{`content/life-path/9.yaml:18: famous_people[0].born_old_style: "22.06.1950" is not a date (YYYY-MM-DD)`}},
		{"no such day", "1950-02-30", []string{"content/life-path/9.yaml:18: famous_people[0].born_old_style: 1950-02-30 is not a date of the Julian calendar"}},
		{"too long", "1950-06-22" + strings.Repeat("0", 300), []string{"content/life-path/9.yaml:18: famous_people[0].born_old_style: is not a date (YYYY-MM-DD)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := replace(t, "life-path/9.yaml", born, born+"    born_old_style: \""+tt.oldStyle+"\"\n")
			edits := map[string]string{"life-path/9.yaml": text}
			if tt.want == nil {
				if _, err := Load(fixture(t, edits), "content", testRules); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantProblems(t, edits, tt.want)
		})
	}
}

// TestFamousPeopleOldStyle pins what the life path pages say of the famous people's dates
// (review E12): everyone of the content born under the Julian calendar has the Old Style
// date, and for some of them its digits give another number, as the pages warn.
func TestFamousPeopleOldStyle(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	// Born in Russia before 14 February 1918, or into the Orthodox calendar (Tesla).
	julian := []string{"Лев Толстой", "Анна Ахматова", "Никола Тесла", "Михаил Глинка", "Галина Уланова",
		"Михаил Булгаков", "Сергей Королёв", "Пётр\u00a0I", "Василий Кандинский", "Николай Гоголь",
		"Дмитрий Шостакович", "Анна Павлова", "Сергей Рахманинов", "Фёдор Достоевский", "Пётр Чайковский",
		"Вера Мухина", "Дмитрий Менделеев", "Владимир Набоков", "Екатерина\u00a0II", "Антон Чехов",
		"Сергей Есенин", "Александр Пушкин", "Марина Цветаева", "Михаил Ломоносов", "Игорь Стравинский"}
	oldStyle := map[string]Person{}
	differs := 0
	for _, lp := range c.LifePaths {
		for _, p := range lp.FamousPeople {
			if p.BornOldStyle == "" {
				continue
			}
			oldStyle[p.Name] = p
			y, m, d := atoi(p.BornOldStyle[:4]), atoi(p.BornOldStyle[5:7]), atoi(p.BornOldStyle[8:])
			if testRules.LifePath(d, m, y) != lp.Number {
				differs++
			}
		}
	}
	for _, name := range julian {
		if _, ok := oldStyle[name]; !ok {
			t.Errorf("%s has no born_old_style", name)
		}
		delete(oldStyle, name)
	}
	for name := range oldStyle {
		t.Errorf("%s has a born_old_style but is not in the test's list of people born under the Julian calendar", name)
	}
	if differs == 0 {
		t.Error("no Old Style date gives another number: the pages' warning would be empty")
	}
}
