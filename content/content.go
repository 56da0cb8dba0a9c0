// Package content loads and validates the YAML content of the API: the site settings, the
// 12 life path numbers, the 22 arcana, the 12 matrix positions and the texts of the 78 pairs
// of life path numbers. Every problem found is reported at once, as file:line: field:
// message, sorted.
package content

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
	"github.com/rivo/uniseg"
)

//go:embed site.yaml arcana.yaml positions.yaml square.yaml life-path/*.yaml compatibility.yaml chart.yaml cycles.yaml
var embedded embed.FS

// Embedded returns the content built into the binary.
func Embedded() fs.FS { return embedded }

// Content is the whole validated content.
type Content struct {
	Site      Site
	LifePaths []LifePath // in contract order: 1–9, 11, 22, 33
	Arcana    []Arcanum  // Arcana[i].Number == i+1
	Positions []Position // in Rules.PositionKeys order
	Square    Square     // the Pythagoras square's texts (square.go)

	Compatibility Compatibility // compatibility.yaml
	Chart         Chart         // chart.yaml: the full matrix chart's texts (chart.go)
	Cycles        Cycles        // cycles.yaml: the personal cycles' texts (cycles.go)
}

// Rules are the facts of the contract the content must follow. They belong to the rules
// (generator/rules); the generator supplies them where content meets the rules
// (generator.LoadContent), so this package imports nothing of the generator.
type Rules struct {
	// LifePathNumbers are the numbers with a file life-path/N.yaml, in contract order.
	LifePathNumbers []int
	// PositionKeys are the keys of positions.yaml, in contract order.
	PositionKeys []string
	// LifePath is the life path number of a date (docs/design.md §7): every famous person's
	// birth date must give the number they are listed under.
	LifePath func(day, month, year int) int
	// Square are the facts of the square rule its texts must cover (square.go).
	Square SquareRules
	// Cards are the fields the share cards show and what their fonts draw (text.go).
	Cards CardRules
	// Chart are the facts of the chart rule its texts must cover (chart.go).
	Chart ChartRules
}

// Site holds site-wide settings and attribution wording (site.yaml).
type Site struct {
	Publisher           string `yaml:"publisher"`
	Title               string `yaml:"title"`
	LicenseName         string `yaml:"license_name"` // the licence's official Russian name
	SiteURL             string `yaml:"site_url"`
	SupportEmail        string `yaml:"support_email"`
	Attribution         string `yaml:"attribution"`
	AttributionLinkText string `yaml:"attribution_link_text"`
	CitationLifePath    string `yaml:"citation_life_path"`
	CitationMatrix      string `yaml:"citation_matrix"`
	// Citation is the suggested citation of the records without one of their own (arcana,
	// positions, compatibility): {subject} names what is cited.
	Citation string `yaml:"citation"`
	// Disclaimer says what numerology is, in Russian: the pages' footer, the API index, the
	// OpenAPI document, llms.txt and the dataset's README repeat it. DisclaimerEN is the
	// same sentence in English, for llms.txt and the README's English part.
	Disclaimer   string `yaml:"disclaimer"`
	DisclaimerEN string `yaml:"disclaimer_en"`
	// RecordDisclaimer is the same caveat as one short sentence for the records to carry
	// (disclaimer.go).
	RecordDisclaimer string `yaml:"record_disclaimer"`
	// RecordHelp is the sentence every compatibility record carries: fear, humiliation,
	// control or violence in a relationship are not a matter of numbers, and where to get
	// help (disclaimer.go).
	RecordHelp string `yaml:"record_help"`
}

// LifePath is one life path number (life-path/N.yaml).
type LifePath struct {
	Number           int      `yaml:"number"`
	Archetype        string   `yaml:"archetype"`
	Tagline          string   `yaml:"tagline"`
	ShortDescription string   `yaml:"short_description"`
	Description      string   `yaml:"description"`
	Traits           []string `yaml:"traits"`
	Weaknesses       []string `yaml:"weaknesses"`
	Career           []string `yaml:"career"`
	Love             string   `yaml:"love"`
	Advice           string   `yaml:"advice"`
	FamousPeople     []Person `yaml:"famous_people"`
}

