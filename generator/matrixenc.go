package generator

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// matrixEncoder renders matrix records without encoding a MatrixRecord each time: every piece
// that does not depend on the date (the 22 cells, the keys, the attribution tail, the
// citation's text) is encoded once with Encode, and a record is assembled by appending.
// TestMatrixEncoderMatchesEncode holds its output byte-identical to Encode(s.MatrixRecord).
type matrixEncoder struct {
	cells    [23][]byte // cells[a]: `{"arcana":a,…}`
	keys     [rules.NumPositions][]byte
	citation []citationPart
	source   []byte // `"source_url":"…","details_url":"` up to the date
	tail     []byte // `","license":…}` + "\n"
	siteURL  string
}

// citationPart is a literal, JSON-escaped run of the citation or a dynamic value.
type citationPart struct {
	lit  []byte
	kind byte // 0 literal, 'd' date DD.MM.YYYY, 'u' details URL
}

func newMatrixEncoder(s *Site) (*matrixEncoder, error) {
	e := &matrixEncoder{siteURL: s.SiteURL}
	for _, a := range s.Content.Arcana {
		b, err := jsonFragment(MatrixCell{a.Number, a.Name, a.Keyword, a.Emoji})
		if err != nil {
			return nil, err
		}
		e.cells[a.Number] = b
	}
	for p, k := range rules.PositionKeys() {
		e.keys[p] = []byte(`"` + k + `":`)
	}
	// The citation template, with {version} filled in, split at {date} and {url}. Dates and
	// URLs built from a checked site URL and digits need no JSON escaping.
	tpl := strings.ReplaceAll(s.citationMatrix, "{version}", manifest.APIVersion)
	for tpl != "" {
		i := strings.IndexAny(tpl, "{")
		if i < 0 || (!strings.HasPrefix(tpl[i:], "{date}") && !strings.HasPrefix(tpl[i:], "{url}")) {
			j := len(tpl)
			if i >= 0 {
				j = i + 1
			}
			if err := e.addLiteral(tpl[:j]); err != nil {
				return nil, err
			}
			tpl = tpl[j:]
			continue
		}
		if err := e.addLiteral(tpl[:i]); err != nil {
			return nil, err
		}
		if strings.HasPrefix(tpl[i:], "{date}") {
			e.citation = append(e.citation, citationPart{kind: 'd'})
			tpl = tpl[i+len("{date}"):]
		} else {
			e.citation = append(e.citation, citationPart{kind: 'u'})
			tpl = tpl[i+len("{url}"):]
		}
	}
	src, err := jsonFragment(s.MatrixSourceURL())
	if err != nil {
		return nil, err
	}
	e.source = append(append([]byte(`,"source_url":`), src...), `,"details_url":"`...)
	tail, err := jsonFragment(s.attribution())
	if err != nil {
		return nil, err
	}
	e.tail = append(append([]byte(`",`), tail[1:]...), '\n') // tail[1:] drops the attribution's '{'; its '}' closes the record
	if strings.ContainsAny(s.SiteURL, `"\<>&`) {
		return nil, fmt.Errorf("site url %q needs JSON escaping", s.SiteURL)
	}
	return e, nil
}

// addLiteral appends a JSON-escaped run of text (without quotes) to the citation.
func (e *matrixEncoder) addLiteral(text string) error {
	if text == "" {
		return nil
	}
	b, err := jsonFragment(text)
	if err != nil {
		return err
	}
	e.citation = append(e.citation, citationPart{lit: b[1 : len(b)-1]})
	return nil
}

// jsonFragment encodes v without the trailing newline.
func jsonFragment(v any) ([]byte, error) {
	b, err := Encode(v)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b, []byte("\n")), nil
}

// Append appends the record of a valid date to dst.
func (e *matrixEncoder) Append(dst []byte, day, month, year int) []byte {
	dst = append(dst, `{"input":{"day":`...)
	dst = strconv.AppendInt(dst, int64(day), 10)
	dst = append(dst, `,"month":`...)
	dst = strconv.AppendInt(dst, int64(month), 10)
	dst = append(dst, `,"year":`...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	dst = append(dst, `},"matrix":{`...)
	m := rules.ComputeMatrix(day, month, year)
	for p, a := range m {
		if p > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.keys[p]...)
		dst = append(dst, e.cells[a]...)
	}
	dst = append(dst, `},"suggested_citation":"`...)
	for _, part := range e.citation {
		switch part.kind {
		case 'd':
			dst = appendDate(dst, day, month, year)
		case 'u':
			dst = e.appendDetailsURL(dst, day, month, year)
		default:
			dst = append(dst, part.lit...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, e.source...)
	dst = e.appendDetailsURL(dst, day, month, year)
	return append(dst, e.tail...)
}

func (e *matrixEncoder) appendDetailsURL(dst []byte, day, month, year int) []byte {
	dst = append(dst, e.siteURL...)
	dst = append(dst, "/matrix/details?date="...)
	dst = append4(dst, year)
	dst = append(dst, '-')
	dst = append2(dst, month)
	dst = append(dst, '-')
	return append2(dst, day)
}

// appendDate appends DD.MM.YYYY.
func appendDate(dst []byte, day, month, year int) []byte {
	dst = append2(dst, day)
	dst = append(dst, '.')
	dst = append2(dst, month)
	dst = append(dst, '.')
	return append4(dst, year)
}

func append2(dst []byte, n int) []byte { return append(dst, byte('0'+n/10), byte('0'+n%10)) }

func append4(dst []byte, n int) []byte {
	return append(dst, byte('0'+n/1000), byte('0'+n/100%10), byte('0'+n/10%10), byte('0'+n%10))
}
