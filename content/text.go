package content

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// CardRules are the facts of the share cards the content must fit (docs/design.md §7): the
// fields whose text a card shows, and whether the cards' fonts can draw a character. The
// generator owns both (generator.ContentRules); a character a card's font lacks would stop
// generate at the card, with no line to fix, so the loader checks it with the rest.
type CardRules struct {
	// Fields are, by file (a path.Match pattern such as "life-path/*.yaml"), the fields a
	// card shows, as field paths with [*] for any index ("pairs[*].summary").
	Fields map[string][]string
	// Drawable reports whether the cards' fonts have a glyph for r.
	Drawable func(r rune) bool
}

func (r *CardRules) complete() bool { return r.Drawable != nil && len(r.Fields) > 0 }

// The characters no content text may hold, decided once (docs/design.md §7). They are
// invisible in the pages, or change how the text around them reads or is stored:
//   - default-ignorable code points: the bidi controls (U+061C, U+200E–200F, U+202A–202E,
//     U+2066–2069), the zero-width space and joiners (U+200B–200D), the word joiner
//     (U+2060), the soft hyphen (U+00AD: the pages hyphenate with CSS), variation
//     selectors, tags, fillers and the other format characters. The emoji field of
//     arcana.yaml is checkEmoji's: one emoji, at most with U+FE0F or a skin tone;
//   - private-use code points (no font the readers have draws them as meant) and
//     noncharacters;
//   - the line and paragraph separators U+2028 and U+2029 (a newline says it);
//   - spaces other than U+0020, the no-break space U+00A0 and the narrow no-break space
//     U+202F, the two Russian typography binds words with («5 000», «т. е.»).
//
// Control characters other than newline and tab are refused before parsing (precheck).
// Any other visible character is allowed in the texts; the fields a share card shows must
// also be in the cards' fonts (CardRules).

// invisible reports why r may not be in a content text, or "".
func invisible(r rune) string {
	switch {
	case r == ' ', r == '\n', r == '\t', r == '\u00a0', r == '\u202f':
		return ""
	case isBidiControl(r):
		return "is a bidi control, which reorders the text around it invisibly"
	case r >= '\u200b' && r <= '\u200d', r == '\u2060', r == '\ufeff':
		return "is a zero-width character, invisible in the pages"
	case r == '\u00ad':
		return "is a soft hyphen, invisible in the pages (they hyphenate by themselves)"
	case unicode.Is(unicode.Variation_Selector, r):
		return "is a variation selector, which only the emoji field of arcana.yaml may hold"
	case unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point):
		return "is an invisible format character"
	case unicode.Is(unicode.Co, r):
		return "is a private-use character, which no reader's font draws as meant"
	case r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE:
		return "is a noncharacter"
	case r == '\u2028', r == '\u2029':
		return "is a line or paragraph separator: write a newline"
	case unicode.Is(unicode.Zs, r):
		return "is a space other than the plain space, U+00A0 and U+202F, which the texts use"
	}
	return ""
}

func isBidiControl(r rune) bool {
	return r == '\u061c' || r == '\u200e' || r == '\u200f' || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// checkText checks every string of the document: the characters no text may hold, and,
// in the fields a share card shows, the characters the cards' fonts lack. file is the
// file's name in the content folder.
func (d *doc) checkText(file string) {
	if d.file == nil || len(d.file.Docs) == 0 {
		return
	}
	var card []string
	for pattern, fields := range d.l.rules.Cards.Fields {
		if ok, _ := path.Match(pattern, file); ok {
			card = append(card, fields...)
		}
	}
	walkStrings(d.file.Docs[0].Body, "", func(field string, tk *token.Token, value string) {
		pattern := anyIndex.ReplaceAllString(field, "[*]")
		if file == "arcana.yaml" && pattern == "[*].emoji" {
			return // checkEmoji's
		}
		for _, r := range value {
			if msg := invisible(r); msg != "" {
				d.problem(d.lineOf(r, tk), field, "U+%04X %s; remove it", r, msg)
				break
			}
		}
		if slices.Contains(card, pattern) {
			d.checkCardText(field, tk, value)
		}
	})
}

// anyIndex matches the indexes of a field path.
var anyIndex = regexp.MustCompile(`\[[0-9]+\]`)

// checkCardText reports the characters of a field a share card shows that the cards'
// fonts lack, all of them in one problem.
func (d *doc) checkCardText(field string, tk *token.Token, value string) {
	var missing []rune
	for _, r := range value {
		if r == ' ' || r == '\n' || r == '\t' || d.l.rules.Cards.Drawable(r) || slices.Contains(missing, r) {
			continue
		}
		missing = append(missing, r)
	}
	if len(missing) == 0 {
		return
	}
	names := make([]string, len(missing))
	for i, r := range missing {
		names[i] = fmt.Sprintf("U+%04X %q", r, r)
	}
	verb, pronoun := "are", "them"
	if len(missing) == 1 {
		verb, pronoun = "is", "it"
	}
	d.problem(d.lineOf(missing[0], tk), field, "%s %s not in the fonts of the share cards, which show this field: write the text without %s",
		strings.Join(names, ", "), verb, pronoun)
}

// lineOf returns the line of the first r in the file at or after the line of tk (where the
// value starts), or that line when the file does not hold r as such (a "\u…" escape).
func (d *doc) lineOf(r rune, tk *token.Token) int {
	line := 1
	if tk != nil {
		line = tk.Position.Line
	}
	rest := d.src
	for range line - 1 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return line
		}
		rest = rest[i+1:]
	}
	i := bytes.IndexRune(rest, r)
	if i < 0 || r == utf8.RuneError {
		return line
	}
	return line + bytes.Count(rest[:i], []byte("\n"))
}

// walkStrings calls fn for each string value below n, with its field path ("archetype",
// "famous_people[1].name", "[3].emoji") and the token where its value starts.
func walkStrings(n ast.Node, field string, fn func(field string, tk *token.Token, value string)) {
	join := func(key string) string {
		if field == "" {
			return key
		}
		return field + "." + key
	}
	switch n := n.(type) {
	case *ast.MappingNode:
		for _, v := range n.Values {
			walkStrings(v, field, fn)
		}
	case *ast.MappingValueNode:
		if n.Key != nil && n.Key.GetToken() != nil {
			walkStrings(n.Value, join(n.Key.GetToken().Value), fn)
		}
	case *ast.SequenceNode:
		for i, v := range n.Values {
			walkStrings(v, fmt.Sprintf("%s[%d]", field, i), fn)
		}
	case *ast.StringNode:
		fn(field, n.Token, n.Value)
	case *ast.LiteralNode:
		if n.Value != nil {
			fn(field, n.Start, n.Value.Value)
		}
	}
}
