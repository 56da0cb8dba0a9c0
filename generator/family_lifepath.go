package generator

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/openapi"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/generator/rules"
)

// The route names of the life path numbers (docs/design.md §7): the list, one number, and
// the number of a date.
const (
	RouteLifePathList = "life-path-list"
	RouteLifePath     = "life-path"
	RouteLifePathDate = "life-path-date"
)

// lifePathFamily is the route family of the 12 life path numbers: the list, one number, and the number of a date (docs/design.md §7).
func lifePathFamily() []routeUnit {
	p := manifest.APIPrefix
	return []routeUnit{{
		row: manifest.Route{
			Name: RouteLifePathList, Pattern: p + "/life-path", File: "api/public/life-path.json",
			Summary:     "Все 12 чисел жизненного пути, кратко",
			Description: "Все 12 чисел жизненного пути, кратко",
			English:     "the 12 life path numbers, briefly",
			Example:     p + "/life-path",
			OperationID: "listLifePaths", Tag: "life-path",
		},
		renderer: renderer{
			tag:  "Числа жизненного пути: список, записи и число по дате рождения",
			body: []LifePathListItem{},
			schema: func(s *Site, b *openapi.Builder) (string, obj) {
				n := len(s.Content.LifePaths)
				return "LifePathList", obj{
					"type": "array", "items": b.SchemaOf(LifePathListItem{}), "minItems": n, "maxItems": n,
					"description": "12 чисел в порядке 1…9, 11, 22, 33; у каждого — оговорка disclaimer, как у других записей",
				}
			},
			fields: func(*Site) map[string]obj {
				return map[string]obj{
					"LifePathItem.number":     {"enum": rules.LifePathNumbers},
					"LifePathItem.url":        {"format": "uri", "description": "Адрес полной записи в API"},
					"LifePathListItem.number": {"enum": rules.LifePathNumbers},
					"LifePathListItem.url":    {"format": "uri", "description": "Адрес полной записи в API"},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) { return encodeOnce(s.LifePathListBody()) },
			pages:   func(p *pageRenderer) []page { return []page{p.lifePathListPage()} },
		},
	}, {
		row: manifest.Route{
			Name: RouteLifePath, Pattern: p + "/life-path/{number}", File: "api/public/life-path/{number}.json",
			Params: []manifest.ParamType{{Type: manifest.ParamNumber, Numbers: rules.LifePathNumbers}}, Error: manifest.ErrNumberNotFound,
			Summary:     "Одно число жизненного пути целиком",
			Description: "Одно число жизненного пути целиком: 1–9, 11, 22, 33",
			English:     "one life path number in full (1–9, 11, 22, 33)",
			Example:     p + "/life-path/7",
			OperationID: "getLifePath", Tag: "life-path",
		},
		renderer: renderer{
			goldens: [][]int{{33}},

			body: LifePathRecord{},
			fields: func(*Site) map[string]obj {
				return map[string]obj{
					"LifePathRecord.number":        {"enum": rules.LifePathNumbers},
					"LifePathRecord.famous_people": {"minItems": 1},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) {
				return encodeEach(func(vals []int) (any, error) {
					lp := s.lifePath(vals[0])
					if lp == nil {
						return nil, fmt.Errorf("no content for life path number %d", vals[0])
					}
					return s.LifePathRecord(lp), nil
				}), nil
			},
			pages:  func(p *pageRenderer) []page { return p.lifePathPages() },
			tables: lifePathTables,
		},
	}, {
		row: manifest.Route{
			Name: RouteLifePathDate, Pattern: p + "/life-path/{day}/{month}/{year}", File: "api/public/life-path/{day}/{month}/{year}.json",
			Params: dateParams(), Packed: &manifest.Packed{File: "api/public/life-path-months/{year}/{month}.jsonl", Unit: manifest.UnitMonth},
			Error: manifest.ErrInvalidDate, RateLimited: true,
			Summary:     "Число жизненного пути для даты рождения",
			Description: fmt.Sprintf("Число жизненного пути для даты рождения с %d по %d год, его краткое описание, четыре вершины с возрастами и четыре испытания", rules.FirstYear, rules.LastYear),
			English:     "the life path number of a birth date, " + yearsLabel() + ", with the number's brief description",
			Example:     p + "/life-path/15/5/1990",
			OperationID: "getLifePathOfDate", Tag: "life-path",
		},
		renderer: renderer{
			maxBytes: 4608, // the largest is 3,487 bytes (29.11.2090): 1,850 before the cycles added eight short readings (issue 29)

			body: LifePathDateRecord{},
			fields: func(*Site) map[string]obj {
				return map[string]obj{
					"LifePathDateRecord.number":    {"enum": rules.LifePathNumbers, "description": "Число жизненного пути этой даты"},
					"LifePathDateRecord.life_path": {"description": "Краткое описание числа, как в /life-path; url — полная запись"},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) {
				e, err := newLifePathDateEncoder(s)
				if err != nil {
					return nil, err
				}
				return func(dst []byte, v []int) ([]byte, error) { return e.Append(dst, v[0], v[1], v[2]), nil }, nil
			},
			pages:  func(p *pageRenderer) []page { return []page{p.lifePathDetailsPage()} },
			tables: lifePathDateTables,
		},
	}}
}

// lifePathDateEncoder renders the records of /life-path/{day}/{month}/{year} by appending:
// the number's part (its list item) and the citation and licence after the cycles depend on
// the number alone, and each pinnacle's and challenge's reading on its number, so all are
// encoded once. TestLifePathDateEncoderMatchesEncode holds its output byte-identical to
// Encode(s.LifePathDateRecord) for every date.
type lifePathDateEncoder struct {
	head       map[int][]byte // `},"number":n,"life_path":{…}`
	tail       map[int][]byte // `,"suggested_citation":…}` + "\n"
	pinnacle   map[int][]byte // `,"reading":"…"}` of a pinnacle number
	challenge  map[int][]byte // `,"reading":"…"}` of a challenge number
	pinnacles  []byte         // `,"pinnacles":[`
	challenges []byte         // `],"challenges":[`
}

func newLifePathDateEncoder(s *Site) (*lifePathDateEncoder, error) {
	e := &lifePathDateEncoder{head: map[int][]byte{}, tail: map[int][]byte{}, pinnacle: map[int][]byte{}, challenge: map[int][]byte{},
		pinnacles: []byte(`,"pinnacles":[`), challenges: []byte(`],"challenges":[`)}
	const head = `{"input":{"day":0,"month":0,"year":0`
	for _, n := range rules.LifePathNumbers {
		b, err := Encode(s.lifePathDateRecord(DateInput{}, n))
		if err != nil {
			return nil, err
		}
		rest, ok := bytes.CutPrefix(b, []byte(head))
		i, j := bytes.Index(rest, e.pinnacles), bytes.Index(rest, []byte(`,"suggested_citation":`))
		if !ok || i < 0 || j < i {
			return nil, fmt.Errorf("life path record of a date does not start with %s and hold its cycles before its citation", head)
		}
		e.head[n], e.tail[n] = rest[:i], rest[j:]
	}
	reading := func(text string) ([]byte, error) {
		b, err := Encode(struct {
			Reading string `json:"reading"`
		}{text})
		if err != nil {
			return nil, err
		}
		return append([]byte{','}, b[1:len(b)-1]...), nil // `,"reading":"…"}`
	}
	var err error
	for _, n := range rules.PinnacleNumbers {
		if e.pinnacle[n], err = reading(s.Content.Cycles.Pinnacles[n].Short); err != nil {
			return nil, err
		}
	}
	for _, n := range rules.ChallengeNumbers {
		if e.challenge[n], err = reading(s.Content.Cycles.Challenges[n].Short); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Append appends the record of a valid date to dst.
func (e *lifePathDateEncoder) Append(dst []byte, day, month, year int) []byte {
	n := rules.LifePath(day, month, year)
	dst = append(dst, `{"input":{"day":`...)
	dst = strconv.AppendInt(dst, int64(day), 10)
	dst = append(dst, `,"month":`...)
	dst = strconv.AppendInt(dst, int64(month), 10)
	dst = append(dst, `,"year":`...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	dst = append(dst, e.head[n]...)
	lc := rules.ComputeLifeCycles(day, month, year)
	dst = append(dst, e.pinnacles...)
	for i, p := range lc.Pinnacles {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"number":`...)
		dst = strconv.AppendInt(dst, int64(p.Number), 10)
		dst = append(dst, `,"from_age":`...)
		dst = strconv.AppendInt(dst, int64(p.From), 10)
		dst = append(dst, `,"to_age":`...)
		if p.HasEnd() {
			dst = strconv.AppendInt(dst, int64(p.To), 10)
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, e.pinnacle[int(p.Number)]...)
	}
	dst = append(dst, e.challenges...)
	for i, c := range lc.Challenges {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"number":`...)
		dst = strconv.AppendInt(dst, int64(c), 10)
		dst = append(dst, e.challenge[int(c)]...)
	}
	dst = append(dst, ']')
	return append(dst, e.tail[n]...)
}

// LifePathPage is the tree path of the page of a life path number.
func LifePathPage(n int) string { return "life-path/" + strconv.Itoa(n) + ".html" }

type personDoc struct {
	Name, Field string
	Born        string // the birth date in words, the Old Style one beside it (peopledates.go)
}

// lifePathDoc is what the life path pages show: the list, or one number with its famous
// people and its neighbours.
type lifePathDoc struct {
	LifePaths  []LifePathItem
	LifePath   *LifePathRecord
	People     []personDoc
	Prev, Next *LifePathItem
}

// lifePathListPage is the page of the 12 numbers.
func (p *pageRenderer) lifePathListPage() page {
	return page{file: LifePathListPage, template: "life-path-list.html", path: "/life-path", indexed: true,
		card:        cards.Card{Title: "Числа жизненного пути"},
		title:       "Числа жизненного пути — " + p.s.Content.Site.Title,
		description: "Двенадцать чисел жизненного пути: от 1 до 9 и мастер-числа 11, 22 и 33.",
		fill:        func(d *pageData) error { d.Page = &lifePathDoc{LifePaths: p.s.LifePathList()}; return nil }}
}

// lifePathPages are the pages of the numbers, one each.
func (p *pageRenderer) lifePathPages() []page {
	s := p.s
	list := s.LifePathList()
	var out []page
	for i := range s.Content.LifePaths {
		lp := &s.Content.LifePaths[i]
		out = append(out, page{file: LifePathPage(lp.Number), template: "life-path.html",
			path: "/life-path/" + strconv.Itoa(lp.Number), indexed: true,
			// Without the site's name, which og:site_name carries: with it, the longest
			// title would pass the 70 characters a search result shows.
			title:       fmt.Sprintf("Число жизненного пути %d — «%s»", lp.Number, lp.Archetype),
			card:        cards.Card{Title: fmt.Sprintf("Число жизненного пути %d — «%s»", lp.Number, lp.Archetype), Mark: strconv.Itoa(lp.Number)},
			description: lp.ShortDescription,
			fill:        func(d *pageData) error { p.fillLifePath(d, list, i); return nil }})
	}
	return out
}

// fillLifePath fills the fields of the page of the i-th life path number.
func (p *pageRenderer) fillLifePath(d *pageData, list []LifePathItem, i int) {
	lp := &p.s.Content.LifePaths[i]
	rec := p.s.LifePathRecord(lp)
	doc := &lifePathDoc{LifePath: &rec}
	d.Page = doc
	d.APIPath = RoutePath(RouteLifePath, lp.Number)
	for _, person := range lp.FamousPeople {
		doc.People = append(doc.People, personDoc{person.Name, person.Field, bornText(person)})
	}
	if i > 0 {
		doc.Prev = &list[i-1]
	}
	if i+1 < len(list) {
		doc.Next = &list[i+1]
	}
}

// lifePath returns the content of a life path number, nil when there is none.
func (s *Site) lifePath(n int) *content.LifePath {
	i := slices.IndexFunc(s.Content.LifePaths, func(lp content.LifePath) bool { return lp.Number == n })
	if i < 0 {
		return nil
	}
	return &s.Content.LifePaths[i]
}

// LifePathSourceURL is the human page of a life path number.
func (s *Site) LifePathSourceURL(n int) string { return s.SiteURL + "/life-path/" + strconv.Itoa(n) }

// LifePathAPIURL is the API URL of a life path record.
func (s *Site) LifePathAPIURL(n int) string { return s.SiteURL + RoutePath(RouteLifePath, n) }

// Person is a famous person as published: the birth date stays in content.
type Person struct {
	Name  string `json:"name"`
	Field string `json:"field"`
}

// LifePathRecord is the body of /life-path/{n}.
type LifePathRecord struct {
	Number            int      `json:"number"`
	Archetype         string   `json:"archetype"`
	Tagline           string   `json:"tagline"`
	ShortDescription  string   `json:"short_description"`
	Description       string   `json:"description"`
	Traits            []string `json:"traits"`
	Weaknesses        []string `json:"weaknesses"`
	Career            []string `json:"career"`
	Love              string   `json:"love"`
	Advice            string   `json:"advice"`
	FamousPeople      []Person `json:"famous_people"`
	SourceURL         string   `json:"source_url"`
	SuggestedCitation string   `json:"suggested_citation"`
	attribution
}

// LifePathItem is one entry of /life-path.
type LifePathItem struct {
	Number           int    `json:"number"`
	Archetype        string `json:"archetype"`
	Tagline          string `json:"tagline"`
	ShortDescription string `json:"short_description"`
	URL              string `json:"url"`
	SourceURL        string `json:"source_url"`
}

// LifePathListItem is one entry of the body of /life-path: the item, with the caveat every
// record carries. The list is an array with no room for record-wide fields, and an app may
// show its short texts alone, so each item carries it (issue 32, §6). Where an item is part of
// another record (life_path of a date's record), that record carries the caveat once.
type LifePathListItem struct {
	LifePathItem
	Disclaimer string `json:"disclaimer"`
}

// LifePathRecord builds the record of one life path number.
func (s *Site) LifePathRecord(lp *content.LifePath) LifePathRecord {
	people := make([]Person, len(lp.FamousPeople))
	for i, p := range lp.FamousPeople {
		people[i] = Person{p.Name, p.Field}
	}
	src := s.LifePathSourceURL(lp.Number)
	return LifePathRecord{
		Number:           lp.Number,
		Archetype:        lp.Archetype,
		Tagline:          lp.Tagline,
		ShortDescription: lp.ShortDescription,
		Description:      strings.TrimSpace(lp.Description),
		Traits:           lp.Traits,
		Weaknesses:       lp.Weaknesses,
		Career:           lp.Career,
		Love:             strings.TrimSpace(lp.Love),
		Advice:           strings.TrimSpace(lp.Advice),
		FamousPeople:     people,
		SourceURL:        src,
		SuggestedCitation: strings.NewReplacer(
			"{number}", strconv.Itoa(lp.Number), "{archetype}", lp.Archetype,
			"{version}", manifest.APIVersion, "{url}", src,
		).Replace(s.citationLifePath),
		attribution: s.attribution(),
	}
}

// LifePathList builds the 12 items of /life-path as the pages and the records that hold an
// item use them; the body of /life-path adds the disclaimer to each (LifePathListBody).
func (s *Site) LifePathList() []LifePathItem {
	items := make([]LifePathItem, len(s.Content.LifePaths))
	for i, lp := range s.Content.LifePaths {
		items[i] = LifePathItem{
			Number:           lp.Number,
			Archetype:        lp.Archetype,
			Tagline:          lp.Tagline,
			ShortDescription: lp.ShortDescription,
			URL:              s.LifePathAPIURL(lp.Number),
			SourceURL:        s.LifePathSourceURL(lp.Number),
		}
	}
	return items
}

// LifePathListBody builds the body of /life-path: the list, each item with the disclaimer.
func (s *Site) LifePathListBody() []LifePathListItem {
	list := s.LifePathList()
	out := make([]LifePathListItem, len(list))
	for i, it := range list {
		out[i] = LifePathListItem{it, s.disclaimer}
	}
	return out
}

// LifePathDateSourceURL is the human page behind a life path record of a date: the page of
// its number.
func (s *Site) LifePathDateSourceURL(n int) string { return s.LifePathSourceURL(n) }

// LifePathDateRecord is the body of /life-path/{day}/{month}/{year}: the life path number
// of a date (docs/design.md §7) and the number's list item.
type LifePathDateRecord struct {
	Input    DateInput    `json:"input"`
	Number   int          `json:"number"`
	LifePath LifePathItem `json:"life_path"` // the item of /life-path: url is the full record
	// Pinnacles and Challenges are the date's life cycles (docs/design.md §16), each with
	// its short reading; the long texts are in /personal-year/meanings.
	Pinnacles         [4]PinnacleItem  `json:"pinnacles"`
	Challenges        [4]ChallengeItem `json:"challenges"`
	SuggestedCitation string           `json:"suggested_citation"`
	SourceURL         string           `json:"source_url"`
	attribution
}

// PinnacleItem is one of the four pinnacles of a birth date: its number, the ages it runs
// between (ToAge nil for the fourth, which has no end) and its short reading.
type PinnacleItem struct {
	Number  int    `json:"number"`
	FromAge int    `json:"from_age"`
	ToAge   *int   `json:"to_age"`
	Reading string `json:"reading"`
}

// ChallengeItem is one of the four challenges of a birth date, with its short reading.
type ChallengeItem struct {
	Number  int    `json:"number"`
	Reading string `json:"reading"`
}

// LifePathDateRecord builds the record of one valid date.
func (s *Site) LifePathDateRecord(day, month, year int) LifePathDateRecord {
	r := s.lifePathDateRecord(DateInput{day, month, year}, rules.LifePath(day, month, year))
	lc := rules.ComputeLifeCycles(day, month, year)
	for i, p := range lc.Pinnacles {
		r.Pinnacles[i] = PinnacleItem{Number: int(p.Number), FromAge: int(p.From), Reading: s.Content.Cycles.Pinnacles[int(p.Number)].Short}
		if p.HasEnd() {
			to := int(p.To)
			r.Pinnacles[i].ToAge = &to
		}
	}
	for i, c := range lc.Challenges {
		r.Challenges[i] = ChallengeItem{Number: int(c), Reading: s.Content.Cycles.Challenges[int(c)].Short}
	}
	return r
}

// lifePathDateRecord builds the record of a date whose number is n.
func (s *Site) lifePathDateRecord(in DateInput, n int) LifePathDateRecord {
	r := LifePathDateRecord{Input: in, Number: n, SourceURL: s.LifePathDateSourceURL(n), attribution: s.attribution()}
	for _, it := range s.LifePathList() {
		if it.Number == n {
			r.LifePath = it
		}
	}
	r.SuggestedCitation = strings.NewReplacer(
		"{number}", strconv.Itoa(n), "{archetype}", r.LifePath.Archetype,
		"{version}", manifest.APIVersion, "{url}", r.SourceURL,
	).Replace(s.citationLifePath)
	return r
}

// lifePathTables are the tables of the 12 numbers' records: life_path, a row per number,
// and life_path_famous_people, a row per person a record names.
func lifePathTables() []Table {
	numbers := table.Column{Name: "number", Type: table.Integer, Description: "Life path number", Unique: true, Enum: rules.LifePathNumbers}
	lp := &table.Table{
		Name:        "life_path",
		Title:       "Life path numbers",
		Description: "The 12 life path numbers in full, as in " + route(RouteLifePath).File + ": the lists (traits, weaknesses, careers) hold one item a line.",
		Russian:     "числа жизненного пути: число, архетип, девиз, краткое и полное описание, черты, слабости, профессии (по пункту в строке), любовь, совет",
		Columns: []table.Column{
			numbers,
			textColumn("archetype", "Archetype (Russian)"), textColumn("tagline", "Tagline (Russian)"),
			textColumn("short_description", "Short description (Russian)"), textColumn("description", "Description (Russian)"),
			textColumn("traits", "Traits (Russian), one a line"), textColumn("weaknesses", "Weaknesses (Russian), one a line"),
			textColumn("career", "Careers (Russian), one a line"), textColumn("love", "Love (Russian)"), textColumn("advice", "Advice (Russian)"),
		},
		PrimaryKey: []string{"number"},
	}
	numbers.Unique = false
	people := &table.Table{
		Name:        "life_path_famous_people",
		Title:       "Famous people of each life path number",
		Description: "The famous people each life path record names, in its order.",
		Russian:     "известные люди каждого числа: число, порядковый номер, имя, чем известен",
		Columns: []table.Column{
			numbers, intColumn("position", "Place in the record's list, from 1", 1, 99),
			textColumn("name", "Name (Russian)"), textColumn("field", "What the person is known for (Russian)"),
		},
		PrimaryKey:  []string{"number", "position"},
		ForeignKeys: []table.ForeignKey{{Column: "number", Table: "life_path", TableColumn: "number"}},
	}
	rows := func(vals []int, body []byte) (*LifePathRecord, error) {
		var r LifePathRecord
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, fmt.Errorf("not a life path record: %w", err)
		}
		if r.Number != vals[0] {
			return nil, fmt.Errorf("holds number %d", r.Number)
		}
		return &r, nil
	}
	return []Table{{lp, func(t *table.Table, vals []int, body []byte) error {
		r, err := rows(vals, body)
		if err != nil {
			return err
		}
		return t.Append(table.Int(r.Number), table.Str(r.Archetype), table.Str(r.Tagline), table.Str(r.ShortDescription),
			table.Str(r.Description), table.Str(lines(r.Traits)), table.Str(lines(r.Weaknesses)), table.Str(lines(r.Career)),
			table.Str(r.Love), table.Str(r.Advice))
	}}, {people, func(t *table.Table, vals []int, body []byte) error {
		r, err := rows(vals, body)
		if err != nil {
			return err
		}
		for i, p := range r.FamousPeople {
			if err := t.Append(table.Int(r.Number), table.Int(i+1), table.Str(p.Name), table.Str(p.Field)); err != nil {
				return err
			}
		}
		return nil
	}}}
}

// lifePathDateTables is life_path_dates: the life path number of every date, with its
// pinnacles and challenges (docs/design.md §16).
func lifePathDateTables() []Table {
	cols := append(dateColumns(),
		table.Column{Name: "number", Type: table.Integer, Description: "Life path number; see life_path", Enum: rules.LifePathNumbers})
	for i := 1; i <= 4; i++ {
		cols = append(cols, intColumn("pinnacle_"+itoa(i), "Pinnacle "+itoa(i)+": 1–9, 11 or 22", 1, 22))
	}
	cols = append(cols, intColumn("pinnacle_1_to_age", "The age the first pinnacle ends at (27–35); the second and third run nine years each, the fourth to the end of life", 0, 99))
	for i := 1; i <= 4; i++ {
		cols = append(cols, intColumn("challenge_"+itoa(i), "Challenge "+itoa(i)+", 0–8", 0, 8))
	}
	return []Table{{&table.Table{
		Name:        "life_path_dates",
		Title:       "Life path number, pinnacles and challenges of every birth date",
		Description: "One row per date: its life path number, the four pinnacles with the age the first ends at, and the four challenges, as in " + route(RouteLifePathDate).File + ". The numbers are described in life_path; the pinnacles' and challenges' texts in " + route(RoutePersonalYearMeanings).File + ".",
		Russian:     "число жизненного пути, вершины и испытания для каждой даты: дата ISO, день, месяц, год, число, четыре вершины, возраст, в котором кончается первая, четыре испытания",
		Columns:     cols,
		PrimaryKey:  []string{"date"},
		ForeignKeys: []table.ForeignKey{{Column: "number", Table: "life_path", TableColumn: "number"}},
	}, func(t *table.Table, vals []int, body []byte) error {
		// Only the numbers: the readings, the embedded list item and the attribution of
		// each of the 73,414 records are not decoded.
		var r struct {
			Input     DateInput `json:"input"`
			Number    int       `json:"number"`
			Pinnacles [4]struct {
				Number int  `json:"number"`
				ToAge  *int `json:"to_age"`
			} `json:"pinnacles"`
			Challenges [4]struct {
				Number int `json:"number"`
			} `json:"challenges"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return fmt.Errorf("not a life path record of a date: %w", err)
		}
		d, m, y := r.Input.Day, r.Input.Month, r.Input.Year
		if err := checkDate(vals, d, m, y); err != nil {
			return err
		}
		if r.Pinnacles[0].ToAge == nil {
			return fmt.Errorf("the first pinnacle has no end")
		}
		row := append(dateValues(d, m, y), table.Int(r.Number))
		for _, p := range r.Pinnacles {
			row = append(row, table.Int(p.Number))
		}
		row = append(row, table.Int(*r.Pinnacles[0].ToAge))
		for _, c := range r.Challenges {
			row = append(row, table.Int(c.Number))
		}
		return t.Append(row...)
	}}}
}

// scanLifePathDate reads the date and the number of a life path record of a date as the
// generator writes it, without a full JSON parse; ok is false for anything unexpected.
func scanLifePathDate(b []byte) (d, m, y, n int, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"input":{"day":`))
	if !ok {
		return
	}
	fields := []struct {
		after string
		dst   *int
	}{{`,"month":`, &d}, {`,"year":`, &m}, {`},"number":`, &y}, {`,"life_path":`, &n}}
	for _, f := range fields {
		if rest, ok = scanInt(rest, f.dst); !ok {
			return
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(f.after)); !ok {
			return
		}
	}
	return d, m, y, n, true
}

// LifePathListPage is the page of the 12 numbers.
const LifePathListPage = "life-path.html"

// LifePathDetailsPage is the page of a date's life path number with its pinnacles and
// challenges (docs/design.md §16).
const LifePathDetailsPage = "life-path/details.html"

// lifePathDetailsDoc is what the life path details page's script reads.
type lifePathDetailsDoc struct{ JSON htmltemplate.JS }

// lifePathDetailsPage draws the life path number, the pinnacles as a timeline and the
// challenges of the date in its query string. Like the other details pages it is left out
// of the sitemap.
func (p *pageRenderer) lifePathDetailsPage() page {
	return page{file: LifePathDetailsPage, template: "life-path-details.html", path: "/life-path/details",
		card:        cards.Card{Title: "Вершины и испытания по дате рождения"},
		title:       "Вершины и испытания по дате рождения — " + p.s.Content.Site.Title,
		description: "Число жизненного пути для выбранной даты рождения, четыре вершины с возрастами, на которые они приходятся, и четыре испытания.",
		fill: func(d *pageData) error {
			d.APIPath = RoutePath(RouteLifePathDate, 15, 5, 1990)
			type item struct {
				Archetype string `json:"archetype"`
			}
			c := &p.s.Content.Cycles
			v := struct {
				SiteTitle    string            `json:"siteTitle"`
				SiteURL      string            `json:"siteURL"`
				SupportEmail string            `json:"supportEmail"`
				FirstYear    int               `json:"firstYear"`
				LastYear     int               `json:"lastYear"`
				RateLimit    int               `json:"rateLimit"`
				Citation     string            `json:"citation"` // {number}, {archetype} and {url} left to fill
				Attribution  string            `json:"attribution"`
				LifePaths    map[string]item   `json:"lifePaths"`
				Pinnacles    map[string]string `json:"pinnacles"`  // short readings by number
				Challenges   map[string]string `json:"challenges"` // short readings by number
			}{
				SiteTitle: p.s.Content.Site.Title, SiteURL: p.s.SiteURL, SupportEmail: p.s.Content.Site.SupportEmail,
				FirstYear: rules.FirstYear, LastYear: rules.LastYear, RateLimit: p.base.RateLimit.Requests,
				Citation:    strings.ReplaceAll(p.s.citationLifePath, "{version}", manifest.APIVersion),
				Attribution: p.s.Attribution,
				LifePaths:   map[string]item{}, Pinnacles: map[string]string{}, Challenges: map[string]string{},
			}
			for _, lp := range p.s.LifePathList() {
				v.LifePaths[strconv.Itoa(lp.Number)] = item{lp.Archetype}
			}
			for _, n := range rules.PinnacleNumbers {
				v.Pinnacles[strconv.Itoa(n)] = c.Pinnacles[n].Short
			}
			for _, n := range rules.ChallengeNumbers {
				v.Challenges[strconv.Itoa(n)] = c.Challenges[n].Short
			}
			// goccy/go-json escapes <, > and & by default, so the JSON cannot close the script element.
			b, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("encode life path page data: %w", err)
			}
			d.Page = &lifePathDetailsDoc{JSON: htmltemplate.JS(b)}
			return nil
		}}
}
