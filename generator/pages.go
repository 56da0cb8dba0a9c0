package generator

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"path"
	"strconv"
	"strings"
	texttemplate "text/template"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/cards"
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
	SitemapFile      = "sitemap.xml"
	RobotsFile       = "robots.txt"
	AssetsDir        = "assets"
)

// CompatibilityPage is the page of all pairs of life path numbers.
const CompatibilityPage = "compatibility.html"

// CompatibilityPairPage is the tree path of the page of a pair, a <= b.
func CompatibilityPairPage(a, b int) string {
	return "compatibility/" + strconv.Itoa(a) + "/" + strconv.Itoa(b) + ".html"
}

// ArcanaListPage is the page of the 22 arcana.
const ArcanaListPage = "arcana.html"

// ArcanaPage is the tree path of the page of an arcanum.
func ArcanaPage(n int) string { return "arcana/" + strconv.Itoa(n) + ".html" }

// LifePathPage is the tree path of the page of a life path number.
func LifePathPage(n int) string { return "life-path/" + strconv.Itoa(n) + ".html" }

// writePages writes the human pages, their assets, llms.txt, the sitemap and robots.txt.
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
	return nil
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
	// LimitedRoutes are the patterns of the rate-limited routes, which share the limit.
	LimitedRoutes []string
	Routes        []routeDoc
	Downloads     []Download
	Card          shareCard // the page's share image, for og:image and twitter:image

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
	// arcana pages
	ArcanaList               ArcanaList
	ArcanaRecord             *ArcanaRecord
	PrevArcanum, NextArcanum *ArcanaItem
	ArcanumPlaces            arcanumPlaces // where the arcanum can stand (arcanapositions.go)
	// compatibility pages
	CompatGroups  []compatGroup
	Compat        *CompatibilityRecord
	CompatNumbers []LifePathItem // the pair's two numbers (one when they are the same)
	// matrix pages
	Positions   []positionDoc
	Arcana      []arcanumDoc
	DetailsJSON htmltemplate.JS
	// the Pythagoras square's pages (squarepages.go)
	Square *squareDoc
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
	Born        string // the birth date in words, the Old Style one beside it (peopledates.go)
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
			Site:          s,
			LicenseURL:    LicenseURL,
			FirstYear:     rules.FirstYear,
			LastYear:      rules.LastYear,
			RateLimit:     cfg.RateLimit,
			LimitedRoutes: limitedRoutes(),
			Routes:        routeDocs(),
			Downloads:     Downloads(),
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

// page is one HTML page of the site: its file, template, URL path, title and description,
// and what it shows beyond the fields every page has.
type page struct {
	file, template, path string
	title, description   string
	// indexed pages are listed in sitemap.xml.
	indexed bool
	fill    func(d *pageData) error

	// card is what the page's share card shows: its headline and, optionally, a mark;
	// a page without one shares the home page's (generator/cards.go).
	card cards.Card
}

// pages lists the site's HTML pages in the order they are written: those of each route
// (its renderer's), in route order, then the 404 page.
func (p *pageRenderer) pages() []page {
	rs := renderers()
	var out []page
	for _, r := range Routes() {
		if f := rs[r.Name].pages; f != nil {
			out = append(out, f(p)...)
		}
	}
	return append(out, page{file: manifest.NotFoundPage, template: "404.html", path: "/404",
		title:       "Страница не найдена — " + p.s.Content.Site.Title,
		description: "Такой страницы нет."})
}

// homePage is the index route's page: what the API is, its routes, errors, limits, the
// attribution rules and the dataset.
func (p *pageRenderer) homePage() page {
	s := p.s
	description := fmt.Sprintf("Бесплатный API на русском языке: числа жизненного пути и матрица судьбы для каждой даты рождения с %d по %d год. JSON, CORS, лицензия CC BY 4.0.",
		rules.FirstYear, rules.LastYear)
	return page{file: HomePage, template: "home.html", path: "/", indexed: true,
		card:        cards.Card{Title: "Числа жизненного пути и матрица судьбы"},
		title:       s.Content.Site.Title + " — API чисел пути и матрицы судьбы",
		description: description,
		fill: func(d *pageData) error {
			d.Errors = p.errorDocs()
			d.Rule = p.ruleLines()
			d.MatrixCount = GroupThousands(rules.DatesInYears(allYears()))
			d.AttributionLink = htmltemplate.HTML(s.AttributionHTML) // built and escaped by NewSite
			d.LifePaths = s.LifePathList()
			return nil
		}}
}

// lifePathListPage is the page of the 12 numbers.
func (p *pageRenderer) lifePathListPage() page {
	return page{file: LifePathListPage, template: "life-path-list.html", path: "/life-path", indexed: true,
		card:        cards.Card{Title: "Числа жизненного пути"},
		title:       "Числа жизненного пути — " + p.s.Content.Site.Title,
		description: "Двенадцать чисел жизненного пути: от 1 до 9 и мастер-числа 11, 22 и 33.",
		fill:        func(d *pageData) error { d.LifePaths = p.s.LifePathList(); return nil }}
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
			card:        cards.Card{Title: fmt.Sprintf("Число жизненного пути %d — %s", lp.Number, lp.Archetype), Mark: strconv.Itoa(lp.Number)},
			description: lp.ShortDescription,
			fill:        func(d *pageData) error { p.fillLifePath(d, list, i); return nil }})
	}
	return out
}

