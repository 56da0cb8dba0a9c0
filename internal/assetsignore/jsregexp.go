package assetsignore

import (
	"errors"
	"fmt"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
)

// errUnsupported marks a JavaScript construct that ignore's replacers never produce
// (capturing groups, lookbehinds, a lookahead that is not the last element); the
// translation refuses it rather than guess.
var errUnsupported = errors.New("a regular expression construct this translation does not handle")

// jsSyntaxError is a source JavaScript's RegExp constructor refuses; wrangler then fails
// on the file too.
type jsSyntaxError struct{ msg string }

func (e *jsSyntaxError) Error() string { return e.msg }

// compileJS compiles the source of a JavaScript regular expression with the i flag (and
// without u), as ignore builds it, into a Go regexp that finds a match in a canonical path
// (canonicalPath) exactly when the JavaScript one finds one in the path.
func compileJS(src []rune) (*regexp.Regexp, error) {
	p := &jsParser{src: utf16.Encode(src)}
	if err := p.disjunction(0); err != nil {
		return nil, err
	}
	if p.i < len(p.src) { // only an unmatched ")" stops the top-level disjunction early
		return nil, &jsSyntaxError{"unmatched ')'"}
	}
	re, err := regexp.Compile(p.b.String())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUnsupported, err)
	}
	return re, nil
}

type jsParser struct {
	src []uint16
	i   int
	b   strings.Builder
}

func (p *jsParser) peek(k int) (uint16, bool) {
	if p.i+k < len(p.src) {
		return p.src[p.i+k], true
	}
	return 0, false
}

func (p *jsParser) disjunction(depth int) error {
	for {
		for p.i < len(p.src) && p.src[p.i] != '|' && p.src[p.i] != ')' {
			if err := p.term(depth); err != nil {
				return err
			}
		}
		if c, ok := p.peek(0); ok && c == '|' {
			p.b.WriteByte('|')
			p.i++
			continue
		}
		return nil
	}
}

