package rules

import (
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// readVectors reads a CSV of golden vectors under testdata/, whose lines starting with '#'
// hold the hand working, and returns the header and the rows.
func readVectors(t *testing.T, name string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	all, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(all) < 2 {
		t.Fatalf("%s: no rows", name)
	}
	return all[0], all[1:]
}

func atoi(t *testing.T, column, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("column %s: %v", column, err)
	}
	return n
}

// chartVectorColumns is the header of testdata/chart.csv, from the package's key lists.
func chartVectorColumns() []string {
	cols := []string{"date"}
	cols = append(cols, ChartPointKeys()...)
	cols = append(cols, ChartChannelKeys()...)
	cols = append(cols, ChartPurposeKeys()...)
	for _, k := range ChakraKeys() {
		cols = append(cols, k+"_emotions")
	}
	for _, k := range ChakraColumnKeys() {
		cols = append(cols, k+"_total")
	}
	return append(cols, "age_line")
}

// TestChartVectors checks the hand-worked vectors of testdata/chart.csv (the working of
// three of them is written at the top of the file).
func TestChartVectors(t *testing.T) {
	header, rows := readVectors(t, "chart.csv")
	if want := chartVectorColumns(); !slices.Equal(header, want) {
		t.Fatalf("vector columns\n%v\nwant\n%v", header, want)
	}
	if len(rows) < 20 {
		t.Fatalf("%d vectors, want at least 20", len(rows))
	}
	days := map[int]bool{}
	dates := map[string]bool{}
	for _, row := range rows {
		t.Run(row[0], func(t *testing.T) {
			d, m, y := parseDate(t, row[0])
			days[d], dates[row[0]] = true, true
			c := ComputeChart(d, m, y)
			var want []int
			for i, cell := range row[1 : len(row)-1] {
				want = append(want, atoi(t, header[i+1], cell))
			}
			var got []int
			for _, a := range c.Points {
				got = append(got, int(a))
			}
			for _, a := range c.Channels {
				got = append(got, int(a))
			}
			for _, a := range c.Purposes {
				got = append(got, int(a))
			}
			for _, row := range c.Chakras {
				got = append(got, int(row[ChakraEmotions]))
			}
			for _, a := range c.ChakraTotals {
				got = append(got, int(a))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s = %d, want %d", header[i+1], got[i], want[i])
				}
			}
			// The karmic tail, the talents and the chakras' physical and energy columns are
			// points of the vector.
			pt := func(p ChartPoint) uint8 { return uint8(want[p]) }
			if w := [3]uint8{pt(PointD), pt(PointD1), pt(PointD2)}; c.KarmicTail != w {
				t.Errorf("karmic tail = %v, want %v", c.KarmicTail, w)
			}
			if w := [3]uint8{pt(PointB), pt(PointB1), pt(PointB2)}; c.Talents != w {
				t.Errorf("talents = %v, want %v", c.Talents, w)
			}
			for ch := range NumChakras {
				phys, energy := Chakra(ch).Points()
				if c.Chakras[ch][ChakraPhysical] != pt(phys) || c.Chakras[ch][ChakraEnergy] != pt(energy) {
					t.Errorf("%s = %v, want physical %d, energy %d", Chakra(ch).Key(), c.Chakras[ch], pt(phys), pt(energy))
				}
			}
			ages := strings.Fields(strings.ReplaceAll(row[len(row)-1], "/", " "))
			if len(ages) != AgeLinePoints {
				t.Fatalf("age line of %d points in the vector", len(ages))
			}
			for i, s := range ages {
				if w := atoi(t, "age_line", s); int(c.AgeLine[i]) != w {
					t.Errorf("age line at %g = %d, want %d", AgeLineAge(i), c.AgeLine[i], w)
				}
			}
		})
	}
	// The dates the acceptance asks for: days 1–9, 10, 22, 23, 25, 31, the range's edges,
	// the turn of the century and the issue's example.
	for _, d := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 22, 23, 25, 31} {
		if !days[d] {
			t.Errorf("no vector with day %d", d)
		}
	}
	for _, date := range []string{"1900-01-01", "2000-01-01", "2100-12-31", "1996-07-11"} {
		if !dates[date] {
			t.Errorf("no vector of %s", date)
		}
	}
}

