package content

import (
	"regexp"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/calendar"
)

// differenceRe finds a text saying that the two paths, their rhythm, values, habits or
// expectations differ: «ритмы и ценности здесь расходятся», «Пути заметно различаются»,
// «Трудности такого союза — разные привычки и ожидания» (the texts35 read: the last stood
// in the demanding level, which five pairs of one number carry).
var differenceRe = regexp.MustCompile(`(?i)(пут|ритм|ценност)[а-яё]*[^.:;]*(расход|различа|не совпада|разн)` +
	`|разн[а-яё]* (пут|ритм|ценност|привыч|ожидан)`)

// TestCompatLevelsFitTheirPairs pins what the review found false in the level descriptions
// (issue 32, E2 and E3): a level description is printed above every pair of its level and
// served with it, so it must be true of each. Two people with the same number walk the same
// path, so a level that any such pair carries may not say that the paths, rhythms or values
// differ; and no pair may say its values agree under a level that says they diverge.
func TestCompatLevelsFitTheirPairs(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	sameNumber := map[string][]CompatPair{}
	for _, p := range c.Compatibility.Pairs {
		if p.A == p.B {
			sameNumber[p.Level] = append(sameNumber[p.Level], p)
		}
	}
	if len(sameNumber) == 0 {
		t.Fatal("no pair of one number: the test checks nothing")
	}
	for _, lv := range c.Compatibility.Levels {
		m := differenceRe.FindString(lv.Description)
		if m == "" {
			continue
		}
		for _, p := range sameNumber[lv.Key] {
			t.Errorf("level %s says «%s…», yet the pair %d/%d of one number carries it", lv.Key, m, p.A, p.B)
		}
		for _, p := range c.Compatibility.Pairs {
			if p.Level == lv.Key && strings.Contains(p.Summary, "не противореч") {
				t.Errorf("level %s says «%s…», yet the summary of %d/%d says their values agree", lv.Key, m, p.A, p.B)
			}
		}
	}
}

// TestNaturalPairsDoNotDiffer keeps a pair's level true of its own summary: the natural
// level says «Ритм и ценности двух путей близки», so no pair of that level may say the two
// see or do things differently. It holds the reason the doubled digit does not decide a level
// (issue 32, style 13): [1,11] and [3,33] both share a digit with the master number, but
// [1,11]'s summary says the two «смотрят на мир по-разному» (complementary), while [3,33]'s
// says the Тройка finds its own creative force in the partner (natural).
func TestNaturalPairsDoNotDiffer(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	natural := 0
	for _, p := range c.Compatibility.Pairs {
		if p.Level != "natural" {
			continue
		}
		natural++
		if w := differenceWord(p.Summary); w != "" {
			t.Errorf("%d/%d is natural («ритм и ценности близки»), yet its summary says %q", p.A, p.B, w)
		}
	}
	if natural == 0 {
		t.Fatal("no natural pair: the test checks nothing")
	}
	for text, want := range map[string]string{
		"Эти двое понимают друг друга, хотя смотрят на мир по-разному.": "по-разному",
		"Ритмы у них разные.":                      "разные",
		"Различие — в глубине.":                    "различие",
		"Им легко вместе: разнообразие их радует.": "",
	} {
		if got := differenceWord(text); got != want {
			t.Errorf("differenceWord(%q) = %q, want %q", text, got, want)
		}
	}
}

// differenceWord returns the first word of text saying that two things differ, or "".
func differenceWord(text string) string {
	for _, w := range words(text) {
		switch {
		case w == "по-разному", strings.HasPrefix(w, "различ"), strings.HasPrefix(w, "непохож"),
			strings.HasPrefix(w, "противополож"),
			strings.HasPrefix(w, "разн") && !strings.HasPrefix(w, "разнообраз"):
			return w
		}
	}
	return ""
}

// TestDemandingLevelPointsToHelp pins the sentence of the demanding level (issue 32, §6):
// fear, humiliation, control or violence are not a matter of numbers, and help is named, the
// emergency number too. The generator's TestHelpSentencesAgree holds it to the pages' and the
// chart's sentences.
func TestDemandingLevelPointsToHelp(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	lv, ok := c.Compatibility.Level("demanding")
	if !ok {
		t.Fatal("no level demanding")
	}
	for _, w := range []string{"страх", "унижение", "контроль", "насилие", "не в числах", "психолог", "юрист", "кризисн", "доверия", "угрозе жизни", "112"} {
		if !strings.Contains(lv.Description, w) {
			t.Errorf("the demanding level does not say %q: %s", w, lv.Description)
		}
	}
}

