package generator

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// License fields every record carries (docs/design.md §5).
const (
	License    = "CC-BY 4.0"
	LicenseURL = "https://creativecommons.org/licenses/by/4.0/"
)

// Site is the content with the URLs and attribution of one generated site: what every
// builder of records, pages and documents works from.
type Site struct {
	Content         *content.Content
	SiteURL         string // no trailing slash
	APIBase         string // SiteURL + "/api/public"
	Attribution     string
	AttributionHTML string

	// The suggested citations' templates with the site's own placeholders filled in.
	citationLifePath, citationMatrix, citation string
}

// NewSite fills in the site's URLs and attribution; siteURL overrides content's when set.
func NewSite(c *content.Content, siteURL string) (*Site, error) {
	if siteURL == "" {
		siteURL = c.Site.SiteURL
	}
	siteURL, err := content.CanonicalSiteURL(siteURL)
	if err != nil {
		return nil, fmt.Errorf("site url: %w", err)
	}
	// The title, publisher and licence are written once in site.yaml and filled in here
	// (content.SitePlaceholders), so every record, page and dataset file says them alike.
	fill := strings.NewReplacer(
		"{title}", c.Site.Title, "{publisher}", c.Site.Publisher, "{site_url}", siteURL,
		"{license_name}", c.Site.LicenseName, "{license_url}", LicenseURL,
	).Replace
	return &Site{
		Content:     c,
		SiteURL:     siteURL,
		APIBase:     siteURL + manifest.APIPrefix,
		Attribution: fill(c.Site.Attribution),
		AttributionHTML: `<a href="` + html.EscapeString(siteURL) + `" rel="nofollow noopener">` +
			html.EscapeString(fill(c.Site.AttributionLinkText)) + `</a>`,
		citationLifePath: fill(c.Site.CitationLifePath),
		citationMatrix:   fill(c.Site.CitationMatrix),
		citation:         fill(c.Site.Citation),
	}, nil
}

// LifePathSourceURL is the human page of a life path number.
func (s *Site) LifePathSourceURL(n int) string { return s.SiteURL + "/life-path/" + strconv.Itoa(n) }

// LifePathAPIURL is the API URL of a life path record.
func (s *Site) LifePathAPIURL(n int) string { return s.SiteURL + RoutePath(manifest.RouteLifePath, n) }

// MatrixSourceURL is the human page of the matrix.
func (s *Site) MatrixSourceURL() string { return s.SiteURL + "/matrix" }

// MatrixDetailsURL is the human page of one date's matrix.
func (s *Site) MatrixDetailsURL(day, month, year int) string {
	return fmt.Sprintf("%s/matrix/details?date=%04d-%02d-%02d", s.SiteURL, year, month, day)
}

// attribution holds the fields every record ends with, in contract order.
type attribution struct {
	License         string `json:"license"`
	LicenseURL      string `json:"license_url"`
	Attribution     string `json:"attribution"`
	AttributionHTML string `json:"attribution_html"`
	APIVersion      string `json:"api_version"`
}

func (s *Site) attribution() attribution {
	return attribution{License, LicenseURL, s.Attribution, s.AttributionHTML, manifest.APIVersion}
}

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

// DateInput is the canonical date of a record of a date route.
type DateInput struct {
	Day   int `json:"day"`
	Month int `json:"month"`
	Year  int `json:"year"`
}

// MatrixCell is one position of a matrix record.
type MatrixCell struct {
	Arcana  int    `json:"arcana"`
	Name    string `json:"name"`
	Keyword string `json:"keyword"`
	Emoji   string `json:"emoji"`
}

// MatrixPositions holds the 12 positions, in contract order.
type MatrixPositions struct {
	Personal      MatrixCell `json:"personal"`
	Social        MatrixCell `json:"social"`
	Soul          MatrixCell `json:"soul"`
	Body          MatrixCell `json:"body"`
	Spirit        MatrixCell `json:"spirit"`
	Center        MatrixCell `json:"center"`
	Talents       MatrixCell `json:"talents"`
	Karma         MatrixCell `json:"karma"`
	Money         MatrixCell `json:"money"`
	Relationships MatrixCell `json:"relationships"`
	Destiny       MatrixCell `json:"destiny"`
	Purpose       MatrixCell `json:"purpose"`
}

