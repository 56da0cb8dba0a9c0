package content

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxRecordDisclaimer bounds the record disclaimer, in characters: it travels in records, and
// the square's record has a budget of 2.5 KB (docs/design.md §14).
const MaxRecordDisclaimer = 160

// MaxRecordHelp bounds the help sentence of the compatibility records, in characters: one
// sentence, which every one of the 78 records carries.
const MaxRecordHelp = 300

// checkRecordDisclaimer checks site.yaml's record_disclaimer: the caveat of disclaimer as one
// short sentence, which a record carries so that an app showing its texts shows it too.
func (d *doc) checkRecordDisclaimer(s *Site) {
	const key = "record_disclaimer"
	switch n := utf8.RuneCountInString(s.RecordDisclaimer); {
	case s.RecordDisclaimer == "":
		d.at("$."+key, key, "missing field")
	case n > MaxRecordDisclaimer:
		d.at("$."+key, key, "too long: %d characters, want at most %d (every record carries it)", n, MaxRecordDisclaimer)
	}
}

// sentenceBreak is the end of a sentence followed by another.
var sentenceBreak = regexp.MustCompile(`[.!?…][»")]?\s+[«"(]?\p{Lu}`)

// checkRecordHelp checks site.yaml's record_help: the sentence on fear and violence in a
// relationship that every compatibility record carries, one sentence so that an app shows it
// whole (docs/design.md §5).
func (d *doc) checkRecordHelp(s *Site) {
	const key = "record_help"
	h := s.RecordHelp
	switch n := utf8.RuneCountInString(h); {
	case h == "":
		d.at("$."+key, key, "missing field")
	case n > MaxRecordHelp:
		d.at("$."+key, key, "too long: %d characters, want at most %d (every compatibility record carries it)", n, MaxRecordHelp)
	case sentenceBreak.MatchString(h) || !strings.ContainsAny(h[len(h)-1:], ".!"):
		d.at("$."+key, key, "want one sentence, ending with its full stop")
	}
}