// TestSquareCenturyClaims pins the claims of cells 1 and 9 about whole spans of years (issue
// 32, E4 and E5: «в датах XX века» was false for 2000, which belongs to the XX century):
// each cell's description names the span it speaks of, and every date of the range agrees.
func TestSquareCenturyClaims(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	desc := func(cell int) string { return c.Square.Cells[cell-1].Description }
	for _, cell := range []int{1, 9} {
		if strings.Contains(desc(cell), "XX век") {
			t.Errorf("cell %d speaks of the XX century, whose last year 2000 breaks the claim", cell)
		}
	}
	for cell, phrases := range map[int][]string{
		1: {"с 1900 по 1999 год и у дат 2100 года единица есть", "только у родившихся с 2000 по 2099 год"},
		9: {"У родившихся с 1900 по 1999 год хотя бы одна девятка есть всегда"},
	} {
		for _, p := range phrases {
			if !strings.Contains(desc(cell), p) {
				t.Errorf("cell %d no longer says %q: check the claim below against its new text", cell, p)
			}
		}
	}
	emptyOne, emptyNine := 0, 0
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				sq := rules.ComputeSquare(d, m, y)
				if sq.Counts[0] == 0 {
					emptyOne++
					if y < 2000 || y > 2099 {
						t.Errorf("%02d.%02d.%d has no 1, but cell 1 says only 2000–2099 can", d, m, y)
					}
				}
				if sq.Counts[8] == 0 {
					emptyNine++
					if y <= 1999 {
						t.Errorf("%02d.%02d.%d has no 9, but cell 9 says 1900–1999 always has one", d, m, y)
					}
				}
			}
		}
	}
	if emptyOne == 0 || emptyNine == 0 {
		t.Errorf("%d dates without a 1 and %d without a 9: the cells' words about an empty cell would describe nothing", emptyOne, emptyNine)
	}
}

// clinicalStems are words of a diagnosis of anxiety or mood. The texts describe tendencies in
// everyday words («беспокойство», «переменчивость настроения»), never a condition (issue 32,
// §6.4: life-path/11 had «тревожность» and «Резкие перепады настроения»).
var clinicalStems = []string{"тревожност", "депресс", "невроз", "невротич", "психоз", "психопат",
	"паническ", "биполяр", "маниакал", "истери", "фоби", "апати", "бессонниц", "расстройств",
	"выгоран", "обсесси", "компульси"}

// clinicalWords returns the clinical words of text: a stem above, or «перепады настроения».
func clinicalWords(text string) []string {
	var out []string
	ws := words(text)
	for i, w := range ws {
		for _, s := range clinicalStems {
			if strings.HasPrefix(w, s) {
				out = append(out, w)
			}
		}
		if strings.HasPrefix(w, "перепад") && i+1 < len(ws) && strings.HasPrefix(ws[i+1], "настроени") {
			out = append(out, w+" "+ws[i+1])
		}
	}
	return out
}

// TestNoClinicalWords keeps the words of a diagnosis of anxiety or mood out of every content
// text, life-path/11 first: its description and weaknesses are where the review found them.
func TestNoClinicalWords(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	eleven := false
	for i, lp := range c.LifePaths {
		if lp.Number != 11 {
			continue
		}
		eleven = true
		if ws := clinicalWords(strings.Join(append([]string{lp.Description, lp.ShortDescription, lp.Love, lp.Advice},
			append(lp.Traits, lp.Weaknesses...)...), "\n")); len(ws) > 0 {
			t.Errorf("life-path/11 (LifePaths[%d]) says %q: say it in everyday words, as a tendency", i, ws)
		}
	}
	if !eleven {
		t.Fatal("no life path 11")
	}
	for path, text := range contentTexts(c) {
		if ws := clinicalWords(text); len(ws) > 0 {
			t.Errorf("%s says %q: say it in everyday words, as a tendency", path, ws)
		}
	}
	for text, want := range map[string]int{
		"Чувствительность легко оборачивается тревожностью.": 1,
		"Резкие перепады настроения":                         1,
		"Переменчивость настроения; перепад высот":           0,
		"Беспокойство и волнение":                            0,
	} {
		if got := clinicalWords(text); len(got) != want {
			t.Errorf("clinicalWords(%q) = %q, want %d words", text, got, want)
		}
	}
}