// TestChartIssueExample checks the worked example of the issue, 11.07.1996, as the issue
// writes it (docs/design.md §15 works it out).
func TestChartIssueExample(t *testing.T) {
	c := ComputeChart(11, 7, 1996)
	p := c.Points
	got := []uint8{p[PointA], p[PointB], p[PointC], p[PointD], p[PointE], p[PointF], p[PointG], p[PointH], p[PointI]}
	if want := []uint8{11, 7, 7, 7, 5, 18, 14, 14, 18}; !slices.Equal(got, want) {
		t.Errorf("A–I = %v, want %v", got, want)
	}
	if want := [NumChartChannels]uint8{12, 12, 6, 18, 18}; c.Channels != want {
		t.Errorf("channels = %v, want %v", c.Channels, want)
	}
	if want := [NumChartPurposes]uint8{14, 18, 5, 5, 5, 10, 15, 7}; c.Purposes != want {
		t.Errorf("purposes = %v, want %v", c.Purposes, want)
	}
	want := [NumChakras][NumChakraColumns]uint8{
		{11, 7, 18}, {9, 19, 10}, {16, 12, 10}, {21, 17, 11}, {5, 5, 10}, {12, 12, 6}, {7, 7, 14},
	}
	if c.Chakras != want {
		t.Errorf("chakras = %v, want %v", c.Chakras, want)
	}
}

// forEachChart calls f with the chart of every date of the range.
func forEachChart(t *testing.T, f func(date string, d, m, y int, c *Chart)) {
	t.Helper()
	n := 0
	forEachDate(func(d, m, y int) {
		n++
		c := ComputeChart(d, m, y)
		f(fmt.Sprintf("%02d.%02d.%04d", d, m, y), d, m, y, &c)
	})
	if n != 73414 {
		t.Fatalf("dates in range = %d, want 73414", n)
	}
}

// TestChartMatchesMatrix checks, for every date of the range, that the 12 positions of the
// matrix rule (§6) are the chart's points and purposes they name.
func TestChartMatchesMatrix(t *testing.T) {
	forEachChart(t, func(date string, d, m, y int, c *Chart) {
		mx := ComputeMatrix(d, m, y)
		p, pu := c.Points, c.Purposes
		for _, pair := range []struct {
			pos  Position
			name string
			got  uint8
		}{
			{Personal, "A", p[PointA]},
			{Talents, "B", p[PointB]},
			{Money, "C", p[PointC]},
			{Karma, "D", p[PointD]},
			{Center, "E", p[PointE]},
			{Soul, "B2", p[PointB2]},
			{Relationships, "H", p[PointH]},
			{Spirit, "sky", pu[PurposeSky]},
			{Body, "earth", pu[PurposeEarth]},
			{Purpose, "personal", pu[PurposePersonal]},
			{Social, "social", pu[PurposeSocial]},
			{Destiny, "spiritual", pu[PurposeSpiritual]},
		} {
			if int(pair.got) != mx[pair.pos] {
				t.Fatalf("%s: chart %s = %d, matrix %s = %d", date, pair.name, pair.got, pair.pos.Key(), mx[pair.pos])
			}
		}
	})
}

