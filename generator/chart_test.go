package generator

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/rules"
)

// MaxChartRecordBytes is issue 28's size goal for one record of /chart/{d}/{m}/{y}.
const MaxChartRecordBytes = 4096

// TestChartEncoderMatchesEncode holds the fast encoder byte-identical to encoding a
// ChartRecord with go-json, for every date of the range (a sample under -short).
func TestChartEncoderMatchesEncode(t *testing.T) {
	s := testSite(t)
	encoderMatchesEncode(t, func() (func([]byte, int, int, int) ([]byte, error), error) {
		enc, err := newChartEncoder(s)
		if err != nil {
			return nil, err
		}
		return enc.Append, nil
	}, func(d, m, y int) (any, error) { return s.ChartRecord(d, m, y), nil })
}

// TestChartRecordSize renders the record of every date of the range (a sample under
// -short), as the route writes it, and holds the largest within 4 KB (issue 28), with room
// for a site URL longer than the built-in one. It logs the largest and its date.
func TestChartRecordSize(t *testing.T) {
	s := testSite(t)
	encs, err := s.encoders()
	if err != nil {
		t.Fatal(err)
	}
	enc := encs[RouteChart]
	var buf []byte
	worst, total, n, worstDate := 0, 0, 0, ""
	for _, in := range testDates(t) {
		if buf, err = enc(buf[:0], []int{in.Day, in.Month, in.Year}); err != nil {
			t.Fatal(err)
		}
		if len(buf) > worst {
			worst, worstDate = len(buf), fmt.Sprintf("%02d.%02d.%d", in.Day, in.Month, in.Year)
		}
		total += len(buf)
		n++
	}
	t.Logf("largest record %d bytes (%s), mean %d bytes over %d dates, with the site URL %s", worst, worstDate, total/n, n, s.SiteURL)
	// The site URL is written three times in a record (citation, source_url, attribution)
	// and twice more in attribution_html; a URL 60 bytes longer must still fit (the
	// disclaimer every record carries since issue 32 took 235 bytes of the room; a URL
	// longer still fails generate loudly, since the encoder holds the bound).
	if worst+5*60 > MaxChartRecordBytes {
		t.Errorf("the record of %s is %d bytes: with a site URL 60 bytes longer it would break the goal of %d", worstDate, worst, MaxChartRecordBytes)
	}
}

// chartByWords is the chart rule of docs/design.md §15 written again from its words, apart
// from generator/rules, on the date as text. It returns every value by the name the record
// gives it ("A", "C2", "money", "sky", "karmic_tail.1", "ajna.emotions", "total.energy")
// and the age line's 64 arcana.
func chartByWords(d, m, y int) (v map[string]int, ageLine []int) {
	r := func(n int) int {
		for n > 22 {
			s := 0
			for _, c := range strconv.Itoa(n) {
				s += int(c - '0')
			}
			n = s
		}
		return n
	}
	yearSum := 0
	for _, c := range strconv.Itoa(y) {
		yearSum += int(c - '0')
	}
	v = map[string]int{}
	v["A"], v["B"], v["C"] = r(d), r(m), r(yearSum)
	v["D"] = r(v["A"] + v["B"] + v["C"])
	v["E"] = r(v["A"] + v["B"] + v["C"] + v["D"])
	v["F"], v["G"], v["H"], v["I"] = r(v["A"]+v["B"]), r(v["B"]+v["C"]), r(v["C"]+v["D"]), r(v["D"]+v["A"])
	for _, x := range []string{"A", "B", "C", "D", "F", "G", "H", "I"} {
		v[x+"2"] = r(v[x] + v["E"])
		v[x+"1"] = r(v[x] + v[x+"2"])
	}
	v["A3"], v["B3"] = r(v["A2"]+v["E"]), r(v["B2"]+v["E"])
	v["U"] = r(v["F"] + v["G"] + v["H"] + v["I"])
	v["money_entry"], v["relationship_entry"] = v["C2"], v["D2"]
	v["balance"] = r(v["C2"] + v["D2"])
	v["money"], v["love"] = r(v["balance"]+v["C2"]), r(v["D2"]+v["balance"])
	v["sky"], v["earth"] = r(v["B"]+v["D"]), r(v["A"]+v["C"])
	v["personal"] = r(v["sky"] + v["earth"])
	v["male"], v["female"] = r(v["F"]+v["H"]), r(v["G"]+v["I"])
	v["social"] = r(v["male"] + v["female"])
	v["spiritual"] = r(v["personal"] + v["social"])
	v["planetary"] = r(v["social"] + v["spiritual"])
	for i, p := range []string{"D", "D1", "D2"} {
		v["karmic_tail."+strconv.Itoa(i)] = v[p]
	}
	for i, p := range []string{"B", "B1", "B2"} {
		v["talents."+strconv.Itoa(i)] = v[p]
	}
	totals := map[string]int{}
	for _, ch := range []struct{ key, physical, energy string }{
		{"sahasrara", "A", "B"}, {"ajna", "A1", "B1"}, {"vishuddha", "A2", "B2"}, {"anahata", "A3", "B3"},
		{"manipura", "E", "E"}, {"svadhisthana", "C2", "D2"}, {"muladhara", "C", "D"},
	} {
		v[ch.key+".physical"], v[ch.key+".energy"] = v[ch.physical], v[ch.energy]
		v[ch.key+".emotions"] = r(v[ch.physical] + v[ch.energy])
		for _, col := range []string{"physical", "energy", "emotions"} {
			totals[col] += v[ch.key+"."+col]
		}
	}
	for col, sum := range totals {
		v["total."+col] = r(sum)
	}
	outer := []string{"A", "F", "B", "G", "C", "H", "D", "I", "A"}
	for s := range 8 {
		x, yy := v[outer[s]], v[outer[s+1]]
		p5 := r(x + yy)
		p25, p75 := r(x+p5), r(p5+yy)
		ageLine = append(ageLine, x, r(x+p25), p25, r(p25+p5), p5, r(p5+p75), p75, r(p75+yy))
	}
	return v, ageLine
}

