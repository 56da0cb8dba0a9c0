package generator

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/openapi"
	"github.com/opennumerology/numerology/generator/rules"
)

// lifePathFamily is the route family of the 12 life path numbers: the list, one number, and the number of a date (docs/design.md §7).
func lifePathFamily() []routeUnit {
	p := manifest.APIPrefix
	return []routeUnit{{
		row: manifest.Route{
			Name: manifest.RouteLifePathList, Pattern: p + "/life-path", File: manifest.ListFile,
			Summary:     "Все 12 чисел жизненного пути, кратко",
			Description: "Все 12 чисел жизненного пути, кратко",
			English:     "the 12 life path numbers, briefly",
			Example:     p + "/life-path",
			OperationID: "listLifePaths", Tag: "life-path",
		},
		renderer: renderer{
			body: []LifePathItem{},
			schema: func(s *Site, b *openapi.Builder) (string, obj) {
				n := len(s.Content.LifePaths)
				return "LifePathList", obj{
					"type": "array", "items": b.SchemaOf(LifePathItem{}), "minItems": n, "maxItems": n,
					"description": "12 чисел в порядке 1…9, 11, 22, 33",
				}
			},
			fields: func(*Site) map[string]obj {
				return map[string]obj{
					"LifePathItem.number": {"enum": rules.LifePathNumbers},
					"LifePathItem.url":    {"format": "uri", "description": "Адрес полной записи в API"},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) { return encodeOnce(s.LifePathList()) },
			pages:   func(p *pageRenderer) []page { return []page{p.lifePathListPage()} },
			table:   lifePathTable,
		},
	}, {
		row: manifest.Route{
			Name: manifest.RouteLifePath, Pattern: p + "/life-path/{number}", File: "api/public/life-path/{number}.json",
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
			pages: func(p *pageRenderer) []page { return p.lifePathPages() },
		},
	}, {
		row: manifest.Route{
			Name: manifest.RouteLifePathDate, Pattern: p + "/life-path/{day}/{month}/{year}", File: "api/public/life-path/{day}/{month}/{year}.json",
			Params: dateParams(), Packed: &manifest.Packed{File: "api/public/life-path-months/{year}/{month}.jsonl", Unit: manifest.UnitMonth},
			Error: manifest.ErrInvalidDate, RateLimited: true,
			Summary:     "Число жизненного пути для даты рождения",
			Description: fmt.Sprintf("Число жизненного пути для даты рождения с %d по %d год и его краткое описание", rules.FirstYear, rules.LastYear),
			English:     "the life path number of a birth date, " + yearsLabel() + ", with the number's brief description",
			Example:     p + "/life-path/15/5/1990",
			OperationID: "getLifePathOfDate", Tag: "life-path",
		},
		renderer: renderer{
			maxBytes: 2048, // the largest is about 1,850 bytes, 266 of them the caveat

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
			table: lifePathDatesTable,
		},
	}}
}

// lifePathDateEncoder renders the records of /life-path/{day}/{month}/{year} by appending:
// everything after the input depends on the number alone, so it is encoded once per number
// (tail). TestLifePathDateEncoderMatchesEncode holds its output byte-identical to
// Encode(s.LifePathDateRecord).
type lifePathDateEncoder struct {
	tail map[int][]byte // `},"number":n,…}` + "\n"
}

func newLifePathDateEncoder(s *Site) (*lifePathDateEncoder, error) {
	e := &lifePathDateEncoder{tail: map[int][]byte{}}
	const head = `{"input":{"day":0,"month":0,"year":0`
	for _, n := range rules.LifePathNumbers {
		b, err := Encode(s.lifePathDateRecord(DateInput{}, n))
		if err != nil {
			return nil, err
		}
		rest, ok := bytes.CutPrefix(b, []byte(head))
		if !ok {
			return nil, fmt.Errorf("life path record of a date does not start with %s", head)
		}
		e.tail[n] = rest
	}
	return e, nil
}

// Append appends the record of a valid date to dst.
func (e *lifePathDateEncoder) Append(dst []byte, day, month, year int) []byte {
	dst = append(dst, `{"input":{"day":`...)
	dst = strconv.AppendInt(dst, int64(day), 10)
	dst = append(dst, `,"month":`...)
	dst = strconv.AppendInt(dst, int64(month), 10)
	dst = append(dst, `,"year":`...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	return append(dst, e.tail[rules.LifePath(day, month, year)]...)
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
	d.APIPath = RoutePath(manifest.RouteLifePath, lp.Number)
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
func (s *Site) LifePathAPIURL(n int) string { return s.SiteURL + RoutePath(manifest.RouteLifePath, n) }

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

// LifePathList builds the body of /life-path.
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

// LifePathDateSourceURL is the human page behind a life path record of a date: the page of
// its number.
func (s *Site) LifePathDateSourceURL(n int) string { return s.LifePathSourceURL(n) }

// LifePathDateRecord is the body of /life-path/{day}/{month}/{year}: the life path number
// of a date (docs/design.md §7) and the number's list item.
type LifePathDateRecord struct {
	Input             DateInput    `json:"input"`
	Number            int          `json:"number"`
	LifePath          LifePathItem `json:"life_path"` // the item of /life-path: url is the full record
	SuggestedCitation string       `json:"suggested_citation"`
	SourceURL         string       `json:"source_url"`
	attribution
}

// LifePathDateRecord builds the record of one valid date.
func (s *Site) LifePathDateRecord(day, month, year int) LifePathDateRecord {
	return s.lifePathDateRecord(DateInput{day, month, year}, rules.LifePath(day, month, year))
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

// lifePathTable is life-path.csv: the 12 numbers, briefly, from the list.
func lifePathTable() Table {
	return Table{
		Name:        "life-path",
		Title:       "Life path numbers",
		Description: "The 12 life path numbers briefly, as in " + route(manifest.RouteLifePathList).File + "; full records are in " + route(manifest.RouteLifePath).File + ".",
		Russian:     "числа жизненного пути: число, архетип, девиз, краткое описание",
		Fields: []TableField{
			{Name: "number", Type: "integer", Description: "Life path number", Unique: true, Enum: rules.LifePathNumbers},
			strField("archetype", "Archetype (Russian)"), strField("tagline", "Tagline (Russian)"),
			strField("short_description", "Short description (Russian)"),
		},
		PrimaryKey: []string{"number"},
		Rows: func(_ []int, body []byte) ([][]string, error) {
			var items []LifePathItem
			if err := json.Unmarshal(body, &items); err != nil {
				return nil, fmt.Errorf("not a life path list: %w", err)
			}
			rows := make([][]string, len(items))
			for i, lp := range items {
				rows[i] = []string{strconv.Itoa(lp.Number), lp.Archetype, lp.Tagline, lp.ShortDescription}
			}
			return rows, nil
		},
	}
}

// lifePathDatesTable is life-path-dates.csv: the life path number of every date.
func lifePathDatesTable() Table {
	return Table{
		Name:        "life-path-dates",
		Title:       "Life path number of every birth date",
		Description: "One row per date: its life path number; the same values as " + route(manifest.RouteLifePathDate).File + ". The numbers are described in life-path.csv.",
		Russian:     "число жизненного пути для каждой даты: дата ISO, день, месяц, год и число",
		Fields: []TableField{
			{Name: "date", Type: "date", Description: "Birth date, ISO 8601 (YYYY-MM-DD)", Unique: true},
			intField("day", "Day of the month", 1, 31),
			intField("month", "Month", 1, 12),
			intField("year", "Year", rules.FirstYear, rules.LastYear),
			{Name: "number", Type: "integer", Description: "Life path number; see life-path.csv", Enum: rules.LifePathNumbers},
		},
		PrimaryKey:  []string{"date"},
		ForeignKeys: []TableForeignKey{{Field: "number", Table: "life-path", TableField: "number"}},
		Rows: func(vals []int, body []byte) ([][]string, error) {
			d, m, y, n, ok := scanLifePathDate(body)
			if !ok {
				var r LifePathDateRecord
				if err := json.Unmarshal(body, &r); err != nil {
					return nil, fmt.Errorf("not a life path record of a date: %w", err)
				}
				d, m, y, n = r.Input.Day, r.Input.Month, r.Input.Year, r.Number
			}
			if d != vals[0] || m != vals[1] || y != vals[2] {
				return nil, fmt.Errorf("holds the record of %d.%d.%d", d, m, y)
			}
			return [][]string{{fmt.Sprintf("%04d-%02d-%02d", y, m, d), strconv.Itoa(d), strconv.Itoa(m), strconv.Itoa(y), strconv.Itoa(n)}}, nil
		},
	}
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
