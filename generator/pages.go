package generator

import (
	"bytes"
	"encoding/xml"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"path"
	"strconv"
	"strings"
	texttemplate "text/template"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/templates"
)

// Page files of the tree. A page is addressed without its extension: the edges resolve a
// path to the exact file, else path + ".html", else path + "/index.html".
const (
	HomePage    = "index.html"
	LLMsFile    = "llms.txt"
	SitemapFile = "sitemap.xml"
	RobotsFile  = "robots.txt"
	AssetsDir   = "assets"
)

// renderPages renders the human pages, their assets, llms.txt, the sitemap and robots.txt.
func renderPages(s *Site) ([]pageFile, error) {
	p, err := newPageRenderer(s)
	if err != nil {
		return nil, err
	}
	return p.render()
}

// pageFile is one file of the tree rendered in memory: a page, or a body of a route.
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

	// APIPath is the API path of the page's record, for its "in the API" links.
	APIPath string
	// Page is what a route family's page shows beyond the fields above, of a type of that
	// family's own file (the square's pages: *squareDoc); templates read it as .Page.
	Page any
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
			LimitedRoutes: s.limitedRoutes(),
			Routes:        s.routeDocs(),
			Downloads:     Downloads(),
		},
	}, nil
}

// routeDocs lists the route table for the home page and llms.txt.
func (s *Site) routeDocs() []routeDoc {
	var out []routeDoc
	for _, r := range s.routes() {
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
	rs := p.s.renderers()
	var out []page
	for _, r := range p.s.routes() {
		if f := rs[r.Name].pages; f != nil {
			out = append(out, f(p)...)
		}
	}
	return append(out, page{file: manifest.NotFoundPage, template: "404.html", path: "/404",
		title:       "Страница не найдена — " + p.s.Content.Site.Title,
		description: "Такой страницы нет."})
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