// chartRecordValues names every arcanum of a record as chartByWords does.
func chartRecordValues(rec *ChartRecord) map[string]int {
	v := map[string]int{}
	for i, p := range rec.Points.All() {
		v[rules.ChartPoint(i).Key()] = *p
	}
	for i, c := range rec.Channels.All() {
		v[rules.ChartChannel(i).Key()] = *c
	}
	for i, p := range rec.Purposes.All() {
		v[rules.ChartPurpose(i).Key()] = *p
	}
	for i := range 3 {
		v["karmic_tail."+strconv.Itoa(i)] = rec.KarmicTail[i]
		v["talents."+strconv.Itoa(i)] = rec.Talents[i]
	}
	for _, c := range rec.Chakras {
		v[c.Key+".physical"], v[c.Key+".energy"], v[c.Key+".emotions"] = c.Physical, c.Energy, c.Emotions
	}
	v["total.physical"], v["total.energy"], v["total.emotions"] = rec.ChakraTotals.Physical, rec.ChakraTotals.Energy, rec.ChakraTotals.Emotions
	return v
}

// chartVectors reads rules/testdata/chart.csv, the hand-worked vectors (its '#' lines hold
// the working): each row by its date, as chartByWords names the values, with the age line.
func chartVectors(t *testing.T) map[DateInput]map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join("rules", "testdata", "chart.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment = '#'
	all, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[DateInput]map[string]int{}
	header := all[0]
	for _, row := range all[1:] {
		day, err := time.Parse(time.DateOnly, row[0])
		if err != nil {
			t.Fatal(err)
		}
		v := map[string]int{}
		for i, col := range header[1 : len(header)-1] {
			n, err := strconv.Atoi(row[1+i])
			if err != nil {
				t.Fatalf("chart.csv %s %s: %v", row[0], col, err)
			}
			col = strings.Replace(strings.Replace(col, "_emotions", ".emotions", 1), "physical_total", "total.physical", 1)
			col = strings.Replace(strings.Replace(col, "energy_total", "total.energy", 1), "emotions_total", "total.emotions", 1)
			v[col] = n
		}
		for i, a := range strings.Fields(strings.ReplaceAll(row[len(row)-1], "/", " ")) {
			v["age."+strconv.Itoa(i)], _ = strconv.Atoi(a)
		}
		out[DateInput{day.Day(), int(day.Month()), day.Year()}] = v
	}
	return out
}

