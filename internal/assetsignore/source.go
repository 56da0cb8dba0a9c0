package assetsignore

import "strings"

// The functions of this file turn one .assetsignore line into the source of a JavaScript
// regular expression exactly as npm's ignore 5.3.1 does (index.js: checkPattern,
// createRule and the REPLACERS of makeRegex, applied in order). Each replacer is a
// JavaScript String.prototype.replace with a regular expression; they are written out by
// hand because several use lookaheads, which Go's regexp lacks. Strings are handled as
// runes: every replacer looks only at ASCII characters, and its result is the same whether
// a character outside the Basic Multilingual Plane counts as one element or as two
// UTF-16 code units.

// jsSpace reports whether r is whitespace for JavaScript's \s: WhiteSpace and
// LineTerminator of ECMA-262.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// jsLineTerminator reports whether r is a LineTerminator, which "." does not match.
func jsLineTerminator(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029
}

// checkPattern is ignore's checkPattern: a line that is empty, blank, ends in a single
// unescaped backslash, or starts with "#" gives no rule.
func checkPattern(p []rune) bool {
	if len(p) == 0 || p[0] == '#' {
		return false
	}
	blank := true
	for _, r := range p {
		if !jsSpace(r) {
			blank = false
			break
		}
	}
	if blank {
		return false
	}
	// /(?:[^\\]|^)\\$/: the last character is a backslash and the one before it is not.
	n := len(p)
	return !(p[n-1] == '\\' && (n == 1 || p[n-2] != '\\'))
}

// createRule is ignore's createRule before makeRegex: a leading "!" negates, then a
// leading "\!" or "\#" loses its backslash.
func createRule(p []rune) (pattern []rune, negative bool) {
	if p[0] == '!' {
		negative, p = true, p[1:]
	}
	if len(p) >= 2 && p[0] == '\\' && p[1] == '!' {
		p = p[1:]
	}
	if len(p) >= 2 && p[0] == '\\' && p[1] == '#' {
		p = p[1:]
	}
	return p, negative
}

// metachars are the characters the fourth replacer escapes: /[\\$.|*+(){^]/g. The
// twelfth looks ahead for the same set without the backslash (metachars[1:]).
const metachars = `\$.|*+(){^`

// makeSource applies ignore's REPLACERS to pattern and returns the regular expression's
// source: the sixteen replacers in order, in five groups.
func makeSource(pattern []rune) []rune {
	s := trimPattern(append([]rune(nil), pattern...))
	s = escapeMeta(s)
	s = anchorPattern(s, pattern)
	s = expandStars(s)
	return endPattern(s)
}

// trimPattern is replacers 1–3: a byte-order mark, trailing whitespace and escaped
// whitespace.
func trimPattern(s []rune) []rune {
	// 1. /^\uFEFF/: a byte-order mark is removed.
	if len(s) > 0 && s[0] == 0xfeff {
		s = s[1:]
	}
	// 2. /\\?\s+$/: trailing whitespace goes; an escaped last one leaves one space.
	j := len(s)
	for j > 0 && jsSpace(s[j-1]) {
		j--
	}
	if j < len(s) {
		if j > 0 && s[j-1] == '\\' {
			s = append(s[:j-1], ' ')
		} else {
			s = s[:j]
		}
	}
	// 3. /\\\s/g: an escaped whitespace character becomes a space.
	s = scanReplace(s, func(s []rune, i int) ([]rune, int) {
		if s[i] == '\\' && i+1 < len(s) && jsSpace(s[i+1]) {
			return []rune{' '}, i + 2
		}
		return nil, -1
	})
	return s
}

// escapeMeta is replacers 4–7: metacharacters escaped, "?" for one character, a leading
// slash anchored, slashes escaped.
func escapeMeta(s []rune) []rune {
	// 4. /[\\$.|*+(){^]/g: metacharacters are escaped.
	s = scanReplace(s, func(s []rune, i int) ([]rune, int) {
		if strings.ContainsRune(metachars, s[i]) {
			return []rune{'\\', s[i]}, i + 1
		}
		return nil, -1
	})
	// 5. /(?!\\)\?/g: every "?" matches one character but "/".
	s = scanReplace(s, func(s []rune, i int) ([]rune, int) {
		if s[i] == '?' {
			return []rune(`[^/]`), i + 1
		}
		return nil, -1
	})
	// 6. /^\//: a leading slash anchors at the start.
	if len(s) > 0 && s[0] == '/' {
		s[0] = '^'
	}
	// 7. /\//g: slashes are escaped.
	s = scanReplace(s, func(s []rune, i int) ([]rune, int) {
		if s[i] == '/' {
			return []rune(`\/`), i + 1
		}
		return nil, -1
	})
	return s
}

