package generator

import (
	"bytes"
	"html"
	"unicode"
	"unicode/utf8"

	nethtml "golang.org/x/net/html"
)

// Typography of the HTML pages. Russian typesetting keeps a short word on the line of the
// word it belongs to, and a dash on the line of the word before it. The pages get a
// non-breaking space
//   - before a spaced em dash: «слово — слово» → «слово&nbsp;— слово»;
//   - after the one- and two-letter words of shortWordsAfter (prepositions, conjunctions,
//     the negations and «я»): «в доме» → «в&nbsp;доме», «и в доме» → «и&nbsp;в&nbsp;доме»;
//   - before the particles of particlesBefore, which lean on the word before them:
//     «он же» → «он&nbsp;же».
//
// Only text nodes change, and only their plain spaces (U+0020): never a tag, an attribute,
// the text of <title>, <script>, <style>, <textarea>, <pre>, <code>, <kbd> or <samp> (code,
// URLs and JSON examples live there), and never a space next to a line break, which is
// the templates' own layout. The JSON records keep their texts plain: typeset runs on the
// rendered HTML pages only (pageRenderer.html).

// shortWordsAfter are the short words bound to the word after them, lower case. Left out on
// purpose: «то», «ну», «ли» and the like, which do not open a phrase, and three-letter
// prepositions («для», «без», «под»), which are long enough to end a line.
var shortWordsAfter = map[string]bool{
	// one letter: prepositions, conjunctions and the pronoun «я»
	"а": true, "в": true, "и": true, "к": true, "о": true, "с": true, "у": true, "я": true,
	// two letters: prepositions
	"во": true, "до": true, "за": true, "из": true, "ко": true, "на": true, "об": true,
	"от": true, "по": true, "со": true,
	// two letters: conjunctions and negations
	"да": true, "но": true, "не": true, "ни": true,
}

// particlesBefore are the particles bound to the word before them, lower case.
var particlesBefore = map[string]bool{"же": true, "ли": true, "бы": true}

// skipText are the elements whose text stays exactly as written.
var skipText = map[string]bool{
	"title": true, "script": true, "style": true, "textarea": true,
	"pre": true, "code": true, "kbd": true, "samp": true,
}

const nbsp = "&nbsp;"

// typeset applies the typography above to an HTML page and returns the new page; everything
// but the plain spaces it replaces is kept byte for byte.
func typeset(page []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(page) + len(page)/16)
	z := nethtml.NewTokenizer(bytes.NewReader(page))
	skip := 0         // depth inside skipText elements
	noscript := false // the next text token is the raw content of a <noscript>
	for {
		tt := z.Next()
		if tt == nethtml.ErrorToken {
			// The reader is a bytes.Reader: the only error is the end of the page.
			return out.Bytes()
		}
		raw := z.Raw()
		switch tt {
		case nethtml.StartTagToken, nethtml.EndTagToken:
			name, _ := z.TagName()
			n := string(name)
			switch {
			case skipText[n] && tt == nethtml.StartTagToken:
				skip++
			case skipText[n] && skip > 0:
				skip--
			}
			noscript = n == "noscript" && tt == nethtml.StartTagToken
			out.Write(raw)
		case nethtml.TextToken:
			switch {
			case noscript:
				// The tokenizer hands a <noscript>'s markup over as raw text: typeset it as HTML.
				out.Write(typeset(raw))
			case skip > 0:
				out.Write(raw)
			default:
				out.Write(typesetText(raw))
			}
			noscript = false
		default:
			out.Write(raw)
			noscript = false
		}
	}
}

// unit is one character of a text node as written: a rune, or a character reference
// (&nbsp;, &#34;) with the rune it stands for.
type unit struct {
	raw string
	r   rune // -1 for a reference that is not one rune
}

