package generator

import (
	"testing"
)

// TestMatrixEncoderMatchesEncode holds the fast encoder byte-identical to encoding a
// MatrixRecord with go-json, for every date of the range (a sample under -short).
func TestMatrixEncoderMatchesEncode(t *testing.T) {
	s := testSite(t)
	encoderMatchesEncode(t, func() (func([]byte, int, int, int) ([]byte, error), error) {
		enc, err := newMatrixEncoder(s)
		if err != nil {
			return nil, err
		}
		return func(dst []byte, d, m, y int) ([]byte, error) { return enc.Append(dst, d, m, y), nil }, nil
	}, func(d, m, y int) (any, error) { return s.MatrixRecord(d, m, y), nil })
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