// matrixPages are the matrix page (positions and arcana) and the details page of a date.
func (p *pageRenderer) matrixPages() []page {
	site := p.s.Content.Site.Title
	return []page{
		{file: MatrixPage, template: "matrix.html", path: "/matrix", indexed: true,
			card:        cards.Card{Title: "Матрица судьбы"},
			title:       "Матрица судьбы — " + site,
			description: "Матрица судьбы по дате рождения: 12 позиций и 22 старших аркана.",
			fill: func(d *pageData) error {
				d.Positions = p.positionDocs()
				d.Arcana = p.arcanumDocs()
				return nil
			}},
		// The details page shows any date through its query string and draws it in the browser:
		// one URL per date would be 73,414 thin pages, so the sitemap leaves it out.
		{file: DetailsPage, template: "details.html", path: "/matrix/details",
			card:        cards.Card{Title: "Расшифровка матрицы судьбы"},
			title:       "Расшифровка матрицы судьбы — " + site,
			description: "Матрица судьбы для выбранной даты рождения: 12 позиций с арканами и их значениями.",
			fill: func(d *pageData) (err error) {
				d.DetailsJSON, err = p.detailsJSON()
				return err
			}},
	}
}

// arcanaListPage is the page of the 22 arcana.
func (p *pageRenderer) arcanaListPage() page {
	return page{file: ArcanaListPage, template: "arcana-list.html", path: "/arcana", indexed: true,
		card:        cards.Card{Title: "Старшие арканы матрицы судьбы"},
		title:       "Старшие арканы — " + p.s.Content.Site.Title,
		description: "Двадцать два старших аркана матрицы судьбы: номер, название, ключевое слово и значение.",
		fill: func(d *pageData) error {
			d.ArcanaList = p.s.ArcanaList()
			d.APIPath = RoutePath(manifest.RouteArcanaList)
			return nil
		}}
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
			card:        cards.Card{Title: fmt.Sprintf("Старший аркан %d — %s", a.Number, a.Name), Mark: strconv.Itoa(a.Number)},
			title:       fmt.Sprintf("Старший аркан %d — %s — %s", a.Number, a.Name, s.Content.Site.Title),
			description: fmt.Sprintf("Аркан %d, %s: %s. Его значение в матрице судьбы.", a.Number, a.Name, a.Keyword),
			fill: func(d *pageData) error {
				rec := s.ArcanaRecord(a)
				d.ArcanaRecord = &rec
				d.APIPath = RoutePath(manifest.RouteArcana, a.Number)
				d.ArcanumPlaces = p.arcanumPlaces(a.Number)
				if i > 0 {
					d.PrevArcanum = &list[i-1]
				}
				if i+1 < len(list) {
					d.NextArcanum = &list[i+1]
				}
				return nil
			}})
	}
	return out
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
			for _, a := range list {
				g := compatGroup{Number: a}
				for _, b := range list {
					r, ok := s.CompatibilityRecord(a.Number, b.Number)
					if !ok {
						return fmt.Errorf("no compatibility text for %d and %d", a.Number, b.Number)
					}
					g.Pairs = append(g.Pairs, compatLink{b, strings.TrimPrefix(r.SourceURL, s.SiteURL), r.Level})
				}
				d.CompatGroups = append(d.CompatGroups, g)
			}
			d.APIPath = RoutePath(manifest.RouteCompatibility, 3, 11)
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
				d.Compat = &r
				d.APIPath = RoutePath(manifest.RouteCompatibility, a, b)
				for _, it := range list {
					if it.Number == a || it.Number == b {
						d.CompatNumbers = append(d.CompatNumbers, it)
					}
				}
				return nil
			}})
	}
	return out
}

// fillLifePath fills the fields of the page of the i-th life path number.
func (p *pageRenderer) fillLifePath(d *pageData, list []LifePathItem, i int) {
	lp := &p.s.Content.LifePaths[i]
	rec := p.s.LifePathRecord(lp)
	d.LifePath = &rec
	d.APIPath = RoutePath(manifest.RouteLifePath, lp.Number)
	for _, person := range lp.FamousPeople {
		d.People = append(d.People, personDoc{person.Name, person.Field, bornText(person)})
	}
	if i > 0 {
		d.Prev = &list[i-1]
	}
	if i+1 < len(list) {
		d.Next = &list[i+1]
	}
}