// Person is a famous person listed under a life path number.
type Person struct {
	Name  string `yaml:"name"`
	Field string `yaml:"field"`
	Born  string `yaml:"born"` // YYYY-MM-DD; must give the number the person is listed under
	// BornOldStyle is the same day in the Julian calendar (YYYY-MM-DD), for a person whose
	// date Russian reference works give in both styles: born where the Julian calendar was in
	// use, or a Russian figure born abroad (Catherine II, born in Prussia under the Gregorian
	// one); empty otherwise. Born stays the New Style date (oldstyle.go).
	BornOldStyle string `yaml:"born_old_style"`
}

// Arcanum is one of the 22 major arcana (arcana.yaml).
type Arcanum struct {
	Number      int    `yaml:"number"`
	Name        string `yaml:"name"`
	Keyword     string `yaml:"keyword"`
	Emoji       string `yaml:"emoji"`
	Description string `yaml:"description"`
}

// Position is one of the 12 matrix positions (positions.yaml).
type Position struct {
	Key     string `yaml:"key"`
	Title   string `yaml:"title"`
	Meaning string `yaml:"meaning"`
}

// Minimum sizes of a life path record (the content rules).
const (
	MinDescriptionWords = 120
	MinTraits           = 5
	NumWeaknesses       = 4
	NumCareer           = 5
	MinFamousPeople     = 3
	MinParagraphWords   = 25 // love and advice are real paragraphs
)

// Problem is one thing wrong with the content.
type Problem struct {
	File    string // path as shown to the user
	Line    int    // 1-based; 0 when unknown
	Field   string // e.g. famous_people[1].born; empty for the whole file
	Message string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteString(":" + strconv.Itoa(p.Line))
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Errors is every problem found, sorted by file, line and field.
type Errors []Problem

func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, p := range e {
		lines[i] = p.String()
	}
	return fmt.Sprintf("content has %d problem(s):\n%s", len(e), strings.Join(lines, "\n"))
}

// Load reads and validates the content of fsys against r. label prefixes the file names in
// problems (for example "content"). The error, if any, is Errors.
func Load(fsys fs.FS, label string, r Rules) (*Content, error) {
	if r.LifePath == nil || len(r.LifePathNumbers) == 0 || len(r.PositionKeys) == 0 || !r.Square.complete() || !r.Cards.complete() || !r.Chart.complete() {
		return nil, errors.New("content: incomplete rules")
	}
	l := &loader{fsys: fsys, label: label, rules: r}
	c := &Content{}
	l.loadSite(&c.Site)
	c.Arcana = l.loadArcana()
	c.Positions = l.loadPositions()
	c.LifePaths = l.loadLifePaths()
	c.Square = l.loadSquare()
	c.Compatibility = l.loadCompatibility()
	c.Chart = l.loadChart()
	c.Cycles = l.loadCycles()
	if len(l.problems) > 0 {
		slices.SortStableFunc(l.problems, func(a, b Problem) int {
			if c := strings.Compare(a.File, b.File); c != 0 {
				return c
			}
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return strings.Compare(a.Field, b.Field)
		})
		return nil, l.problems
	}
	return c, nil
}

type loader struct {
	fsys     fs.FS
	label    string
	rules    Rules
	problems Errors
}

// doc is one parsed YAML file, kept to find the line of a field.
type doc struct {
	l    *loader
	name string // as shown
	file *ast.File
	src  []byte // the file's bytes, to find the line of a character

	maxBytes int // the file's size limit
}

func (l *loader) display(name string) string {
	if l.label == "" {
		return name
	}
	return path.Join(l.label, name)
}

// read parses name and decodes it strictly into v. It reports problems and returns nil when
// the file cannot be used at all.
func (l *loader) read(name string, v any) *doc {
	d := &doc{l: l, name: l.display(name), maxBytes: maxFileBytes(name)}
	b, err := readLimited(l.fsys, name, d.maxBytes)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			msg = "file is missing"
		}
		d.problem(0, "", "%s", msg)
		return nil
	}
	if !d.decode(b, v) {
		return nil
	}
	d.checkText(name)
	return d
}

