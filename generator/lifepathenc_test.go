package generator

import (
	"slices"
	"strconv"
	"testing"
	"time"

	json "github.com/goccy/go-json"
	"github.com/opennumerology/numerology/generator/rules"
)

// TestLifePathDateEncoderMatchesEncode holds the fast encoder byte-identical to encoding a
// LifePathDateRecord with go-json, for every date of the range (a sample under -short).
func TestLifePathDateEncoderMatchesEncode(t *testing.T) {
	s := testSite(t)
	encoderMatchesEncode(t, func() (func([]byte, int, int, int) ([]byte, error), error) {
		enc, err := newLifePathDateEncoder(s)
		if err != nil {
			return nil, err
		}
		return func(dst []byte, d, m, y int) ([]byte, error) { return enc.Append(dst, d, m, y), nil }, nil
	}, func(d, m, y int) (any, error) { return s.LifePathDateRecord(d, m, y), nil })
}

// lifePathByDigits is the rule of docs/design.md §7 written again from its words, apart
// from generator/rules: the digits of DD, MM and YYYY summed, then while above 9 and not
// 11, 22 or 33, the digits of the sum.
func lifePathByDigits(t time.Time) int {
	n := 0
	for _, c := range t.Format("02012006") {
		n += int(c - '0')
	}
	for n > 9 && n != 11 && n != 22 && n != 33 {
		s := 0
		for ; n > 0; n /= 10 {
			s += n % 10
		}
		n = s
	}
	return n
}

// TestLifePathDateRoute checks the number the date route gives for every one of the 73,414
// dates of the range (a sample under -short), as the route's renderer writes it into the
// tree: against the golden vectors (rules/testdata/life-path.csv, the project's copy of the
// shared vectors) where they fall in the range, and, as properties, against the rule written
// again from its words, against the number's own list item, and within the valid numbers.
func TestLifePathDateRoute(t *testing.T) {
	s := testSite(t)
	encs, err := s.encoders()
	if err != nil {
		t.Fatal(err)
	}
	enc := encs[RouteLifePathDate]
	items := map[int]LifePathItem{}
	for _, it := range s.LifePathList() {
		items[it.Number] = it
	}
	_, golden, extra := goldenVectors(t, "life-path.csv")
	var buf []byte
	checked := 0
	for i, in := range testDates(t, extra...) {
		d, m, y := in.Day, in.Month, in.Year
		day := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		buf, err = enc(buf[:0], []int{d, m, y})
		if err != nil {
			t.Fatal(err)
		}
		dd, mm, yy, n, ok := scanLifePathDate(buf)
		if !ok || dd != d || mm != m || yy != y {
			t.Fatalf("%s: the record holds %d.%d.%d (scanned %v)", day.Format(time.DateOnly), dd, mm, yy, ok)
		}
		if want := lifePathByDigits(day); n != want {
			t.Fatalf("%s: number %d, the rule gives %d", day.Format(time.DateOnly), n, want)
		}
		if !slices.Contains(rules.LifePathNumbers, n) {
			t.Fatalf("%s: number %d is not a life path number", day.Format(time.DateOnly), n)
		}
		var rec LifePathDateRecord
		if i%97 == 0 { // a full parse of every 97th record: the embedded item is the list's
			if err := json.Unmarshal(buf, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.LifePath != items[n] || rec.SourceURL != items[n].SourceURL {
				t.Fatalf("%s: life_path %+v, source_url %s; want the list item of %d", day.Format(time.DateOnly), rec.LifePath, rec.SourceURL, n)
			}
		}
		if row, ok := golden[in]; ok {
			if want, _ := strconv.Atoi(row[1]); n != want {
				t.Errorf("%s: the route gives %d, the golden vector %d", day.Format(time.DateOnly), n, want)
			}
			checked++
		}
	}
	if checked < len(extra)-1 {
		t.Errorf("only %d golden vectors fall in the range", checked)
	}
}
