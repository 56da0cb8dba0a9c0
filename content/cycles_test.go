package content

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEmbeddedCycles checks the built-in cycle texts: every number of every set, the short
// texts within what a record carries, and the intro saying what the numbers are.
func TestEmbeddedCycles(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	cy := c.Cycles
	for name, got := range map[string][]int{
		"years": slices.Sorted(maps.Keys(cy.Years)), "months": slices.Sorted(maps.Keys(cy.Months)),
		"days": slices.Sorted(maps.Keys(cy.Days)), "pinnacles": slices.Sorted(maps.Keys(cy.Pinnacles)),
		"challenges": slices.Sorted(maps.Keys(cy.Challenges)),
	} {
		want := map[string][]int{"pinnacles": PinnacleNumbers, "challenges": ChallengeNumbers}[name]
		if want == nil {
			want = CycleNumbers
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: numbers %v, want %v", name, got, want)
		}
	}
	shorts := map[string]string{}
	for n, y := range cy.Years {
		shorts["year "+numberSpan([]int{n})] = y.Short
	}
	for n, p := range cy.Pinnacles {
		shorts["pinnacle "+numberSpan([]int{n})] = p.Short
	}
	for n, ch := range cy.Challenges {
		shorts["challenge "+numberSpan([]int{n})] = ch.Short
	}
	for name, s := range shorts {
		if s == "" || utf8.RuneCountInString(s) > MaxCycleShort {
			t.Errorf("%s: short text empty or over %d characters: %q", name, MaxCycleShort, s)
		}
		// One sentence: a record carries it as a line of its own.
		if strings.Count(strings.TrimSuffix(s, "."), ". ") > 0 {
			t.Errorf("%s: short text is more than one sentence: %q", name, s)
		}
	}
	if !strings.Contains(cy.Intro, "склонности") || !strings.Contains(cy.Intro, "не события") {
		t.Errorf("the intro does not say that the numbers are tendencies, not events: %q", cy.Intro)
	}
	// The tradition gives the challenge 0 a meaning of its own: the challenge of choice.
	if !strings.Contains(cy.Challenges[0].Short, "выбор") {
		t.Errorf("challenge 0 is not the challenge of choice: %q", cy.Challenges[0].Short)
	}
}

// TestCyclesTextsStyle keeps the cycle texts to the house typography and from a template.
func TestCyclesTextsStyle(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	cy := c.Cycles
	sets := map[string][]string{"intro": {cy.Intro}}
	for _, n := range CycleNumbers {
		y := cy.Years[n]
		sets["year title"] = append(sets["year title"], y.Title)
		sets["year short"] = append(sets["year short"], y.Short)
		sets["year purpose"] = append(sets["year purpose"], y.Purpose)
		sets["year helps"] = append(sets["year helps"], y.Helps)
		sets["year avoid"] = append(sets["year avoid"], y.Avoid)
		sets["month"] = append(sets["month"], cy.Months[n])
		sets["day"] = append(sets["day"], cy.Days[n])
	}
	for _, n := range PinnacleNumbers {
		sets["pinnacle short"] = append(sets["pinnacle short"], cy.Pinnacles[n].Short)
		sets["pinnacle description"] = append(sets["pinnacle description"], cy.Pinnacles[n].Description)
	}
	for _, n := range ChallengeNumbers {
		sets["challenge short"] = append(sets["challenge short"], cy.Challenges[n].Short)
		sets["challenge description"] = append(sets["challenge description"], cy.Challenges[n].Description)
	}
	// The years' titles name the year on purpose («Год начал», «Год перемен»…).
	checkStyle(t, sets, "year title")
}

