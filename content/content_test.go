package content

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/rules"
)

func TestEmbeddedContentLoads(t *testing.T) {
	c, err := Load(Embedded(), "content", testRules)
	if err != nil {
		t.Fatalf("built-in content does not load:\n%v", err)
	}
	if len(c.LifePaths) != 12 || len(c.Arcana) != 22 || len(c.Positions) != 12 {
		t.Fatalf("got %d life paths, %d arcana, %d positions", len(c.LifePaths), len(c.Arcana), len(c.Positions))
	}
	for i, lp := range c.LifePaths {
		if lp.Number != rules.LifePathNumbers[i] {
			t.Errorf("life path %d is number %d, want %d", i, lp.Number, rules.LifePathNumbers[i])
		}
	}
	// The contract names three arcana (docs/design.md §6).
	for n, name := range map[int]string{8: "Справедливость", 11: "Сила", 22: "Шут"} {
		if got := c.Arcana[n-1].Name; got != name {
			t.Errorf("arcanum %d is %q, want %q", n, got, name)
		}
	}
}

// fixture returns the valid test content as a MapFS, with edits applied: file → content.
func fixture(t testing.TB, edits map[string]string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS("testdata/valid"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile("testdata/valid/" + p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range edits {
		if text == "" {
			delete(m, name)
			continue
		}
		m[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return m
}

// replace returns the valid fixture file name with old replaced by new, once.
func replace(t *testing.T, name, old, new string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/valid/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	return strings.Replace(string(b), old, new, 1)
}

func TestValidFixtureLoads(t *testing.T) {
	if _, err := Load(fixture(t, nil), "content", testRules); err != nil {
		t.Fatal(err)
	}
}

func TestProblems(t *testing.T) {
	tests := []struct {
		name  string
		edits func(t *testing.T) map[string]string
		want  []string // every problem, in order
	}{
		{
			name: "unknown field",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"life-path/5.yaml": replace(t, "life-path/5.yaml", "tagline:", "motto: x\ntagline:")}
			},
			want: []string{"content/life-path/5.yaml:3: motto: unknown field"},
		},
		{
			name: "missing field",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"life-path/7.yaml": replace(t, "life-path/7.yaml", "archetype: Архетип 7\n", "")}
			},
			want: []string{"content/life-path/7.yaml:1: archetype: missing field"},
		},
		{
			name: "wrong type",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"life-path/2.yaml": replace(t, "life-path/2.yaml", "number: 2", "number: два")}
			},
			want: []string{"content/life-path/2.yaml:1: number: wrong type"},
		},
		{
			name: "wrong count of weaknesses",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"life-path/8.yaml": replace(t, "life-path/8.yaml", ", слабость4]", "]")}
			},
			want: []string{"content/life-path/8.yaml:8: weaknesses: wrong count: 3 items, want 4"},
		},
		{
			name: "famous person born under another number",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"life-path/9.yaml": replace(t, "life-path/9.yaml", "born: 1950-07-05", "born: 1990-05-15")}
			},
			want: []string{"content/life-path/9.yaml:17: famous_people[0].born: 1990-05-15 (Человек 9-0) gives life path 3, not 9"},
		},
		{
			name: "emoji that is two emoji",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "emoji: 🌸", "emoji: 🌸🌸")}
			},
			want: []string{`content/arcana.yaml:14: [2].emoji: "🌸🌸" is 2 characters, want exactly one emoji`},
		},
		{
			name: "emoji that is a letter",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "emoji: 🌸", "emoji: Ж")}
			},
			want: []string{`content/arcana.yaml:14: [2].emoji: "Ж" is not an emoji`},
		},
		{
			name: "emoji newer than unicode 13",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "emoji: 🌸", "emoji: 🫠")}
			},
			want: []string{`content/arcana.yaml:14: [2].emoji: "🫠" (U+1FAE0) is newer than Unicode 13`},
		},
		{
			name: "zwj sequence",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "emoji: 🌸", "emoji: 🐦\u200d🔥")}
			},
			want: []string{`content/arcana.yaml:14: [2].emoji: "🐦\u200d🔥" is a ZWJ sequence`},
		},
		{
			name: "emoji with tag characters",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "emoji: 🌸", "emoji: 🌸\U000E0041\U000E0042")}
			},
			want: []string{`content/arcana.yaml:14: [2].emoji: "🌸" is followed by U+E0041, want the emoji alone`},
		},
		{
			name: "emoji with a long invisible tail",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "emoji: 🌸", "emoji: 🌸"+strings.Repeat("\U000E0041", 60))}
			},
			want: []string{`content/arcana.yaml:14: [2].emoji: "🌸" is followed by 60 more code points, want one emoji of at most 3`},
		},
		{
			name: "emoji with a combining mark",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "emoji: 🌸", "emoji: 🌸\u0301")}
			},
			want: []string{`content/arcana.yaml:14: [2].emoji: "🌸" is followed by U+0301, want the emoji alone`},
		},
		{
			name: "emoji with stacked variation selectors",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "emoji: 🌸", "emoji: 🌸\uFE0F\uFE0F")}
			},
			want: []string{`content/arcana.yaml:14: [2].emoji: "🌸" carries U+FE0F twice, want the emoji alone`},
		},
		{
			name: "emoji with a zero-width non-joiner",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"arcana.yaml": replace(t, "arcana.yaml", "emoji: 🌸", "emoji: 🌸\u200C")}
			},
			want: []string{`content/arcana.yaml:14: [2].emoji: "🌸" is followed by U+200C, want the emoji alone`},
		},
		{
			name: "missing file",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"positions.yaml": ""}
			},
			want: []string{"content/positions.yaml: file is missing"},
		},
		{
			name: "unknown placeholder",
			edits: func(t *testing.T) map[string]string {
				return map[string]string{"site.yaml": replace(t, "site.yaml", "{date}.", "{day}.{date}.")}
			},
			want: []string{"content/site.yaml:17: citation_matrix: unknown placeholder {day}"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantProblems(t, tt.edits(t), tt.want) })
	}
}

