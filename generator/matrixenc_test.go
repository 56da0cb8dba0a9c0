package generator

import (
	"bytes"
	"testing"

	"github.com/opennumerology/numerology/generator/rules"
)

// TestMatrixEncoderMatchesEncode holds the fast encoder byte-identical to encoding a
// MatrixRecord with go-json, for every date of the range.
func TestMatrixEncoderMatchesEncode(t *testing.T) {
	s := testSite(t)
	enc, err := newMatrixEncoder(s)
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= rules.DaysIn(m, y); d++ {
				want, err := Encode(s.MatrixRecord(d, m, y))
				if err != nil {
					t.Fatal(err)
				}
				buf = enc.Append(buf[:0], d, m, y)
				if !bytes.Equal(buf, want) {
					t.Fatalf("%02d.%02d.%d: fast encoder differs\n got: %s\nwant: %s", d, m, y, buf, want)
				}
			}
		}
	}
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