// TestChartRoute checks the record the route gives for every one of the 73,414 dates (a
// sample under -short) against the rule written again from its words (chartByWords) and
// against the hand-worked vectors (rules/testdata/chart.csv): the method, every arcanum, the
// chakras' keys, the age line's ages, and the details page as its source and citation.
func TestChartRoute(t *testing.T) {
	s := testSite(t)
	m, err := s.ChartMeanings()
	if err != nil {
		t.Fatal(err)
	}
	// The values each reading zone's fields take, named as chartByWords names them.
	var zoneFields [rules.NumChartReadingZones][]string
	for z, set := range m.Readings.All() {
		for _, f := range set.Fields {
			zoneFields[z] = append(zoneFields[z], strings.TrimPrefix(strings.NewReplacer("[", ".", "]", "").Replace(f), "channels."))
		}
	}
	var mu sync.Mutex
	var seenBy []*[rules.NumChartReadingZones][23]bool // one for each goroutine of forDates
	vectors := chartVectors(t)
	var extra []DateInput
	for in := range vectors {
		extra = append(extra, in)
	}
	var checked atomic.Int64
	forDates(t, testDates(t, extra...), func() (func(d, m, y int) error, error) {
		encs, err := s.encoders()
		if err != nil {
			return nil, err
		}
		enc := encs[RouteChart]
		var buf []byte
		seen := new([rules.NumChartReadingZones][23]bool)
		mu.Lock()
		seenBy = append(seenBy, seen)
		mu.Unlock()
		return func(d, m, y int) error {
			if buf, err = enc(buf[:0], []int{d, m, y}); err != nil {
				return err
			}
			var rec ChartRecord
			if err := json.Unmarshal(buf, &rec); err != nil {
				return err
			}
			if rec.Input != (DateInput{d, m, y}) || rec.Method != "ladini-22" {
				return fmt.Errorf("input %+v, method %q", rec.Input, rec.Method)
			}
			want, ageLine := chartByWords(d, m, y)
			for z, fields := range zoneFields {
				for _, f := range fields {
					seen[z][want[f]] = true
				}
			}
			got := chartRecordValues(&rec)
			for k, w := range want {
				if got[k] != w {
					return fmt.Errorf("%s is %d; the rule gives %d", k, got[k], w)
				}
			}
			if len(got) != len(want) {
				return fmt.Errorf("%d values in the record, the rule names %d", len(got), len(want))
			}
			for i, c := range rec.Chakras {
				if c.Key != rules.Chakra(i).Key() {
					return fmt.Errorf("chakra %d is %q", i, c.Key)
				}
			}
			for i, a := range rec.AgeLine {
				if a.Age != float64(i)*1.25 || a.Arcana != ageLine[i] {
					return fmt.Errorf("age line point %d is %+v; the rule gives %d at %g", i, a, ageLine[i], float64(i)*1.25)
				}
			}
			if want := s.ChartDetailsURL(d, m, y); rec.SourceURL != want || !strings.HasSuffix(rec.SuggestedCitation, " "+want) ||
				!strings.Contains(rec.SuggestedCitation, fmt.Sprintf("%02d.%02d.%d", d, m, y)) {
				return fmt.Errorf("source_url %s, citation %q", rec.SourceURL, rec.SuggestedCitation)
			}
			if vec, ok := vectors[DateInput{d, m, y}]; ok {
				checked.Add(1)
				for k, w := range vec {
					g, ok := got[k]
					if i, isAge := strings.CutPrefix(k, "age."); isAge {
						n, _ := strconv.Atoi(i)
						g, ok = rec.AgeLine[n].Arcana, true
					}
					if !ok || g != w {
						return fmt.Errorf("%s is %d, the hand-worked vector %d", k, g, w)
					}
				}
			}
			return nil
		}, nil
	})
	if checked.Load() < 20 {
		t.Errorf("only %d hand-worked vectors fall in the range", checked.Load())
	}
	if testing.Short() {
		return
	}
	// What the meanings read is what the fields hold over the range: a reading for each of
	// those arcana and for no other.
	for z, set := range m.Readings.All() {
		var arcana, fields []int
		for _, r := range set.Readings {
			arcana = append(arcana, r.Arcana)
		}
		for a := range 23 {
			if slices.ContainsFunc(seenBy, func(seen *[rules.NumChartReadingZones][23]bool) bool { return seen[z][a] }) {
				fields = append(fields, a)
			}
		}
		if !slices.Equal(arcana, fields) {
			t.Errorf("zone %s reads arcana %v; its fields %v hold %v over the range", set.Zone, arcana, set.Fields, fields)
		}
	}
}

