package content

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// CompatibilityFile is the file of the pair texts: the levels and one entry per unordered
// pair of life path numbers.
const CompatibilityFile = "compatibility.yaml"

// Bounds of a pair's lists and of the set of levels.
const (
	MinCompatItems  = 2 // strengths and challenges
	MaxCompatItems  = 4
	MinCompatLevels = 2 // a small closed set of words, never a score
	MaxCompatLevels = 5
)

// Compatibility is the content of compatibility.yaml.
type Compatibility struct {
	Levels []CompatLevel // in file order
	Pairs  []CompatPair  // every unordered pair of Rules.LifePathNumbers once, sorted by A then B
}

// CompatLevel is one word of the closed set a pair's level is chosen from.
type CompatLevel struct {
	Key         string `yaml:"key"` // snake_case, used as the level of a pair
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// CompatPair is the text of one unordered pair of life path numbers. The loader trims the
// texts, so a block scalar (|) in the file leaves no trailing newline here.
type CompatPair struct {
	A, B       int    // A <= B
	Level      string // a CompatLevel key
	Summary    string
	Strengths  []string
	Challenges []string
	Advice     string
}

// Pair returns the pair of a and b in either order, and whether it exists.
func (c *Compatibility) Pair(a, b int) (CompatPair, bool) {
	a, b = min(a, b), max(a, b)
	i, ok := slices.BinarySearchFunc(c.Pairs, [2]int{a, b}, func(p CompatPair, t [2]int) int {
		return cmp.Or(cmp.Compare(p.A, t[0]), cmp.Compare(p.B, t[1]))
	})
	if !ok {
		return CompatPair{}, false
	}
	return c.Pairs[i], true
}

// Level returns the level with key, and whether it exists.
func (c *Compatibility) Level(key string) (CompatLevel, bool) {
	i := slices.IndexFunc(c.Levels, func(l CompatLevel) bool { return l.Key == key })
	if i < 0 {
		return CompatLevel{}, false
	}
	return c.Levels[i], true
}

// compatFile is compatibility.yaml as written: a pair names its numbers as a list.
type compatFile struct {
	Levels []CompatLevel `yaml:"levels"`
	Pairs  []compatEntry `yaml:"pairs"`
}

type compatEntry struct {
	Numbers    []int    `yaml:"numbers"`
	Level      string   `yaml:"level"`
	Summary    string   `yaml:"summary"`
	Strengths  []string `yaml:"strengths"`
	Challenges []string `yaml:"challenges"`
	Advice     string   `yaml:"advice"`
}

var levelKeyRe = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)

func (l *loader) loadCompatibility() Compatibility {
	var f compatFile
	d := l.read(CompatibilityFile, &f)
	if d == nil {
		return Compatibility{}
	}
	d.compatibilityLengths(&f)
	levels := d.checkLevels(f.Levels)
	for i := range f.Levels {
		f.Levels[i].Description = strings.TrimSpace(f.Levels[i].Description)
	}
	return Compatibility{Levels: f.Levels, Pairs: d.checkPairs(f.Pairs, levels)}
}

// checkLevels checks the levels and returns their keys.
func (d *doc) checkLevels(levels []CompatLevel) []string {
	if n := len(levels); n < MinCompatLevels || n > MaxCompatLevels {
		d.problem(d.keyLine("levels"), "levels", "wrong count: %d levels, want %d to %d (a small closed set of words)", n, MinCompatLevels, MaxCompatLevels)
	}
	var keys []string
	for i, lv := range levels {
		yp, f := fmt.Sprintf("$.levels[%d]", i), fmt.Sprintf("levels[%d]", i)
		d.required(yp+".name", f+".name", lv.Name)
		d.required(yp+".description", f+".description", lv.Description)
		switch {
		case lv.Key == "":
			d.at(yp+".key", f+".key", "missing field")
		case !levelKeyRe.MatchString(lv.Key):
			d.at(yp+".key", f+".key", "%q is not a snake_case key (a–z and _)", lv.Key)
		case slices.Contains(keys, lv.Key):
			d.at(yp+".key", f+".key", "%q is listed twice", lv.Key)
		default:
			keys = append(keys, lv.Key)
		}
	}
	return keys
}

