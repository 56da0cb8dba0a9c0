package content

import (
	"errors"
	"maps"
	"slices"
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