// render renders every page, llms.txt, sitemap.xml, robots.txt and the assets.
func (p *pageRenderer) render() ([]pageFile, error) {
	var out []pageFile
	add := func(path string, body []byte, err error) error {
		if err != nil {
			return fmt.Errorf("render %s: %w", path, err)
		}
		out = append(out, pageFile{path, body})
		return nil
	}
	pages := p.pages()
	cardOf, cardFiles, err := p.shareCards(pages)
	if err != nil {
		return nil, err
	}
	for _, pg := range pages {
		d := p.base
		d.Title, d.Description, d.Path = pg.title, pg.description, pg.path
		d.Card = cardOf(pg)
		if pg.fill != nil {
			if err := pg.fill(&d); err != nil {
				return nil, err
			}
		}
		b, err := p.html(pg.template, d)
		if err := add(pg.file, b, err); err != nil {
			return nil, err
		}
	}
	b, err := p.text(LLMsFile, p.base)
	if err := add(LLMsFile, b, err); err != nil {
		return nil, err
	}
	if err := add(SitemapFile, p.sitemap(pages), nil); err != nil {
		return nil, err
	}
	if err := add(RobotsFile, p.robots(), nil); err != nil {
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
	return append(out, cardFiles...), nil
}

// sitemap lists the indexed pages with absolute URLs (sitemaps.org protocol 0.9). The API
// is left out: a sitemap is for pages people read, and the API's own index and OpenAPI
// document already describe its routes to programs.
func (p *pageRenderer) sitemap(pages []page) []byte {
	var b strings.Builder
	b.WriteString(xml.Header)
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, pg := range pages {
		if !pg.indexed {
			continue
		}
		b.WriteString("  <url><loc>")
		xml.EscapeText(&b, []byte(p.s.SiteURL+pg.path)) // a strings.Builder never fails
		b.WriteString("</loc></url>\n")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

// robots allows everything and points to the sitemap. The API stays open to crawlers: it
// is public, read-only and cached, and blocking /api/ would also keep crawlers that run
// scripts from the data the details page fetches.
func (p *pageRenderer) robots() []byte {
	return []byte("User-agent: *\nAllow: /\n\nSitemap: " + p.s.SiteURL + "/" + SitemapFile + "\n")
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

// html renders a page template inside layout.html and sets its text in Russian typography
// (typography.go). Every HTML page passes here, and nothing else does.
func (p *pageRenderer) html(name string, data pageData) ([]byte, error) {
	b, err := p.execute(name, data)
	if err != nil {
		return nil, err
	}
	return typeset(b), nil
}

// execute renders a page template inside layout.html as it is written.
func (p *pageRenderer) execute(name string, data pageData) ([]byte, error) {
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
	var out []errorDoc
	for _, e := range p.s.errorSpecs() {
		out = append(out, errorDoc{e.body.Status, e.body.Error, e.when})
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

// detailsCell is what the details page shows of one arcanum in a diagram cell.
type detailsCell struct {
	Name    string `json:"name"`
	Keyword string `json:"keyword"`
	Emoji   string `json:"emoji"`
}

// detailsJSON is the data the details page's script reads: position titles and meanings,
// the arcana, the diagram's layout and the texts it needs. With it the page draws the
// matrix of a date at once (docs/design.md §6) and only checks it against the API record,
// so nothing moves when the record arrives.
func (p *pageRenderer) detailsJSON() (htmltemplate.JS, error) {
	arcana := make([]string, len(p.s.Content.Arcana))
	cells := make([]detailsCell, len(p.s.Content.Arcana))
	for i, a := range p.s.Content.Arcana {
		arcana[i] = strings.TrimSpace(a.Description)
		cells[i] = detailsCell{a.Name, a.Keyword, a.Emoji}
	}
	v := struct {
		SiteTitle    string         `json:"siteTitle"`
		SiteURL      string         `json:"siteURL"`
		SupportEmail string         `json:"supportEmail"`
		FirstYear    int            `json:"firstYear"`
		LastYear     int            `json:"lastYear"`
		RateLimit    int            `json:"rateLimit"`
		Citation     string         `json:"citation"` // {date} and {url} left to fill
		Attribution  string         `json:"attribution"`
		Positions    []positionDoc  `json:"positions"`
		Arcana       []string       `json:"arcana"`
		Cells        []detailsCell  `json:"cells"`
		Layout       []diagramGroup `json:"layout"`
	}{
		SiteTitle:    p.s.Content.Site.Title,
		SiteURL:      p.s.SiteURL,
		SupportEmail: p.s.Content.Site.SupportEmail,
		FirstYear:    rules.FirstYear,
		LastYear:     rules.LastYear,
		RateLimit:    p.base.RateLimit.Requests,
		Citation:     strings.ReplaceAll(p.s.citationMatrix, "{version}", manifest.APIVersion),
		Attribution:  p.s.Attribution,
		Positions:    p.positionDocs(),
		Arcana:       arcana,
		Cells:        cells,
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

// GroupThousands writes n with non-breaking spaces between groups of three digits, as
// Russian typography does: 73 414. The pages and the dataset's README use it.
func GroupThousands(n int) string {
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