// units splits the raw text of a text node into characters, keeping references whole.
func units(raw []byte) []unit {
	out := make([]unit, 0, len(raw))
	for i := 0; i < len(raw); {
		if raw[i] == '&' {
			if n := referenceLen(raw[i:]); n > 0 {
				ref := string(raw[i : i+n])
				r := rune(-1)
				if s := html.UnescapeString(ref); utf8.RuneCountInString(s) == 1 {
					r, _ = utf8.DecodeRuneInString(s)
				}
				out = append(out, unit{ref, r})
				i += n
				continue
			}
		}
		r, n := utf8.DecodeRune(raw[i:])
		out = append(out, unit{string(raw[i : i+n]), r})
		i += n
	}
	return out
}

// referenceLen is the length of the character reference b starts with («&amp;», «&#34;»),
// or 0.
func referenceLen(b []byte) int {
	for i := 1; i < len(b) && i < 32; i++ {
		c := b[i]
		switch {
		case c == ';':
			if i == 1 {
				return 0
			}
			return i + 1
		case c == '#' && i == 1, c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			return 0
		}
	}
	return 0
}

// typesetText applies the rules to the raw text of one text node.
func typesetText(raw []byte) []byte {
	if bytes.IndexByte(raw, ' ') < 0 {
		return raw
	}
	u := units(raw)
	bind := make([]bool, len(u)) // plain spaces to turn into non-breaking ones
	// (unicode.IsSpace counts the non-breaking space too.)
	// spacesBefore returns the start of the run of plain spaces ending before i, and
	// whether the run may be bound: it is not empty and does not follow a line break.
	spacesBefore := func(i int) (int, bool) {
		j := i
		for j > 0 && u[j-1].r == ' ' {
			j--
		}
		return j, j < i && (j == 0 || !unicode.IsSpace(u[j-1].r))
	}
	// spacesAfter returns the end of the run of plain spaces starting at i, and whether the
	// run may be bound: it is not empty and is not followed by a line break.
	spacesAfter := func(i int) (int, bool) {
		j := i
		for j < len(u) && u[j].r == ' ' {
			j++
		}
		return j, j > i && (j == len(u) || !unicode.IsSpace(u[j].r))
	}
	mark := func(from, to int) {
		for k := from; k < to; k++ {
			bind[k] = true
		}
	}
	for i := 0; i < len(u); i++ {
		switch {
		case u[i].r == '—':
			if i+1 < len(u) && !unicode.IsSpace(u[i+1].r) {
				continue // an unspaced dash («1990—2000») is not a sentence dash
			}
			if j, ok := spacesBefore(i); ok {
				mark(j, i)
			}
		case unicode.IsLetter(u[i].r):
			end := i
			for end < len(u) && unicode.IsLetter(u[end].r) {
				end++
			}
			word := wordOf(u[i:end])
			opens := i == 0 || unicode.IsSpace(u[i-1].r) || isOpening(u[i-1].r)
			switch {
			case shortWordsAfter[word] && opens:
				if j, ok := spacesAfter(end); ok {
					mark(end, j)
				}
			case particlesBefore[word] && (end == len(u) || !unicode.IsLetter(u[end].r) && u[end].r != '-'):
				if j, ok := spacesBefore(i); ok && j > 0 {
					mark(j, i)
				}
			}
			i = end - 1
		}
	}
	var b bytes.Buffer
	b.Grow(len(raw) + 32)
	for k := 0; k < len(u); k++ {
		if !bind[k] {
			b.WriteString(u[k].raw)
			continue
		}
		// A run of bound spaces becomes one non-breaking space: a browser would have
		// collapsed the run into one space anyway.
		for k+1 < len(u) && bind[k+1] {
			k++
		}
		b.WriteString(nbsp)
	}
	return b.Bytes()
}

// wordOf returns the lower-case word of letters u.
func wordOf(u []unit) string {
	if len(u) > 2 {
		return "" // longer than any word of the lists
	}
	var s []rune
	for _, x := range u {
		s = append(s, unicode.ToLower(x.r))
	}
	return string(s)
}

// isOpening reports the punctuation a word may follow directly: quotes and brackets.
func isOpening(r rune) bool {
	switch r {
	case '«', '„', '“', '"', '\'', '(', '[':
		return true
	}
	return false
}