// TestChartMeanings checks /chart/meanings against the rule and the content: the method,
// every zone in the content's order, and for each reading zone its zone and a reading of
// exactly the arcana rules.ChartReadingArcana gives (TestChartRoute checks that its fields
// hold those over the range).
func TestChartMeanings(t *testing.T) {
	s := testSite(t)
	m, err := s.ChartMeanings()
	if err != nil {
		t.Fatal(err)
	}
	if m.Method != rules.ChartMethod || m.Intro == "" {
		t.Errorf("method %q, intro %q", m.Method, m.Intro)
	}
	var keys []string
	for _, z := range m.Zones {
		keys = append(keys, z.Key)
		if z.Title == "" || z.Description == "" || z.Term == z.Title {
			t.Errorf("zone %+v", z)
		}
	}
	if !slices.Equal(keys, content.ChartZoneKeys) {
		t.Errorf("zones %v, want %v", keys, content.ChartZoneKeys)
	}
	for z, set := range m.Readings.All() {
		if set.Zone != []string{"money_channel", "relationship_channel", "karmic_tail"}[z] {
			t.Errorf("reading set %d is of zone %q", z, set.Zone)
		}
		if _, ok := s.Content.Chart.Zone(set.Zone); !ok {
			t.Errorf("reading set %d names zone %q, which the zones lack", z, set.Zone)
		}
		var arcana []int
		for _, r := range set.Readings {
			arcana = append(arcana, r.Arcana)
			if r.Reading == "" || r.Reading != s.Content.Chart.Readings[rules.ChartReadingZone(z).Key()][r.Arcana] {
				t.Errorf("zone %s, arcanum %d: %q", set.Zone, r.Arcana, r.Reading)
			}
		}
		if !slices.Equal(arcana, rules.ChartReadingArcana()[z]) {
			t.Errorf("zone %s reads arcana %v, the range gives %v", set.Zone, arcana, rules.ChartReadingArcana()[z])
		}
	}
	if m.SourceURL != s.ChartSourceURL() || !strings.HasSuffix(m.SuggestedCitation, " "+m.SourceURL) {
		t.Errorf("source_url %s, citation %q", m.SourceURL, m.SuggestedCitation)
	}
}

// TestChartTable checks the chart table's rows for a sample of dates, by the scanner and,
// for a record in another field order, by the full parse; and that a record of another date
// is refused.
func TestChartTable(t *testing.T) {
	s := testSite(t)
	tb := chartTables()[0]
	var names []string
	for _, f := range tb.Columns {
		names = append(names, f.Name)
	}
	for _, v := range [][]int{{11, 7, 1996}, {25, 8, 1964}, {1, 1, 1900}, {31, 12, 2100}, {29, 2, 2000}} {
		body, err := Encode(s.ChartRecord(v[0], v[1], v[2]))
		if err != nil {
			t.Fatal(err)
		}
		vals, ageLine := chartByWords(v[0], v[1], v[2])
		want := []string{fmt.Sprintf("%04d-%02d-%02d", v[2], v[1], v[0]), strconv.Itoa(v[0]), strconv.Itoa(v[1]), strconv.Itoa(v[2])}
		for _, name := range names[4:] {
			key := strings.TrimPrefix(name, "purpose_")
			key = strings.Replace(strings.Replace(key, "karmic_tail_", "karmic_tail.", 1), "talents_", "talents.", 1)
			if i := strings.LastIndexByte(key, '.'); i > 0 {
				n, _ := strconv.Atoi(key[i+1:])
				key = key[:i+1] + strconv.Itoa(n-1)
			}
			key = strings.Replace(key, "total_", "total.", 1)
			if n, ok := strings.CutPrefix(name, "age_line_"); ok {
				i, _ := strconv.Atoi(n)
				want = append(want, strconv.Itoa(ageLine[i]))
				continue
			}
			for _, col := range rules.ChakraColumnKeys() {
				key = strings.Replace(key, "_"+col, "."+col, 1)
			}
			n, ok := vals[key]
			for k, v := range vals {
				if !ok && strings.EqualFold(k, key) {
					n, ok = v, true
				}
			}
			if !ok {
				t.Fatalf("column %s: no value %s of the rule", name, key)
			}
			want = append(want, strconv.Itoa(n))
		}
		if _, _, _, _, ok := scanChart(body); !ok {
			t.Errorf("%v: the scanner does not read the record", v)
		}
		var generic map[string]any
		if err := json.Unmarshal(body, &generic); err != nil {
			t.Fatal(err)
		}
		sorted, err := json.Marshal(generic)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, _, ok := scanChart(sorted); ok {
			t.Errorf("%v: the scanner reads a record in another field order", v)
		}
		for _, b := range [][]byte{body, sorted} {
			if rows := tableRows(t, chartTables()[0], v, b); len(rows) != 1 || !slices.Equal(rows[0], want) {
				t.Errorf("%v: rows\n%v\nwant\n%v", v, rows, want)
			}
		}
		other := chartTables()[0]
		if err := other.Rows(other.Table, []int{v[0], v[1], v[2] + 1}, body); err == nil {
			t.Errorf("%v: the record was accepted for another year", v)
		}
	}
	if len(tb.Columns) != 4+28+5+8+3+3+21+3+64 {
		t.Errorf("%d columns", len(tb.Columns))
	}
}

