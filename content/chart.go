package content

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// ChartFile holds the texts of the full matrix chart (issue 28): what each zone of the chart
// means, and a short reading of every arcanum in the money channel, the love channel and the
// karmic tail. They are served once (the chart's meanings), never in a date's record.
const ChartFile = "chart.yaml"

// ChartZoneKeys are the zones of the chart, in the order they are served. The keys are the
// record's field names: the points keep their letters (A … I, U; "inner" covers A1 … I2, A3
// and B3), the channels, purposes and chakras their keys; money_channel,
// relationship_channel, male_line, female_line and chakras name the channels, the two
// ancestral diagonals and the chakra map as wholes.
var ChartZoneKeys = []string{
	"A", "B", "C", "D", "E", "F", "G", "H", "I", "U", "inner",
	"money_channel", "money_entry", "balance", "money",
	"relationship_channel", "relationship_entry", "love",
	"sky", "earth", "personal", "male", "female", "social", "spiritual", "planetary",
	"karmic_tail", "talents", "male_line", "female_line",
	"chakras", "sahasrara", "ajna", "vishuddha", "anahata", "manipura", "svadhisthana", "muladhara",
	"physical", "energy", "emotions", "chakra_totals",
	"age_line",
}

// ChartReadingKeys are the zones with a reading of each arcanum they hold, in the order they
// are served.
var ChartReadingKeys = []string{"money", "love", "karmic_tail"}

// ChartRules are the facts of the chart rule (docs/design.md §15) that its texts must follow.
type ChartRules struct {
	// Arcana maps each key of ChartReadingKeys to the arcana that zone holds over the dates
	// of the API, ascending: each needs a reading, and a reading of any other arcanum is
	// refused as dead text.
	Arcana map[string][]int
}

func (r *ChartRules) complete() bool {
	for _, key := range ChartReadingKeys {
		if len(r.Arcana[key]) == 0 {
			return false
		}
	}
	return true
}

// NumArcana is the count of the major arcana, numbered 1–22 (docs/design.md §6).
const NumArcana = 22

// Limits of the chart's texts, in characters (runes) and words.
const (
	MaxChartTitle      = 60  // a zone's title and term
	MaxChartReading    = 300 // one arcanum's reading in a zone: one to three sentences
	MinChartZoneWords  = 20  // a zone's description: two to five sentences
	MaxChartZoneText   = 1000
	MinChartIntroWords = 20
)

// Chart is the content of chart.yaml.
type Chart struct {
	// Intro says what the chart is and how to read it.
	Intro string
	// Zones are every zone of ChartZoneKeys once, in that order.
	Zones []ChartZone
	// Readings maps a key of ChartReadingKeys to the readings of the arcana that zone holds
	// (ChartRules.Arcana), by arcanum number.
	Readings map[string]map[int]string
}

// ChartZone says what one zone of the chart means.
type ChartZone struct {
	Key   string `yaml:"key"`
	Title string `yaml:"title"` // our Russian name
	// Term is the tradition's usual Russian term (N. Ladini's method), or "" when the title
	// already is the usual name.
	Term        string `yaml:"term"`
	Description string `yaml:"description"`
}

// Zone returns the zone with key, and whether it exists.
func (c *Chart) Zone(key string) (ChartZone, bool) {
	i := slices.IndexFunc(c.Zones, func(z ChartZone) bool { return z.Key == key })
	if i < 0 {
		return ChartZone{}, false
	}
	return c.Zones[i], true
}

// chartFile is chart.yaml as written.
type chartFile struct {
	Intro    string       `yaml:"intro"`
	Zones    []ChartZone  `yaml:"zones"`
	Readings chartReading `yaml:"readings"`
}

// chartReading lists the zones with readings, so that the strict decoder refuses any other.
type chartReading struct {
	Money      map[int]string `yaml:"money"`
	Love       map[int]string `yaml:"love"`
	KarmicTail map[int]string `yaml:"karmic_tail"`
}

func (r *chartReading) byKey() map[string]map[int]string {
	return map[string]map[int]string{"money": r.Money, "love": r.Love, "karmic_tail": r.KarmicTail}
}

