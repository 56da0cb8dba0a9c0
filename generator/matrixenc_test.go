package generator

import (
	"bytes"
	"fmt"
	"testing"
)

// TestMatrixEncoderMatchesEncode holds the fast encoder byte-identical to encoding a
// MatrixRecord with go-json, for every date of the range (a sample under -short).
func TestMatrixEncoderMatchesEncode(t *testing.T) {
	s := testSite(t)
	forDates(t, testDates(t), func() (func(d, m, y int) error, error) {
		enc, err := newMatrixEncoder(s)
		if err != nil {
			return nil, err
		}
		var buf []byte
		return func(d, m, y int) error {
			want, err := Encode(s.MatrixRecord(d, m, y))
			if err != nil {
				return err
			}
			buf = enc.Append(buf[:0], d, m, y)
			if !bytes.Equal(buf, want) {
				return fmt.Errorf("fast encoder differs\n got: %s\nwant: %s", buf, want)
			}
			return nil
		}, nil
	})
}

func BenchmarkMatrixEncoder(b *testing.B) {
	s := testSite(b)
	enc, err := newMatrixEncoder(s)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	for i := 0; b.Loop(); i++ {
		buf = enc.Append(buf[:0], 1+i%28, 1+i%12, 1900+i%201)
	}
}

func BenchmarkMatrixRecordEncode(b *testing.B) {
	s := testSite(b)
	for i := 0; b.Loop(); i++ {
		if _, err := Encode(s.MatrixRecord(1+i%28, 1+i%12, 1900+i%201)); err != nil {
			b.Fatal(err)
		}
	}
}