// TestVerifyChart: one changed byte in a chart record, in a line of its packed month file
// or in the meanings is reported with the file, the line and date where there is one, and
// the field whose value differs from what the rules and the content give.
func TestVerifyChart(t *testing.T) {
	ch := route(RouteChart)
	month, _ := ch.PackedPath([]int{15, 5, 1990})
	meanings := route(RouteChartMeanings).FilePath(nil)
	file := ch.FilePath([]int{15, 5, 1990})
	tests := []struct {
		name     string
		file     string
		old, new string
		want     string // the invalid entry; the corrupt entry is always there too
	}{
		{"a point", file, `"A":15,`, `"A":16,`, "field points.A is 16, the rules and the content give 15"},
		{"a channel", file, `"balance":`, `"balanse":`, "field channels.balance is nothing, the rules and the content give"},
		{"the karmic tail", file, `"karmic_tail":[12,`, `"karmic_tail":[13,`, "field karmic_tail[0] is 13, the rules and the content give 12"},
		{"a chakra", file, `"key":"ajna","physical":`, `"key":"ajne","physical":`, `field chakras[1].key is "ajne", the rules and the content give "ajna"`},
		{"an age", file, `{"age":1.25,`, `{"age":1.5,`, "field age_line[1].age is 1.5, the rules and the content give 1.25"},
		{"the method", file, `"method":"ladini-22"`, `"method":"ladini-21"`, `field method is "ladini-21", the rules and the content give "ladini-22"`},
		{"a packed line", month, `{"input":{"day":15,"month":5,"year":1990},"method":"ladini-22","points":{"A":15,`, `{"input":{"day":15,"month":5,"year":1990},"method":"ladini-22","points":{"A":17,`,
			"line 15, 15.05.1990: field points.A is 17, the rules and the content give 15"},
		{"a reading of the meanings", meanings, `"karmic_tail[2]"],"readings":[{"arcana":3,"reading":"`, `"karmic_tail[2]"],"readings":[{"arcana":3,"reading":"x`,
			`field readings.karmic_tail.readings[0].reading differs at character 1`},
	}
	out := scratchTree(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { verifyDamage(t, out, tt.file, tt.old, tt.new, tt.want) })
	}
}