// TestChartProperties checks every date of the range for what must hold of any chart.
func TestChartProperties(t *testing.T) {
	var seenA, seenB [23]bool
	forEachChart(t, func(date string, d, m, y int, c *Chart) {
		var all []uint8
		all = append(all, c.Points[:]...)
		all = append(all, c.Channels[:]...)
		all = append(all, c.Purposes[:]...)
		all = append(all, c.KarmicTail[:]...)
		all = append(all, c.Talents[:]...)
		for _, row := range c.Chakras {
			all = append(all, row[:]...)
		}
		all = append(all, c.ChakraTotals[:]...)
		all = append(all, c.AgeLine[:]...)
		for i, a := range all {
			if a < 1 || a > 22 {
				t.Fatalf("%s: value %d of the chart is %d, outside 1–22", date, i, a)
			}
		}
		p := c.Points
		seenA[p[PointA]], seenB[p[PointB]] = true, true
		if c.KarmicTail != [3]uint8{p[PointD], p[PointD1], p[PointD2]} {
			t.Fatalf("%s: karmic tail %v is not D, D1, D2", date, c.KarmicTail)
		}
		if c.Talents != [3]uint8{p[PointB], p[PointB1], p[PointB2]} {
			t.Fatalf("%s: talents %v are not B, B1, B2", date, c.Talents)
		}
		var sums [NumChakraColumns]int
		for ch, row := range c.Chakras {
			phys, energy := Chakra(ch).Points()
			if row[ChakraPhysical] != p[phys] || row[ChakraEnergy] != p[energy] ||
				int(row[ChakraEmotions]) != Reduce(int(p[phys])+int(p[energy])) {
				t.Fatalf("%s: %s = %v", date, Chakra(ch).Key(), row)
			}
			for col, a := range row {
				sums[col] += int(a)
			}
		}
		for col, s := range sums {
			if int(c.ChakraTotals[col]) != Reduce(s) {
				t.Fatalf("%s: %s total %d, want r(%d)", date, ChakraColumn(col).Key(), c.ChakraTotals[col], s)
			}
		}
		// The rule says some things twice: the top chakra's emotions are F, the root's H,
		// the sacral's the balance of the channels.
		if c.Chakras[ChakraSahasrara][ChakraEmotions] != p[PointF] ||
			c.Chakras[ChakraMuladhara][ChakraEmotions] != p[PointH] ||
			c.Chakras[ChakraSvadhisthana][ChakraEmotions] != c.Channels[ChannelBalance] {
			t.Fatalf("%s: chakra emotions %v disagree with F, H or the balance", date, c.Chakras)
		}
		// The age line: the outer points at ages 0, 10, … 70, the point between two of them
		// at 5 years r of their sum.
		outer := []ChartPoint{PointA, PointF, PointB, PointG, PointC, PointH, PointD, PointI, PointA}
		for s := range 8 {
			if AgeLineAge(8*s) != float64(10*s) || c.AgeLine[8*s] != p[outer[s]] {
				t.Fatalf("%s: age line at %g = %d, want %s = %d at %d", date, AgeLineAge(8*s), c.AgeLine[8*s], outer[s].Key(), p[outer[s]], 10*s)
			}
			if int(c.AgeLine[8*s+4]) != Reduce(int(p[outer[s]])+int(p[outer[s+1]])) {
				t.Fatalf("%s: age line at %d = %d, want r(%s+%s)", date, 10*s+5, c.AgeLine[8*s+4], outer[s].Key(), outer[s+1].Key())
			}
		}
	})
	for a := 1; a <= 22; a++ {
		if !seenA[a] {
			t.Errorf("A never takes arcanum %d", a)
		}
		if seenB[a] != (a <= 12) {
			t.Errorf("B takes arcanum %d: %v, want %v (the month)", a, seenB[a], a <= 12)
		}
	}
}

// TestChartReadingArcana checks the arcana each reading zone holds over the range against a
// walk of its own over the chart's fields (the money channel's entry, money point and
// balance; the love channel's entry, love point and balance; the karmic tail), and pins
// what the chart's editor found: 3–22 in each, never 1 or 2.
func TestChartReadingArcana(t *testing.T) {
	var seen [NumChartReadingZones][23]bool
	forEachChart(t, func(date string, d, m, y int, c *Chart) {
		ch := c.Channels
		for z, arcana := range [NumChartReadingZones][]uint8{
			{ch[ChannelMoneyEntry], ch[ChannelMoney], ch[ChannelBalance]},
			{ch[ChannelRelationshipEntry], ch[ChannelLove], ch[ChannelBalance]},
			{c.Points[PointD], c.Points[PointD1], c.Points[PointD2]},
		} {
			if got := ChartReadingZone(z).Arcana(c); !slices.Equal(got[:], arcana) {
				t.Fatalf("%s: zone %s holds %v, the chart's fields %v", date, ChartReadingZone(z).Key(), got, arcana)
			}
			for _, a := range arcana {
				seen[z][a] = true
			}
		}
	})
	got := ChartReadingArcana()
	for z := range NumChartReadingZones {
		var want []int
		for a, ok := range seen[z] {
			if ok {
				want = append(want, a)
			}
		}
		if !slices.Equal(got[z], want) {
			t.Errorf("zone %s takes %v, the walk finds %v", ChartReadingZone(z).Key(), got[z], want)
		}
		if want[0] != 3 || want[len(want)-1] != 22 || len(want) != 20 {
			t.Errorf("zone %s takes %v, want 3–22", ChartReadingZone(z).Key(), want)
		}
	}
	got[0][0] = 99
	if ChartReadingArcana()[0][0] == 99 {
		t.Error("ChartReadingArcana hands out its own slices")
	}
	if strings.Join(ChartReadingZoneKeys(), " ") != "money love karmic_tail" {
		t.Errorf("reading zones %v", ChartReadingZoneKeys())
	}
}

