package content

import "unicode/utf8"

// MaxRecordDisclaimer bounds the record disclaimer, in characters: it travels in records, and
// the square's record has a budget of 2.5 KB (docs/design.md §14).
const MaxRecordDisclaimer = 160

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