// TestChartPages checks what the chart's pages carry: /chart the form, the worked example
// (its steps, its drawing and its chakra map by the rule), every zone's text and every
// reading, the links to the API and the citation; /chart/details the script, the data it
// draws a date with and an empty drawing and cells for every field of the record; the home
// page, llms.txt and the matrix's details page a link to the chart; and that the records'
// and the meanings' source_url are pages of the tree.
func TestChartPages(t *testing.T) {
	s, tree := sharedTree(t)
	read := func(f string) string {
		t.Helper()
		return strings.ReplaceAll(html.UnescapeString(string(mustRead(t, tree, f))), "\u00a0", " ")
	}
	m, err := s.ChartMeanings()
	if err != nil {
		t.Fatal(err)
	}
	page := read(ChartPage)
	want := []string{
		`action="/chart/details"`, `type="date" name="date"`, `<label for="chart-date">`, `href="/assets/chart.css"`,
		`href="/chart/details?date=1996-07-11"`, `href="/api/public/chart/11/7/1996"`, `href="/api/public/chart/meanings"`,
		"1 + 9 + 9 + 6 = 25 → 7", "11 + 7 + 7 + 7 = 32 → 5", "12 + 12 = 24 → 6", "<code>ladini-22</code>",
		"Арканов 1 и 2 здесь нет", m.SuggestedCitation, firstWords(m.Intro),
	}
	for _, z := range m.Zones {
		want = append(want, `id="zone-`+z.Key+`"`, z.Title, firstWords(z.Description))
	}
	for _, set := range m.Readings.All() {
		for _, r := range set.Readings {
			want = append(want, r.Reading)
		}
	}
	for _, w := range want {
		if !strings.Contains(page, strings.ReplaceAll(w, "\u00a0", " ")) {
			t.Errorf("%s lacks %q", ChartPage, w)
		}
	}
	// The example's drawing and chakra map hold the rule's numbers (docs/design.md §15).
	c := rules.ComputeChart(11, 7, 1996)
	for i, k := range rules.ChartPointKeys() {
		if k == "U" {
			continue // not drawn: it starts no line
		}
		dot := regexp.MustCompile(`data-key="points\.` + k + `"[^>]*><title>[^<]*</title><circle [^>]*/><text [^>]*>([0-9]*)</text>`).FindStringSubmatch(page)
		if dot == nil || dot[1] != strconv.Itoa(int(c.Points[i])) {
			t.Errorf("the example draws point %s as %q, want %d", k, dot, c.Points[i])
		}
	}
	for i := range rules.AgeLinePoints {
		mark := regexp.MustCompile(`data-key="age_line\.` + strconv.Itoa(i) + `"[^>]*><title>([^<]*)</title><text [^>]*>([0-9]*)</text>`).FindStringSubmatch(page)
		want := strconv.Itoa(int(c.AgeLine[i]))
		if i%8 == 0 {
			want = strconv.Itoa(i / 8 * 10) // the age at an outer point
		}
		if mark == nil || mark[2] != want || !strings.Contains(mark[1], ": "+strconv.Itoa(int(c.AgeLine[i]))+", ") {
			t.Errorf("the example's age line point %d is %q, want %s", i, mark, want)
		}
	}
	if !strings.Contains(page, "<tr><th scope=\"row\">Сахасрара</th><td>11</td><td>7</td><td>18</td></tr>") ||
		!strings.Contains(page, "<tfoot><tr><th scope=\"row\">Итог</th><td>9</td><td>16</td><td>16</td></tr></tfoot>") {
		t.Error("the example's chakra map is not 11/7/18 … with totals 9, 16, 16")
	}

	details := read(ChartDetailsPage)
	for _, w := range []string{`src="/assets/chart.js"`, `id="chart-data"`, `id="drawing"`, `id="status"`, `id="api-status"`, `aria-live="polite"`,
		`href="/assets/chart.css"`, `id="readings-money"`, `id="readings-love"`, `id="readings-karmic_tail"`, "Это не медицина"} {
		if !strings.Contains(details, w) {
			t.Errorf("%s lacks %q", ChartDetailsPage, w)
		}
	}
	// A cell for every arcanum of a record: the table (td/dd) and the drawing (g).
	var rec ChartRecord
	readJSON(t, tree, route(RouteChart).FilePath([]int{15, 5, 1990}), &rec)
	for k := range chartRecordValues(&rec) {
		k = strings.Replace(k, "total.", "chakra_totals.", 1)
		for _, p := range rules.ChartPointKeys() {
			if k == p {
				k = "points." + k
			}
		}
		for _, ch := range rules.ChartChannelKeys() {
			if k == ch {
				k = "channels." + k
			}
		}
		for _, pu := range rules.ChartPurposeKeys() {
			if k == pu {
				k = "purposes." + k
			}
		}
		for i, ch := range rules.ChakraKeys() {
			k = strings.Replace(k, ch+".", "chakras."+strconv.Itoa(i)+".", 1)
		}
		if !strings.Contains(details, `<dd data-key="`+k+`"></dd>`) && !strings.Contains(details, `<td data-key="`+k+`"></td>`) {
			t.Errorf("the details page has no cell for %s", k)
		}
	}
	for i := range rules.AgeLinePoints {
		key := `data-key="age_line.` + strconv.Itoa(i) + `"`
		if strings.Count(details, key) != 2 {
			t.Errorf("the details page shows %s %d times, want twice (the drawing and the list)", key, strings.Count(details, key))
		}
	}
	data := regexp.MustCompile(`(?s)<script type="application/json" id="chart-data">(.*?)</script>`).FindStringSubmatch(string(mustRead(t, tree, ChartDetailsPage)))
	if data == nil {
		t.Fatal("the details page has no data block")
	}
	var v struct {
		Method   string                       `json:"method"`
		Citation string                       `json:"citation"`
		Arcana   []string                     `json:"arcana"`
		Readings map[string]map[string]string `json:"readings"`
		Fields   map[string][]string          `json:"fields"`
		Labels   map[string]string            `json:"labels"`
		Points   []string                     `json:"points"`
		Chakras  []string                     `json:"chakras"`
	}
	if err := json.Unmarshal([]byte(data[1]), &v); err != nil {
		t.Fatalf("the details page's data: %v", err)
	}
	if v.Method != rules.ChartMethod || len(v.Arcana) != 22 || !strings.Contains(v.Citation, "{date}") || !strings.Contains(v.Citation, "{url}") ||
		!slices.Equal(v.Points, rules.ChartPointKeys()) || !slices.Equal(v.Chakras, rules.ChakraKeys()) {
		t.Errorf("the details page's data: method %q, %d arcana, citation %q, points %v, chakras %v", v.Method, len(v.Arcana), v.Citation, v.Points, v.Chakras)
	}
	for z, set := range m.Readings.All() {
		key := rules.ChartReadingZone(z).Key()
		if len(v.Readings[key]) != len(set.Readings) || len(v.Fields[key]) != 3 {
			t.Errorf("the details page's zone %s: %d readings, fields %v", key, len(v.Readings[key]), v.Fields[key])
		}
		for _, f := range v.Fields[key] {
			if v.Labels[f] == "" || !strings.Contains(details, `data-key="`+f+`"`) {
				t.Errorf("the details page's zone %s reads field %s, which has no label or no cell", key, f)
			}
		}
	}

	if home := read(HomePage); !strings.Contains(home, `href="/chart"`) || !strings.Contains(home, `href="/api/public/chart/11/7/1996"`) {
		t.Error("the home page links neither /chart nor the chart route's example")
	}
	if llms := read(LLMsFile); !strings.Contains(llms, "]("+s.SiteURL+"/chart)") || !strings.Contains(llms, "]("+s.APIBase+"/chart/11/7/1996)") {
		t.Error("llms.txt links neither /chart nor the chart route's example")
	}
	if mx := read(DetailsPage); !strings.Contains(mx, `id="chart-link" href="/chart"`) {
		t.Error("the matrix's details page does not link the chart")
	}
	for _, f := range []string{route(RouteChart).FilePath([]int{1, 1, 1900}), route(RouteChart).FilePath([]int{31, 12, 2100}), route(RouteChartMeanings).FilePath(nil)} {
		var rec struct {
			SourceURL string `json:"source_url"`
		}
		readJSON(t, tree, f, &rec)
		p, ok := strings.CutPrefix(rec.SourceURL, s.SiteURL)
		p, _, _ = strings.Cut(p, "?")
		if !ok || resolvePage(t, tree, p) == "" {
			t.Errorf("source_url %s is not a page of the tree", rec.SourceURL)
		}
	}
}

