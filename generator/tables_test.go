package generator

import (
	"testing"

	"github.com/opennumerology/numerology/generator/rules"
)

func TestScanMatrix(t *testing.T) {
	site := testSite(t)
	for _, d := range [][3]int{{1, 1, 1900}, {15, 5, 1990}, {29, 2, 2000}, {31, 12, 2100}} {
		body, err := Encode(site.MatrixRecord(d[0], d[1], d[2]))
		if err != nil {
			t.Fatal(err)
		}
		day, month, year, arcana, ok := scanMatrix(body)
		want := rules.ComputeMatrix(d[0], d[1], d[2])
		if !ok || day != d[0] || month != d[1] || year != d[2] || arcana != [rules.NumPositions]int(want) {
			t.Errorf("%v: scan %d.%d.%d %v ok %v, want %v", d, day, month, year, arcana, ok, want)
		}
	}
	for _, tc := range []struct{ name, body string }{
		{"not a record", `{"error":"x"}`},
		{"reordered", `{"input":{"month":5,"day":15,"year":1990},"matrix":{}}`},
		{"missing position", `{"input":{"day":15,"month":5,"year":1990},"matrix":{"personal":{"arcana":1}}}`},
		{"huge number", `{"input":{"day":123456,"month":5,"year":1990},"matrix":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, _, _, ok := scanMatrix([]byte(tc.body)); ok {
				t.Error("scanned, want a fallback to the full parse")
			}
		})
	}
}