func (l *loader) loadChart() Chart {
	var f chartFile
	d := l.read(ChartFile, &f)
	if d == nil {
		return Chart{}
	}
	d.text("$.intro", "intro", f.Intro, MinChartIntroWords, MaxChartZoneText)
	c := Chart{Intro: strings.TrimSpace(f.Intro), Zones: d.checkZones(f.Zones), Readings: map[string]map[int]string{}}
	sets := f.Readings.byKey()
	for _, key := range ChartReadingKeys {
		c.Readings[key] = d.chartReadings("$.readings."+key, "readings."+key, sets[key], l.rules.Chart.Arcana[key])
	}
	return c
}

// chartReadings checks the readings of one zone: a non-empty text of at most
// MaxChartReading characters for each arcanum the zone holds (want), and none for an
// arcanum it never holds, which no date would show. It returns the texts, trimmed.
func (d *doc) chartReadings(yamlPath, field string, texts map[int]string, want []int) map[int]string {
	out := make(map[int]string, len(want))
	var missing []int
	for _, n := range want {
		text, ok := texts[n]
		yp, f := fmt.Sprintf("%s.%d", yamlPath, n), fmt.Sprintf("%s.%d", field, n)
		switch {
		case !ok:
			missing = append(missing, n)
		case strings.TrimSpace(text) == "":
			d.at(yp, f, "empty text")
		default:
			d.maxLen(yp, f, strings.TrimSpace(text), MaxChartReading)
			out[n] = strings.TrimSpace(text)
		}
	}
	if len(missing) > 0 {
		d.problem(d.setLine(yamlPath), field, "no reading for arcanum %s (the zone holds %s over the range)", numberSpan(missing), numberSpan(want))
	}
	for _, n := range slices.Sorted(maps.Keys(texts)) {
		if slices.Contains(want, n) {
			continue
		}
		msg := "arcanum %d never occurs in this zone (it holds %s over the range)"
		if n < 1 || n > NumArcana {
			msg = "%d is not an arcanum (the zone holds %s over the range)"
		}
		d.problem(d.entryLine(yamlPath, n), fmt.Sprintf("%s.%d", field, n), msg, n, numberSpan(want))
	}
	return out
}