// TestChartSkeleton: the fast encoder's pieces are Encode's own output cut at the arcana,
// one piece before each of a chart's 135 values, in the order chartValues gives them.
func TestChartSkeleton(t *testing.T) {
	sk, err := newChartSkeleton()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(sk.lits[0], []byte(`,"method":"ladini-22","points":{"A":`)) || string(sk.lits[rules.NumChartPoints]) != `},"channels":{"money_entry":` ||
		string(sk.lits[chartValueCount-1]) != `},{"age":78.75,"arcana":` || string(sk.end) != `}]` {
		t.Errorf("skeleton: first %q, channels %q, last %q, end %q", sk.lits[0], sk.lits[rules.NumChartPoints], sk.lits[chartValueCount-1], sk.end)
	}
}

func BenchmarkChartEncoder(b *testing.B) {
	s := testSite(b)
	enc, err := newChartEncoder(s)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	for i := 0; b.Loop(); i++ {
		if buf, err = enc.Append(buf[:0], 1+i%28, 1+i%12, 1900+i%201); err != nil {
			b.Fatal(err)
		}
	}
}

// TestChartRecordAgreesWithMatrix renders the matrix's and the chart's record of every date
// (a sample under -short) as the routes write them and checks that the chart holds the
// matrix's twelve positions where docs/design.md §15 says, field by field in the JSON: a
// wrong mapping in either encoder fails here, not only a wrong rule.
func TestChartRecordAgreesWithMatrix(t *testing.T) {
	s := testSite(t)
	encs, err := s.encoders()
	if err != nil {
		t.Fatal(err)
	}
	// The matrix record's position key → the chart record's object and key.
	where := map[string][2]string{
		"personal": {"points", "A"}, "talents": {"points", "B"}, "money": {"points", "C"},
		"karma": {"points", "D"}, "center": {"points", "E"}, "soul": {"points", "B2"},
		"relationships": {"points", "H"}, "spirit": {"purposes", "sky"}, "body": {"purposes", "earth"},
		"purpose": {"purposes", "personal"}, "social": {"purposes", "social"}, "destiny": {"purposes", "spiritual"},
	}
	var mb, cb []byte
	for _, in := range testDates(t) {
		v := []int{in.Day, in.Month, in.Year}
		if mb, err = encs[RouteMatrix](mb[:0], v); err != nil {
			t.Fatal(err)
		}
		if cb, err = encs[RouteChart](cb[:0], v); err != nil {
			t.Fatal(err)
		}
		var mx struct {
			Matrix map[string]struct {
				Arcana int `json:"arcana"`
			} `json:"matrix"`
		}
		var ch map[string]json.RawMessage
		if err := json.Unmarshal(mb, &mx); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(cb, &ch); err != nil {
			t.Fatal(err)
		}
		objs := map[string]map[string]int{}
		for _, o := range []string{"points", "purposes"} {
			m := map[string]int{}
			if err := json.Unmarshal(ch[o], &m); err != nil {
				t.Fatal(err)
			}
			objs[o] = m
		}
		if len(mx.Matrix) != len(where) {
			t.Fatalf("%v: the matrix record has %d positions, want %d", v, len(mx.Matrix), len(where))
		}
		for key, pos := range mx.Matrix {
			w, ok := where[key]
			if !ok {
				t.Fatalf("%v: the matrix record has a position %q the test does not place", v, key)
			}
			got, ok := objs[w[0]][w[1]]
			if !ok || got != pos.Arcana {
				t.Fatalf("%d.%d.%d: the matrix's %s is %d, the chart's %s.%s is %d", in.Day, in.Month, in.Year, key, pos.Arcana, w[0], w[1], got)
			}
		}
	}
}

