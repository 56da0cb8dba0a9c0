package rules

import (
	"slices"
	"sync"

	"github.com/opennumerology/numerology/internal/calendar"
)

// ChartMethod is the method every chart record names (docs/design.md §15): N. Ladini's
// destiny matrix on the 22 major arcana, reduced by R of §6 (the sum of the digits while
// above 22), inner points taken towards the centre E, the chakra map with the horizontal
// axis as the physical column, and the 10-year age line in steps of 1.25 years. A change of
// any of these choices is a new method with a new name.
const ChartMethod = "ladini-22"

// ChartPoint is one point of the octagram.
type ChartPoint int

// The points, in contract order: the straight square and the centre (A–E), the diagonal
// square (F–I), the inner points X1 and X2 of each outer point X, A3 and B3, and the
// ancestral centre U.
const (
	PointA ChartPoint = iota
	PointB
	PointC
	PointD
	PointE
	PointF
	PointG
	PointH
	PointI
	PointA1
	PointA2
	PointB1
	PointB2
	PointC1
	PointC2
	PointD1
	PointD2
	PointF1
	PointF2
	PointG1
	PointG2
	PointH1
	PointH2
	PointI1
	PointI2
	PointA3
	PointB3
	PointU
	NumChartPoints int = iota
)

var chartPointKeys = [NumChartPoints]string{
	"A", "B", "C", "D", "E", "F", "G", "H", "I",
	"A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2",
	"F1", "F2", "G1", "G2", "H1", "H2", "I1", "I2",
	"A3", "B3", "U",
}

// Key returns the point's key as records and CSV headers write it: "A", "C2", "U".
func (p ChartPoint) Key() string { return chartPointKeys[p] }

// ChartPointKeys returns the point keys in contract order.
func ChartPointKeys() []string { return append([]string(nil), chartPointKeys[:]...) }

// innerPoints lists each outer point X with its inner points X1 and X2.
var innerPoints = [8][3]ChartPoint{
	{PointA, PointA1, PointA2},
	{PointB, PointB1, PointB2},
	{PointC, PointC1, PointC2},
	{PointD, PointD1, PointD2},
	{PointF, PointF1, PointF2},
	{PointG, PointG1, PointG2},
	{PointH, PointH1, PointH2},
	{PointI, PointI1, PointI2},
}

// ChartChannel is one of the channels of the chart's lower square (money and love).
type ChartChannel int

// The channels in contract order.
const (
	ChannelMoneyEntry ChartChannel = iota
	ChannelRelationshipEntry
	ChannelBalance
	ChannelMoney
	ChannelLove
	NumChartChannels int = iota
)

var chartChannelKeys = [NumChartChannels]string{
	"money_entry", "relationship_entry", "balance", "money", "love",
}

// Key returns the channel's stable English key.
func (c ChartChannel) Key() string { return chartChannelKeys[c] }

// ChartChannelKeys returns the channel keys in contract order.
func ChartChannelKeys() []string { return append([]string(nil), chartChannelKeys[:]...) }

// ChartPurpose is one of the eight purposes (предназначения) of the chart.
type ChartPurpose int

// The purposes in contract order.
const (
	PurposeSky ChartPurpose = iota
	PurposeEarth
	PurposePersonal
	PurposeMale
	PurposeFemale
	PurposeSocial
	PurposeSpiritual
	PurposePlanetary
	NumChartPurposes int = iota
)

var chartPurposeKeys = [NumChartPurposes]string{
	"sky", "earth", "personal", "male", "female", "social", "spiritual", "planetary",
}

// Key returns the purpose's stable English key.
func (p ChartPurpose) Key() string { return chartPurposeKeys[p] }

// ChartPurposeKeys returns the purpose keys in contract order.
func ChartPurposeKeys() []string { return append([]string(nil), chartPurposeKeys[:]...) }

// Chakra is one row of the chakra map, top to bottom.
type Chakra int

// The chakras, top to bottom.
const (
	ChakraSahasrara Chakra = iota
	ChakraAjna
	ChakraVishuddha
	ChakraAnahata
	ChakraManipura
	ChakraSvadhisthana
	ChakraMuladhara
	NumChakras int = iota
)

var chakraRows = [NumChakras]struct {
	key              string
	physical, energy ChartPoint
}{
	{"sahasrara", PointA, PointB},
	{"ajna", PointA1, PointB1},
	{"vishuddha", PointA2, PointB2},
	{"anahata", PointA3, PointB3},
	{"manipura", PointE, PointE},
	{"svadhisthana", PointC2, PointD2},
	{"muladhara", PointC, PointD},
}

// Key returns the chakra's stable key.
func (c Chakra) Key() string { return chakraRows[c].key }

// Points returns the points of the chakra's physical and energy columns.
func (c Chakra) Points() (physical, energy ChartPoint) {
	return chakraRows[c].physical, chakraRows[c].energy
}