// checkPairs checks every pair and that each unordered pair of the rules' numbers is listed
// exactly once; it returns the pairs with A <= B, sorted.
func (d *doc) checkPairs(entries []compatEntry, levels []string) []CompatPair {
	valid := d.l.rules.LifePathNumbers
	seen := map[[2]int]int{} // pair → index of its entry
	var pairs []CompatPair
	for i, e := range entries {
		yp, f := fmt.Sprintf("$.pairs[%d]", i), fmt.Sprintf("pairs[%d]", i)
		ok := true
		if len(e.Numbers) != 2 {
			d.at(yp+".numbers", f+".numbers", "wrong count: %d numbers, want 2", len(e.Numbers))
			ok = false
		}
		for _, n := range e.Numbers {
			if !slices.Contains(valid, n) {
				d.at(yp+".numbers", f+".numbers", "%d is not a life path number (valid: %s)", n, joinInts(valid))
				ok = false
			}
		}
		switch {
		case e.Level == "":
			d.at(yp+".level", f+".level", "missing field")
		case !slices.Contains(levels, e.Level):
			d.at(yp+".level", f+".level", "unknown level %q (levels: %s)", e.Level, strings.Join(levels, ", "))
		}
		d.required(yp+".summary", f+".summary", e.Summary)
		d.required(yp+".advice", f+".advice", e.Advice)
		d.compatList(yp, f, "strengths", e.Strengths)
		d.compatList(yp, f, "challenges", e.Challenges)
		if !ok {
			continue
		}
		a, b := min(e.Numbers[0], e.Numbers[1]), max(e.Numbers[0], e.Numbers[1])
		if j, dup := seen[[2]int{a, b}]; dup {
			d.at(yp+".numbers", f+".numbers", "pair %d/%d is listed twice (first at pairs[%d], line %d)", a, b, j, d.line(fmt.Sprintf("$.pairs[%d].numbers", j)))
			continue
		}
		seen[[2]int{a, b}] = i
		pairs = append(pairs, CompatPair{
			A: a, B: b, Level: e.Level, Summary: strings.TrimSpace(e.Summary),
			Strengths: trimAll(e.Strengths), Challenges: trimAll(e.Challenges), Advice: strings.TrimSpace(e.Advice),
		})
	}
	var missing []string
	for i, a := range valid {
		for _, b := range valid[i:] {
			if _, ok := seen[[2]int{min(a, b), max(a, b)}]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", a, b))
			}
		}
	}
	if len(missing) > 0 {
		d.problem(d.keyLine("pairs"), "pairs", "%d of %d pairs missing: %s", len(missing), len(valid)*(len(valid)+1)/2, strings.Join(missing, ", "))
	}
	slices.SortFunc(pairs, func(p, q CompatPair) int { return cmp.Or(cmp.Compare(p.A, q.A), cmp.Compare(p.B, q.B)) })
	return pairs
}

// compatList checks that a pair's list has MinCompatItems to MaxCompatItems non-empty items.
func (d *doc) compatList(yp, f, key string, items []string) {
	if n := len(items); n < MinCompatItems || n > MaxCompatItems {
		d.at(yp+"."+key, f+"."+key, "wrong count: %d items, want %d to %d", n, MinCompatItems, MaxCompatItems)
	}
	for i, s := range items {
		if strings.TrimSpace(s) == "" {
			d.at(fmt.Sprintf("%s.%s[%d]", yp, key, i), fmt.Sprintf("%s.%s[%d]", f, key, i), "empty item")
		}
	}
}

// keyLine returns the line of a top-level key of the file, or 0: a block list starts on the
// line after its key, and a problem of the whole list belongs on the key's line.
func (d *doc) keyLine(key string) int {
	if m, ok := d.file.Docs[0].Body.(*ast.MappingNode); ok {
		for _, v := range m.Values {
			if tk := v.Key.GetToken(); tk != nil && tk.Value == key {
				return tk.Position.Line
			}
		}
	}
	return 0
}

func trimAll(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = strings.TrimSpace(s)
	}
	return out
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
