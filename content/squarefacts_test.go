package content

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// frequencyRank orders the words of frequency a square reading may use, rarest first. A word
// of two ranks («почти всегда») is read by its last word, which ranks it.
var frequencyRank = map[string]int{
	"редко": 1, "изредка": 1,
	"иногда": 2, "порой": 2, "подчас": 2, "временами": 2,
	"нередко": 3, "часто": 3,
	"обычно": 4, "всегда": 5,
}

// squareFact is one claim of a cell's description that its readings must keep (issue 32,
// E6–E8): desc is the description's words the claim rests on, so that a rewrite of them
// makes the test fail and the fact is checked again; from is the least count the fact
// speaks of (0: every reading), only the one count when exact; each such reading must hold
// a word with one of the stems of want (if any) and none of not.
type squareFact struct {
	cell  int
	desc  string
	from  int
	exact bool
	want  []string
	not   []string
	why   string
}

// squareFacts are the review's three contradictions, pinned as what the description says.
var squareFacts = []squareFact{
	{cell: 5, desc: "С каждой следующей верный вывод всё чаще приходит раньше", from: 3,
		not: []string{"редко", "изредка", "иногда", "порой", "подчас", "временами"},
		why: "the description says each further five brings the early verdict more often (E6)"},
	{cell: 6, desc: "Три и больше дают неутомимость, за которой порой стоит привычка ставить работу выше отдыха", from: 3, exact: true,
		want: []string{"отдых", "покой"},
		why:  "the description reads three sixes as work crowding out rest (E7)"},
	{cell: 6, desc: "Отношение к труду, особенно к работе руками", from: 0,
		not: []string{"требовательн", "других", "другим", "окружающ", "людям", "людей"},
		why: "the description speaks of one's own work, never of demands on others (E7)"},
	{cell: 3, desc: "Одна тройка даёт интерес, который загорается, когда дело действительно увлекло", from: 1, exact: true,
		want: []string{"увлек", "увлеч"}, not: []string{"настроени", "каприз", "прихот"},
		why: "the description says one three's interest is lit by a task that grips, not by mood (E8)"},
}

// words returns the lower-cased words of s.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
}

// hasStem reports whether a word of ws begins with one of stems.
func hasStem(ws []string, stems []string) (string, bool) {
	for _, w := range ws {
		for _, s := range stems {
			if strings.HasPrefix(w, s) {
				return w, true
			}
		}
	}
	return "", false
}

// squareReadingProblems lists where the square's readings disagree with their cells'
// descriptions: the facts above, and, for every cell, a word of frequency that falls as the
// count grows (the readings of 1 and more describe one trait growing; the empty cell's reading
// describes what stands in its place, so it is left out).
func squareReadingProblems(sq *Square) []string {
	var out []string
	cells := map[int]*SquareCell{}
	for i := range sq.Cells {
		cells[sq.Cells[i].Cell] = &sq.Cells[i]
	}
	for _, f := range squareFacts {
		c := cells[f.cell]
		if c == nil {
			out = append(out, fmt.Sprintf("cell %d: missing", f.cell))
			continue
		}
		if !strings.Contains(c.Description, f.desc) {
			out = append(out, fmt.Sprintf("cell %d: the description no longer says %q: check its readings against the new text, then this fact", f.cell, f.desc))
		}
		for _, n := range slices.Sorted(maps.Keys(c.Readings)) {
			if n < f.from || f.exact && n != f.from {
				continue
			}
			ws := words(c.Readings[n])
			if len(f.want) > 0 {
				if _, ok := hasStem(ws, f.want); !ok {
					out = append(out, fmt.Sprintf("cell %d, count %d: %q says nothing of %v, but %s", f.cell, n, c.Readings[n], f.want, f.why))
				}
			}
			if w, ok := hasStem(ws, f.not); ok {
				out = append(out, fmt.Sprintf("cell %d, count %d: %q says %q, but %s", f.cell, n, c.Readings[n], w, f.why))
			}
		}
	}
	for _, c := range sq.Cells {
		prev, prevN := 0, 0
		for _, n := range slices.Sorted(maps.Keys(c.Readings)) {
			if n == 0 {
				continue
			}
			rank := 0
			for _, w := range words(c.Readings[n]) {
				rank = max(rank, frequencyRank[w])
			}
			if rank == 0 {
				continue
			}
			if rank < prev {
				out = append(out, fmt.Sprintf("cell %d: count %d reads %q, rarer than count %d's %q", c.Cell, n, c.Readings[n], prevN, c.Readings[prevN]))
			}
			prev, prevN = rank, n
		}
	}
	return out
}

// TestSquareReadingsFitTheirCells pins the review's three contradictions between a cell's
// short readings and its description (issue 32, E6, E7, E8): every record carries the
// readings, and the description is the text they abbreviate.
func TestSquareReadingsFitTheirCells(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range squareReadingProblems(&c.Square) {
		t.Error(p)
	}
}

// TestSquareReadingProblems shows the check finds what the review found: the readings it
// read, put back one at a time, and a frequency that falls in another cell.
func TestSquareReadingProblems(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		cell, n  int
		reading  string
		problems int
	}{
		{"E6 intuition «порой» at four fives", 5, 4, "Интуиция порой опережает расчёт", 2},
		{"E7 demands on others at three sixes", 6, 3, "Усердие и требовательность к другим", 2},
		{"E8 curiosity by mood at one three", 3, 1, "Любопытство вспыхивает по настроению", 2},
		{"a frequency falling in cell 1", 1, 2, "Самолюбие порой берёт верх", 1},
		{"the current reading", 5, 4, c.Square.Cells[4].Readings[4], 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sq := c.Square
			sq.Cells = slices.Clone(sq.Cells)
			cell := &sq.Cells[tc.cell-1]
			cell.Readings = maps.Clone(cell.Readings)
			cell.Readings[tc.n] = tc.reading
			got := squareReadingProblems(&sq)
			if len(got) != tc.problems {
				t.Errorf("%q in cell %d, count %d: %d problems, want %d: %q", tc.reading, tc.cell, tc.n, len(got), tc.problems, got)
			}
		})
	}
	sq := c.Square
	sq.Cells = slices.Clone(sq.Cells)
	sq.Cells[5].Description = strings.Replace(sq.Cells[5].Description, "выше отдыха", "выше всего", 1)
	if got := squareReadingProblems(&sq); len(got) != 1 || !strings.Contains(got[0], "no longer says") {
		t.Errorf("cell 6's description changed: %q, want one problem asking to check the fact again", got)
	}
}
