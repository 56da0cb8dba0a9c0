package generator

import (
	"slices"
	"sync"

	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/calendar"
)

// numArcana is the number of the major arcana, numbered 1–22 (rules.ArcanaNumbers).
const numArcana = 22

// arcanumPositionSets records, for each arcanum 1–22, the positions of the matrix it holds
// on at least one date of rules.FirstYear–rules.LastYear (docs/design.md §6). The rule
// leaves many places out: Маг (1) stands only in Личность and Таланты, and Предназначение
// only ever holds 3, 6, 9, 12, 15, 18 or 21; an arcanum's page says where it can stand, and
// this is where the page learns it. Computed once, from all 73,414 matrices (a few ms).
var arcanumPositionSets = sync.OnceValue(func() (sets [numArcana + 1][rules.NumPositions]bool) {
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				for p, a := range rules.ComputeMatrix(d, m, y) {
					sets[a][p] = true
				}
			}
		}
	}
	return sets
})

// ArcanumPositions returns the keys of the positions arcanum n (1–22) holds in the matrix
// of at least one date of the range, in contract order; nil for another n.
func ArcanumPositions(n int) []string {
	if n < 1 || n > numArcana {
		return nil
	}
	sets := arcanumPositionSets()
	var keys []string
	for p, ok := range sets[n] {
		if ok {
			keys = append(keys, rules.Position(p).Key())
		}
	}
	return keys
}

// arcanumPlaces is what an arcanum's page says about where the arcanum can stand: the
// positions it takes on some date of the range and those it never takes (empty when it
// can stand anywhere).
type arcanumPlaces struct {
	Taken, Never []placeDoc
}

// placeDoc is one position in a Russian list: its key (the matrix page's anchor), its
// title, and what goes before it: "" for the first, ", " or, before the last, " и ".
type placeDoc struct {
	Key, Title, Sep string
}

// arcanumPlaces lists where arcanum n can and cannot stand, by the positions' titles.
func (p *pageRenderer) arcanumPlaces(n int) arcanumPlaces {
	taken := ArcanumPositions(n)
	var out arcanumPlaces
	for _, pos := range p.positionDocs() {
		doc := placeDoc{Key: pos.Key, Title: pos.Title}
		if slices.Contains(taken, pos.Key) {
			out.Taken = append(out.Taken, doc)
		} else {
			out.Never = append(out.Never, doc)
		}
	}
	listSeparators(out.Taken)
	listSeparators(out.Never)
	return out
}

// listSeparators sets the separators of a Russian list: «А, Б и В».
func listSeparators(list []placeDoc) {
	for i := range list {
		switch {
		case i == 0:
			list[i].Sep = ""
		case i == len(list)-1:
			list[i].Sep = " и "
		default:
			list[i].Sep = ", "
		}
	}
}