func TestAgeLineAges(t *testing.T) {
	if AgeLineAge(0) != 0 || AgeLineAge(AgeLinePoints-1) != 78.75 {
		t.Errorf("age line runs from %g to %g, want 0 to 78.75", AgeLineAge(0), AgeLineAge(AgeLinePoints-1))
	}
	for i := 1; i < AgeLinePoints; i++ {
		if d := AgeLineAge(i) - AgeLineAge(i-1); d != 1.25 {
			t.Errorf("points %d and %d are %g years apart, want 1.25", i-1, i, d)
		}
	}
	if got := strconv.FormatFloat(AgeLineAge(3), 'f', -1, 64); got != "3.75" {
		t.Errorf("age of point 3 formats as %s, want 3.75", got)
	}
}

func TestChartKeys(t *testing.T) {
	tests := []struct {
		name string
		got  []string
		want string
	}{
		{"points", ChartPointKeys(), "A B C D E F G H I A1 A2 B1 B2 C1 C2 D1 D2 F1 F2 G1 G2 H1 H2 I1 I2 A3 B3 U"},
		{"channels", ChartChannelKeys(), "money_entry relationship_entry balance money love"},
		{"purposes", ChartPurposeKeys(), "sky earth personal male female social spiritual planetary"},
		{"chakras", ChakraKeys(), "sahasrara ajna vishuddha anahata manipura svadhisthana muladhara"},
		{"chakra columns", ChakraColumnKeys(), "physical energy emotions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(tt.got, " "); got != tt.want {
				t.Errorf("keys = %s, want %s", got, tt.want)
			}
		})
	}
	if PointC2.Key() != "C2" || ChannelLove.Key() != "love" || PurposePlanetary.Key() != "planetary" ||
		ChakraAnahata.Key() != "anahata" || ChakraEmotions.Key() != "emotions" {
		t.Error("a Key method disagrees with its list")
	}
	if ChartMethod != "ladini-22" {
		t.Errorf("ChartMethod = %q: a new method needs a new section of docs/design.md §15", ChartMethod)
	}
}

// TestRecordSizes pins the sizes docs/design.md §15 and §16 give the rules' values: fixed
// arrays of bytes, which a generator holding many of them keeps small.
func TestRecordSizes(t *testing.T) {
	if n := unsafe.Sizeof(Chart{}); n != 135 {
		t.Errorf("a Chart is %d bytes, docs/design.md §15 says 135", n)
	}
	if n := unsafe.Sizeof(PersonalYear{}); n != 397 {
		t.Errorf("a PersonalYear is %d bytes, docs/design.md §16 says 397", n)
	}
}

func TestChartDoesNotAllocate(t *testing.T) {
	var sink Chart
	if n := testing.AllocsPerRun(1000, func() { sink = ComputeChart(25, 8, 1964) }); n != 0 {
		t.Errorf("ComputeChart allocates %g times a call, want 0", n)
	}
	_ = sink
}