func TestCyclesProblems(t *testing.T) {
	tests := []struct {
		name  string
		edits func(t *testing.T) map[string]string
		want  []string // every problem, in order
	}{
		{
			name: "unknown field in a year",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"cycles.yaml": replace(t, "cycles.yaml", "    title: Год 4\n", "    title: Год 4\n    motto: x\n")}
			},
			want: []string{"content/cycles.yaml:24: motto: unknown field"},
		},
		{
			name: "year missing, and a year 10",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "cycles.yaml", "  5:\n    title: Год 5\n", "  10:\n    title: Год 10\n")
				return map[string]string{"cycles.yaml": s}
			},
			want: []string{
				"content/cycles.yaml:3: years: no text for personal year 5 (want 1–9)",
				"content/cycles.yaml:28: years.10: unexpected personal year 10 (want 1–9)",
			},
		},
		{
			name: "short text too long for a record",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"cycles.yaml": replace(t, "cycles.yaml", "год 3, коротко", strings.Repeat("ж", MaxCycleShort+1))}
			},
			want: []string{"content/cycles.yaml:18: years.3.short: too long: 161 characters, the limit is 160"},
		},
		{
			name: "empty and short year texts",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "cycles.yaml", "    title: Год 2\n", "    title: \"\"\n")
				s = strings.Replace(s, "    avoid: \""+strings.Repeat("избегать ", 11)+"избегать\"\n  3:", "    avoid: \"избегать\"\n  3:", 1)
				return map[string]string{"cycles.yaml": s}
			},
			want: []string{
				"content/cycles.yaml:11: years.2.title: missing field",
				"content/cycles.yaml:15: years.2.avoid: too short: 1 words, want at least 12",
			},
		},
		{
			name: "month empty, day missing",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "cycles.yaml", "  4: \"months 4\"\n", "  4: \" \"\n")
				return map[string]string{"cycles.yaml": strings.Replace(s, "  8: \"days 8\"\n", "", 1)}
			},
			want: []string{
				"content/cycles.yaml:62: months.4: empty text",
				"content/cycles.yaml:68: days: no text for personal day 8 (want 1–9)",
			},
		},
		{
			name: "pinnacle 10 in place of 11, challenge 0 missing",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "cycles.yaml", "  11:\n    short: \"pinnacles 11", "  10:\n    short: \"pinnacles 11")
				return map[string]string{"cycles.yaml": strings.Replace(s, "  0:\n    short: \"challenges 0, коротко\"\n    description: \""+strings.Repeat("описание ", 29)+"описание\"\n", "", 1)}
			},
			want: []string{
				"content/cycles.yaml:78: pinnacles: no text for pinnacle 11 (want 1–9, 11, 22)",
				"content/cycles.yaml:106: pinnacles.10: unexpected pinnacle 10 (want 1–9, 11, 22)",
				"content/cycles.yaml:112: challenges: no text for challenge 0 (want 0–8)",
			},
		},
		{
			name: "a challenge without its short text",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"cycles.yaml": replace(t, "cycles.yaml", "    short: \"challenges 6, коротко\"\n", "")}
			},
			want: []string{"content/cycles.yaml:132: challenges.6.short: missing field"},
		},
		{
			name: "every problem at once, sorted",
			edits: func(t *testing.T) map[string]string {
				s := replace(t, "cycles.yaml", "intro: \""+strings.Repeat("вступление ", 19)+"вступление\"\n", "intro: \"\"\n")
				s = strings.Replace(s, "  9: \"months 9\"\n", "  9: \"months 9\"\n  0: \"months 0\"\n", 1)
				s = strings.Replace(s, "год 7, коротко", strings.Repeat("ж", 200), 1)
				return map[string]string{
					"cycles.yaml": s,
					"chart.yaml":  replace(t, "chart.yaml", "\"money, аркан 3\"", "\"\""),
				}
			},
			want: []string{
				"content/chart.yaml:178: readings.money.3: empty text",
				"content/cycles.yaml:2: intro: missing field",
				"content/cycles.yaml:42: years.7.short: too long: 200 characters",
				"content/cycles.yaml:68: months.0: unexpected personal month 0 (want 1–9)",
			},
		},
		{
			name: "missing file",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"cycles.yaml": ""}
			},
			want: []string{"content/cycles.yaml: file is missing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantProblems(t, tt.edits(t), tt.want) })
	}
}
