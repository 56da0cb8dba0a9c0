package content

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The compatibility texts are 78 pairs read one after another, and an editor found them
// moulded on a few formulas (issue 32): «Тройка живёт вдохновением, Четвёрка — планом» in
// 37 summaries, «Единице важно …, Двойке — …» in 29 advices, the same openings and the
// same «Но …» at the end. These limits keep them from sliding back; make check runs
// TestCompatibilityRepetition.
const (
	// MaxCompatAntitheses bounds the «X …, Y — …» antitheses of the summaries and the
	// advices together.
	MaxCompatAntitheses = 15
	// MaxCompatFormula bounds how many summaries and advices together open with the same
	// formula, and how many end with the same one.
	MaxCompatFormula = 8
)

// numberName matches a life path number written as a word, in any case: «Единица»,
// «Двойке», «Двадцати двум», «Тридцатью тремя».
const numberName = `(?:Единиц|Двойк|Тройк|Четвёрк|Пятёрк|Шестёрк|Семёрк|Восьмёрк|Девятк|Одиннадцат)[а-яё]*` +
	`|Двадцат[а-яё]* дв[а-яё]*|Тридцат[а-яё]* тр[а-яё]*`

var (
	numberNameRe = regexp.MustCompile(numberName)
	// antithesisRe is «X делает A, Y — B»: a number's clause, a comma, another number and
	// a dash standing for the repeated verb; «, а Y — …» counts alike, and so does the
	// second half put as a sentence of its own («Единице стоит …. Двойке — …»), which
	// elidedRe finds.
	antithesisRe = regexp.MustCompile(`(?:` + numberName + `)[^.,;:!?—]*, (?:а |и )?(?:` + numberName + `) —`)
	elidedRe     = regexp.MustCompile(`(?:^|[.!?…]\s+)((?:А |И )?(?:` + numberName + `) — )(\S+)`)
	sentenceEnd  = regexp.MustCompile(`[.!?…]+(?:[»)]*)\s+`)
)

// antitheses returns the «X …, Y — …» antitheses of text.
func antitheses(text string) []string {
	out := antithesisRe.FindAllString(text, -1)
	for _, m := range elidedRe.FindAllStringSubmatch(text, -1) {
		if m[2] != "это" { // «Тридцать три — это Шестёрка …» defines, it does not elide
			out = append(out, m[1]+m[2])
		}
	}
	return out
}

// formulaWords returns the words of s, lower-cased, with every number's name as "N", so
// that «Единица и Двойка» and «Тройка и Шестёрка» are one formula, «N и N».
func formulaWords(s string) []string {
	s = strings.ToLower(numberNameRe.ReplaceAllString(s, "N"))
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
	for i, w := range words {
		if w == "n" { // the only Latin letter of the texts
			words[i] = "N"
		}
	}
	return words
}

// openingFormula is how a text opens: its first two words («две N», «N и», «договоритесь»
// and its next word).
func openingFormula(text string) string {
	w := formulaWords(text)
	if len(w) > 2 {
		w = w[:2]
	}
	return strings.Join(w, " ")
}

// closingFormula is how a text ends: the first word of its last sentence, cut to five
// letters, so that «Трудность …» and «Трудности …» are one formula, as are «Союз возможен,
// если …» and «Союз держится, если …» («союз»); a sentence that starts with a number's
// name is told by the word after it («N стоит»).
func closingFormula(text string) string {
	sentences := sentenceEnd.Split(strings.TrimSpace(text), -1)
	last := ""
	for _, s := range slices.Backward(sentences) {
		if strings.TrimSpace(s) != "" {
			last = s
			break
		}
	}
	w := formulaWords(last)
	if len(w) == 0 {
		return ""
	}
	if w[0] == "N" && len(w) > 1 {
		return "N " + w[1]
	}
	if r := []rune(w[0]); len(r) > 5 {
		return string(r[:5])
	}
	return w[0]
}

