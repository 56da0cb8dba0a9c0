package content

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCompatibilityLoads(t *testing.T) {
	for _, tt := range []struct {
		name string
		load func(t *testing.T) (*Content, error)
	}{
		{"fixture", func(t *testing.T) (*Content, error) { return Load(fixture(t, nil), "content", testRules) }},
		{"built-in", func(t *testing.T) (*Content, error) { return Load(Embedded(), "content", testRules) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.load(t)
			if err != nil {
				t.Fatal(err)
			}
			cp := c.Compatibility
			n := len(testRules.LifePathNumbers)
			if len(cp.Pairs) != n*(n+1)/2 {
				t.Fatalf("got %d pairs, want %d", len(cp.Pairs), n*(n+1)/2)
			}
			// Sorted by A then B, A <= B, in the rules' order: the first pair is 1/1, the
			// twelfth 1/33, the last 33/33.
			i := 0
			for x, a := range testRules.LifePathNumbers {
				for _, b := range testRules.LifePathNumbers[x:] {
					if p := cp.Pairs[i]; p.A != a || p.B != b {
						t.Errorf("pair %d is %d/%d, want %d/%d", i, p.A, p.B, a, b)
					}
					i++
				}
			}
			for _, p := range cp.Pairs {
				if _, ok := cp.Level(p.Level); !ok {
					t.Errorf("pair %d/%d has level %q, not one of the levels", p.A, p.B, p.Level)
				}
				if p.Summary == "" || p.Advice == "" || len(p.Strengths) < MinCompatItems || len(p.Challenges) < MinCompatItems {
					t.Errorf("pair %d/%d is incomplete: %+v", p.A, p.B, p)
				}
			}
		})
	}
}