// chartRuleLines is docs/design.md §15 as the second implementation reads it: each line
// "name = term+term…" gives name the value r(the sum of the terms). day, month and y1–y4
// (the year's digits) are the date's.
func chartRuleLines() []string {
	lines := []string{
		"A = day", "B = month", "C = y1+y2+y3+y4", "D = A+B+C", "E = A+B+C+D",
		"F = A+B", "G = B+C", "H = C+D", "I = D+A",
	}
	for _, x := range strings.Split("A B C D F G H I", " ") {
		lines = append(lines, x+"2 = "+x+"+E", x+"1 = "+x+"+"+x+"2")
	}
	lines = append(lines,
		"A3 = A2+E", "B3 = B2+E", "U = F+G+H+I",
		"money_entry = C2", "relationship_entry = D2", "balance = C2+D2",
		"money = balance+C2", "love = D2+balance",
		"sky = B+D", "earth = A+C", "personal = sky+earth", "male = F+H", "female = G+I",
		"social = male+female", "spiritual = personal+social", "planetary = social+spiritual",
	)
	// The chakras: the physical column on the horizontal axis, the energy column on the
	// vertical one; each column's total is r of its sum.
	chakras := [][3]string{
		{"sahasrara", "A", "B"}, {"ajna", "A1", "B1"}, {"vishuddha", "A2", "B2"},
		{"anahata", "A3", "B3"}, {"manipura", "E", "E"}, {"svadhisthana", "C2", "D2"},
		{"muladhara", "C", "D"},
	}
	var phys, energy, emotions []string
	for _, c := range chakras {
		lines = append(lines, c[0]+".physical = "+c[1], c[0]+".energy = "+c[2],
			c[0]+".emotions = "+c[0]+".physical+"+c[0]+".energy")
		phys = append(phys, c[0]+".physical")
		energy = append(energy, c[0]+".energy")
		emotions = append(emotions, c[0]+".emotions")
	}
	lines = append(lines, "total.physical = "+strings.Join(phys, "+"),
		"total.energy = "+strings.Join(energy, "+"), "total.emotions = "+strings.Join(emotions, "+"))
	// The age line: A at 0, F at 10, … I at 70, A again at 80; in each segment X…Y the
	// points at 5, 2.5, 1.25, 3.75, 7.5, 6.25 and 8.75 years.
	outer := strings.Split("A F B G C H D I A", " ")
	for s := range 8 {
		at := func(off float64) string {
			switch off {
			case 0:
				return outer[s]
			case 10:
				return outer[s+1]
			}
			return fmt.Sprintf("age %g", float64(10*s)+off)
		}
		lines = append(lines, fmt.Sprintf("age %d = %s", 10*s, outer[s]))
		for _, step := range [][3]float64{
			{5, 0, 10}, {2.5, 0, 5}, {1.25, 0, 2.5}, {3.75, 2.5, 5}, {7.5, 5, 10}, {6.25, 5, 7.5}, {8.75, 7.5, 10},
		} {
			lines = append(lines, at(step[0])+" = "+at(step[1])+"+"+at(step[2]))
		}
	}
	return lines
}

