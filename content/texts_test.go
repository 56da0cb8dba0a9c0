package content

import (
	"strings"
	"testing"
	"unicode"
)

// TestTextsVaryTheirOpenings keeps the built-in texts from sliding back into a template:
// no opening word (compared by its first three letters, so «Ваш», «Ваша» and «Ваше» are one)
// starts more than a third of the texts of one kind: each paragraph of the descriptions,
// the love and advice texts, the taglines, both sentences of the short descriptions, the
// arcana and position descriptions, and of the compatibility texts the level descriptions,
// the summaries, the advice and the items of strengths and of challenges.
func TestTextsVaryTheirOpenings(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string][]string{}
	for _, lp := range c.LifePaths {
		for i, p := range strings.Split(strings.TrimSpace(lp.Description), "\n\n") {
			// The first sentence of a description names its number on purpose; the second
			// is where the template used to be.
			if i == 0 {
				if _, rest, ok := strings.Cut(p, ". "); ok {
					p = rest
				}
			}
			kind := "description paragraph " + string(rune('1'+i))
			kinds[kind] = append(kinds[kind], p)
		}
		kinds["love"] = append(kinds["love"], lp.Love)
		kinds["advice"] = append(kinds["advice"], lp.Advice)
		kinds["tagline"] = append(kinds["tagline"], lp.Tagline)
		// The short descriptions all followed "N — число …. Её путь — …".
		first, second, _ := strings.Cut(lp.ShortDescription, ". ")
		kinds["short description"] = append(kinds["short description"], first)
		if second != "" {
			kinds["short description, second sentence"] = append(kinds["short description, second sentence"], second)
		}
	}
	for _, a := range c.Arcana {
		kinds["arcanum description"] = append(kinds["arcanum description"], a.Description)
	}
	for _, p := range c.Positions {
		kinds["position meaning"] = append(kinds["position meaning"], p.Meaning)
	}
	for _, lv := range c.Compatibility.Levels {
		kinds["compatibility level description"] = append(kinds["compatibility level description"], lv.Description)
	}
	for _, p := range c.Compatibility.Pairs {
		kinds["compatibility summary"] = append(kinds["compatibility summary"], p.Summary)
		kinds["compatibility advice"] = append(kinds["compatibility advice"], p.Advice)
		kinds["compatibility strength"] = append(kinds["compatibility strength"], p.Strengths...)
		kinds["compatibility challenge"] = append(kinds["compatibility challenge"], p.Challenges...)
	}
	for kind, texts := range kinds {
		count := map[string]int{}
		for _, text := range texts {
			count[opening(text)]++
		}
		limit := (len(texts) + 2) / 3
		for o, n := range count {
			if n > limit {
				t.Errorf("%d of %d texts of kind %q open with %q…, want at most %d", n, len(texts), kind, o, limit)
			}
		}
	}
}

// opening returns the first three letters of the first word of text, lower-cased.
func opening(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return ""
	}
	if r := []rune(words[0]); len(r) > 3 {
		return string(r[:3])
	}
	return words[0]
}
