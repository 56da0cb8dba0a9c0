package content

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/opennumerology/numerology/generator/rules"
)

// TestEmbeddedSquare checks the built-in square texts against the tradition's names.
func TestEmbeddedSquare(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	cells := []string{"Характер", "Энергия", "Интерес", "Здоровье", "Логика", "Трудолюбие", "Удача", "Долг", "Память"}
	if len(c.Square.Cells) != len(cells) {
		t.Fatalf("%d cells, want %d", len(c.Square.Cells), len(cells))
	}
	for i, want := range cells {
		if got := c.Square.Cells[i].Name; got != want {
			t.Errorf("cell %d is %q, want %q", i+1, got, want)
		}
	}
	lines := []string{"Цель", "Семья", "Привычки", "Самооценка", "Быт", "Талант", "Духовность", "Темперамент"}
	if len(c.Square.Lines) != len(lines) {
		t.Fatalf("%d lines, want %d", len(c.Square.Lines), len(lines))
	}
	for i, want := range lines {
		if got := c.Square.Lines[i].Name; got != want {
			t.Errorf("line %s is %q, want %q", rules.SquareLine(i).Key(), got, want)
		}
	}
}

func TestSquareProblems(t *testing.T) {
	tests := []struct {
		name  string
		edits func(t *testing.T) map[string]string
		want  []string // every problem, in order
	}{
		{
			name: "missing count",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "      7: \"клетка 1, счёт 7\"\n", "")}
			},
			want: []string{"content/square.yaml:7: cells[0].readings: no reading for count 7 (cell 1 takes counts 0–9 in the range)"},
		},
		{
			name: "count that never occurs",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "      7: \"клетка 2, счёт 7\"\n", "      7: \"клетка 2, счёт 7\"\n      8: \"восемь двоек\"\n")}
			},
			want: []string{"content/square.yaml:29: cells[1].readings.8: count 8 never occurs in cell 2 (it takes counts 0–7 in the range)"},
		},
		{
			name: "every problem at once, sorted",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "square.yaml", "  - key: talent\n", "  - key: talents\n")
				s = strings.Replace(s, "      6: \"клетка 9, счёт 6\"\n", "", 1)
				s = strings.Replace(s, "      0: \"клетка 2, счёт 0\"\n", "", 1)
				s = strings.Replace(s, "      5: \"клетка 2, счёт 5\"\n", "", 1)
				s = strings.Replace(s, "      high: \"линия family, high\"\n", "", 1)
				return map[string]string{"square.yaml": s}
			},
			want: []string{
				"content/square.yaml:21: cells[1].readings: no reading for count 0 (cell 2 takes counts 0–7 in the range)",
				"content/square.yaml:21: cells[1].readings: no reading for count 5 (cell 2 takes counts 0–7 in the range)",
				"content/square.yaml:92: cells[8].readings: no reading for count 6 (cell 9 takes counts 0–6 in the range)",
				"content/square.yaml:110: lines[1].readings: no reading for band high",
				`content/square.yaml:133: lines[5].key: is "talents", want "talent"`,
			},
		},
		{
			name: "empty reading",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "\"клетка 1, счёт 7\"", "\" \"")}
			},
			want: []string{"content/square.yaml:14: cells[0].readings.7: empty reading"},
		},
		{
			name: "reading too long for a record",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "клетка 1, счёт 7", strings.Repeat("ж", 49))}
			},
			want: []string{"content/square.yaml:14: cells[0].readings.7: too long: 49 characters, the limit is 48"},
		},
		{
			name: "cells out of order",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "  - cell: 2\n", "  - cell: 3\n")}
			},
			want: []string{"content/square.yaml:17: cells[1].cell: is 3, want 2 (cells are listed 1–9 in order)"},
		},
		{
			name: "a cell missing",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "square.yaml", "lines:\n", "lines:\n")
				start, end := strings.Index(s, "  - cell: 9\n"), strings.Index(s, "lines:\n")
				return map[string]string{"square.yaml": s[:start] + s[end:]}
			},
			want: []string{"content/square.yaml:3: cells: wrong count: 8 cells, want 9"},
		},
		{
			name: "unknown band",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "      low: \"линия habits, low\"\n", "      low: \"линия habits, low\"\n      extreme: \"линия habits, extreme\"\n")}
			},
			want: []string{"content/square.yaml:121: lines[2].readings.extreme: unknown band (want low, medium, high)"},
		},
		{
			name: "short description",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "description: \"описание описание", "description: \"короткое описание\" # \"описание")}
			},
			want: []string{"content/square.yaml:5: cells[0].description: too short: 2 words, want at least 80"},
		},
		{
			name: "missing name",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "    name: Линия purpose\n", "")}
			},
			want: []string{"content/square.yaml:102: lines[0].name: missing field"},
		},
		{
			name: "duplicate count",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "      7: \"клетка 1, счёт 7\"\n", "      7: \"клетка 1, счёт 7\"\n      7: \"ещё раз\"\n")}
			},
			want: []string{`content/square.yaml:15: mapping key "7" already defined`},
		},
		{
			name: "count that is not a number",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": replace(t, "square.yaml", "      7: \"клетка 1, счёт 7\"\n", "      семь: \"клетка 1, счёт 7\"\n")}
			},
			want: []string{"content/square.yaml:14: wrong type: cannot unmarshal string"},
		},
		{
			name: "missing file",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"square.yaml": ""}
			},
			want: []string{"content/square.yaml: file is missing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantProblems(t, tt.edits(t), tt.want) })
	}
}

