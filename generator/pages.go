package generator

import (
	"bytes"
	"context"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"path"
	"strconv"
	"strings"
	texttemplate "text/template"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/templates"
)

// Page files of the tree. A page is addressed without its extension: the edges resolve a
// path to the exact file, else path + ".html", else path + "/index.html".
const (
	HomePage         = "index.html"
	LifePathListPage = "life-path.html"
	MatrixPage       = "matrix.html"
	DetailsPage      = "matrix/details.html"
	LLMsFile         = "llms.txt"
	AssetsDir        = "assets"
)

// LifePathPage is the tree path of the page of a life path number.
func LifePathPage(n int) string { return "life-path/" + strconv.Itoa(n) + ".html" }

// writePages writes the human pages, their assets, llms.txt and the OpenAPI document.
func writePages(ctx context.Context, s *Site, emit func(path string, body []byte) error) error {
	p, err := newPageRenderer(s)
	if err != nil {
		return err
	}
	files, err := p.render()
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := emit(f.path, f.body); err != nil {
			return err
		}
	}
	doc, err := s.OpenAPI()
	if err != nil {
		return err
	}
	b, err := Encode(doc)
	if err != nil {
		return fmt.Errorf("encode %s: %w", manifest.OpenAPIFile, err)
	}
	return emit(manifest.OpenAPIFile, b)
}

type pageFile struct {
	path string
	body []byte
}

// pageRenderer renders the pages of one site.
type pageRenderer struct {
	s    *Site
	tfs  fs.FS
	base pageData
}

// pageData is what every page template sees; page-specific fields stay zero elsewhere.
type pageData struct {
	Site        *Site
	Title       string
	Description string
	Path        string // the page's URL path, for the canonical link and the navigation
	LicenseURL  string
	FirstYear   int
	LastYear    int
	RateLimit   manifest.RateLimit
	Routes      []routeDoc
	Downloads   []Download

	// home
	Errors          []errorDoc
	Rule            []ruleLine
	MatrixCount     string
	AttributionLink htmltemplate.HTML
	// life path pages
	LifePaths  []LifePathItem
	LifePath   *LifePathRecord
	People     []personDoc
	APIPath    string
	Prev, Next *LifePathItem
	// matrix pages
	Positions   []positionDoc
	Arcana      []arcanumDoc
	DetailsJSON htmltemplate.JS
}

// routeDoc describes one API route for people (Russian) and for llms.txt (English).
type routeDoc struct {
	Path        string // full URL path pattern
	Description string
	English     string
	Example     string // a relative URL answered by the route
}

type errorDoc struct {
	Status int
	Error  string
	When   string
}

type ruleLine struct{ Name, Formula string }

type personDoc struct {
	Name, Field string
	Year        int
}

type positionDoc struct {
	Key     string `json:"key"`
	Title   string `json:"title"`
	Meaning string `json:"meaning"`
}

type arcanumDoc struct {
	Number                            int
	Name, Keyword, Emoji, Description string
}

func newPageRenderer(s *Site) (*pageRenderer, error) {
	cfg, err := s.EdgeConfig()
	if err != nil {
		return nil, err
	}
	return &pageRenderer{
		s:   s,
		tfs: templates.FS(),
		base: pageData{
			Site:       s,
			LicenseURL: LicenseURL,
			FirstYear:  rules.FirstYear,
			LastYear:   rules.LastYear,
			RateLimit:  cfg.RateLimit,
			Routes:     routeDocs(),
			Downloads:  Downloads(),
		},
	}, nil
}

// routeDocs lists the route table for the home page and llms.txt.
func routeDocs() []routeDoc {
	var out []routeDoc
	for _, r := range Routes() {
		out = append(out, routeDoc{r.Pattern, r.Description, r.English, r.Example})
	}
	return out
}