// TestFamousPersonDateNamed checks the message of a person whose date gives another number.
func TestFamousPersonDateNamed(t *testing.T) {
	_, err := Load(os.DirFS("testdata/two-errors"), "content", testRules)
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Load error = %v, want Errors", err)
	}
	want := []string{
		`content/arcana.yaml:9: [1].emoji: "🌙🌙" is 2 characters, want exactly one emoji`,
		"content/life-path/3.yaml:20: famous_people[1].born: 1990-05-16 (Человек 3-1) gives life path 4, not 3",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(errs), len(want), err)
	}
	for i := range want {
		if errs[i].String() != want[i] {
			t.Errorf("problem %d:\n got %s\nwant %s", i, errs[i], want[i])
		}
	}
}

// testRules are the contract's rules, as generator.ContentRules supplies them (the generator
// imports this package, so its tests cannot import the generator).
var testRules = Rules{
	LifePathNumbers: rules.LifePathNumbers,
	PositionKeys:    rules.PositionKeys(),
	LifePath:        rules.LifePath,
	Square:          SquareRules{Counts: rules.SquareCounts(), LineKeys: rules.SquareLineKeys(), BandKeys: rules.BandKeys()},
	Cards:           CardRules{Fields: testCardFields, Drawable: cards.Drawable},
	Chart:           chartRules(),
}

// testCardFields are the fields the share cards show, as generator.CardFields lists them
// (TestCardFields there checks the list against the cards).
var testCardFields = map[string][]string{
	"site.yaml":          {"title"},
	"life-path/*.yaml":   {"archetype", "short_description"},
	"arcana.yaml":        {"[*].name", "[*].keyword"},
	"compatibility.yaml": {"pairs[*].summary"},
}

// chartRules are the chart's facts as generator.ContentRules gives them.
func chartRules() ChartRules {
	r := ChartRules{Arcana: map[string][]int{}}
	for z, arcana := range rules.ChartReadingArcana() {
		r.Arcana[rules.ChartReadingZone(z).Key()] = arcana
	}
	return r
}

func TestLoadNeedsRules(t *testing.T) {
	if _, err := Load(Embedded(), "content", Rules{}); err == nil {
		t.Error("Load without rules succeeded")
	}
}

func TestEmojiForms(t *testing.T) {
	for _, e := range []string{"🌸", "⚖️", "👍🏽", "🇷🇺"} {
		if err := checkEmoji(e); err != nil {
			t.Errorf("checkEmoji(%q) = %v, want nil", e, err)
		}
	}
}

// TestSpecialFilesRefused checks that a named pipe in place of a content file or of the
// life-path folder is refused without being opened: opening one blocks until a writer comes.
func TestSpecialFilesRefused(t *testing.T) {
	tests := []struct {
		name string
		edit func(m fstest.MapFS)
		want string
	}{
		{"pipe as a file", func(m fstest.MapFS) {
			m["life-path/3.yaml"] = &fstest.MapFile{Mode: fs.ModeNamedPipe | 0o644}
		}, "content/life-path/3.yaml: not a regular file (a named pipe)"},
		{"device as a file", func(m fstest.MapFS) {
			m["site.yaml"] = &fstest.MapFile{Mode: fs.ModeDevice | fs.ModeCharDevice | 0o644}
		}, "content/site.yaml: not a regular file (a device)"},
		{"pipe as the life-path folder", func(m fstest.MapFS) {
			for name := range m {
				if strings.HasPrefix(name, "life-path/") {
					delete(m, name)
				}
			}
			m["life-path"] = &fstest.MapFile{Mode: fs.ModeNamedPipe | 0o644}
		}, "content/life-path: not a directory (a named pipe)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fixture(t, nil)
			tt.edit(m)
			// A MapFS hands out a pipe's (empty) data when opened: only a check before
			// opening catches it.
			_, err := Load(m, "content", testRules)
			var errs Errors
			if !errors.As(err, &errs) || len(errs) != 1 || errs[0].String() != tt.want {
				t.Fatalf("Load error = %v, want the one problem %q", err, tt.want)
			}
		})
	}
}

// wantProblems loads the fixture with edits and checks that Load reports exactly the
// problems want, in order, each by its prefix.
func wantProblems(t *testing.T, edits map[string]string, want []string) {
	t.Helper()
	_, err := Load(fixture(t, edits), "content", testRules)
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Load error = %v, want Errors", err)
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(errs), len(want), err)
	}
	for i, w := range want {
		if got := errs[i].String(); !strings.HasPrefix(got, w) {
			t.Errorf("problem %d = %q, want prefix %q", i, got, w)
		}
	}
}