// TestCompatibilityPairEitherOrder checks that a pair is found from both of its orders.
func TestCompatibilityPairEitherOrder(t *testing.T) {
	c, err := Load(fixture(t, nil), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := c.Compatibility.Pair(11, 3)
	if !ok || p.A != 3 || p.B != 11 || p.Summary != "Сводка пары 3/11." {
		t.Errorf("Pair(11, 3) = %+v, %v; want the pair 3/11", p, ok)
	}
	if q, _ := c.Compatibility.Pair(3, 11); !slices.Equal(q.Strengths, p.Strengths) || q.Summary != p.Summary {
		t.Errorf("Pair(3, 11) = %+v, want the same as Pair(11, 3)", q)
	}
	if p, ok := c.Compatibility.Pair(7, 7); !ok || p.A != 7 || p.B != 7 {
		t.Errorf("Pair(7, 7) = %+v, %v", p, ok)
	}
	for _, ab := range [][2]int{{3, 10}, {0, 0}, {33, 34}} {
		if p, ok := c.Compatibility.Pair(ab[0], ab[1]); ok {
			t.Errorf("Pair(%d, %d) = %+v, want none", ab[0], ab[1], p)
		}
	}
	if lv, ok := c.Compatibility.Level("demanding"); !ok || lv.Name != "Уровень 3" {
		t.Errorf(`Level("demanding") = %+v, %v`, lv, ok)
	}
	if _, ok := c.Compatibility.Level("perfect"); ok {
		t.Error(`Level("perfect") found`)
	}
}

// TestCompatibilityProblems covers each check of compatibility.yaml. The fixture lists the
// pairs in order, six lines each from line 6: pairs[0] (1/1) starts on line 6, pairs[1]
// (1/2) on line 12, pairs[7] (1/8) on line 48.
func TestCompatibilityProblems(t *testing.T) {
	const name = "compatibility.yaml"
	tests := []struct {
		name  string
		edits func(t *testing.T) map[string]string
		want  []string // every problem, in order
	}{
		{
			name:  "missing file",
			edits: func(t *testing.T) map[string]string { return map[string]string{name: ""} },
			want:  []string{"content/compatibility.yaml: file is missing"},
		},
		{
			name: "missing pair",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, pairText("1/8", "complementary"), "")}
			},
			want: []string{"content/compatibility.yaml:5: pairs: 1 of 78 pairs missing: 1/8"},
		},
		{
			name: "pair listed twice in the other order",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "numbers: [1, 8]", "numbers: [2, 1]")}
			},
			want: []string{
				"content/compatibility.yaml:5: pairs: 1 of 78 pairs missing: 1/8",
				"content/compatibility.yaml:48: pairs[7].numbers: pair 1/2 is listed twice (first at pairs[1], line 12)",
			},
		},
		{
			name: "same-number pair listed twice",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "numbers: [1, 8]", "numbers: [1, 1]")}
			},
			want: []string{
				"content/compatibility.yaml:5: pairs: 1 of 78 pairs missing: 1/8",
				"content/compatibility.yaml:48: pairs[7].numbers: pair 1/1 is listed twice (first at pairs[0], line 6)",
			},
		},
		{
			name: "number that is not a life path number",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "numbers: [1, 8]", "numbers: [1, 10]")}
			},
			want: []string{
				"content/compatibility.yaml:5: pairs: 1 of 78 pairs missing: 1/8",
				"content/compatibility.yaml:48: pairs[7].numbers: 10 is not a life path number (valid: 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 22, 33)",
			},
		},
		{
			name: "three numbers",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "numbers: [1, 8]", "numbers: [1, 8, 9]")}
			},
			want: []string{
				"content/compatibility.yaml:5: pairs: 1 of 78 pairs missing: 1/8",
				"content/compatibility.yaml:48: pairs[7].numbers: wrong count: 3 numbers, want 2",
			},
		},
		{
			name: "number that is not a number",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "numbers: [1, 8]", "numbers: [1, восемь]")}
			},
			want: []string{"content/compatibility.yaml:48: wrong type"},
		},
		{
			name: "unknown level",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, pairText("1/8", "complementary"), pairText("1/8", "perfect"))}
			},
			want: []string{`content/compatibility.yaml:49: pairs[7].level: unknown level "perfect" (levels: easy, complementary, demanding)`},
		},
		{
			name: "empty fields",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, pairText("1/8", "complementary"),
					"  - numbers: [1, 8]\n    level: \"\"\n    summary: \"\"\n    strengths: [сила, сила]\n    challenges: [трудность, трудность]\n    advice: \" \"\n")}
			},
			want: []string{
				"content/compatibility.yaml:49: pairs[7].level: missing field",
				"content/compatibility.yaml:50: pairs[7].summary: missing field",
				"content/compatibility.yaml:53: pairs[7].advice: missing field",
			},
		},
		{
			name: "missing fields",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, pairText("1/8", "complementary"), "  - numbers: [1, 8]\n")}
			},
			want: []string{
				"content/compatibility.yaml:48: pairs[7].advice: missing field",
				"content/compatibility.yaml:48: pairs[7].challenges: wrong count: 0 items, want 2 to 4",
				"content/compatibility.yaml:48: pairs[7].level: missing field",
				"content/compatibility.yaml:48: pairs[7].strengths: wrong count: 0 items, want 2 to 4",
				"content/compatibility.yaml:48: pairs[7].summary: missing field",
			},
		},
		{
			name: "lists too short and too long",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, pairText("1/8", "complementary"),
					"  - numbers: [1, 8]\n    level: easy\n    summary: Сводка.\n    strengths: [одна]\n    challenges: [а, б, в, г, д]\n    advice: Совет.\n")}
			},
			want: []string{
				"content/compatibility.yaml:51: pairs[7].strengths: wrong count: 1 items, want 2 to 4",
				"content/compatibility.yaml:52: pairs[7].challenges: wrong count: 5 items, want 2 to 4",
			},
		},
		{
			name: "empty list item",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "[сила 1/8-1, сила 1/8-2]", "[сила 1/8-1, \"\"]")}
			},
			want: []string{"content/compatibility.yaml:51: pairs[7].strengths[1]: empty item"},
		},
		{
			name: "too long",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "Сводка пары 1/8.", strings.Repeat("ж", maxParagraph+1))}
			},
			want: []string{"content/compatibility.yaml:50: pairs[7].summary: too long: 4001 characters, the limit is 4000"},
		},
		{
			name: "long list item",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "трудность 1/8-3", strings.Repeat("ж", maxShortText+1))}
			},
			want: []string{"content/compatibility.yaml:52: pairs[7].challenges[2]: too long: 1001 characters, the limit is 1000"},
		},
		{
			name: "bad level key, level listed twice, empty level name",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "pairs:\n",
					"  - {key: Bad-Key, name: Уровень 4, description: Описание уровня 4.}\n  - {key: easy, name: \"\", description: Описание уровня 5.}\npairs:\n")}
			},
			want: []string{
				`content/compatibility.yaml:5: levels[3].key: "Bad-Key" is not a snake_case key`,
				`content/compatibility.yaml:6: levels[4].key: "easy" is listed twice`,
				"content/compatibility.yaml:6: levels[4].name: missing field",
			},
		},
		{
			name: "too many levels",
			edits: func(t *testing.T) map[string]string {
				extra := strings.Repeat("  - {key: more, name: Ещё, description: Ещё.}\n", 3)
				return map[string]string{name: replace(t, name, "pairs:\n", strings.ReplaceAll(extra, "more", "x")+"pairs:\n")}
			},
			want: []string{
				"content/compatibility.yaml:1: levels: wrong count: 6 levels, want 2 to 5",
				`content/compatibility.yaml:6: levels[4].key: "x" is listed twice`,
				`content/compatibility.yaml:7: levels[5].key: "x" is listed twice`,
			},
		},
		{
			name: "unknown field",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "    advice: Совет паре 1/8.\n", "    advice: Совет паре 1/8.\n    score: 87\n")}
			},
			want: []string{"content/compatibility.yaml:54: score: unknown field"},
		},
		{
			name: "over the file's own size limit",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{name: replace(t, name, "Сводка пары 1/8.", strings.Repeat("ж", MaxCompatibilityBytes/2))}
			},
			want: []string{"content/compatibility.yaml:50: file is larger than 256 KiB (the limit is crossed on this line)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantProblems(t, tt.edits(t), tt.want) })
	}
}

