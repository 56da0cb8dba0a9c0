package generator

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/opennumerology/numerology/generator/rules"
)

// lifePathDateEncoder renders the records of /life-path/{day}/{month}/{year} by appending:
// everything after the input depends on the number alone, so it is encoded once per number
// (tail). TestLifePathDateEncoderMatchesEncode holds its output byte-identical to
// Encode(s.LifePathDateRecord).
type lifePathDateEncoder struct {
	tail map[int][]byte // `},"number":n,…}` + "\n"
}

func newLifePathDateEncoder(s *Site) (*lifePathDateEncoder, error) {
	e := &lifePathDateEncoder{tail: map[int][]byte{}}
	const head = `{"input":{"day":0,"month":0,"year":0`
	for _, n := range rules.LifePathNumbers {
		b, err := Encode(s.lifePathDateRecord(DateInput{}, n))
		if err != nil {
			return nil, err
		}
		rest, ok := bytes.CutPrefix(b, []byte(head))
		if !ok {
			return nil, fmt.Errorf("life path record of a date does not start with %s", head)
		}
		e.tail[n] = rest
	}
	return e, nil
}

// Append appends the record of a valid date to dst.
func (e *lifePathDateEncoder) Append(dst []byte, day, month, year int) []byte {
	dst = append(dst, `{"input":{"day":`...)
	dst = strconv.AppendInt(dst, int64(day), 10)
	dst = append(dst, `,"month":`...)
	dst = strconv.AppendInt(dst, int64(month), 10)
	dst = append(dst, `,"year":`...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	return append(dst, e.tail[rules.LifePath(day, month, year)]...)
}