// Cells returns pointers to the positions, indexed by rules.Position.
func (p *MatrixPositions) Cells() [rules.NumPositions]*MatrixCell {
	return [rules.NumPositions]*MatrixCell{
		&p.Personal, &p.Social, &p.Soul, &p.Body, &p.Spirit, &p.Center,
		&p.Talents, &p.Karma, &p.Money, &p.Relationships, &p.Destiny, &p.Purpose,
	}
}

// MatrixRecord is the body of /matrix/{d}/{m}/{y}.
type MatrixRecord struct {
	Input             DateInput       `json:"input"`
	Matrix            MatrixPositions `json:"matrix"`
	SuggestedCitation string          `json:"suggested_citation"`
	SourceURL         string          `json:"source_url"`
	DetailsURL        string          `json:"details_url"`
	attribution
}

// MatrixRecord builds the record of one valid date.
func (s *Site) MatrixRecord(day, month, year int) MatrixRecord {
	r := MatrixRecord{
		Input:             DateInput{day, month, year},
		SuggestedCitation: s.matrixCitation(day, month, year),
		SourceURL:         s.MatrixSourceURL(),
		DetailsURL:        s.MatrixDetailsURL(day, month, year),
		attribution:       s.attribution(),
	}
	m := rules.ComputeMatrix(day, month, year)
	for p, c := range r.Matrix.Cells() {
		a := &s.Content.Arcana[m[p]-1]
		*c = MatrixCell{a.Number, a.Name, a.Keyword, a.Emoji}
	}
	return r
}

func (s *Site) matrixCitation(day, month, year int) string {
	return strings.NewReplacer(
		"{date}", fmt.Sprintf("%02d.%02d.%04d", day, month, year),
		"{version}", manifest.APIVersion,
		"{url}", s.MatrixDetailsURL(day, month, year),
	).Replace(s.citationMatrix)
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

// cite is the suggested citation of a record without a template of its own: subject names
// what it holds, url its page.
func (s *Site) cite(subject, url string) string {
	return strings.NewReplacer("{subject}", subject, "{version}", manifest.APIVersion, "{url}", url).Replace(s.citation)
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
			s.SiteURL + RoutePath(manifest.RouteArcana, a.Number), s.ArcanaSourceURL(a.Number)})
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

// PositionsSourceURL is the human page of the positions: their section of the matrix page.
func (s *Site) PositionsSourceURL() string { return s.MatrixSourceURL() + "#positions" }

// PositionItem is one position of /positions.
type PositionItem struct {
	Key         string `json:"key"` // its key in a matrix record's "matrix"
	Title       string `json:"title"`
	Description string `json:"description"`
}

// PositionsList is the body of /positions: the 12 positions in the matrix record's order.
type PositionsList struct {
	Positions         []PositionItem `json:"positions"`
	SourceURL         string         `json:"source_url"`
	SuggestedCitation string         `json:"suggested_citation"`
	attribution
}

// PositionsList builds the body of /positions.
func (s *Site) PositionsList() PositionsList {
	l := PositionsList{
		SourceURL:         s.PositionsSourceURL(),
		SuggestedCitation: s.cite("Позиции матрицы судьбы", s.PositionsSourceURL()),
		attribution:       s.attribution(),
	}
	for _, p := range s.Content.Positions {
		l.Positions = append(l.Positions, PositionItem{p.Key, p.Title, strings.TrimSpace(p.Meaning)})
	}
	return l
}

// CompatibilitySourceURL is the human page of a pair of life path numbers, a <= b.
func (s *Site) CompatibilitySourceURL(a, b int) string {
	return s.SiteURL + "/compatibility/" + strconv.Itoa(a) + "/" + strconv.Itoa(b)
}

// CompatibilityRecord is the body of /compatibility/{a}/{b}: the compatibility of two life
// path numbers, in either order. The level is a word of a small closed set, never a score:
// numerology has no canonical one, and a number would pretend to a precision it lacks.
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
		attribution:       s.attribution(),
	}, true
}

// Encode renders v as the API does: compact JSON, Cyrillic and <>& unescaped, one trailing
// newline.
func Encode(v any) ([]byte, error) {
	// MarshalNoEscape only skips Go's string copying; DisableHTMLEscape keeps <>& as they are.
	b, err := json.MarshalWithOption(v, json.DisableHTMLEscape())
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
