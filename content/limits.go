package content

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"
)

// Limits on content files, checked before a file is parsed or decoded, so that a hostile
// or broken --content directory fails in milliseconds instead of exhausting memory. The
// real files are well within them.
const (
	// MaxFileBytes bounds one YAML file.
	MaxFileBytes = 64 << 10
	// MaxCompatibilityBytes bounds compatibility.yaml, the one file that holds many texts
	// (one per pair of life path numbers).
	MaxCompatibilityBytes = 256 << 10
	// MaxDepth bounds the nesting of collections, block (indented "-" and "key:") and flow
	// ([…], {…}) counted together. A 60 KB "- - - … x" nests 30,000 levels on one line,
	// and go-yaml's parser builds it with about 1.4 GB before its decoder refuses it.
	MaxDepth = 16
)

// Anchors and aliases are refused outright rather than bounded: hand-written prose content
// has no use for them, and alias expansion is what makes a 5 KB file decode into gigabytes
// (go-yaml has no option to cap it).

// precheck refuses a file over the size limit, not UTF-8, with a control character, an
// alias or anchor, or nested too deeply. It returns false, having reported the problem, when
// the file must not be parsed. A leading byte order mark, which YAML allows, is skipped.
func (d *doc) precheck(b []byte) (token.Tokens, bool) {
	if len(b) > d.maxBytes {
		line := bytes.Count(b[:d.maxBytes], []byte("\n")) + 1
		d.problem(line, "", "file is larger than %d KiB (the limit is crossed on this line)", d.maxBytes>>10)
		return nil, false
	}
	if bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF}) {
		d.problem(1, "", "file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8")
		return nil, false
	}
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	if !utf8.Valid(b) {
		d.problem(lineOfInvalidUTF8(b), "", "file is not valid UTF-8")
		return nil, false
	}
	if line, msg := badCharacter(b); msg != "" {
		d.problem(line, "", "%s", msg)
		return nil, false
	}
	tokens := tokenize(b)
	depth := 0             // open flow collections
	var blocks []openBlock // open block collections, innermost last
	for _, tk := range tokens {
		if tk.Type == token.DoubleQuoteType {
			// Escapes ("\0", "\x1b") make control characters that the file's bytes do not hold.
			if msg := controlIn(tk.Value); msg != "" {
				d.problem(tk.Position.Line, "", "%s", msg)
				return nil, false
			}
		}
		if e, ok := blockEntry(tk, depth); ok {
			var pushed bool
			if blocks, pushed = e.enter(blocks); pushed && len(blocks)+depth > MaxDepth {
				d.problem(tk.Position.Line, "", "nested deeper than %d levels", MaxDepth)
				return nil, false
			}
		}
		switch tk.Type {
		case token.DocumentHeaderType, token.DocumentEndType:
			blocks = nil
		case token.AnchorType, token.AliasType:
			d.problem(tk.Position.Line, "", "YAML anchors and aliases (&, *) are not allowed in content")
			return nil, false
		case token.TagType:
			// Content is plain strings, numbers and lists; a tag (!x, !!str) only changes how
			// go-yaml decodes, and an empty tagged value crashes its decoder (found by FuzzLoad).
			d.problem(tk.Position.Line, "", "YAML tags (%s) are not allowed in content", tk.Value)
			return nil, false
		case token.SequenceStartType, token.MappingStartType:
			if depth++; len(blocks)+depth > MaxDepth {
				d.problem(tk.Position.Line, "", "nested deeper than %d levels", MaxDepth)
				return nil, false
			}
		case token.SequenceEndType, token.MappingEndType:
			depth--
		}
	}
	return tokens, true
}

// openBlock is a block collection: a sequence or a mapping, at the column of its entries.
type openBlock struct {
	col   int
	isMap bool
}

// blockEntry reports whether tk, outside flow collections (flowDepth 0), is an entry of a
// block collection: the "-" of a sequence, or the "?" or ":" of a mapping. The column is
// the "-" or "?" itself, or that of the key before the ":" on its line.
func blockEntry(tk *token.Token, flowDepth int) (openBlock, bool) {
	if flowDepth > 0 {
		return openBlock{}, false
	}
	switch tk.Type {
	case token.SequenceEntryType:
		return openBlock{tk.Position.Column, false}, true
	case token.MappingKeyType:
		return openBlock{tk.Position.Column, true}, true
	case token.MappingValueType:
		if k := tk.Prev; k != nil && k.Position.Line == tk.Position.Line {
			return openBlock{k.Position.Column, true}, true
		}
		return openBlock{tk.Position.Column, true}, true
	}
	return openBlock{}, false
}

// enter closes the collections of open that an entry of b ends (those indented deeper, and
// a sequence at b's column when b is a mapping), and opens b unless it continues the
// innermost one. A sequence may sit at its parent key's column ("key:\n- item"): that is a
// new level.
func (b openBlock) enter(open []openBlock) ([]openBlock, bool) {
	for len(open) > 0 {
		top := open[len(open)-1]
		// Stop at a collection indented less, or at b's column unless b is a mapping entry
		// that ends a sequence there.
		if top.col < b.col || top.col == b.col && !(b.isMap && !top.isMap) {
			break
		}
		open = open[:len(open)-1]
	}
	if n := len(open); n > 0 && open[n-1] == b {
		return open, false
	}
	return append(open, b), true
}

// badCharacter returns the line and a message for the first character of b that content may
// not hold: a control character other than newline and tab (a carriage return only before
// a newline), or a byte order mark after the start. The message is "" when there is none.
func badCharacter(b []byte) (line int, msg string) {
	line = 1
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == '\n':
			line++
		case r == '\r' && i+1 < len(b) && b[i+1] == '\n':
		case r == '\uFEFF':
			return line, "byte order mark (U+FEFF) after the start of the file: remove it (one is allowed only as the first character)"
		case badControl(r):
			return line, controlMessage(r)
		}
		i += n
	}
	return 0, ""
}

// controlIn returns a message naming the first control character of s other than newline
// and tab, or "". Such characters would land raw in the pages and llms.txt.
func controlIn(s string) string {
	for _, r := range s {
		if badControl(r) {
			return controlMessage(r)
		}
	}
	return ""
}

func badControl(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) }

func controlMessage(r rune) string {
	return fmt.Sprintf("control character U+%04X is not allowed (only newline and tab are)", r)
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

	// maxSquareReading bounds a square cell's short reading: every square record carries
	// nine of them and stays under 2.5 KB (TestSquareRecordSize).
	maxSquareReading = 48
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

// readLimited reads a regular file, but no more than one byte past limit. Anything else is
// refused before it is opened: opening a named pipe blocks until a writer comes, and a
// device can be endless.
func readLimited(fsys fs.FS, name string, limit int) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fileKind(fi.Mode()))
	}
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

// readDir lists a directory, having checked that it is one: fs.ReadDir opens what it is
// given, and a named pipe in its place would block.
func readDir(fsys fs.FS, name string) ([]fs.DirEntry, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("not a directory (%s)", fileKind(fi.Mode()))
	}
	return fs.ReadDir(fsys, name)
}

// fileKind names the type of a file mode for a message.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}