// decode checks b against the limits, parses it and decodes it strictly into v, reporting
// what fails. A panic inside go-yaml (a library bug on input it accepted; FuzzLoad found one
// in its decoder) becomes a problem of the file, so hostile content never crashes generate.
func (d *doc) decode(b []byte, v any) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			d.problem(0, "", "YAML could not be read (go-yaml failed: %v)", r)
			ok = false
		}
	}()
	tokens, ok := d.precheck(b)
	if !ok {
		return false
	}
	d.src = b
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		d.yamlProblem(err)
		return false
	}
	d.file = f
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		d.problem(1, "", "file is empty")
		return false
	}
	if err := yaml.NodeToValue(f.Docs[0].Body, v, yaml.Strict(), yaml.DisallowUnknownField()); err != nil {
		d.yamlProblem(err)
		return false
	}
	return true
}

func (d *doc) problem(line int, field, format string, args ...any) {
	d.l.problems = append(d.l.problems, Problem{File: d.name, Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
}

// yamlProblem turns a go-yaml syntax or decoding error into a Problem with its line.
func (d *doc) yamlProblem(err error) {
	var ye yaml.Error
	if errors.As(err, &ye) {
		line, field := 0, ""
		if tk := ye.GetToken(); tk != nil {
			line = tk.Position.Line
		}
		msg := ye.GetMessage()
		var uf *yaml.UnknownFieldError
		if errors.As(err, &uf) {
			if tk := uf.GetToken(); tk != nil {
				field = tk.Value
			}
			msg = "unknown field"
		}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			field = keyOf(ye.GetToken())
			msg = "wrong type: " + msg
		}
		d.problem(line, field, "%s", msg)
		return
	}
	d.problem(0, "", "%v", err)
}

// keyOf returns the mapping key a value token belongs to ("number" for the 2 of
// "number: 2"), or "".
func keyOf(tk *token.Token) string {
	if tk == nil || tk.Prev == nil || tk.Prev.Type != token.MappingValueType || tk.Prev.Prev == nil {
		return ""
	}
	return tk.Prev.Prev.Value
}

// line returns the line of the node at a YAML path such as "$.traits" or "$[3].emoji"; for
// a missing node, the line of its nearest existing parent.
func (d *doc) line(p string) int {
	if d == nil || d.file == nil {
		return 0
	}
	for {
		if yp, err := yaml.PathString(p); err == nil {
			if n, err := yp.FilterFile(d.file); err == nil && n != nil {
				if tk := n.GetToken(); tk != nil {
					return tk.Position.Line
				}
			}
		}
		i := strings.LastIndexAny(p, ".[")
		if i <= 1 {
			return 1
		}
		p = p[:i]
	}
}

// at reports a problem at a field, given as a YAML path below the document root.
func (d *doc) at(yamlPath, field, format string, args ...any) {
	d.problem(d.line(yamlPath), field, format, args...)
}

func (d *doc) required(yamlPath, field, value string) {
	if strings.TrimSpace(value) == "" {
		d.at(yamlPath, field, "missing field")
	}
}

func (l *loader) loadSite(s *Site) {
	d := l.read("site.yaml", s)
	if d == nil {
		return
	}
	for _, f := range []struct{ key, value string }{
		{"publisher", s.Publisher}, {"title", s.Title}, {"license_name", s.LicenseName}, {"site_url", s.SiteURL},
		{"support_email", s.SupportEmail}, {"attribution", s.Attribution},
		{"attribution_link_text", s.AttributionLinkText},
		{"citation_life_path", s.CitationLifePath}, {"citation_matrix", s.CitationMatrix},
		{"citation", s.Citation},
		{"disclaimer", s.Disclaimer}, {"disclaimer_en", s.DisclaimerEN},
	} {
		d.required("$."+f.key, f.key, f.value)
		d.maxLen("$."+f.key, f.key, f.value, maxShortText)
	}
	d.checkRecordDisclaimer(s)
	d.checkRecordHelp(s)
	if s.SiteURL != "" {
		if err := CheckSiteURL(s.SiteURL); err != nil {
			d.at("$.site_url", "site_url", "%v", err)
		}
	}
	if s.SupportEmail != "" && !emailRe.MatchString(s.SupportEmail) {
		d.at("$.support_email", "support_email", "%q is not an e-mail address", s.SupportEmail)
	}
	d.placeholders("attribution", s.Attribution, SitePlaceholders...)
	d.placeholders("attribution_link_text", s.AttributionLinkText, "title", "publisher")
	d.placeholders("citation_life_path", s.CitationLifePath, append([]string{"number", "archetype", "version", "url"}, SitePlaceholders...)...)
	d.placeholders("citation_matrix", s.CitationMatrix, append([]string{"date", "version", "url"}, SitePlaceholders...)...)
	if !strings.Contains(s.CitationMatrix, "{date}") && s.CitationMatrix != "" {
		d.at("$.citation_matrix", "citation_matrix", "must contain {date}")
	}
	d.placeholders("citation", s.Citation, append([]string{"subject", "version", "url"}, SitePlaceholders...)...)
	if !strings.Contains(s.Citation, "{subject}") && s.Citation != "" {
		d.at("$.citation", "citation", "must contain {subject}")
	}
}

// SitePlaceholders are the placeholders of site.yaml's attribution and citations that the
// generator fills from the site itself: the title, publisher and licence are written once.
var SitePlaceholders = []string{"title", "publisher", "site_url", "license_name", "license_url"}

var (
	emailRe       = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
	placeholderRe = regexp.MustCompile(`\{([^{}]*)\}`)
)

// placeholders checks that text uses only the allowed {placeholders}.
func (d *doc) placeholders(field, text string, allowed ...string) {
	for _, m := range placeholderRe.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(allowed, m[1]) {
			d.at("$."+field, field, "unknown placeholder {%s} (allowed: {%s})", m[1], strings.Join(allowed, "}, {"))
		}
	}
}

