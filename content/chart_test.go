package content

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEmbeddedChart checks the built-in chart texts: every zone in order, the 60 readings,
// and the chakra map's caveat said once, where the map is described.
func TestEmbeddedChart(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	ch := c.Chart
	keys := make([]string, len(ch.Zones))
	for i, z := range ch.Zones {
		keys[i] = z.Key
		if z.Title == "" || z.Description == "" {
			t.Errorf("zone %s has an empty title or description", z.Key)
		}
	}
	if !slices.Equal(keys, ChartZoneKeys) {
		t.Fatalf("zones %v, want %v", keys, ChartZoneKeys)
	}
	// A reading for each arcanum a zone holds over the range (3–22), and no other.
	n := 0
	for _, key := range ChartReadingKeys {
		for a := 1; a <= NumArcana; a++ {
			r, ok := ch.Readings[key][a]
			if a <= 2 {
				if ok {
					t.Errorf("reading %s/%d: no date holds arcanum %d there", key, a, a)
				}
				continue
			}
			if r == "" || utf8.RuneCountInString(r) > MaxChartReading {
				t.Errorf("reading %s/%d is empty or too long: %q", key, a, r)
			}
			n++
		}
	}
	if n != 60 {
		t.Errorf("%d readings, want 60", n)
	}
	// The chakra texts say once, in the map's own description, that this is not medicine,
	// and no chakra text reads like a diagnosis.
	chakraTexts := []string{"chakras", "sahasrara", "ajna", "vishuddha", "anahata", "manipura", "svadhisthana", "muladhara", "physical", "energy", "emotions", "chakra_totals"}
	var saysIt []string
	for _, key := range chakraTexts {
		z, ok := ch.Zone(key)
		if !ok {
			t.Fatalf("no zone %s", key)
		}
		text := strings.ToLower(z.Description)
		if strings.Contains(text, "не медицина") {
			saysIt = append(saysIt, key)
		}
		for _, w := range []string{"диагноз", "лечени", "лечит", "орган", "заболеван", "симптом"} {
			if strings.Contains(text, w) {
				t.Errorf("zone %s speaks of %q", key, w)
			}
		}
	}
	if !slices.Equal(saysIt, []string{"chakras"}) {
		t.Errorf("«не медицина» is said in %v, want once, in chakras", saysIt)
	}
	if z, _ := ch.Zone("A"); z.Title != c.Positions[0].Title {
		t.Errorf("point A is %q, but the position personal (A) is %q", z.Title, c.Positions[0].Title)
	}
}

// TestChartTextsStyle keeps the chart's texts to the house typography and from a template.
func TestChartTextsStyle(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string][]string{"intro": {c.Chart.Intro}}
	for _, z := range c.Chart.Zones {
		sets["zone title"] = append(sets["zone title"], z.Title)
		sets["zone description"] = append(sets["zone description"], z.Description)
		if z.Term != "" {
			sets["zone term"] = append(sets["zone term"], z.Term)
		}
	}
	for _, key := range ChartReadingKeys {
		for a := 1; a <= NumArcana; a++ {
			sets["reading "+key] = append(sets["reading "+key], c.Chart.Readings[key][a])
		}
	}
	checkStyle(t, sets, "zone title", "zone term")
}

// checkStyle checks every text of sets against the typography of the existing content
// («», spaced em dashes, ё), and that no opening word (its first three letters) begins more
// than a few texts of one set: three in a set of up to twelve, four in a larger one. The sets
// named in noOpenings (titles, terms) are exempt from the openings count.
func checkStyle(t *testing.T, sets map[string][]string, noOpenings ...string) {
	t.Helper()
	for name, texts := range sets {
		for _, text := range texts {
			if msg := typographyProblem(text); msg != "" {
				t.Errorf("%s: %s in %q", name, msg, text)
			}
		}
		if slices.Contains(noOpenings, name) {
			continue
		}
		limit := 3
		if len(texts) > 12 {
			limit = 4
		}
		count := map[string]int{}
		for _, text := range texts {
			count[opening(text)]++
		}
		for o, n := range count {
			if n > limit {
				t.Errorf("%d of %d texts of %s open with %q…, want at most %d", n, len(texts), name, o, limit)
			}
		}
	}
}