// TestChartExampleNamesItsPoints checks the names the worked example of /chart gives the
// channels' points: each is the title of its zone on the same page («Точка равновесия»,
// «Денежная точка», «Точка отношений»), and none is the title of one of the 12 positions,
// which the drawing beside it gives to other points (the texts35 read found «Деньги =
// равновесие + C2» under a drawing whose C is «Деньги», and «Отношения» likewise for H).
func TestChartExampleNamesItsPoints(t *testing.T) {
	s := testSite(t)
	p := &pageRenderer{s: s}
	ex := p.chartExampleOf(chartExampleDate)
	var channels []ruleLine
	for _, st := range ex.Steps {
		if st.Title == "Каналы" {
			channels = st.Steps
		}
	}
	if channels == nil {
		t.Fatal("the worked example has no step «Каналы»")
	}
	var names []string
	for _, l := range channels {
		name, _, _ := strings.Cut(l.Name, " = ")
		names = append(names, name)
	}
	want := []string{"C2", "D2"}
	for _, key := range []string{"balance", "money", "love"} {
		z, ok := s.Content.Chart.Zone(key)
		if !ok {
			t.Fatalf("no chart zone %s", key)
		}
		want = append(want, z.Title)
	}
	if !slices.Equal(names, want) {
		t.Errorf("the example names the channels' points %q, want %q", names, want)
	}
	for _, pos := range s.Content.Positions {
		for _, st := range ex.Steps {
			for _, l := range st.Steps {
				if name, _, _ := strings.Cut(l.Name, " = "); name == pos.Title {
					t.Errorf("the example's step %q is named as the position %s, which is another point", l.Name, pos.Key)
				}
			}
		}
	}
}