// CheckSiteURL accepts what CanonicalSiteURL accepts.
func CheckSiteURL(s string) error {
	_, err := CanonicalSiteURL(s)
	return err
}

func (l *loader) loadArcana() []Arcanum {
	var arcana []Arcanum
	d := l.read("arcana.yaml", &arcana)
	if d == nil {
		return nil
	}
	if len(arcana) != 22 {
		d.at("$", "", "wrong count: %d arcana, want 22", len(arcana))
	}
	seenEmoji := map[string]int{}
	for i, a := range arcana {
		p := fmt.Sprintf("$[%d]", i)
		f := fmt.Sprintf("[%d]", i)
		if a.Number != i+1 {
			d.at(p+".number", f+".number", "is %d, want %d (arcana are listed 1–22 in order)", a.Number, i+1)
		}
		d.required(p+".name", f+".name", a.Name)
		d.required(p+".keyword", f+".keyword", a.Keyword)
		d.required(p+".description", f+".description", a.Description)
		d.maxLen(p+".name", f+".name", a.Name, maxName)
		d.maxLen(p+".keyword", f+".keyword", a.Keyword, maxName)
		d.maxLen(p+".description", f+".description", a.Description, maxParagraph)
		if err := checkEmoji(a.Emoji); err != nil {
			d.at(p+".emoji", f+".emoji", "%v", err)
		} else if j, dup := seenEmoji[a.Emoji]; dup {
			d.at(p+".emoji", f+".emoji", "%s is already used by arcanum %d", a.Emoji, j+1)
		} else {
			seenEmoji[a.Emoji] = i
		}
	}
	return arcana
}

func (l *loader) loadPositions() []Position {
	var positions []Position
	d := l.read("positions.yaml", &positions)
	if d == nil {
		return nil
	}
	keys := l.rules.PositionKeys
	if len(positions) != len(keys) {
		d.at("$", "", "wrong count: %d positions, want %d", len(positions), len(keys))
	}
	for i, p := range positions {
		yp := fmt.Sprintf("$[%d]", i)
		f := fmt.Sprintf("[%d]", i)
		if i < len(keys) && p.Key != keys[i] {
			d.at(yp+".key", f+".key", "is %q, want %q (positions follow docs/design.md §5 order)", p.Key, keys[i])
		}
		d.required(yp+".title", f+".title", p.Title)
		d.required(yp+".meaning", f+".meaning", p.Meaning)
		d.maxLen(yp+".title", f+".title", p.Title, maxName)
		d.maxLen(yp+".meaning", f+".meaning", p.Meaning, maxParagraph)
	}
	return positions
}