// TestCompatibilityAllowsMoreThanOtherFiles checks that the pair texts, which share one file,
// may grow past the limit of the other files, and that the other files keep theirs.
func TestCompatibilityAllowsMoreThanOtherFiles(t *testing.T) {
	// 78 pieces of advice of a thousand two-byte letters each: about 160 KB in all.
	long := strings.Repeat("ж", maxShortText)
	b, err := os.ReadFile("testdata/valid/compatibility.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), "Совет паре ", long+" ")
	if len(text) <= MaxFileBytes {
		t.Fatalf("the test file is %d bytes, want more than %d", len(text), MaxFileBytes)
	}
	c, err := Load(fixture(t, map[string]string{"compatibility.yaml": text}), "content", testRules)
	if err != nil {
		t.Fatalf("compatibility.yaml of %d KiB refused:\n%v", len(text)>>10, err)
	}
	if p, _ := c.Compatibility.Pair(1, 8); p.Advice != long+" 1/8." {
		t.Errorf("advice of 1/8 is %d characters, want %d", len([]rune(p.Advice)), len([]rune(long+" 1/8.")))
	}
	big := strings.Repeat("ж", (MaxFileBytes+1)/2)
	_, err = Load(fixture(t, map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "Описание аркана 1.", big)}), "content", testRules)
	if err == nil || !strings.Contains(err.Error(), "arcana.yaml:5: file is larger than 64 KiB") {
		t.Errorf("arcana.yaml over %d KiB: error = %v", MaxFileBytes>>10, err)
	}
}

// pairText is the fixture's entry of the pair ab ("1/8") with level.
func pairText(ab, level string) string {
	return "  - numbers: [" + strings.Replace(ab, "/", ", ", 1) + "]\n    level: " + level +
		"\n    summary: Сводка пары " + ab + ".\n    strengths: [сила " + ab + "-1, сила " + ab +
		"-2]\n    challenges: [трудность " + ab + "-1, трудность " + ab + "-2, трудность " + ab +
		"-3]\n    advice: Совет паре " + ab + ".\n"
}

// TestCompatibilityTrimsTexts checks that a text written as a block scalar comes without
// the trailing newline YAML keeps.
func TestCompatibilityTrimsTexts(t *testing.T) {
	text := replace(t, "compatibility.yaml", "    summary: Сводка пары 1/8.\n", "    summary: |\n      Сводка пары 1/8.\n")
	text = strings.Replace(text, "[сила 1/8-1, сила 1/8-2]", "[\" сила 1/8-1 \", сила 1/8-2]", 1)
	c, err := Load(fixture(t, map[string]string{"compatibility.yaml": text}), "content", testRules)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.Compatibility.Pair(1, 8)
	if p.Summary != "Сводка пары 1/8." || p.Strengths[0] != "сила 1/8-1" {
		t.Errorf("summary %q, strengths %q: want them trimmed", p.Summary, p.Strengths)
	}
}

// FuzzCompatibility feeds arbitrary bytes to the loader as compatibility.yaml: it must
// never panic, and every problem must carry the file's name and a message.
func FuzzCompatibility(f *testing.F) {
	b, err := os.ReadFile("testdata/valid/compatibility.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("levels: [{key: a, name: b, description: c}]\npairs:\n  - numbers: [33, 1, 7]\n    level: a\n"))
	f.Add([]byte("pairs: [{numbers: [[[[1]]]]}]\n"))
	f.Add([]byte(aliasBomb()))
	f.Fuzz(func(t *testing.T, b []byte) {
		l := &loader{fsys: fstest.MapFS{CompatibilityFile: {Data: b}}, label: "content", rules: testRules}
		c := l.loadCompatibility()
		for _, p := range l.problems {
			if p.File != "content/compatibility.yaml" || p.Message == "" {
				t.Fatalf("problem without the file or a message: %+v", p)
			}
		}
		if len(l.problems) == 0 && len(c.Pairs) != 78 {
			t.Fatalf("no problem reported, but %d pairs", len(c.Pairs))
		}
	})
}