// ChakraKeys returns the chakra keys, top to bottom.
func ChakraKeys() []string {
	keys := make([]string, NumChakras)
	for i := range keys {
		keys[i] = chakraRows[i].key
	}
	return keys
}

// ChakraColumn is one column of the chakra map.
type ChakraColumn int

// The columns: physical is the horizontal axis A…C, energy the vertical axis B…D, and
// emotions their reduced sum.
const (
	ChakraPhysical ChakraColumn = iota
	ChakraEnergy
	ChakraEmotions
	NumChakraColumns int = iota
)

var chakraColumnKeys = [NumChakraColumns]string{"physical", "energy", "emotions"}

// Key returns the column's stable English key.
func (c ChakraColumn) Key() string { return chakraColumnKeys[c] }

// ChakraColumnKeys returns the column keys in contract order.
func ChakraColumnKeys() []string { return append([]string(nil), chakraColumnKeys[:]...) }

// AgeLinePoints is the number of points of the age line: eight segments of 10 years, eight
// points each, from age 0 to 78.75.
const AgeLinePoints = 64

// AgeLineAge returns the age in years of point i (0–63) of the age line: 1.25 × i, exact
// in binary floating point.
func AgeLineAge(i int) float64 { return float64(i) * 1.25 }

// ageLineOuter are the outer points in the order the age line walks them, 10 years apart
// from A at 0; the line closes back on A at 80.
var ageLineOuter = [8]ChartPoint{PointA, PointF, PointB, PointG, PointC, PointH, PointD, PointI}

// Chart is the full destiny-matrix chart of a date (docs/design.md §15). Every value is an
// arcanum, 1–22.
type Chart struct {
	Points       [NumChartPoints]uint8   // indexed by ChartPoint
	Channels     [NumChartChannels]uint8 // indexed by ChartChannel
	Purposes     [NumChartPurposes]uint8 // indexed by ChartPurpose
	KarmicTail   [3]uint8                // D, D1, D2
	Talents      [3]uint8                // B, B1, B2
	Chakras      [NumChakras][NumChakraColumns]uint8
	ChakraTotals [NumChakraColumns]uint8
	AgeLine      [AgeLinePoints]uint8 // AgeLine[i] is the arcanum at age AgeLineAge(i)
}

// rc is R of §6 (Reduce) for the chart, read from a table for the sums a chart makes, so
// that its 130 reductions do not each run a digit-sum loop.
func rc(n int) int {
	if n >= 0 && n < len(reduced) {
		return int(reduced[n])
	}
	return Reduce(n)
}

// r8 is rc for a value the chart stores.
func r8(n int) uint8 { return uint8(rc(n)) }

// reduced holds Reduce(n) for every n up to 7 × 22, the largest sum a chart reduces (a
// chakra column's).
var reduced = func() (t [7*22 + 1]uint8) {
	for n := range t {
		t[n] = uint8(Reduce(n))
	}
	return t
}()