// checkZones checks that every key of ChartZoneKeys has one zone, and returns the zones in
// that order.
func (d *doc) checkZones(zones []ChartZone) []ChartZone {
	byKey := map[string]ChartZone{}
	first := map[string]int{}
	for i, z := range zones {
		yp, f := fmt.Sprintf("$.zones[%d]", i), fmt.Sprintf("zones[%d]", i)
		switch j, dup := first[z.Key]; {
		case z.Key == "":
			d.at(yp+".key", f+".key", "missing field")
		case !slices.Contains(ChartZoneKeys, z.Key):
			d.at(yp+".key", f+".key", "unknown zone %q (zones: %s)", z.Key, strings.Join(ChartZoneKeys, ", "))
		case dup:
			d.at(yp+".key", f+".key", "zone %q is listed twice (first at zones[%d], line %d)", z.Key, j, d.line(fmt.Sprintf("$.zones[%d].key", j)))
		default:
			first[z.Key] = i
		}
		d.required(yp+".title", f+".title", z.Title)
		d.maxLen(yp+".title", f+".title", z.Title, MaxChartTitle)
		if z.Term != "" {
			d.required(yp+".term", f+".term", z.Term)
			d.maxLen(yp+".term", f+".term", z.Term, MaxChartTitle)
			if strings.EqualFold(strings.TrimSpace(z.Term), strings.TrimSpace(z.Title)) {
				d.at(yp+".term", f+".term", "is the title again: leave it out when the tradition's term is our title")
			}
		}
		d.text(yp+".description", f+".description", z.Description, MinChartZoneWords, MaxChartZoneText)
		if _, ok := byKey[z.Key]; !ok {
			byKey[z.Key] = ChartZone{Key: z.Key, Title: strings.TrimSpace(z.Title), Term: strings.TrimSpace(z.Term), Description: strings.TrimSpace(z.Description)}
		}
	}
	var missing []string
	out := make([]ChartZone, 0, len(ChartZoneKeys))
	for _, k := range ChartZoneKeys {
		if z, ok := byKey[k]; ok {
			out = append(out, z)
		} else {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		d.problem(d.setLine("$.zones"), "zones", "%d of %d zones missing: %s", len(missing), len(ChartZoneKeys), strings.Join(missing, ", "))
	}
	return out
}

// text checks a required text: present, at least minWords words, at most maxChars characters.
func (d *doc) text(yamlPath, field, value string, minWords, maxChars int) {
	if strings.TrimSpace(value) == "" {
		d.at(yamlPath, field, "missing field")
		return
	}
	if w := len(strings.Fields(value)); w < minWords {
		d.at(yamlPath, field, "too short: %d words, want at least %d", w, minWords)
	}
	d.maxLen(yamlPath, field, strings.TrimSpace(value), maxChars)
}

// numbered checks a set of short texts keyed by number: one non-empty text of at most
// maxChars characters for each of want, and none for another number. what names a number
// in the messages ("arcanum", "month"). It returns the texts, trimmed.
func (d *doc) numbered(yamlPath, field string, texts map[int]string, want []int, what string, maxChars int) map[int]string {
	out := make(map[int]string, len(want))
	var missing []int
	for _, n := range want {
		text, ok := texts[n]
		yp, f := fmt.Sprintf("%s.%d", yamlPath, n), fmt.Sprintf("%s.%d", field, n)
		switch {
		case !ok:
			missing = append(missing, n)
		case strings.TrimSpace(text) == "":
			d.at(yp, f, "empty text")
		default:
			d.maxLen(yp, f, strings.TrimSpace(text), maxChars)
			out[n] = strings.TrimSpace(text)
		}
	}
	if len(missing) > 0 {
		d.problem(d.setLine(yamlPath), field, "no text for %s %s (want %s)", what, numberSpan(missing), numberSpan(want))
	}
	for _, n := range slices.Sorted(maps.Keys(texts)) {
		if !slices.Contains(want, n) {
			d.problem(d.entryLine(yamlPath, n), fmt.Sprintf("%s.%d", field, n), "unexpected %s %d (want %s)", what, n, numberSpan(want))
		}
	}
	return out
}

// setLine returns the line of a set of texts: its key's line for a top-level key ("$.months"),
// since a block mapping starts on the line after its key; else the line of its first entry;
// for a set that is not in the file, the line of its parent set.
func (d *doc) setLine(yamlPath string) int {
	if key, ok := strings.CutPrefix(yamlPath, "$."); ok && !strings.ContainsAny(key, ".[") {
		if line := d.keyLine(key); line > 0 {
			return line
		}
	}
	if i := strings.LastIndexByte(yamlPath, '.'); i > 1 && !d.exists(yamlPath) {
		return d.setLine(yamlPath[:i])
	}
	return d.line(yamlPath)
}

// entryLine returns the line of the key n in the mapping at yamlPath ("$.months", 10).
func (d *doc) entryLine(yamlPath string, n int) int {
	if yp, err := yaml.PathString(yamlPath); err == nil && d.file != nil {
		if m, err := yp.FilterFile(d.file); err == nil {
			if m, ok := m.(*ast.MappingNode); ok {
				for _, v := range m.Values {
					if tk := v.Key.GetToken(); tk != nil && tk.Value == strconv.Itoa(n) {
						return tk.Position.Line
					}
				}
			}
		}
	}
	return d.line(fmt.Sprintf("%s.%d", yamlPath, n))
}

// exists reports whether the file has a node at yamlPath.
func (d *doc) exists(yamlPath string) bool {
	yp, err := yaml.PathString(yamlPath)
	if err != nil || d.file == nil {
		return false
	}
	n, err := yp.FilterFile(d.file)
	return err == nil && n != nil
}

// numberSpan writes ascending numbers as runs: "1–22", "1–9, 11, 22".
func numberSpan(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprint(ns[i]))
		case j == i+1:
			parts = append(parts, fmt.Sprint(ns[i]), fmt.Sprint(ns[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", ns[i], ns[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// numbersFrom returns lo … hi.
func numbersFrom(lo, hi int) []int {
	ns := make([]int, 0, hi-lo+1)
	for n := lo; n <= hi; n++ {
		ns = append(ns, n)
	}
	return ns
}