var (
	// A dash between words must be an em dash with a space on each side.
	badDashRe = regexp.MustCompile(`\s[-–]\s|--|\S—|—[^\s.,;:!?»)]`)
	// Common words the house spells with ё.
	noYoRe = regexp.MustCompile(`(?i)(^|[^а-яё])(ее|еще|идет|дает|растет|ведет|зовет|несет|четверк|пятерк|шестерк|семерк|восьмерк)`)
)

// typographyProblem names the first typographic fault of text, or "".
func typographyProblem(text string) string {
	switch {
	case strings.ContainsAny(text, "\"'„“”"):
		return "straight or English quotes (want «»)"
	case strings.Contains(text, "..."):
		return "three dots (want …)"
	case badDashRe.MatchString(text):
		return "a dash that is not a spaced em dash"
	case noYoRe.MatchString(text):
		return "е where the house writes ё (" + strings.TrimSpace(noYoRe.FindString(text)) + ")"
	case strings.Contains(text, "  "):
		return "a double space"
	}
	return ""
}

func TestTypographyProblem(t *testing.T) {
	for text, want := range map[string]string{
		"Точка — «визитная карточка».":  "",
		"Сумма двух — и всё.":           "",
		"Сумма двух - и всё.":           "a dash that is not a spaced em dash",
		"Сумма двух— и всё.":            "a dash that is not a spaced em dash",
		"Точка \"визитная карточка\".":  "straight or English quotes (want «»)",
		"Все ее арканы.":                "е where the house writes ё (ее)",
		"Четверка как испытание.":       "е where the house writes ё (Четверк)",
		"Перемены… и ещё раз перемены.": "",
	} {
		if got := typographyProblem(text); got != want {
			t.Errorf("typographyProblem(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestChartProblems(t *testing.T) {
	tests := []struct {
		name  string
		edits func(t *testing.T) map[string]string
		want  []string // every problem, in order
	}{
		{
			name: "unknown top-level field",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"chart.yaml": replace(t, "chart.yaml", "intro:", "preface: x\nintro:")}
			},
			want: []string{"content/chart.yaml:2: preface: unknown field"},
		},
		{
			name: "unknown field in a zone",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"chart.yaml": replace(t, "chart.yaml", "    term: термин E\n", "    name: термин E\n")}
			},
			want: []string{"content/chart.yaml:22: name: unknown field"},
		},
		{
			name: "unknown set of readings",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"chart.yaml": replace(t, "chart.yaml", "  love:\n", "  luck:\n")}
			},
			want: []string{"content/chart.yaml:198: luck: unknown field"},
		},
		{
			name: "zone missing",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"chart.yaml": replace(t, "chart.yaml", "  - key: age_line\n    title: Зона age_line\n    term: термин age_line\n    description: \""+strings.Repeat("описание ", 19)+"описание\"\n", "")}
			},
			want: []string{"content/chart.yaml:3: zones: 1 of 43 zones missing: age_line"},
		},
		{
			name: "unknown zone",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"chart.yaml": replace(t, "chart.yaml", "  - key: balance\n", "  - key: balanse\n")}
			},
			want: []string{
				"content/chart.yaml:3: zones: 1 of 43 zones missing: balance",
				`content/chart.yaml:56: zones[13].key: unknown zone "balanse" (zones: A, B, C`,
			},
		},
		{
			name: "zone twice",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"chart.yaml": replace(t, "chart.yaml", "  - key: balance\n", "  - key: money\n")}
			},
			want: []string{
				"content/chart.yaml:3: zones: 1 of 43 zones missing: balance",
				`content/chart.yaml:60: zones[14].key: zone "money" is listed twice (first at zones[13], line 56)`,
			},
		},
		{
			name: "term that repeats the title",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"chart.yaml": replace(t, "chart.yaml", "    term: термин C\n", "    term: зона c\n")}
			},
			want: []string{"content/chart.yaml:14: zones[2].term: is the title again"},
		},
		{
			name: "zone without a title, and a short description",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "chart.yaml", "    title: Зона D\n", "")
				return map[string]string{"chart.yaml": strings.Replace(s, "  - key: E\n    title: Зона E\n    term: термин E\n    description: \""+strings.Repeat("описание ", 19), "  - key: E\n    title: Зона E\n    term: термин E\n    description: \""+strings.Repeat("описание ", 10), 1)}
			},
			want: []string{
				"content/chart.yaml:16: zones[3].title: missing field",
				"content/chart.yaml:22: zones[4].description: too short: 11 words, want at least 20",
			},
		},
		{
			name: "reading missing, and a reading for arcanum 23",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "chart.yaml", "    7: \"love, аркан 7\"\n", "")
				return map[string]string{"chart.yaml": strings.Replace(s, "    22: \"money, аркан 22\"\n", "    22: \"money, аркан 22\"\n    23: \"money, аркан 23\"\n", 1)}
			},
			want: []string{
				"content/chart.yaml:198: readings.money.23: 23 is not an arcanum (the zone holds 3–22 over the range)",
				"content/chart.yaml:200: readings.love: no reading for arcanum 7 (the zone holds 3–22 over the range)",
			},
		},
		{
			name: "dead readings: arcana no date holds in the zone",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "chart.yaml", "  money:\n", "  money:\n    1: \"money, аркан 1\"\n")
				return map[string]string{"chart.yaml": strings.Replace(s, "  karmic_tail:\n", "  karmic_tail:\n    2: \"karmic_tail, аркан 2\"\n", 1)}
			},
			want: []string{
				"content/chart.yaml:178: readings.money.1: arcanum 1 never occurs in this zone (it holds 3–22 over the range)",
				"content/chart.yaml:221: readings.karmic_tail.2: arcanum 2 never occurs in this zone (it holds 3–22 over the range)",
			},
		},
		{
			name: "a whole set of readings missing",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "chart.yaml", "  karmic_tail:\n", "")
				for a := 3; a <= NumArcana; a++ {
					s = strings.Replace(s, "    "+strconv.Itoa(a)+": \"karmic_tail, аркан "+strconv.Itoa(a)+"\"\n", "", 1)
				}
				return map[string]string{"chart.yaml": s}
			},
			want: []string{"content/chart.yaml:176: readings.karmic_tail: no reading for arcanum 3–22 (the zone holds 3–22 over the range)"},
		},
		{
			name: "empty and overlong readings",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "chart.yaml", "\"love, аркан 3\"", "\" \"")
				return map[string]string{"chart.yaml": strings.Replace(s, "karmic_tail, аркан 9", strings.Repeat("ж", MaxChartReading+1), 1)}
			},
			want: []string{
				"content/chart.yaml:199: readings.love.3: empty text",
				"content/chart.yaml:226: readings.karmic_tail.9: too long: 301 characters, the limit is 300",
			},
		},
		{
			name: "missing file",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"chart.yaml": ""}
			},
			want: []string{"content/chart.yaml: file is missing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantProblems(t, tt.edits(t), tt.want) })
	}
}