// TestChartAcceptance compares ComputeChart, for every date of the range, with a second
// implementation of docs/design.md §15 that calls nothing of the rules package: the rule
// as lines of text, compiled once into steps over named slots and evaluated over the date
// written as DD.MM.YYYY, with its own reduction on decimal strings and its own calendar
// (time.Time).
func TestChartAcceptance(t *testing.T) {
	slot := map[string]int{}
	slotOf := func(name string) int {
		i, ok := slot[name]
		if !ok {
			i = len(slot)
			slot[name] = i
		}
		return i
	}
	inputs := []int{slotOf("day"), slotOf("month"), slotOf("y1"), slotOf("y2"), slotOf("y3"), slotOf("y4")}
	type step struct {
		dst   int
		terms []int
	}
	var steps []step
	for _, line := range chartRuleLines() {
		name, expr, ok := strings.Cut(line, " = ")
		if !ok {
			t.Fatalf("bad rule line %q", line)
		}
		var terms []int
		for _, term := range strings.Split(expr, "+") {
			i, ok := slot[term]
			if !ok {
				t.Fatalf("rule line for %s uses %s before it is known", name, term)
			}
			terms = append(terms, i)
		}
		if _, ok := slot[name]; ok {
			t.Fatalf("rule line %q gives %s a second value", line, name)
		}
		steps = append(steps, step{slotOf(name), terms})
	}
	slots := func(names ...string) []int {
		var out []int
		for _, n := range names {
			i, ok := slot[n]
			if !ok {
				t.Fatalf("the rule's text has no %s", n)
			}
			out = append(out, i)
		}
		return out
	}
	pointSlots := slots(strings.Fields("A B C D E F G H I A1 A2 B1 B2 C1 C2 D1 D2 F1 F2 G1 G2 H1 H2 I1 I2 A3 B3 U")...)
	channelSlots := slots(strings.Fields("money_entry relationship_entry balance money love")...)
	purposeSlots := slots(strings.Fields("sky earth personal male female social spiritual planetary")...)
	tailSlots, talentSlots := slots("D", "D1", "D2"), slots("B", "B1", "B2")
	chakras := strings.Fields("sahasrara ajna vishuddha anahata manipura svadhisthana muladhara")
	var chakraSlots [][]int
	for _, ch := range chakras {
		chakraSlots = append(chakraSlots, slots(ch+".physical", ch+".energy", ch+".emotions"))
	}
	totalSlots := slots("total.physical", "total.energy", "total.emotions")
	// The age line is every slot named "age …", in the order of its age.
	type agePoint struct {
		age  float64
		slot int
	}
	var ageLine []agePoint
	for name, i := range slot {
		if a, ok := strings.CutPrefix(name, "age "); ok {
			f, err := strconv.ParseFloat(a, 64)
			if err != nil {
				t.Fatal(err)
			}
			ageLine = append(ageLine, agePoint{f, i})
		}
	}
	sort.Slice(ageLine, func(i, j int) bool { return ageLine[i].age < ageLine[j].age })
	if len(ageLine) != AgeLinePoints {
		t.Fatalf("the rule's text gives an age line of %d points, the chart %d", len(ageLine), AgeLinePoints)
	}
	for i, a := range ageLine {
		if AgeLineAge(i) != a.age {
			t.Fatalf("age line point %d at %g, the rule's text puts it at %g", i, AgeLineAge(i), a.age)
		}
	}

	reduce := func(n int) int {
		for n > 22 {
			s := 0
			for _, ch := range strconv.Itoa(n) {
				s += int(ch - '0')
			}
			n = s
		}
		return n
	}
	v := make([]int, len(slot))
	n := 0
	for day := time.Date(1900, 1, 1, 12, 0, 0, 0, time.UTC); day.Year() <= 2100; day = day.AddDate(0, 0, 1) {
		n++
		date := day.Format("02.01.2006")
		v[inputs[0]], _ = strconv.Atoi(date[0:2])
		v[inputs[1]], _ = strconv.Atoi(date[3:5])
		for i := range 4 {
			v[inputs[2+i]] = int(date[6+i] - '0')
		}
		for _, s := range steps {
			sum := 0
			for _, term := range s.terms {
				sum += v[term]
			}
			v[s.dst] = reduce(sum)
		}

		got := ComputeChart(day.Day(), int(day.Month()), day.Year())
		compare := func(what string, got []uint8, want []int) {
			for i, a := range got {
				if int(a) != v[want[i]] {
					t.Fatalf("%s: %s %d = %d, the rule's text gives %d", date, what, i, a, v[want[i]])
				}
			}
		}
		compare("point", got.Points[:], pointSlots)
		compare("channel", got.Channels[:], channelSlots)
		compare("purpose", got.Purposes[:], purposeSlots)
		compare("karmic tail", got.KarmicTail[:], tailSlots)
		compare("talents", got.Talents[:], talentSlots)
		for i, row := range got.Chakras {
			compare(chakras[i]+" column", row[:], chakraSlots[i])
		}
		compare("chakra total", got.ChakraTotals[:], totalSlots)
		for i, a := range ageLine {
			if int(got.AgeLine[i]) != v[a.slot] {
				t.Fatalf("%s: age line at %g = %d, the rule's text gives %d", date, a.age, got.AgeLine[i], v[a.slot])
			}
		}
	}
	if n != 73414 {
		t.Fatalf("walked %d dates, want 73414", n)
	}
}

func BenchmarkChart(b *testing.B) {
	b.ReportAllocs()
	var sink Chart
	for i := 0; b.Loop(); i++ {
		sink = ComputeChart(1+i%28, 1+i%12, FirstYear+i%201)
	}
	_ = sink
}
