package generator

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator/rules"
)

// squareEncoder renders square records by appending pieces encoded once: each cell for
// each count it takes, each line for each sum, the citation's text around its date and URL,
// and the attribution tail. TestSquareEncoderMatchesEncode holds its output
// byte-identical to Encode(s.SquareRecord) for every date of the range.
type squareEncoder struct {
	cells    [9][maxSquareCount + 1][]byte // `"c":{…}` of each count; nil: a count without a reading
	lines    [rules.NumSquareLines][]byte  // `"key":` of each line
	citation []squarePart
	tail     []byte // `",` + the attribution fields + "}\n"
	siteURL  string
}

// maxSquareCount bounds the count of a cell for any year up to 9999 (rules.Square.Digits).
const maxSquareCount = 16

// squarePart is a literal, JSON-escaped run of the citation, or the date ('d') or the
// details URL ('u').
type squarePart struct {
	lit  []byte
	kind byte
}

func newSquareEncoder(s *Site) (*squareEncoder, error) {
	if strings.ContainsAny(s.SiteURL, `"\<>&`) {
		return nil, fmt.Errorf("site url %q needs JSON escaping", s.SiteURL)
	}
	e := &squareEncoder{siteURL: s.SiteURL}
	texts := &s.Content.Square
	if len(texts.Cells) != 9 {
		return nil, fmt.Errorf("square: %d cells of texts, want 9", len(texts.Cells))
	}
	for i := range 9 {
		c := &texts.Cells[i]
		for n, reading := range c.Readings {
			if n < 0 || n > maxSquareCount {
				continue // a count no date has
			}
			b, err := jsonFragment(SquareCell{strings.Repeat(strconv.Itoa(i+1), n), n, c.Name, reading})
			if err != nil {
				return nil, err
			}
			e.cells[i][n] = append([]byte(`"`+strconv.Itoa(i+1)+`":`), b...)
		}
	}
	for l := range rules.NumSquareLines {
		e.lines[l] = []byte(`"` + rules.SquareLine(l).Key() + `":`)
	}
	// The citation, split at {date} and {url}: content holds no control characters, so a
	// NUL marks them.
	marked := strings.NewReplacer("{date}", "\x00d", "{url}", "\x00u").Replace(s.squareCitation(squareSubject))
	for i, piece := range strings.Split(marked, "\x00") {
		if i > 0 {
			e.citation = append(e.citation, squarePart{kind: piece[0]})
			piece = piece[1:]
		}
		if piece != "" {
			b, err := jsonFragment(piece)
			if err != nil {
				return nil, err
			}
			e.citation = append(e.citation, squarePart{lit: b[1 : len(b)-1]})
		}
	}
	tail, err := jsonFragment(s.attribution())
	if err != nil {
		return nil, err
	}
	e.tail = append(append([]byte(`",`), tail[1:]...), '\n') // tail[1:] drops the attribution's '{'; its '}' closes the record
	return e, nil
}

// Append appends the record of a valid date to dst.
func (e *squareEncoder) Append(dst []byte, day, month, year int) ([]byte, error) {
	sq := rules.ComputeSquare(day, month, year)
	dst = append(dst, `{"input":{"day":`...)
	dst = strconv.AppendInt(dst, int64(day), 10)
	dst = append(dst, `,"month":`...)
	dst = strconv.AppendInt(dst, int64(month), 10)
	dst = append(dst, `,"year":`...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	dst = append(dst, `},"working_numbers":[`...)
	for i, w := range sq.Working {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(w), 10)
	}
	dst = append(dst, `],"cells":{`...)
	for i, n := range sq.Counts {
		if n > maxSquareCount || e.cells[i][n] == nil {
			return dst, fmt.Errorf("square: cell %d has no reading for count %d", i+1, n)
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.cells[i][n]...)
	}
	dst = append(dst, `},"lines":{`...)
	for l, sum := range sq.Lines {
		if l > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.lines[l]...)
		dst = strconv.AppendInt(dst, int64(sum), 10)
	}
	dst = append(dst, `},"suggested_citation":"`...)
	for _, p := range e.citation {
		switch p.kind {
		case 'd':
			dst = appendPadded(dst, day)
			dst = append(dst, '.')
			dst = appendPadded(dst, month)
			dst = append(dst, '.')
			dst = strconv.AppendInt(dst, int64(year), 10)
		case 'u':
			dst = e.appendURL(dst, day, month, year)
		default:
			dst = append(dst, p.lit...)
		}
	}
	dst = append(dst, `","source_url":"`...)
	dst = e.appendURL(dst, day, month, year)
	return append(dst, e.tail...), nil
}

// appendURL appends the details page's URL of a date (Site.SquareDetailsURL).
func (e *squareEncoder) appendURL(dst []byte, day, month, year int) []byte {
	dst = append(dst, e.siteURL...)
	dst = append(dst, "/square/details?date="...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	dst = append(dst, '-')
	dst = appendPadded(dst, month)
	dst = append(dst, '-')
	return appendPadded(dst, day)
}

// appendPadded appends n (0–99) in two digits.
func appendPadded(dst []byte, n int) []byte { return append(dst, byte('0'+n/10), byte('0'+n%10)) }

// scanSquare reads the date, the working numbers and the nine counts of a square record
// as the generator writes it, without a full JSON parse. A key such as "count": cannot
// occur inside a JSON string, whose quotes are escaped. ok is false for anything
// unexpected; the caller then parses the record.
func scanSquare(b []byte) (d, m, y int, w [4]int, counts [9]int, ok bool) {
	rest, ok := cutPrefix(b, `{"input":{"day":`)
	fields := []struct {
		after string
		dst   *int
	}{{`,"month":`, &d}, {`,"year":`, &m}, {`},"working_numbers":[`, &y}, {`,`, &w[0]}, {`,`, &w[1]}, {`,`, &w[2]}, {`],"cells":{`, &w[3]}}
	for _, f := range fields {
		if !ok {
			return
		}
		if rest, ok = scanSigned(rest, f.dst); ok {
			rest, ok = cutPrefix(rest, f.after)
		}
	}
	for i := range counts {
		j := bytes.Index(rest, countKey)
		if !ok || j < 0 {
			return d, m, y, w, counts, false
		}
		if rest, ok = scanSigned(rest[j+len(countKey):], &counts[i]); ok && counts[i] < 0 {
			ok = false
		}
	}
	return d, m, y, w, counts, ok
}

var countKey = []byte(`"count":`)

// cutPrefix is bytes.CutPrefix with a string prefix.
func cutPrefix(b []byte, prefix string) ([]byte, bool) {
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return b, false
	}
	return b[len(prefix):], true
}

// scanSigned reads a decimal of at most 4 digits, with an optional minus sign.
func scanSigned(b []byte, dst *int) ([]byte, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	rest, ok := scanInt(b, dst)
	if ok && neg {
		*dst = -*dst
	}
	return rest, ok
}
