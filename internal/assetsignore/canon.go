package assetsignore

import (
	"strings"
	"unicode"
	"unicode/utf16"
)

// JavaScript matches a regular expression without the u flag against UTF-16 code units, and
// with the i flag compares the units' Canonicalize values (ECMA-262 §22.2.2.7.3). To get
// exactly that from Go's regexp, which matches runes, a path is rewritten as one rune per
// code unit, each unit replaced by its canonical value; the expressions are compiled over
// the same alphabet. A surrogate, which a Go string cannot hold, becomes a rune of plane 15
// (unitRune): no such rune survives the rewriting otherwise, since every rune beyond the
// Basic Multilingual Plane is split into its two surrogates first.

const surrogateBase = 0xf0000

// unitRune is the rune that stands for a UTF-16 code unit.
func unitRune(u uint16) rune {
	if u >= 0xd800 && u <= 0xdfff {
		return surrogateBase + rune(u-0xd800)
	}
	return rune(u)
}

// units returns the UTF-16 code units of s.
func units(s string) []uint16 {
	return utf16.Encode([]rune(s))
}

// canonicalPath is the string a path is matched as: its code units, canonicalised.
func canonicalPath(p string) string {
	var b strings.Builder
	b.Grow(len(p))
	for _, u := range units(p) {
		b.WriteRune(unitRune(canonicalize(u)))
	}
	return b.String()
}

// canonicalize is Canonicalize(ch) of ECMA-262 for a pattern with the i flag and without u:
// the unit's toUpperCase, unless that is longer than one unit or maps a non-ASCII unit to
// an ASCII one.
func canonicalize(u uint16) uint16 {
	switch {
	case u < 0x80:
		if u >= 'a' && u <= 'z' {
			return u - ('a' - 'A')
		}
		return u
	case u >= 0xd800 && u <= 0xdfff:
		return u
	case multiUpper(u):
		return u
	}
	if r, ok := newerUpper[u]; ok {
		return r
	}
	r := unicode.ToUpper(rune(u))
	if r < 0x80 || r > 0xffff {
		return u
	}
	return uint16(r)
}

// newerUpper are the uppercase mappings of Unicode versions after the one of Go's unicode
// tables that the Node of edge/worker/package.json knows (Unicode 16 and 17).
var newerUpper = map[uint16]uint16{
	0x019b: 0xa7dc, 0x0264: 0xa7cb, 0x1c8a: 0x1c89, 0xa7cd: 0xa7cc,
	0xa7cf: 0xa7ce, 0xa7d3: 0xa7d2, 0xa7d5: 0xa7d4, 0xa7db: 0xa7da,
}

// multiUpper reports whether toUpperCase gives more than one unit for u: the unconditional
// uppercase mappings of Unicode's SpecialCasing.txt. unicode.ToUpper knows only the simple
// mappings, which differ for some of these (U+1FB3 ᾳ is ᾼ there, "ΑΙ" in JavaScript).
func multiUpper(u uint16) bool {
	switch {
	case u == 0x00df, u == 0x0149, u == 0x01f0, u == 0x0390, u == 0x03b0, u == 0x0587:
		return true
	case u >= 0x1e96 && u <= 0x1e9a:
		return true
	case u == 0x1f50, u == 0x1f52, u == 0x1f54, u == 0x1f56:
		return true
	case u >= 0x1f80 && u <= 0x1faf:
		return true
	case u == 0x1fb2, u == 0x1fb3, u == 0x1fb4, u == 0x1fb6, u == 0x1fb7, u == 0x1fbc:
		return true
	case u == 0x1fc2, u == 0x1fc3, u == 0x1fc4, u == 0x1fc6, u == 0x1fc7, u == 0x1fcc:
		return true
	case u == 0x1fd2, u == 0x1fd3, u == 0x1fd6, u == 0x1fd7:
		return true
	case u == 0x1fe2, u == 0x1fe3, u == 0x1fe4, u == 0x1fe6, u == 0x1fe7:
		return true
	case u == 0x1ff2, u == 0x1ff3, u == 0x1ff4, u == 0x1ff6, u == 0x1ff7, u == 0x1ffc:
		return true
	case u >= 0xfb00 && u <= 0xfb06, u >= 0xfb13 && u <= 0xfb17:
		return true
	}
	return false
}
