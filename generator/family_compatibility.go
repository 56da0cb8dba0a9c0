package generator

import (
	"fmt"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/generator/rules"
)

// RouteCompatibility is the route name of the compatibility of two life path numbers.
const RouteCompatibility = "compatibility"

// compatibilityFamily is the route family of the compatibility of two life path numbers.
func compatibilityFamily() []routeUnit {
	p := manifest.APIPrefix
	return []routeUnit{{
		row: manifest.Route{
			Name: RouteCompatibility, Pattern: p + "/compatibility/{a}/{b}", File: "api/public/compatibility/{a}/{b}.json",
			Params: []manifest.ParamType{{Type: manifest.ParamPair, Numbers: rules.LifePathNumbers}}, Error: manifest.ErrNumberNotFound,
			Summary:     "Совместимость двух чисел жизненного пути",
			Description: "Совместимость двух чисел жизненного пути (1–9, 11, 22, 33, в любом порядке): уровень словом, суть, сильные стороны, трудности и совет",
			English:     "the compatibility of two life path numbers (1–9, 11, 22, 33, in either order): a level as a word, a summary, strengths, challenges and advice",
			Example:     p + "/compatibility/3/11",
			OperationID: "getCompatibility", Tag: "compatibility",
		},
		renderer: renderer{
			tag:  "Совместимость двух чисел жизненного пути",
			body: CompatibilityRecord{},
			fields: func(s *Site) map[string]obj {
				var levels []string
				for _, l := range s.Content.Compatibility.Levels {
					levels = append(levels, l.Name)
				}
				return map[string]obj{
					"CompatibilityRecord.numbers": {"minItems": 2, "maxItems": 2, "items": obj{"type": "integer", "enum": rules.LifePathNumbers},
						"description": "Пара чисел жизненного пути, меньшее первым: ответ для /a/b и /b/a один"},
					"CompatibilityRecord.level":      {"enum": levels, "description": "Уровень совместимости словом — не процент и не балл"},
					"CompatibilityRecord.strengths":  {"minItems": 1},
					"CompatibilityRecord.challenges": {"minItems": 1},
					"CompatibilityRecord.help": {"description": "Фраза о помощи, одна и та же в каждой записи пары, какого бы уровня она ни была: " +
						"если в отношениях есть страх, унижение, контроль или насилие, дело не в числах; к кому обратиться, а при угрозе жизни — 112. " +
						"Приложение, которое показывает тексты пары, показывает и её. Списка пар в API нет: каждая запись несёт фразу сама"},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) {
				return encodeEach(func(vals []int) (any, error) {
					r, ok := s.CompatibilityRecord(vals[0], vals[1])
					if !ok {
						return nil, fmt.Errorf("no compatibility text for %d and %d", vals[0], vals[1])
					}
					return r, nil
				}), nil
			},
			pages:  func(p *pageRenderer) []page { return p.compatibilityPages() },
			tables: compatibilityTables,
		},
	}}
}

// CompatibilityPage is the page of all pairs of life path numbers.
const CompatibilityPage = "compatibility.html"

// CompatibilityPairPage is the tree path of the page of a pair, a <= b.
func CompatibilityPairPage(a, b int) string {
	return "compatibility/" + strconv.Itoa(a) + "/" + strconv.Itoa(b) + ".html"
}

// compatDoc is what the compatibility pages show: every pair by number, or one pair with
// its two numbers.
type compatDoc struct {
	CompatGroups  []compatGroup
	Compat        *CompatibilityRecord
	CompatNumbers []LifePathItem // the pair's two numbers (one when they are the same)
}

// compatGroup is one number's line of the compatibility page: its pairs with every number.
type compatGroup struct {
	Number LifePathItem
	Pairs  []compatLink
}

// compatLink is one pair as the compatibility page links it.
type compatLink struct {
	Partner LifePathItem
	Path    string // the pair's page
	Level   string
}

// compatibilityPages are the page of all pairs and the page of each pair.
func (p *pageRenderer) compatibilityPages() []page {
	s := p.s
	site := s.Content.Site.Title
	list := s.LifePathList()
	out := []page{{file: CompatibilityPage, template: "compatibility-list.html", path: "/compatibility", indexed: true,
		card:        cards.Card{Title: "Совместимость чисел жизненного пути"},
		title:       "Совместимость чисел жизненного пути — " + site,
		description: "Совместимость двенадцати чисел жизненного пути: 78 пар, у каждой уровень словом, суть, сильные стороны, трудности и совет.",
		fill: func(d *pageData) error {
			doc := &compatDoc{}
			d.Page = doc
			for _, a := range list {
				g := compatGroup{Number: a}
				for _, b := range list {
					r, ok := s.CompatibilityRecord(a.Number, b.Number)
					if !ok {
						return fmt.Errorf("no compatibility text for %d and %d", a.Number, b.Number)
					}
					g.Pairs = append(g.Pairs, compatLink{b, strings.TrimPrefix(r.SourceURL, s.SiteURL), r.Level})
				}
				doc.CompatGroups = append(doc.CompatGroups, g)
			}
			d.APIPath = RoutePath(RouteCompatibility, 3, 11)
			return nil
		}}}
	for _, pr := range s.Content.Compatibility.Pairs {
		a, b := pr.A, pr.B
		out = append(out, page{file: CompatibilityPairPage(a, b), template: "compatibility.html",
			path: fmt.Sprintf("/compatibility/%d/%d", a, b), indexed: true,
			// The title goes without the site's name, as on the life path pages: with it, it
			// would pass 70 characters.
			card:        cards.Card{Title: fmt.Sprintf("Совместимость чисел жизненного пути %d и %d", a, b)},
			title:       fmt.Sprintf("Совместимость чисел жизненного пути %d и %d", a, b),
			description: pr.Summary,
			fill: func(d *pageData) error {
				r, ok := s.CompatibilityRecord(a, b)
				if !ok {
					return fmt.Errorf("no compatibility text for %d and %d", a, b)
				}
				doc := &compatDoc{Compat: &r}
				d.Page = doc
				d.APIPath = RoutePath(RouteCompatibility, a, b)
				for _, it := range list {
					if it.Number == a || it.Number == b {
						doc.CompatNumbers = append(doc.CompatNumbers, it)
					}
				}
				return nil
			}})
	}
	return out
}

// CompatibilitySourceURL is the human page of a pair of life path numbers, a <= b.
func (s *Site) CompatibilitySourceURL(a, b int) string {
	return s.SiteURL + "/compatibility/" + strconv.Itoa(a) + "/" + strconv.Itoa(b)
}

// CompatibilityRecord is the body of /compatibility/{a}/{b}: the compatibility of two life
// path numbers, in either order. The level is a word of a small closed set, never a score:
// numerology has no canonical one, and a number would pretend to a precision it lacks. Help
// is the sentence on fear and violence in a relationship, in every record whatever its level
// (issue 32, §6; docs/design.md §5): an app may show a pair's texts without its level.
type CompatibilityRecord struct {
	Numbers           []int    `json:"numbers"` // the pair, the smaller first
	Level             string   `json:"level"`
	LevelDescription  string   `json:"level_description"`
	Summary           string   `json:"summary"`
	Strengths         []string `json:"strengths"`
	Challenges        []string `json:"challenges"`
	Advice            string   `json:"advice"`
	SourceURL         string   `json:"source_url"`
	SuggestedCitation string   `json:"suggested_citation"`
	Help              string   `json:"help"`
	attribution
}

// CompatibilityRecord builds the record of the pair a, b in either order; ok is false when
// the content has no text for it.
func (s *Site) CompatibilityRecord(a, b int) (CompatibilityRecord, bool) {
	c := &s.Content.Compatibility
	p, ok := c.Pair(a, b)
	if !ok {
		return CompatibilityRecord{}, false
	}
	lv, ok := c.Level(p.Level)
	if !ok {
		return CompatibilityRecord{}, false
	}
	src := s.CompatibilitySourceURL(p.A, p.B)
	return CompatibilityRecord{
		Numbers: []int{p.A, p.B}, Level: lv.Name, LevelDescription: lv.Description,
		Summary: p.Summary, Strengths: p.Strengths, Challenges: p.Challenges, Advice: p.Advice,
		SourceURL:         src,
		SuggestedCitation: s.cite(fmt.Sprintf("Совместимость чисел жизненного пути %d и %d", p.A, p.B), src),
		Help:              s.help,
		attribution:       s.attribution(),
	}, true
}

// compatibilityTables are compatibility, the 78 pairs of life path numbers, and
// compatibility_levels, the description of each level they name.
func compatibilityTables() []Table {
	number := func(name, desc string) table.Column {
		return table.Column{Name: name, Type: table.Integer, Description: desc, Enum: rules.LifePathNumbers}
	}
	pairs := &table.Table{
		Name:        "compatibility",
		Title:       "Compatibility of the life path numbers",
		Description: "One row per unordered pair of life path numbers (78): the level as a word, the summary, strengths, challenges (one item a line) and advice, as in " + route(RouteCompatibility).File + ".",
		Russian:     "совместимость 78 пар чисел жизненного пути: числа, уровень, суть, сильные стороны и трудности (по пункту в строке), совет",
		Columns: []table.Column{
			number("a", "The smaller life path number of the pair; see life_path"),
			number("b", "The larger (or the same) life path number of the pair"),
			textColumn("level", "Level of compatibility, a word (Russian), not a score; see compatibility_levels"),
			textColumn("summary", "Summary (Russian)"),
			textColumn("strengths", "Strengths (Russian), one a line"),
			textColumn("challenges", "Challenges (Russian), one a line"),
			textColumn("advice", "Advice (Russian)"),
		},
		PrimaryKey: []string{"a", "b"},
		ForeignKeys: []table.ForeignKey{{Column: "a", Table: "life_path", TableColumn: "number"}, {Column: "b", Table: "life_path", TableColumn: "number"},
			{Column: "level", Table: "compatibility_levels", TableColumn: "level"}},
	}
	levels := &table.Table{
		Name:        "compatibility_levels",
		Title:       "The levels of compatibility",
		Description: "Each level the pairs name, with its description, in the order a pair first names it.",
		Russian:     "уровни совместимости: уровень и что он означает",
		Columns:     []table.Column{{Name: "level", Type: table.Text, Description: "Level (Russian)", Unique: true}, textColumn("description", "What the level means (Russian)")},
		PrimaryKey:  []string{"level"},
	}
	record := func(vals []int, body []byte) (*CompatibilityRecord, error) {
		var r CompatibilityRecord
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, fmt.Errorf("not a compatibility record: %w", err)
		}
		if len(r.Numbers) != 2 || r.Numbers[0] != vals[0] || r.Numbers[1] != vals[1] {
			return nil, fmt.Errorf("holds the pair %v", r.Numbers)
		}
		return &r, nil
	}
	seen := map[string]string{} // level → description, of the rows so far
	return []Table{{pairs, func(t *table.Table, vals []int, body []byte) error {
		r, err := record(vals, body)
		if err != nil {
			return err
		}
		return t.Append(table.Int(vals[0]), table.Int(vals[1]), table.Str(r.Level), table.Str(r.Summary),
			table.Str(lines(r.Strengths)), table.Str(lines(r.Challenges)), table.Str(r.Advice))
	}}, {levels, func(t *table.Table, vals []int, body []byte) error {
		r, err := record(vals, body)
		if err != nil {
			return err
		}
		if d, ok := seen[r.Level]; ok {
			if d != r.LevelDescription {
				return fmt.Errorf("level %q has another description than before", r.Level)
			}
			return nil
		}
		seen[r.Level] = r.LevelDescription
		return t.Append(table.Str(r.Level), table.Str(r.LevelDescription))
	}}}
}