// anchorPattern is replacers 8–9: a leading "**/" and where the pattern may match; pattern
// is the line as written.
func anchorPattern(s, pattern []rune) []rune {
	// 8. /^\^*\\\*\\\*\\\//: a leading "**/" matches in any directory.
	i := 0
	for i < len(s) && s[i] == '^' {
		i++
	}
	if hasAt(s, i, `\*\*\/`) {
		s = append([]rune(`^(?:.*\/)?`), s[i+6:]...)
	}
	// 9. /^(?=[^^])/: unless anchored already, a pattern with no slash but a trailing one
	// matches at any depth, any other from the root. The test is on the pattern as
	// written (this), before replacers 1 and 2.
	if len(s) > 0 && s[0] != '^' {
		prefix := `^`
		if !slashNotAtEnd(pattern) {
			prefix = `(?:^|\/)`
		}
		s = append([]rune(prefix), s...)
	}
	return s
}

// expandStars is replacers 10–13: "/**", the stars inside the pattern, and the extra
// backslashes of escaped characters.
func expandStars(s []rune) []rune {
	// 10. /\\\/\\\*\\\*(?=\\\/|$)/g: "/**" before a slash or at the end spans directories;
	// whether it is the last is decided on the string before this replacement.
	orig := s
	s = scanReplace(s, func(s []rune, i int) ([]rune, int) {
		if !hasAt(s, i, `\/\*\*`) || !(i+6 == len(s) || hasAt(s, i+6, `\/`)) {
			return nil, -1
		}
		if i+6 < len(orig) {
			return []rune(`(?:\/[^\/]+)*`), i + 6
		}
		return []rune(`\/.+`), i + 6
	})
	// 11. /(^|[^\\]+)(\\\*)+(?=.+)/g: stars inside the pattern match within a segment.
	s = scanReplace(s, intermediateWildcard)
	// 12. /\\\\\\(?=[$.|*+(){^])/g: an escaped metacharacter loses the extra backslashes.
	s = scanReplace(s, func(s []rune, i int) ([]rune, int) {
		if hasAt(s, i, `\\\`) && i+3 < len(s) && strings.ContainsRune(metachars[1:], s[i+3]) {
			return []rune{'\\'}, i + 3
		}
		return nil, -1
	})
	// 13. /\\\\/g: a double backslash becomes one.
	s = scanReplace(s, func(s []rune, i int) ([]rune, int) {
		if hasAt(s, i, `\\`) {
			return []rune{'\\'}, i + 2
		}
		return nil, -1
	})
	return s
}

// endPattern is replacers 14–16: bracket expressions, a directory of the name, a trailing
// star.
func endPattern(s []rune) []rune {
	// 14. /(\\)?\[([^\]/]*?)(\\*)($|\])/g: bracket expressions.
	s = scanReplace(s, bracket)
	// 15. /(?:[^*])$/: the pattern also matches a directory of that name.
	if n := len(s); n > 0 && s[n-1] != '*' {
		if s[n-1] == '/' {
			s = append(s, '$')
		} else {
			s = append(s, []rune(`(?=$|\/$)`)...)
		}
	}
	// 16. /(\^|\\\/)?\\\*$/: a trailing star.
	if n := len(s); hasAt(s, n-2, `\*`) {
		start, p1 := n-2, ""
		switch {
		case hasAt(s, n-4, `\/\*`):
			start, p1 = n-4, `\/`
		case hasAt(s, n-3, `^\*`):
			start, p1 = n-3, `^`
		}
		repl := `[^/]*`
		if p1 != "" {
			repl = p1 + `[^/]+`
		}
		s = append(s[:start:start], []rune(repl+`(?=$|\/$)`)...)
	}
	return s
}

// scanReplace is a global JavaScript replace: at each index, match reports the
// replacement and the index after the match, or a negative index for no match there.
func scanReplace(s []rune, match func(s []rune, i int) ([]rune, int)) []rune {
	var out []rune
	for i := 0; i < len(s); {
		if repl, end := match(s, i); end > i {
			out = append(out, repl...)
			i = end
			continue
		}
		out = append(out, s[i])
		i++
	}
	return out
}

// hasAt reports whether s holds lit at index i.
func hasAt(s []rune, i int, lit string) bool {
	if i < 0 {
		return false
	}
	for _, r := range lit {
		if i >= len(s) || s[i] != r {
			return false
		}
		i++
	}
	return true
}

// slashNotAtEnd is /\/(?!$)/.test(pattern): a slash that is not the last character.
func slashNotAtEnd(p []rune) bool {
	for i, r := range p {
		if r == '/' && i < len(p)-1 {
			return true
		}
	}
	return false
}

// intermediateWildcard is replacer 11 at index i: (^|[^\\]+)(\\\*)+(?=.+). The group
// repeated by "+" captures only its last repetition, so any run of "\*" becomes one
// "[^\/]*".
func intermediateWildcard(s []rune, i int) ([]rune, int) {
	stars := func(at int) int { // the end of the longest run of "\*" at at that the lookahead admits
		k := at
		for hasAt(s, k, `\*`) {
			k += 2
		}
		for ; k > at; k -= 2 {
			if k < len(s) && !jsLineTerminator(s[k]) { // (?=.+)
				return k
			}
		}
		return -1
	}
	if i == 0 { // the "^" alternative
		if end := stars(0); end > 0 {
			return []rune(`[^\/]*`), end
		}
	}
	r := i
	for r < len(s) && s[r] != '\\' {
		r++
	}
	if r == i {
		return nil, -1
	}
	// Only the longest run of non-backslashes can be followed by a backslash.
	if end := stars(r); end > r {
		return append(append([]rune(nil), s[i:r]...), []rune(`[^\/]*`)...), end
	}
	return nil, -1
}

// bracket is replacer 14 at index i: an escaped "[" stays literal, a closed bracket
// expression with an even number of backslashes before its "]" is kept (ranges out of
// order among 0–z dropped), anything else becomes "[]", which matches nothing.
func bracket(s []rune, i int) ([]rune, int) {
	lead := false
	b := i
	switch {
	case hasAt(s, i, `\[`):
		lead, b = true, i+1
	case i < len(s) && s[i] == '[':
	default:
		return nil, -1
	}
	// The range is lazy: the shortest that is followed by backslashes and then "]" or the end.
	for k := b + 1; ; k++ {
		e := k
		for e < len(s) && s[e] == '\\' {
			e++
		}
		if e == len(s) || s[e] == ']' {
			rng, esc := s[b+1:k], s[k:e]
			closing, end := "", e
			if e < len(s) {
				closing, end = "]", e+1
			}
			var out []rune
			switch {
			case lead:
				out = append(append(append([]rune(`\[`), rng...), esc[:len(esc)-len(esc)%2]...), []rune(closing)...)
			case closing == "]" && len(esc)%2 == 0:
				out = append(append(append([]rune{'['}, sanitizeRange(rng)...), esc...), ']')
			default:
				out = []rune(`[]`)
			}
			return out, end
		}
		if k >= len(s) || s[k] == ']' || s[k] == '/' {
			return nil, -1
		}
	}
}

// sanitizeRange drops the ranges of a bracket expression whose ends, both within 0–z,
// are out of order: /([0-z])-([0-z])/g.
func sanitizeRange(r []rune) []rune {
	in := func(c rune) bool { return c >= '0' && c <= 'z' }
	return scanReplace(r, func(s []rune, i int) ([]rune, int) {
		if i+2 < len(s) && in(s[i]) && s[i+1] == '-' && in(s[i+2]) {
			if s[i] <= s[i+2] {
				return s[i : i+3], i + 3
			}
			return []rune{}, i + 3
		}
		return nil, -1
	})
}
