package content

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"unicode/utf8"

	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"
)

// Limits on content files, checked before a file is parsed or decoded, so that a hostile
// or broken --content directory fails in milliseconds instead of exhausting memory. The
// largest real file is under 10 KB and nests three levels deep.
const (
	// MaxFileBytes bounds one YAML file.
	MaxFileBytes = 64 << 10
	// MaxCompatibilityBytes bounds compatibility.yaml, the one file that holds many texts
	// (78 pairs, about 150 KB).
	MaxCompatibilityBytes = 256 << 10
	// MaxDepth bounds the nesting of flow collections ([…], {…}); block nesting is bounded
	// by MaxFileBytes (each level costs a wider indent).
	MaxDepth = 16
)

// Anchors and aliases are refused outright rather than bounded: hand-written prose content
// has no use for them, and alias expansion is what makes a 5 KB file decode into gigabytes
// (go-yaml has no option to cap it).

// precheck refuses a file over the size limit, with an alias or anchor, or nested too
// deeply. It returns false, having reported the problem, when the file must not be parsed.
func (d *doc) precheck(b []byte) (token.Tokens, bool) {
	if len(b) > d.maxBytes {
		line := bytes.Count(b[:d.maxBytes], []byte("\n")) + 1
		d.problem(line, "", "file is larger than %d KiB (the limit is crossed on this line)", d.maxBytes>>10)
		return nil, false
	}
	if !utf8.Valid(b) {
		d.problem(lineOfInvalidUTF8(b), "", "file is not valid UTF-8")
		return nil, false
	}
	tokens := tokenize(b)
	depth := 0
	for _, tk := range tokens {
		switch tk.Type {
		case token.AnchorType, token.AliasType:
			d.problem(tk.Position.Line, "", "YAML anchors and aliases (&, *) are not allowed in content")
			return nil, false
		case token.TagType:
			// Content is plain strings, numbers and lists; a tag (!x, !!str) only changes how
			// go-yaml decodes, and an empty tagged value crashes its decoder (found by FuzzLoad).
			d.problem(tk.Position.Line, "", "YAML tags (%s) are not allowed in content", tk.Value)
			return nil, false
		case token.SequenceStartType, token.MappingStartType:
			if depth++; depth > MaxDepth {
				d.problem(tk.Position.Line, "", "nested deeper than %d levels", MaxDepth)
				return nil, false
			}
		case token.SequenceEndType, token.MappingEndType:
			depth--
		}
	}
	return tokens, true
}

// tokenize is lexer.Tokenize without its endless loop: go-yaml's Tokenize calls Scan again
// after an error, which does not advance, and so never returns on some malformed input
// (found by FuzzLoad). The invalid token ends the list; the parser reports it.
func tokenize(b []byte) token.Tokens {
	var s scanner.Scanner
	s.Init(string(b))
	var tokens token.Tokens
	for {
		tks, err := s.Scan()
		tokens.Add(tks...)
		if err != nil {
			return tokens
		}
	}
}

func lineOfInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return bytes.Count(b[:i], []byte("\n")) + 1
		}
		i += n
	}
	return 0
}

// Longest value of a field, in characters (runes). Every real value is well under these.
const (
	maxName      = 200   // names, titles, keywords, URLs, e-mail
	maxShortText = 1000  // taglines, short descriptions, attribution and citation patterns, list items
	maxParagraph = 4000  // love, advice, an arcanum's or position's description
	maxLongText  = 20000 // a life path's description
)

// maxLen reports a field longer than limit characters.
func (d *doc) maxLen(yamlPath, field, value string, limit int) {
	if n := utf8.RuneCountInString(value); n > limit {
		d.at(yamlPath, field, "too long: %d characters, the limit is %d", n, limit)
	}
}

// lengths checks every string of a life path record against its limit.
func (d *doc) lifePathLengths(lp *LifePath) {
	for _, f := range []struct {
		key, value string
		limit      int
	}{
		{"archetype", lp.Archetype, maxName}, {"tagline", lp.Tagline, maxShortText},
		{"short_description", lp.ShortDescription, maxShortText}, {"description", lp.Description, maxLongText},
		{"love", lp.Love, maxParagraph}, {"advice", lp.Advice, maxParagraph},
	} {
		d.maxLen("$."+f.key, f.key, f.value, f.limit)
	}
	for key, items := range map[string][]string{"traits": lp.Traits, "weaknesses": lp.Weaknesses, "career": lp.Career} {
		for i, s := range items {
			d.maxLen(fmt.Sprintf("$.%s[%d]", key, i), fmt.Sprintf("%s[%d]", key, i), s, maxShortText)
		}
	}
	for i, p := range lp.FamousPeople {
		yp, f := fmt.Sprintf("$.famous_people[%d]", i), fmt.Sprintf("famous_people[%d]", i)
		d.maxLen(yp+".name", f+".name", p.Name, maxName)
		d.maxLen(yp+".field", f+".field", p.Field, maxName)
		d.maxLen(yp+".born", f+".born", p.Born, maxName)
	}
}

// maxFileBytes returns the size limit of the file name.
func maxFileBytes(name string) int {
	if name == CompatibilityFile {
		return MaxCompatibilityBytes
	}
	return MaxFileBytes
}

// readLimited reads a file, but no more than one byte past limit.
func readLimited(fsys fs.FS, name string, limit int) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(limit)+1))
}

// compatibilityLengths checks every string of compatibility.yaml against its limit.
func (d *doc) compatibilityLengths(f *compatFile) {
	for i, lv := range f.Levels {
		yp, fd := fmt.Sprintf("$.levels[%d]", i), fmt.Sprintf("levels[%d]", i)
		d.maxLen(yp+".key", fd+".key", lv.Key, maxName)
		d.maxLen(yp+".name", fd+".name", lv.Name, maxName)
		d.maxLen(yp+".description", fd+".description", lv.Description, maxShortText)
	}
	for i, p := range f.Pairs {
		yp, fd := fmt.Sprintf("$.pairs[%d]", i), fmt.Sprintf("pairs[%d]", i)
		d.maxLen(yp+".level", fd+".level", p.Level, maxName)
		d.maxLen(yp+".summary", fd+".summary", p.Summary, maxParagraph)
		d.maxLen(yp+".advice", fd+".advice", p.Advice, maxParagraph)
		for key, items := range map[string][]string{"strengths": p.Strengths, "challenges": p.Challenges} {
			for j, s := range items {
				d.maxLen(fmt.Sprintf("%s.%s[%d]", yp, key, j), fmt.Sprintf("%s.%s[%d]", fd, key, j), s, maxShortText)
			}
		}
	}
}