// TestSquareCountsComeFromRules checks that the loader takes the counts from the rules it
// is given, not from a list of its own: one more count is missing, one fewer is refused.
func TestSquareCountsComeFromRules(t *testing.T) {
	r := testRules
	r.Square.Counts[0] = append(append([]int(nil), r.Square.Counts[0]...), 10)
	r.Square.Counts[8] = r.Square.Counts[8][:len(r.Square.Counts[8])-1]
	_, err := Load(fixture(t, nil), "content", r)
	want := []string{
		"content/square.yaml:7: cells[0].readings: no reading for count 10 (cell 1 takes counts 0–10 in the range)",
		"content/square.yaml:100: cells[8].readings.6: count 6 never occurs in cell 9 (it takes counts 0–5 in the range)",
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
	r.Square = SquareRules{}
	if _, err := Load(fixture(t, nil), "content", r); err == nil || errors.As(err, &errs) {
		t.Errorf("Load without the square's rules = %v, want an incomplete-rules error", err)
	}
}

// squareRecords returns a function that renders a plausible square record of a date, as
// the route will carry it (docs/design.md §14): input, the working numbers, the nine cells
// with digits, count, name and short reading, the eight lines with name, cells and sum, then
// tail, the record's closing fields as a JSON object. Cells and lines are encoded once per
// count and sum, so rendering every date of the range stays cheap.
func squareRecords(sq *Square) func(day, month, year int, tail string) []byte {
	type cell struct {
		Digits  string `json:"digits"`
		Count   int    `json:"count"`
		Name    string `json:"name"`
		Reading string `json:"reading"`
	}
	type line struct {
		Name  string `json:"name"`
		Cells [3]int `json:"cells"`
		Sum   int    `json:"sum"`
	}
	encode := func(v any) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	cells, lines := map[[2]int]string{}, map[[2]int]string{}
	return func(day, month, year int, tail string) []byte {
		s := rules.ComputeSquare(day, month, year)
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"input":{"day":%d,"month":%d,"year":%d},"working_numbers":[%d,%d,%d,%d],"cells":{`,
			day, month, year, s.Working[0], s.Working[1], s.Working[2], s.Working[3])
		for c := 1; c <= 9; c++ {
			k := [2]int{c, s.Counts[c-1]}
			if _, ok := cells[k]; !ok {
				sc := &sq.Cells[c-1]
				cells[k] = strconv.Quote(strconv.Itoa(c)) + ":" + encode(cell{s.Digits(c), s.Counts[c-1], sc.Name, sc.Readings[s.Counts[c-1]]})
			}
			if c > 1 {
				b.WriteByte(',')
			}
			b.WriteString(cells[k])
		}
		b.WriteString(`},"lines":{`)
		for l := range rules.NumSquareLines {
			k := [2]int{l, s.Lines[l]}
			if _, ok := lines[k]; !ok {
				sl := rules.SquareLine(l)
				lines[k] = strconv.Quote(sl.Key()) + ":" + encode(line{sq.Lines[l].Name, sl.Cells(), s.Lines[l]})
			}
			if l > 0 {
				b.WriteByte(',')
			}
			b.WriteString(lines[k])
		}
		b.WriteString("}," + strings.TrimPrefix(tail, "{"))
		return b.Bytes()
	}
}

// squareTail renders the closing fields of a record from site.yaml, as the generator fills
// them: source_url and the attribution fields every record has (about 600 bytes) and, when
// full, the suggested citation and details URL the matrix record also carries.
func squareTail(t *testing.T, site *Site, full bool) string {
	t.Helper()
	const licenseURL = "https://creativecommons.org/licenses/by/4.0/"
	fill := strings.NewReplacer("{title}", site.Title, "{publisher}", site.Publisher, "{site_url}", site.SiteURL,
		"{license_name}", site.LicenseName, "{license_url}", licenseURL).Replace
	details := site.SiteURL + "/square/details?date=2000-12-31"
	fields := []struct{ key, value string }{}
	if full {
		citation := strings.NewReplacer("Матрица судьбы", "Квадрат Пифагора", "{date}", "31.12.2000", "{version}", "1.0", "{url}", details).
			Replace(fill(site.CitationMatrix))
		fields = append(fields, struct{ key, value string }{"suggested_citation", citation})
	}
	fields = append(fields, struct{ key, value string }{"source_url", site.SiteURL + "/square"})
	if full {
		fields = append(fields, struct{ key, value string }{"details_url", details})
	}
	fields = append(fields, []struct{ key, value string }{
		{"license", "CC-BY 4.0"}, {"license_url", licenseURL}, {"attribution", fill(site.Attribution)},
		{"attribution_html", `<a href="` + site.SiteURL + `" rel="nofollow noopener">` + fill(site.AttributionLinkText) + `</a>`},
		{"api_version", "1.0"},
	}...)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", f.key)
		if err := enc.Encode(f.value); err != nil {
			t.Fatal(err)
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.String()
}

// MaxSquareRecordBytes is the size goal for one square record (2.5 KB).
const MaxSquareRecordBytes = 2500

// TestSquareRecordSize renders the record of every date of the range with the built-in
// texts and checks the largest against the 2.5 KB goal. The route and its record type come
// later (issue 17); this keeps the short readings short enough for them now. It logs the
// size with the matrix record's closing fields as well (a citation and a details URL),
// which the route's design has to budget for.
func TestSquareRecordSize(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	tail, full := squareTail(t, &c.Site, false), squareTail(t, &c.Site, true)
	t.Logf("closing fields: %d bytes; with a citation and a details URL: %d bytes", len(tail), len(full))
	record := squareRecords(&c.Square)
	worst, worstFull, worstDate := 0, 0, ""
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= rules.DaysIn(m, y); d++ {
				b := record(d, m, y, tail)
				if len(b) > worst {
					worst, worstDate = len(b), fmt.Sprintf("%02d.%02d.%04d", d, m, y)
				}
				worstFull = max(worstFull, len(b)-len(tail)+len(full))
			}
		}
	}
	var v map[string]any
	if err := json.Unmarshal(record(15, 5, 1990, tail), &v); err != nil {
		t.Fatalf("the record is not JSON: %v", err)
	}
	t.Logf("largest record: %d bytes (%s); with a citation and a details URL: %d bytes", worst, worstDate, worstFull)
	if worst > MaxSquareRecordBytes {
		t.Errorf("the largest record (%s) is %d bytes, over the goal of %d", worstDate, worst, MaxSquareRecordBytes)
	}
}

// TestSquareTextsVary keeps the square's texts from a template, as TestTextsVaryTheirOpenings
// does for the others: no opening word (its first three letters) starts more than a third of
// the texts of one kind, and no text repeats another word for word.
func TestSquareTextsVary(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string][]string{}
	for _, cell := range c.Square.Cells {
		kinds["cell description"] = append(kinds["cell description"], cell.Description)
		for _, n := range slices.Sorted(maps.Keys(cell.Readings)) {
			kinds["cell reading"] = append(kinds["cell reading"], cell.Readings[n])
		}
	}
	for _, line := range c.Square.Lines {
		kinds["line description"] = append(kinds["line description"], line.Description)
		for b, text := range line.Readings {
			kinds["line reading "+b] = append(kinds["line reading "+b], text)
		}
	}
	seen := map[string]bool{}
	for kind, texts := range kinds {
		count := map[string]int{}
		for _, text := range texts {
			count[opening(text)]++
			if seen[text] {
				t.Errorf("%s %q appears twice", kind, text)
			}
			seen[text] = true
		}
		limit := (len(texts) + 2) / 3
		for o, n := range count {
			if n > limit {
				t.Errorf("%d of %d texts of kind %q open with %q…, want at most %d", n, len(texts), kind, o, limit)
			}
		}
	}
}

// TestSquareTextsStayTendencies guards the tone of the square's texts: they describe
// tendencies, so no word of a diagnosis, a cure, a fortune or a fate is allowed in them.
func TestSquareTextsStayTendencies(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, cell := range c.Square.Cells {
		texts = append(texts, cell.Description)
		texts = slices.AppendSeq(texts, maps.Values(cell.Readings))
	}
	for _, line := range c.Square.Lines {
		texts = append(texts, line.Description)
		texts = slices.AppendSeq(texts, maps.Values(line.Readings))
	}
	banned := []string{"болезн", "болеет", "диагноз", "лечен", "лечит", "заболева", "иммунитет",
		"богатств", "разбогате", "нищет", "бедност", "судьба", "обречён", "предначертан", "неизбежно"}
	for _, text := range texts {
		words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) })
		for _, word := range words {
			for _, w := range banned {
				if strings.HasPrefix(word, w) {
					t.Errorf("%q says %q: a square text describes a tendency, not health, money or fate", text, word)
				}
			}
		}
	}
}