func (p *pageRenderer) render() ([]pageFile, error) {
	var out []pageFile
	add := func(path string, body []byte, err error) error {
		if err != nil {
			return fmt.Errorf("render %s: %w", path, err)
		}
		out = append(out, pageFile{path, body})
		return nil
	}
	s := p.s
	list := s.LifePathList()

	home := p.base
	home.Title = s.Content.Site.Title + " — открытый API нумерологии"
	home.Description = "Открытый API нумерологии на русском: числа жизненного пути и матрица судьбы для каждой даты с 1900 по 2100 год. JSON, CORS, лицензия CC BY 4.0."
	home.Path = "/"
	home.Errors = p.errorDocs()
	home.Rule = p.ruleLines()
	home.MatrixCount = groupThousands(rules.DatesInYears(allYears()))
	home.AttributionLink = htmltemplate.HTML(s.AttributionHTML) // built and escaped by NewSite
	home.LifePaths = list
	b, err := p.html("home.html", home)
	if err := add(HomePage, b, err); err != nil {
		return nil, err
	}

	lpl := p.base
	lpl.Title = "Числа жизненного пути — " + s.Content.Site.Title
	lpl.Description = "Двенадцать чисел жизненного пути: от 1 до 9 и мастер-числа 11, 22 и 33."
	lpl.Path = "/life-path"
	lpl.LifePaths = list
	b, err = p.html("life-path-list.html", lpl)
	if err := add(LifePathListPage, b, err); err != nil {
		return nil, err
	}

	for i := range s.Content.LifePaths {
		lp := &s.Content.LifePaths[i]
		rec := s.LifePathRecord(lp)
		d := p.base
		d.Title = fmt.Sprintf("Число жизненного пути %d — «%s» — %s", lp.Number, lp.Archetype, s.Content.Site.Title)
		d.Description = lp.ShortDescription
		d.Path = "/life-path/" + strconv.Itoa(lp.Number)
		d.LifePath = &rec
		d.APIPath = manifest.APIPrefix + "/life-path/" + strconv.Itoa(lp.Number)
		for _, person := range lp.FamousPeople {
			year, _ := strconv.Atoi(strings.SplitN(person.Born, "-", 2)[0])
			d.People = append(d.People, personDoc{person.Name, person.Field, year})
		}
		if i > 0 {
			d.Prev = &list[i-1]
		}
		if i+1 < len(list) {
			d.Next = &list[i+1]
		}
		b, err := p.html("life-path.html", d)
		if err := add(LifePathPage(lp.Number), b, err); err != nil {
			return nil, err
		}
	}

	m := p.base
	m.Title = "Матрица судьбы — " + s.Content.Site.Title
	m.Description = "Матрица судьбы по дате рождения: 12 позиций и 22 старших аркана."
	m.Path = "/matrix"
	m.Positions = p.positionDocs()
	m.Arcana = p.arcanumDocs()
	b, err = p.html("matrix.html", m)
	if err := add(MatrixPage, b, err); err != nil {
		return nil, err
	}

	det := p.base
	det.Title = "Расшифровка матрицы судьбы — " + s.Content.Site.Title
	det.Description = "Матрица судьбы для выбранной даты рождения: 12 позиций с арканами и их значениями."
	det.Path = "/matrix/details"
	if det.DetailsJSON, err = p.detailsJSON(); err != nil {
		return nil, err
	}
	b, err = p.html("details.html", det)
	if err := add(DetailsPage, b, err); err != nil {
		return nil, err
	}

	nf := p.base
	nf.Title = "Страница не найдена — " + s.Content.Site.Title
	nf.Description = "Такой страницы нет."
	nf.Path = "/404"
	b, err = p.html("404.html", nf)
	if err := add(manifest.NotFoundPage, b, err); err != nil {
		return nil, err
	}

	b, err = p.text(LLMsFile, p.base)
	if err := add(LLMsFile, b, err); err != nil {
		return nil, err
	}

	assets, err := fs.ReadDir(p.tfs, AssetsDir)
	if err != nil {
		return nil, fmt.Errorf("read templates assets: %w", err)
	}
	for _, e := range assets {
		name := path.Join(AssetsDir, e.Name())
		b, err := fs.ReadFile(p.tfs, name)
		if err := add(name, b, err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var templateFuncs = htmltemplate.FuncMap{
	"hasPrefix": strings.HasPrefix,
	// paragraphs splits a text on blank lines.
	"paragraphs": func(s string) []string {
		var out []string
		for _, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	},
}

// html renders a page template inside layout.html.
func (p *pageRenderer) html(name string, data pageData) ([]byte, error) {
	t, err := htmltemplate.New(name).Funcs(templateFuncs).ParseFS(p.tfs, "layout.html", name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// text renders a plain-text template.
func (p *pageRenderer) text(name string, data pageData) ([]byte, error) {
	t, err := texttemplate.New(name).ParseFS(p.tfs, name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (p *pageRenderer) errorDocs() []errorDoc {
	when := map[string]string{
		manifest.ErrInvalidDate:      "дата не существует или вне диапазона 1900–2100, неверный формат адреса матрицы",
		manifest.ErrNumberNotFound:   "такого числа жизненного пути нет; в ответе есть список valid_numbers",
		manifest.ErrNotFound:         "неизвестный адрес под /api/public",
		manifest.ErrMethodNotAllowed: "метод кроме GET, HEAD и OPTIONS",
		manifest.ErrTooManyRequests:  "превышен лимит запросов к матрице; подождите Retry-After секунд",
		manifest.ErrInternal:         "файл ответа недоступен на сервере — напишите нам",
	}
	var out []errorDoc
	for _, e := range p.s.errorSpecs() {
		out = append(out, errorDoc{e.body.Status, e.body.Error, when[e.key]})
	}
	return out
}

func (p *pageRenderer) title(key string) string {
	for _, pos := range p.s.Content.Positions {
		if pos.Key == key {
			return pos.Title
		}
	}
	return key
}

// ruleLines spells the matrix rule of docs/design.md §6 with the positions' Russian titles.
func (p *pageRenderer) ruleLines() []ruleLine {
	t := p.title
	return []ruleLine{
		{t("personal") + " (A)", "= R(день рождения)"},
		{t("talents") + " (B)", "= R(месяц рождения)"},
		{t("money") + " (C)", "= R(сумма цифр года)"},
		{t("karma") + " (D)", "= R(A + B + C)"},
		{t("center") + " (E)", "= R(A + B + C + D)"},
		{t("soul"), "= R(B + E)"},
		{t("spirit"), "= R(B + D)"},
		{t("body"), "= R(A + C)"},
		{t("purpose"), "= R(" + t("spirit") + " + " + t("body") + ")"},
		{t("relationships") + " (H)", "= R(C + D)"},
		{t("social"), "= R(R(F + H) + R(G + I)), где F = R(A + B), G = R(B + C), I = R(D + A)"},
		{t("destiny"), "= R(" + t("purpose") + " + " + t("social") + ")"},
	}
}

func (p *pageRenderer) positionDocs() []positionDoc {
	out := make([]positionDoc, len(p.s.Content.Positions))
	for i, pos := range p.s.Content.Positions {
		out[i] = positionDoc{pos.Key, pos.Title, strings.TrimSpace(pos.Meaning)}
	}
	return out
}

func (p *pageRenderer) arcanumDocs() []arcanumDoc {
	out := make([]arcanumDoc, len(p.s.Content.Arcana))
	for i, a := range p.s.Content.Arcana {
		out[i] = arcanumDoc{a.Number, a.Name, a.Keyword, a.Emoji, strings.TrimSpace(a.Description)}
	}
	return out
}

// diagramGroup is one group of cells of the details page's diagram.
type diagramGroup struct {
	Name    string   `json:"name"`
	Label   string   `json:"label"`
	Caption string   `json:"caption,omitempty"`
	Keys    []string `json:"keys"`
}

// detailsJSON is the data the details page's script reads: position titles and meanings,
// arcana descriptions, the diagram's layout and the texts it needs.
func (p *pageRenderer) detailsJSON() (htmltemplate.JS, error) {
	arcana := make([]string, len(p.s.Content.Arcana))
	for i, a := range p.s.Content.Arcana {
		arcana[i] = strings.TrimSpace(a.Description)
	}
	v := struct {
		SiteTitle    string         `json:"siteTitle"`
		SupportEmail string         `json:"supportEmail"`
		FirstYear    int            `json:"firstYear"`
		LastYear     int            `json:"lastYear"`
		RateLimit    int            `json:"rateLimit"`
		Positions    []positionDoc  `json:"positions"`
		Arcana       []string       `json:"arcana"`
		Layout       []diagramGroup `json:"layout"`
	}{
		SiteTitle:    p.s.Content.Site.Title,
		SupportEmail: p.s.Content.Site.SupportEmail,
		FirstYear:    rules.FirstYear,
		LastYear:     rules.LastYear,
		RateLimit:    p.base.RateLimit.Requests,
		Positions:    p.positionDocs(),
		Arcana:       arcana,
		Layout: []diagramGroup{
			{Name: "square", Label: "Основа матрицы", Caption: "Основа: день, месяц, год и их сочетания",
				Keys: []string{"soul", "talents", "spirit", "personal", "center", "money", "body", "karma", "relationships"}},
			{Name: "results", Label: "Итоговые позиции", Caption: "Итог: роль среди людей, миссия и предназначение",
				Keys: []string{"social", "purpose", "destiny"}},
		},
	}
	// goccy/go-json escapes <, > and & by default, so the JSON cannot close the script element.
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode details page data: %w", err)
	}
	return htmltemplate.JS(b), nil
}

func allYears() []int {
	years, _ := YearRange(rules.FirstYear, rules.LastYear)
	return years
}

// groupThousands writes n with non-breaking spaces between groups of three digits, as
// Russian typography does: 73 414.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteRune('\u00a0')
		}
		b.WriteRune(r)
	}
	return b.String()
}