// term parses an assertion, or an atom and its quantifier.
func (p *jsParser) term(depth int) error {
	c := p.src[p.i]
	next, _ := p.peek(1)
	switch {
	case c == '^' || c == '$':
		p.b.WriteRune(rune(c))
		p.i++
		return p.noQuantifier()
	case c == '\\' && (next == 'b' || next == 'B'):
		p.b.WriteString(`\` + string(rune(next)))
		p.i += 2
		return p.noQuantifier()
	case c == '(':
		return p.group(depth)
	case c == '.':
		p.i++
		p.b.WriteString(`[^\n\r\x{2028}\x{2029}]`)
	case c == '[':
		if err := p.class(); err != nil {
			return err
		}
	case c == '\\':
		if err := p.atomEscape(); err != nil {
			return err
		}
	case c == '*' || c == '+' || c == '?':
		return &jsSyntaxError{"nothing to repeat"}
	case c == '{' && p.braced() > 0:
		return &jsSyntaxError{"nothing to repeat"}
	default: // a pattern character, "]", "{" and "}" included (Annex B)
		p.i++
		p.literal(c)
	}
	return p.quantifier()
}

// group parses "(?:…)" and a lookahead "(?=…)" that ends its alternative at the top level,
// which for a search that only reports whether there is a match is the same as "(?:…)".
func (p *jsParser) group(depth int) error {
	q, _ := p.peek(1)
	kind, _ := p.peek(2)
	if q != '?' || (kind != ':' && kind != '=') {
		if q == '?' && kind != '!' && kind != '<' {
			return &jsSyntaxError{"invalid group"}
		}
		return errUnsupported
	}
	p.i += 3
	p.b.WriteString("(?:")
	if err := p.disjunction(depth + 1); err != nil {
		return err
	}
	if c, ok := p.peek(0); !ok || c != ')' {
		return &jsSyntaxError{"unterminated group"}
	}
	p.i++
	p.b.WriteByte(')')
	if kind == '=' {
		if c, ok := p.peek(0); depth != 0 || (ok && c != '|') {
			return errUnsupported
		}
		return nil
	}
	return p.quantifier()
}

// braced returns the length of a braced quantifier ({n}, {n,}, {n,m}) at the current
// index, or 0.
func (p *jsParser) braced() int {
	j := p.i + 1
	digits := func() int {
		k := j
		for k < len(p.src) && p.src[k] >= '0' && p.src[k] <= '9' {
			k++
		}
		n := k - j
		j = k
		return n
	}
	if digits() == 0 {
		return 0
	}
	if j < len(p.src) && p.src[j] == ',' {
		j++
		digits()
	}
	if j < len(p.src) && p.src[j] == '}' {
		return j + 1 - p.i
	}
	return 0
}

func (p *jsParser) quantifier() error {
	c, ok := p.peek(0)
	if !ok {
		return nil
	}
	switch {
	case c == '*' || c == '+' || c == '?':
		p.b.WriteRune(rune(c))
		p.i++
	case c == '{' && p.braced() > 0:
		n := p.braced()
		q := string(utf16.Decode(p.src[p.i : p.i+n]))
		lo, hi, hasHi := strings.Cut(q[1:len(q)-1], ",")
		a, _ := strconv.Atoi(lo)
		if b, err := strconv.Atoi(hi); hasHi && err == nil && b < a {
			return &jsSyntaxError{"numbers out of order in {} quantifier"}
		}
		p.b.WriteString(q)
		p.i += n
	default:
		return nil
	}
	if c, ok := p.peek(0); ok && c == '?' { // lazy: the same matches exist
		p.b.WriteByte('?')
		p.i++
	}
	return p.noQuantifier()
}

func (p *jsParser) noQuantifier() error {
	if c, ok := p.peek(0); ok && (c == '*' || c == '+' || c == '?' || c == '{' && p.braced() > 0) {
		return &jsSyntaxError{"nothing to repeat"}
	}
	return nil
}

// literal emits the pattern unit c: its canonical value.
func (p *jsParser) literal(c uint16) {
	writeRune(&p.b, unitRune(canonicalize(c)))
}

func writeRune(b *strings.Builder, r rune) {
	if r < 0x80 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_') {
		b.WriteRune(r)
		return
	}
	fmt.Fprintf(b, `\x{%x}`, r)
}

// atomEscape parses an escape outside a class (Annex B semantics: there are no capturing
// groups, so \1–\7 are octal escapes, \8 and \9 the digits, and \c not followed by a
// letter the backslash itself).
func (p *jsParser) atomEscape() error {
	c, ok := p.peek(1)
	if !ok {
		return &jsSyntaxError{`\ at end of pattern`}
	}
	if set := classEscapeSet(c); set != nil {
		p.i += 2
		writeSet(&p.b, set, false)
		return nil
	}
	if c == 'c' {
		if l, ok := p.peek(2); ok && isASCIILetter(l) {
			p.i += 3
			p.literal(l % 32)
			return nil
		}
		p.i++
		p.literal('\\')
		return nil
	}
	u := p.characterEscape()
	p.literal(u)
	return nil
}

// characterEscape parses the escape at the current index (a backslash and at least one
// unit) that is a single unit: control, octal, hexadecimal, Unicode or identity escapes.
func (p *jsParser) characterEscape() uint16 {
	c := p.src[p.i+1]
	switch c {
	case 'f':
		p.i += 2
		return '\f'
	case 'n':
		p.i += 2
		return '\n'
	case 'r':
		p.i += 2
		return '\r'
	case 't':
		p.i += 2
		return '\t'
	case 'v':
		p.i += 2
		return '\v'
	case 'x':
		if v, ok := p.hex(2, 2); ok {
			p.i += 4
			return v
		}
	case 'u':
		if v, ok := p.hex(2, 4); ok {
			p.i += 6
			return v
		}
	}
	if c >= '0' && c <= '7' {
		return p.octal()
	}
	p.i += 2 // identity escape: the unit itself ("8", "9", "k", "/" …)
	return c
}

func (p *jsParser) hex(at, n int) (uint16, bool) {
	if p.i+at+n > len(p.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(utf16.Decode(p.src[p.i+at:p.i+at+n])), 16, 16)
	return uint16(v), err == nil
}

// octal parses a legacy octal escape: up to three octal digits, a value of at most 0377.
func (p *jsParser) octal() uint16 {
	j := p.i + 1
	v := uint16(p.src[j] - '0')
	j++
	most := 2
	if v >= 4 {
		most = 1
	}
	for k := 0; k < most && j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '7'; k++ {
		v = v*8 + uint16(p.src[j]-'0')
		j++
	}
	p.i = j
	return v
}

func isASCIILetter(u uint16) bool { return u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' }

// class parses a character class and emits the set of canonical values it admits.
func (p *jsParser) class() error {
	p.i++
	negate := false
	if c, ok := p.peek(0); ok && c == '^' {
		negate = true
		p.i++
	}
	var set unitSet
	for {
		c, ok := p.peek(0)
		if !ok {
			return &jsSyntaxError{"unterminated character class"}
		}
		if c == ']' {
			p.i++
			writeSet(&p.b, &set, negate)
			return nil
		}
		a, aSet := p.classAtom()
		dash, _ := p.peek(0)
		after, more := p.peek(1)
		if dash != '-' || !more || after == ']' {
			set.addAtom(a, aSet)
			continue
		}
		p.i++
		b, bSet := p.classAtom()
		switch {
		case aSet != nil || bSet != nil:
			set.addAtom(a, aSet)
			set.add(canonicalize('-'))
			set.addAtom(b, bSet)
		case a > b:
			return &jsSyntaxError{"range out of order in character class"}
		default:
			for u := int(a); u <= int(b); u++ {
				set.add(canonicalize(uint16(u)))
			}
		}
	}
}

// classAtom parses one unit of a class, or a class escape (\d, \w, …) as a set.
func (p *jsParser) classAtom() (uint16, *unitSet) {
	c := p.src[p.i]
	if c != '\\' {
		p.i++
		return c, nil
	}
	e, ok := p.peek(1)
	if !ok { // "[\" never closes; the caller reports the unterminated class
		p.i++
		return c, nil
	}
	if set := classEscapeSet(e); set != nil {
		p.i += 2
		return 0, set
	}
	switch e {
	case 'b':
		p.i += 2
		return '\b', nil
	case '-':
		p.i += 2
		return '-', nil
	case 'c':
		if l, ok := p.peek(2); ok && (isASCIILetter(l) || l >= '0' && l <= '9' || l == '_') {
			p.i += 3
			return l % 32, nil
		}
		p.i++
		return '\\', nil
	}
	return p.characterEscape(), nil
}

// unitSet is a set of UTF-16 code units.
type unitSet [1 << 16 / 64]uint64

func (s *unitSet) add(u uint16)      { s[u/64] |= 1 << (u % 64) }
func (s *unitSet) has(u uint16) bool { return s[u/64]&(1<<(u%64)) != 0 }
func (s *unitSet) union(o *unitSet) {
	for i := range s {
		s[i] |= o[i]
	}
}
func (s *unitSet) addAtom(u uint16, o *unitSet) {
	if o != nil {
		s.union(o)
		return
	}
	s.add(canonicalize(u))
}

var (
	escapeSetsOnce sync.Once
	escapeSets     map[uint16]*unitSet
)

// classEscapeSet returns the canonical values of \d, \D, \s, \S, \w or \W, or nil for
// another letter.
func classEscapeSet(c uint16) *unitSet {
	switch c {
	case 'd', 'D', 's', 'S', 'w', 'W':
	default:
		return nil
	}
	escapeSetsOnce.Do(func() {
		preds := map[uint16]func(uint16) bool{
			'd': func(u uint16) bool { return u >= '0' && u <= '9' },
			's': func(u uint16) bool { return jsSpace(rune(u)) },
			'w': func(u uint16) bool { return u < 0x80 && (isASCIILetter(u) || u >= '0' && u <= '9' || u == '_') },
		}
		escapeSets = map[uint16]*unitSet{}
		for k, pred := range preds {
			in, out := &unitSet{}, &unitSet{}
			for u := 0; u < 1<<16; u++ {
				if pred(uint16(u)) {
					in.add(canonicalize(uint16(u)))
				} else {
					out.add(canonicalize(uint16(u)))
				}
			}
			escapeSets[k], escapeSets[k-'a'+'A'] = in, out
		}
	})
	return escapeSets[c]
}

// writeSet emits a class admitting the set's units (or, negated, every other unit), each
// as its rune (unitRune). An empty class matches nothing, as in JavaScript.
func writeSet(b *strings.Builder, s *unitSet, negate bool) {
	var runs [][2]rune
	for u := 0; u < 1<<16; {
		w, off := u/64, uint(u%64)
		if rest := s[w] >> off; rest == 0 {
			u = (w + 1) * 64
			continue
		} else if rest&1 == 0 {
			u += bits.TrailingZeros64(rest)
			continue
		}
		start := u
		// A run stops where unitRune stops being contiguous: at the surrogates, whose
		// bounds 0xd800 and 0xe000 are multiples of 64.
		for u < 1<<16 && s.has(uint16(u)) && (u == start || (u != 0xd800 && u != 0xe000)) {
			if u%64 == 0 && u != start && s[u/64] == ^uint64(0) {
				u += 64
				continue
			}
			u++
		}
		runs = append(runs, [2]rune{unitRune(uint16(start)), unitRune(uint16(u - 1))})
	}
	switch {
	case len(runs) == 0 && !negate:
		b.WriteString(`[^\x{0}-\x{10ffff}]`)
		return
	case len(runs) == 0:
		b.WriteString(`[\x{0}-\x{10ffff}]`)
		return
	}
	b.WriteByte('[')
	if negate {
		b.WriteByte('^')
	}
	for _, r := range runs {
		writeRune(b, r[0])
		if r[1] != r[0] {
			b.WriteByte('-')
			writeRune(b, r[1])
		}
	}
	b.WriteByte(']')
}