func (l *loader) loadLifePaths() []LifePath {
	entries, err := readDir(l.fsys, "life-path")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		l.problems = append(l.problems, Problem{File: l.display("life-path"), Message: err.Error()})
		return nil
	}
	var out []LifePath
	for _, n := range l.rules.LifePathNumbers {
		name := fmt.Sprintf("life-path/%d.yaml", n)
		var lp LifePath
		d := l.read(name, &lp)
		if d == nil {
			continue
		}
		d.checkLifePath(n, &lp)
		out = append(out, lp)
	}
	// A stray file is a likely typo (life-path/10.yaml): say so rather than ignore it.
	for _, e := range entries {
		base := strings.TrimSuffix(e.Name(), ".yaml")
		n, err := strconv.Atoi(base)
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") || err != nil || !slices.Contains(l.rules.LifePathNumbers, n) || base != strconv.Itoa(n) {
			l.problems = append(l.problems, Problem{File: l.display("life-path/" + e.Name()), Message: "unexpected file: life path files are named 1.yaml … 9.yaml, 11.yaml, 22.yaml, 33.yaml"})
		}
	}
	return out
}

func (d *doc) checkLifePath(n int, lp *LifePath) {
	if lp.Number != n {
		d.at("$.number", "number", "is %d, but the file is for %d", lp.Number, n)
	}
	d.lifePathLengths(lp)
	d.required("$.archetype", "archetype", lp.Archetype)
	d.required("$.tagline", "tagline", lp.Tagline)
	d.required("$.short_description", "short_description", lp.ShortDescription)
	d.required("$.description", "description", lp.Description)
	d.required("$.love", "love", lp.Love)
	d.required("$.advice", "advice", lp.Advice)
	if w := len(strings.Fields(lp.Description)); lp.Description != "" && w < MinDescriptionWords {
		d.at("$.description", "description", "too short: %d words, want at least %d", w, MinDescriptionWords)
	}
	for _, f := range []struct{ key, text string }{{"love", lp.Love}, {"advice", lp.Advice}} {
		if w := len(strings.Fields(f.text)); f.text != "" && w < MinParagraphWords {
			d.at("$."+f.key, f.key, "too short for a paragraph: %d words, want at least %d", w, MinParagraphWords)
		}
	}
	d.list("traits", lp.Traits, MinTraits, false)
	d.list("weaknesses", lp.Weaknesses, NumWeaknesses, true)
	d.list("career", lp.Career, NumCareer, true)
	if len(lp.FamousPeople) < MinFamousPeople {
		d.at("$.famous_people", "famous_people", "wrong count: %d people, want at least %d", len(lp.FamousPeople), MinFamousPeople)
	}
	for i, p := range lp.FamousPeople {
		yp := fmt.Sprintf("$.famous_people[%d]", i)
		f := fmt.Sprintf("famous_people[%d]", i)
		d.required(yp+".name", f+".name", p.Name)
		d.required(yp+".field", f+".field", p.Field)
		if p.Born == "" {
			d.at(yp+".born", f+".born", "missing field")
			continue
		}
		t, err := time.Parse(time.DateOnly, p.Born)
		if err != nil {
			d.at(yp+".born", f+".born", "%q is not a date (YYYY-MM-DD)", p.Born)
			continue
		}
		if got := d.l.rules.LifePath(t.Day(), int(t.Month()), t.Year()); got != n {
			d.at(yp+".born", f+".born", "%s (%s) gives life path %d, not %d", p.Born, p.Name, got, n)
		}
		d.checkOldStyle(yp, f, p, t)
	}
}

// list checks a list's length (exactly want, or at least want) and that no item is empty.
func (d *doc) list(key string, items []string, want int, exact bool) {
	switch {
	case exact && len(items) != want:
		d.at("$."+key, key, "wrong count: %d items, want %d", len(items), want)
	case !exact && len(items) < want:
		d.at("$."+key, key, "wrong count: %d items, want at least %d", len(items), want)
	}
	for i, s := range items {
		if strings.TrimSpace(s) == "" {
			d.at(fmt.Sprintf("$.%s[%d]", key, i), fmt.Sprintf("%s[%d]", key, i), "empty item")
		}
	}
}

// maxEmojiRunes bounds the code points of the emoji field: a pictograph, and at most a
// skin tone and a variation selector after it (a flag is two regional indicators).
const maxEmojiRunes = 3

