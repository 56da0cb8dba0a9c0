package generator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/generator/rules"
)

// The route names of the 22 major arcana: the list, and one arcanum.
const (
	RouteArcanaList = "arcana-list"
	RouteArcana     = "arcana"
)

// arcanaFamily is the route family of the 22 major arcana: the list and one arcanum.
func arcanaFamily() []routeUnit {
	p := manifest.APIPrefix
	return []routeUnit{{
		row: manifest.Route{
			Name: RouteArcanaList, Pattern: p + "/arcana", File: "api/public/arcana.json",
			Summary:     "Все 22 старших аркана, кратко",
			Description: "22 старших аркана матрицы судьбы, кратко: номер, название, ключевое слово и эмодзи",
			English:     "the 22 major arcana of the destiny matrix, briefly",
			Example:     p + "/arcana",
			OperationID: "listArcana", Tag: "arcana",
		},
		renderer: renderer{
			tag:  "22 старших аркана матрицы судьбы",
			body: ArcanaList{},
			fields: func(s *Site) map[string]obj {
				n := len(s.Content.Arcana)
				return map[string]obj{
					"ArcanaList.arcana": {"minItems": n, "maxItems": n, "description": "22 аркана в порядке номеров"},
					"ArcanaItem.number": {"enum": rules.ArcanaNumbers},
					"ArcanaItem.url":    {"format": "uri", "description": "Адрес полной записи в API"},
					"ArcanaItem.emoji":  {"minLength": 1},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) { return encodeOnce(s.ArcanaList()) },
			pages:   func(p *pageRenderer) []page { return []page{p.arcanaListPage()} },
		},
	}, {
		row: manifest.Route{
			Name: RouteArcana, Pattern: p + "/arcana/{number}", File: "api/public/arcana/{number}.json",
			Params: []manifest.ParamType{{Type: manifest.ParamNumber, Numbers: rules.ArcanaNumbers}}, Error: manifest.ErrArcanaNotFound,
			Summary:     "Один старший аркан целиком",
			Description: "Один старший аркан целиком, 1–22: название, ключевое слово, эмодзи и описание",
			English:     "one major arcanum in full (1–22): name, keyword, emoji and description",
			Example:     p + "/arcana/7",
			OperationID: "getArcanum", Tag: "arcana",
		},
		renderer: renderer{
			goldens: [][]int{{22}},

			body: ArcanaRecord{},
			fields: func(*Site) map[string]obj {
				return map[string]obj{
					"ArcanaRecord.number":      {"enum": rules.ArcanaNumbers},
					"ArcanaRecord.emoji":       {"minLength": 1},
					"ArcanaRecord.description": {"minLength": 1},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) {
				return encodeEach(func(vals []int) (any, error) {
					i := slices.IndexFunc(s.Content.Arcana, func(a content.Arcanum) bool { return a.Number == vals[0] })
					if i < 0 {
						return nil, fmt.Errorf("no content for arcanum %d", vals[0])
					}
					return s.ArcanaRecord(&s.Content.Arcana[i]), nil
				}), nil
			},
			pages:  func(p *pageRenderer) []page { return p.arcanaPages() },
			tables: arcanaTables,
		},
	}}
}

// ArcanaListPage is the page of the 22 arcana.
const ArcanaListPage = "arcana.html"

// ArcanaPage is the tree path of the page of an arcanum.
func ArcanaPage(n int) string { return "arcana/" + strconv.Itoa(n) + ".html" }

// arcanaListPage is the page of the 22 arcana.
func (p *pageRenderer) arcanaListPage() page {
	return page{file: ArcanaListPage, template: "arcana-list.html", path: "/arcana", indexed: true,
		card:        cards.Card{Title: "Старшие арканы матрицы судьбы"},
		title:       "Старшие арканы — " + p.s.Content.Site.Title,
		description: "Двадцать два старших аркана матрицы судьбы: номер, название, ключевое слово и значение.",
		fill: func(d *pageData) error {
			d.Page = &arcanaDoc{ArcanaList: p.s.ArcanaList()}
			d.APIPath = RoutePath(RouteArcanaList)
			return nil
		}}
}

// arcanaDoc is what the arcana's pages show: the list, or one arcanum with where it can
// stand and its neighbours.
type arcanaDoc struct {
	ArcanaList               ArcanaList
	ArcanaRecord             *ArcanaRecord
	PrevArcanum, NextArcanum *ArcanaItem
	ArcanumPlaces            arcanumPlaces // where the arcanum can stand (arcanapositions.go)
}

// arcanaPages are the pages of the arcana, one each.
func (p *pageRenderer) arcanaPages() []page {
	s := p.s
	list := s.ArcanaList().Arcana
	var out []page
	for i := range s.Content.Arcana {
		a := &s.Content.Arcana[i]
		out = append(out, page{file: ArcanaPage(a.Number), template: "arcana.html",
			path: "/arcana/" + strconv.Itoa(a.Number), indexed: true,
			card:        cards.Card{Title: fmt.Sprintf("Старший аркан %d — «%s»", a.Number, a.Name), Mark: strconv.Itoa(a.Number)},
			title:       fmt.Sprintf("Старший аркан %d, «%s» — %s", a.Number, a.Name, s.Content.Site.Title),
			description: fmt.Sprintf("Аркан %d «%s»: ключевое слово — %s. Значение в матрице судьбы.", a.Number, a.Name, strings.ToLower(a.Keyword)),
			fill: func(d *pageData) error {
				rec := s.ArcanaRecord(a)
				doc := &arcanaDoc{ArcanaRecord: &rec, ArcanumPlaces: p.arcanumPlaces(a.Number)}
				d.APIPath = RoutePath(RouteArcana, a.Number)
				if i > 0 {
					doc.PrevArcanum = &list[i-1]
				}
				if i+1 < len(list) {
					doc.NextArcanum = &list[i+1]
				}
				d.Page = doc
				return nil
			}})
	}
	return out
}

// ArcanaSourceURL is the human page of an arcanum; ArcanaListSourceURL that of the 22.
func (s *Site) ArcanaSourceURL(n int) string { return s.SiteURL + "/arcana/" + strconv.Itoa(n) }

// ArcanaListSourceURL is the human page of the 22 arcana.
func (s *Site) ArcanaListSourceURL() string { return s.SiteURL + "/arcana" }

// ArcanaItem is one entry of /arcana.
type ArcanaItem struct {
	Number    int    `json:"number"`
	Name      string `json:"name"`
	Keyword   string `json:"keyword"`
	Emoji     string `json:"emoji"`
	URL       string `json:"url"`        // the full record in the API
	SourceURL string `json:"source_url"` // its page
}

// ArcanaList is the body of /arcana: the 22 arcana, briefly.
type ArcanaList struct {
	Arcana            []ArcanaItem `json:"arcana"`
	SourceURL         string       `json:"source_url"`
	SuggestedCitation string       `json:"suggested_citation"`
	attribution
}

// ArcanaRecord is the body of /arcana/{number}.
type ArcanaRecord struct {
	Number            int    `json:"number"`
	Name              string `json:"name"`
	Keyword           string `json:"keyword"`
	Emoji             string `json:"emoji"`
	Description       string `json:"description"`
	SourceURL         string `json:"source_url"`
	SuggestedCitation string `json:"suggested_citation"`
	attribution
}

// ArcanaList builds the body of /arcana.
func (s *Site) ArcanaList() ArcanaList {
	l := ArcanaList{
		SourceURL:         s.ArcanaListSourceURL(),
		SuggestedCitation: s.cite("Старшие арканы матрицы судьбы", s.ArcanaListSourceURL()),
		attribution:       s.attribution(),
	}
	for _, a := range s.Content.Arcana {
		l.Arcana = append(l.Arcana, ArcanaItem{a.Number, a.Name, a.Keyword, a.Emoji,
			s.SiteURL + RoutePath(RouteArcana, a.Number), s.ArcanaSourceURL(a.Number)})
	}
	return l
}

// ArcanaRecord builds the record of one arcanum.
func (s *Site) ArcanaRecord(a *content.Arcanum) ArcanaRecord {
	src := s.ArcanaSourceURL(a.Number)
	return ArcanaRecord{
		Number: a.Number, Name: a.Name, Keyword: a.Keyword, Emoji: a.Emoji,
		Description:       strings.TrimSpace(a.Description),
		SourceURL:         src,
		SuggestedCitation: s.cite(fmt.Sprintf("Старший аркан %d — «%s»", a.Number, a.Name), src),
		attribution:       s.attribution(),
	}
}

// arcanaTables is arcana: the 22 arcana, a row each, from their records.
func arcanaTables() []Table {
	return []Table{{&table.Table{
		Name:        "arcana",
		Title:       "The 22 arcana",
		Description: "Number, Russian name, keyword, emoji and description of each major arcanum, as in " + route(RouteArcana).File + "; the matrix records name them by number.",
		Russian:     "старшие арканы: номер, название, ключевое слово, эмодзи, описание",
		Columns: []table.Column{
			{Name: "number", Type: table.Integer, Description: "Arcanum number", Unique: true, Min: 1, Max: len(rules.ArcanaNumbers)},
			textColumn("name", "Name (Russian)"), textColumn("keyword", "Keyword (Russian)"), textColumn("emoji", "Emoji"),
			textColumn("description", "Description (Russian)"),
		},
		PrimaryKey: []string{"number"},
	}, func(t *table.Table, vals []int, body []byte) error {
		var r ArcanaRecord
		if err := json.Unmarshal(body, &r); err != nil {
			return fmt.Errorf("not an arcana record: %w", err)
		}
		if r.Number != vals[0] {
			return fmt.Errorf("holds arcanum %d", r.Number)
		}
		return t.Append(table.Int(r.Number), table.Str(r.Name), table.Str(r.Keyword), table.Str(r.Emoji), table.Str(r.Description))
	}}}
}