// repetitionProblems checks texts (the summaries and advices of the pairs, named by their
// pair) against the limits and returns what is over them, and the figures for the log.
func repetitionProblems(texts map[string]string) (problems, figures []string) {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range texts {
			if !yield(k) {
				return
			}
		}
	})
	var anti []string
	opens, closes := map[string][]string{}, map[string][]string{}
	for _, name := range names {
		text := texts[name]
		for _, a := range antitheses(text) {
			anti = append(anti, name+": «"+a+"»")
		}
		opens[openingFormula(text)] = append(opens[openingFormula(text)], name)
		closes[closingFormula(text)] = append(closes[closingFormula(text)], name)
	}
	figures = append(figures, fmt.Sprintf("%d antitheses «X …, Y — …» (at most %d)", len(anti), MaxCompatAntitheses))
	if len(anti) > MaxCompatAntitheses {
		problems = append(problems, fmt.Sprintf("%d antitheses «X …, Y — …», want at most %d:\n\t%s", len(anti), MaxCompatAntitheses, strings.Join(anti, "\n\t")))
	}
	for _, f := range []struct {
		what string
		by   map[string][]string
	}{{"open with", opens}, {"end with a sentence that starts with", closes}} {
		most, mostKey := 0, ""
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range f.by {
				if !yield(k) {
					return
				}
			}
		}) {
			users := f.by[k]
			if len(users) > most {
				most, mostKey = len(users), k
			}
			if len(users) > MaxCompatFormula {
				problems = append(problems, fmt.Sprintf("%d texts %s «%s…», want at most %d: %s", len(users), f.what, k, MaxCompatFormula, strings.Join(users, ", ")))
			}
		}
		figures = append(figures, fmt.Sprintf("most texts that %s one formula: %d («%s…»)", f.what, most, mostKey))
	}
	return problems, figures
}

// compatTexts returns the summaries and advices of the pairs of c, named «3/11 summary».
func compatTexts(c *Compatibility) map[string]string {
	texts := map[string]string{}
	for _, p := range c.Pairs {
		texts[fmt.Sprintf("%d/%d summary", p.A, p.B)] = p.Summary
		texts[fmt.Sprintf("%d/%d advice", p.A, p.B)] = p.Advice
	}
	return texts
}

// TestCompatibilityRepetition holds the built-in compatibility texts to the limits above
// (make check runs it).
func TestCompatibilityRepetition(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	problems, figures := repetitionProblems(compatTexts(&c.Compatibility))
	for _, f := range figures {
		t.Log(f)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestRepetitionCounts checks the counting itself on texts written for it, so that the
// check above cannot pass by counting nothing.
func TestRepetitionCounts(t *testing.T) {
	tests := []struct {
		text       string
		antitheses int
		open       string
		close      string
	}{
		{"Тройка живёт вдохновением, Четвёрка — планом. Но обе упрямы.", 1, "N живёт", "но"},
		{"Единице важно не командовать там, где Тройка ищет свободы, а Тройке — не отшучиваться.", 1, "N важно", "N важно"},
		{"Двадцать два строит надолго, Тридцать три — для людей. Трудности начинаются позже.", 1, "N строит", "трудн"},
		{"Двадцати двум стоит беречь партнёра, а Одиннадцати — доверять ему.", 1, "N стоит", "N стоит"},
		{"Пусть Тройка замолкает. А Двойке — не прятать обиду.", 1, "пусть N", "а"},
		{"Тридцать три — это Шестёрка в большем масштабе.", 0, "N это", "N это"},
		{"Две Единицы узнают друг друга сразу: обе решают быстро, говорят прямо.", 0, "две N", "две"},
		{"Одной кажется, что её тормозят, другой — что её торопят. Союз возможен, если обе готовы.", 0, "одной кажется", "союз"},
		{"Спросите себя: «Чего я жду?» И подождите ответа.", 0, "спросите себя", "и"},
	}
	for _, tt := range tests {
		if got := len(antitheses(tt.text)); got != tt.antitheses {
			t.Errorf("antitheses(%q) = %d %q, want %d", tt.text, got, antitheses(tt.text), tt.antitheses)
		}
		if got := openingFormula(tt.text); got != tt.open {
			t.Errorf("openingFormula(%q) = %q, want %q", tt.text, got, tt.open)
		}
		if got := closingFormula(tt.text); got != tt.close {
			t.Errorf("closingFormula(%q) = %q, want %q", tt.text, got, tt.close)
		}
	}
	// Over the limits: one antithesis too many, one formula too often at each end; and
	// at the limits, nothing.
	for _, over := range []int{0, 1} {
		texts := map[string]string{
			"antitheses": strings.Repeat("Тройка живёт вдохновением, Четвёрка — планом. ", MaxCompatAntitheses+over),
		}
		for i := range MaxCompatFormula + over {
			texts[fmt.Sprintf("formula %d", i)] = fmt.Sprintf("Договоритесь заранее о %d вещах. Но не спешите.", i)
		}
		problems, _ := repetitionProblems(texts)
		want := []string{"antitheses", "open with «договоритесь заранее", "starts with «но"}
		if over == 0 {
			want = nil
		}
		if len(problems) != len(want) {
			t.Fatalf("%d over the limits: got %d problems, want %d:\n%s", over, len(problems), len(want), strings.Join(problems, "\n"))
		}
		for i, w := range want {
			if !strings.Contains(problems[i], w) {
				t.Errorf("problem %d = %q, want it to mention %q", i, problems[i], w)
			}
		}
	}
}