// checkEmoji accepts exactly one emoji: a single grapheme cluster that starts with a
// pictographic code point and holds nothing invisible after it.
func checkEmoji(s string) error {
	if s == "" {
		return errors.New("missing field")
	}
	if n := uniseg.GraphemeClusterCount(s); n != 1 {
		return fmt.Errorf("%q is %d characters, want exactly one emoji", s, n)
	}
	r, _ := utf8.DecodeRuneInString(s)
	if !isPictographic(r) {
		return fmt.Errorf("%q is not an emoji", s)
	}
	// Emoji newer than Unicode 13 (2020) and ZWJ sequences still show as empty boxes on
	// many phones and desktops in use.
	if strings.ContainsRune(s, '\u200d') {
		return fmt.Errorf("%q is a ZWJ sequence, want a single emoji that renders everywhere", s)
	}
	// A grapheme cluster can carry any number of invisible code points (tags, combining
	// marks, joiners, variation selectors), which would ride along into every record.
	// The messages quote only the visible part.
	runes := []rune(s)
	if len(runes) > maxEmojiRunes {
		return fmt.Errorf("%q is followed by %d more code points, want one emoji of at most %d", string(runes[0]), len(runes)-1, maxEmojiRunes)
	}
	for i, r := range runes[1:] {
		switch {
		case slices.Contains(runes[:i+1], r):
			return fmt.Errorf("%q carries U+%04X twice, want the emoji alone (at most with U+FE0F or a skin tone)", string(runes[0]), r)
		case !emojiModifier(r, runes[0], i):
			return fmt.Errorf("%q is followed by U+%04X, want the emoji alone (at most with U+FE0F or a skin tone)", string(runes[0]), r)
		}
	}
	for _, r := range s {
		if afterUnicode13(r) {
			return fmt.Errorf("%q (U+%04X) is newer than Unicode 13 and does not render on many platforms", s, r)
		}
	}
	return nil
}

// emojiModifier reports whether r, the code point at index i+1 of an emoji that starts with
// first, may follow it: the emoji presentation selector U+FE0F, a skin tone, or the second
// regional indicator of a flag.
func emojiModifier(r, first rune, i int) bool {
	isRegional := func(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }
	switch {
	case r == '\uFE0F', r >= 0x1F3FB && r <= 0x1F3FF:
		return true
	case isRegional(r):
		return i == 0 && isRegional(first)
	}
	return false
}

// afterUnicode13 reports whether r is an emoji code point added after Unicode 13.0: the
// emoji blocks' code points that 13.0 left unassigned and later versions filled.
func afterUnicode13(r rune) bool {
	switch {
	case r == 0x1F6DC, r >= 0x1F6DD && r <= 0x1F6DF, r == 0x1F7F0, r == 0x1F979, r == 0x1F9CC:
		return true
	case r >= 0x1FA70 && r <= 0x1FAFF:
		for _, a := range unicode13ExtendedA {
			if r >= a[0] && r <= a[1] {
				return false
			}
		}
		return true
	}
	return false
}

// unicode13ExtendedA are the ranges of "Symbols and Pictographs Extended-A" (U+1FA70–1FAFF)
// assigned by Unicode 13.0.
var unicode13ExtendedA = [][2]rune{
	{0x1FA70, 0x1FA74}, {0x1FA78, 0x1FA7A}, {0x1FA80, 0x1FA86}, {0x1FA90, 0x1FAA8},
	{0x1FAB0, 0x1FAB6}, {0x1FAC0, 0x1FAC2}, {0x1FAD0, 0x1FAD6},
}

// isPictographic reports whether r lies in the Unicode blocks that hold emoji.
func isPictographic(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF, // mahjong … symbols and pictographs extended-A
		r >= 0x2600 && r <= 0x27BF, // miscellaneous symbols, dingbats
		r >= 0x2300 && r <= 0x23FF, // miscellaneous technical (⌛, ⏳)
		r >= 0x2B00 && r <= 0x2BFF, // arrows and stars (⭐)
		r >= 0x2190 && r <= 0x21FF, // arrows
		r == 0x00A9, r == 0x00AE, r == 0x203C, r == 0x2049, r == 0x2122, r == 0x2139,
		r == 0x3030, r == 0x303D, r == 0x3297, r == 0x3299:
		return true
	}
	return false
}