// TestChartArcanaComeFromRules checks that the loader takes each reading zone's arcana from
// the rules it is given, not from a list of its own: one more arcanum is missing, one fewer
// is refused as dead text; and that it refuses rules without them.
func TestChartArcanaComeFromRules(t *testing.T) {
	r := testRules
	r.Chart = chartRules()
	r.Chart.Arcana["love"] = append([]int{2}, r.Chart.Arcana["love"]...)
	r.Chart.Arcana["karmic_tail"] = r.Chart.Arcana["karmic_tail"][1:]
	_, err := Load(fixture(t, nil), "content", r)
	want := []string{
		"content/chart.yaml:199: readings.love: no reading for arcanum 2 (the zone holds 2–22 over the range)",
		"content/chart.yaml:220: readings.karmic_tail.3: arcanum 3 never occurs in this zone (it holds 4–22 over the range)",
	}
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != len(want) {
		t.Fatalf("Load error = %v, want %d problems", err, len(want))
	}
	for i := range want {
		if errs[i].String() != want[i] {
			t.Errorf("problem %d:\n got %s\nwant %s", i, errs[i], want[i])
		}
	}
	r.Chart = ChartRules{Arcana: map[string][]int{"money": {3}, "love": {3}}}
	if _, err := Load(fixture(t, nil), "content", r); err == nil || errors.As(err, &errs) {
		t.Errorf("Load without the arcana of the karmic tail = %v, want an incomplete-rules error", err)
	}
}

func TestNumberSpan(t *testing.T) {
	for _, tt := range []struct {
		in   []int
		want string
	}{
		{numbersFrom(1, 22), "1–22"},
		{PinnacleNumbers, "1–9, 11, 22"},
		{[]int{0, 1, 3}, "0, 1, 3"},
		{[]int{7}, "7"},
		{nil, ""},
	} {
		if got := numberSpan(tt.in); got != tt.want {
			t.Errorf("numberSpan(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