// ComputeChart applies the chart rule of docs/design.md §15 to a date. The date is not
// validated. It does not allocate.
func ComputeChart(day, month, year int) Chart {
	var c Chart
	p := &c.Points
	v := func(pt ChartPoint) int { return int(p[pt]) }

	a, b, cc := rc(day), rc(month), rc(digitSum(year))
	d := rc(a + b + cc)
	p[PointA], p[PointB], p[PointC], p[PointD] = uint8(a), uint8(b), uint8(cc), uint8(d)
	p[PointE] = r8(a + b + cc + d)
	p[PointF] = r8(a + b)
	p[PointG] = r8(b + cc)
	p[PointH] = r8(cc + d)
	p[PointI] = r8(d + a)
	for _, x := range innerPoints {
		two := rc(v(x[0]) + v(PointE))
		p[x[2]] = uint8(two)
		p[x[1]] = r8(v(x[0]) + two)
	}
	p[PointA3] = r8(v(PointA2) + v(PointE))
	p[PointB3] = r8(v(PointB2) + v(PointE))
	p[PointU] = r8(v(PointF) + v(PointG) + v(PointH) + v(PointI))

	ch := &c.Channels
	ch[ChannelMoneyEntry] = p[PointC2]
	ch[ChannelRelationshipEntry] = p[PointD2]
	balance := rc(v(PointC2) + v(PointD2))
	ch[ChannelBalance] = uint8(balance)
	ch[ChannelMoney] = r8(balance + v(PointC2))
	ch[ChannelLove] = r8(v(PointD2) + balance)

	pu := &c.Purposes
	sky, earth := rc(b+d), rc(a+cc)
	personal := rc(sky + earth)
	male, female := rc(v(PointF)+v(PointH)), rc(v(PointG)+v(PointI))
	social := rc(male + female)
	spiritual := rc(personal + social)
	pu[PurposeSky], pu[PurposeEarth], pu[PurposePersonal] = uint8(sky), uint8(earth), uint8(personal)
	pu[PurposeMale], pu[PurposeFemale], pu[PurposeSocial] = uint8(male), uint8(female), uint8(social)
	pu[PurposeSpiritual] = uint8(spiritual)
	pu[PurposePlanetary] = r8(social + spiritual)

	c.KarmicTail = [3]uint8{p[PointD], p[PointD1], p[PointD2]}
	c.Talents = [3]uint8{p[PointB], p[PointB1], p[PointB2]}

	var sums [NumChakraColumns]int
	for i, row := range chakraRows {
		phys, energy := p[row.physical], p[row.energy]
		emotions := r8(int(phys) + int(energy))
		c.Chakras[i] = [NumChakraColumns]uint8{phys, energy, emotions}
		sums[ChakraPhysical] += int(phys)
		sums[ChakraEnergy] += int(energy)
		sums[ChakraEmotions] += int(emotions)
	}
	for col, s := range sums {
		c.ChakraTotals[col] = r8(s)
	}

	// Each segment runs 10 years from an outer point X to the next, Y; its points are, by
	// age in the segment: 0 X, 1.25, 2.5, 3.75, 5 = r(X+Y), 6.25, 7.5, 8.75.
	for s, outer := range ageLineOuter {
		x, y := v(outer), v(ageLineOuter[(s+1)%len(ageLineOuter)])
		five := rc(x + y)
		twoHalf := rc(x + five)
		sevenHalf := rc(five + y)
		seg := (*[8]uint8)(c.AgeLine[8*s : 8*s+8])
		seg[0] = uint8(x)
		seg[1] = r8(x + twoHalf)
		seg[2] = uint8(twoHalf)
		seg[3] = r8(twoHalf + five)
		seg[4] = uint8(five)
		seg[5] = r8(five + sevenHalf)
		seg[6] = uint8(sevenHalf)
		seg[7] = r8(sevenHalf + y)
	}
	return c
}

// ChartReadingZone is a zone of the chart whose arcana each have a reading of their own in
// the chart's texts (docs/design.md §15): the money channel, the love channel and the karmic
// tail.
type ChartReadingZone int

// The reading zones, in the order the texts serve them.
const (
	ReadingMoney ChartReadingZone = iota
	ReadingLove
	ReadingKarmicTail
	NumChartReadingZones int = iota
)

var chartReadingZoneKeys = [NumChartReadingZones]string{"money", "love", "karmic_tail"}

// Key returns the zone's key, as the chart's texts name it: "money", "love", "karmic_tail".
func (z ChartReadingZone) Key() string { return chartReadingZoneKeys[z] }

// ChartReadingZoneKeys returns the reading zones' keys in order.
func ChartReadingZoneKeys() []string { return append([]string(nil), chartReadingZoneKeys[:]...) }

// Arcana returns the arcana the zone holds in a chart, in the order they are read along it:
// the money channel's entry (C2), its money point and the balance; the love channel's entry
// (D2), its love point and the balance; the karmic tail D, D1, D2.
func (z ChartReadingZone) Arcana(c *Chart) [3]uint8 {
	switch z {
	case ReadingMoney:
		return [3]uint8{c.Channels[ChannelMoneyEntry], c.Channels[ChannelMoney], c.Channels[ChannelBalance]}
	case ReadingLove:
		return [3]uint8{c.Channels[ChannelRelationshipEntry], c.Channels[ChannelLove], c.Channels[ChannelBalance]}
	}
	return c.KarmicTail
}

// ChartReadingArcana returns, for each reading zone, the arcana it holds over every date of
// FirstYear–LastYear, ascending: the texts give a reading for each of them and for no
// other. (No point of these zones is ever 1 or 2: each is a reduced sum of at least two
// arcana, D of three.) The walk over the range is done once per process; each call gets its
// own slices.
func ChartReadingArcana() [NumChartReadingZones][]int {
	var out [NumChartReadingZones][]int
	for z, arcana := range chartReadingArcana() {
		out[z] = slices.Clone(arcana)
	}
	return out
}

// chartReadingArcana is the walk of ChartReadingArcana, once.
var chartReadingArcana = sync.OnceValue(func() [NumChartReadingZones][]int {
	var seen [NumChartReadingZones][23]bool
	for y := FirstYear; y <= LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				c := ComputeChart(d, m, y)
				for z := range NumChartReadingZones {
					for _, a := range ChartReadingZone(z).Arcana(&c) {
						seen[z][a] = true
					}
				}
			}
		}
	}
	var out [NumChartReadingZones][]int
	for z := range seen {
		for a, ok := range seen[z] {
			if ok {
				out[z] = append(out[z], a)
			}
		}
	}
	return out
})
