package content

import (
	"strings"
	"testing"
)

// TestInvisibleCharacters checks the characters no text may hold (docs/design.md §7): each
// is refused in a field no share card shows, as file:line: field, on the line that holds
// it. Before, every one of them passed the loader.
func TestInvisibleCharacters(t *testing.T) {
	tests := []struct {
		name string
		r    string
		want string // the end of the message
	}{
		{"right-to-left override", "\u202e", "U+202E is a bidi control, which reorders the text around it invisibly; remove it"},
		{"left-to-right mark", "\u200e", "U+200E is a bidi control"},
		{"right-to-left isolate", "\u2067", "U+2067 is a bidi control"},
		{"arabic letter mark", "\u061c", "U+061C is a bidi control"},
		{"zero-width space", "\u200b", "U+200B is a zero-width character, invisible in the pages; remove it"},
		{"zero-width joiner", "\u200d", "U+200D is a zero-width character"},
		{"word joiner", "\u2060", "U+2060 is a zero-width character"},
		{"byte order mark as a character", `"\ufeff"`, "U+FEFF is a zero-width character"},
		{"soft hyphen", "\u00ad", "U+00AD is a soft hyphen"},
		{"variation selector 16", "\ufe0f", "U+FE0F is a variation selector, which only the emoji field of arcana.yaml may hold"},
		{"tag", "\U000e0041", "U+E0041 is an invisible format character"},
		{"hangul filler", "\u3164", "U+3164 is an invisible format character"},
		{"private use", "\ue000", "U+E000 is a private-use character"},
		{"noncharacter", "\ufdd0", "U+FDD0 is a noncharacter"},
		{"line separator", "\u2028", "U+2028 is a line or paragraph separator: write a newline"},
		{"paragraph separator", "\u2029", "U+2029 is a line or paragraph separator"},
		{"thin space", "\u2009", "U+2009 is a space other than the plain space, U+00A0 and U+202F"},
		{"ideographic space", "\u3000", "U+3000 is a space other than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			value := "Девиз" + tt.r + "числа 7"
			if strings.HasPrefix(tt.r, `"`) {
				value = `"Девиз` + strings.Trim(tt.r, `"`) + `числа 7"`
			}
			wantProblems(t, map[string]string{
				"life-path/7.yaml": replace(t, "life-path/7.yaml", "tagline: Девиз числа 7", "tagline: "+value),
			}, []string{"content/life-path/7.yaml:3: tagline: " + tt.want})
		})
	}
}

// TestVisibleCharactersAllowed checks what the texts may hold besides letters: the spaces
// typography binds words with, a stress mark and a non-breaking hyphen in a field no card
// shows, and the emoji field's variation selector.
func TestVisibleCharactersAllowed(t *testing.T) {
	edits := map[string]string{
		"life-path/7.yaml": replace(t, "life-path/7.yaml", "tagline: Девиз числа 7", "tagline: Деви\u0301з 5\u00a0000 т.\u202fе. кто\u2011то"),
		"arcana.yaml":      replace(t, "arcana.yaml", "emoji: 🪄", "emoji: ☀️"),
	}
	if _, err := Load(fixture(t, edits), "content", testRules); err != nil {
		t.Fatal(err)
	}
}

// TestCardFieldsInFonts checks that a field a share card shows is refused, as file:line:
// field, when it holds a character the cards' fonts lack; the same character in another
// field is fine. Before, generate stopped at the card with exit 1 and no line to fix.
func TestCardFieldsInFonts(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		old   string
		new   string
		wants []string
	}{
		{"stress mark in an archetype", "life-path/7.yaml", "archetype: Архетип 7", "archetype: Архе\u0301тип 7",
			[]string{"content/life-path/7.yaml:2: archetype: U+0301 '\u0301' is not in the fonts of the share cards, which show this field: write the text without it"}},
		{"narrow no-break space in a short description", "life-path/3.yaml", "short_description: Краткое описание числа 3.", "short_description: |\n  Краткое\n  описание\u202fчисла\u20113.",
			[]string{"content/life-path/3.yaml:6: short_description: U+202F '\\u202f', U+2011 '‑' are not in the fonts of the share cards, which show this field: write the text without them"}},
		{"emoji in an arcanum's name", "arcana.yaml", "name: Аркан 2", "name: Аркан 2 🌙",
			[]string{"content/arcana.yaml:7: [1].name: U+1F319 '🌙' is not in the fonts"}},
		{"ruble sign in a keyword", "arcana.yaml", "keyword: Ключ 1", "keyword: Ключ 1 ₽",
			[]string{"content/arcana.yaml:3: [0].keyword: U+20BD '₽' is not in the fonts"}},
		{"non-breaking hyphen in a pair's summary", "compatibility.yaml", "summary: Сводка пары 1/2.", "summary: Сводка пары 1\u20112.",
			[]string{"content/compatibility.yaml:14: pairs[1].summary: U+2011 '‑' is not in the fonts"}},
		{"stress mark in the site's title", "site.yaml", "title: Открытые данные нумерологии", "title: Откры\u0301тые данные нумерологии",
			[]string{"content/site.yaml:4: title: U+0301"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantProblems(t, map[string]string{tt.file: replace(t, tt.file, tt.old, tt.new)}, tt.wants)
		})
	}
}
