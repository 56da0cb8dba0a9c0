package generator

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/manifest"
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

	// units is the route table with its renderers (routeUnits).
	units []routeUnit

	// disclaimer is the records' caveat, site.yaml's record_disclaimer in the typography of
	// the other texts (texttypography.go).
	disclaimer string
	// help is the sentence of the compatibility records on fear and violence in a
	// relationship, site.yaml's record_help in the same typography.
	help string

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
		units:            routeUnits(),
		disclaimer:       typesetPlain(c.Site.RecordDisclaimer),
		help:             typesetPlain(c.Site.RecordHelp),
		citationLifePath: fill(c.Site.CitationLifePath),
		citationMatrix:   fill(c.Site.CitationMatrix),
		citation:         fill(c.Site.Citation),
	}, nil
}

// attribution holds the fields every record ends with, in contract order: the caveat of
// what numerology is (docs/design.md §5), which travels with each record as its licence does,
// and the licence and credit fields.
type attribution struct {
	Disclaimer      string `json:"disclaimer"`
	License         string `json:"license"`
	LicenseURL      string `json:"license_url"`
	Attribution     string `json:"attribution"`
	AttributionHTML string `json:"attribution_html"`
	APIVersion      string `json:"api_version"`
}

func (s *Site) attribution() attribution {
	return attribution{s.disclaimer, License, LicenseURL, s.Attribution, s.AttributionHTML, manifest.APIVersion}
}

// DateInput is the canonical date of a record of a date route.
type DateInput struct {
	Day   int `json:"day"`
	Month int `json:"month"`
	Year  int `json:"year"`
}

// cite is the suggested citation of a record without a template of its own: subject names
// what it holds, url its page.
func (s *Site) cite(subject, url string) string {
	return strings.NewReplacer("{subject}", subject, "{version}", manifest.APIVersion, "{url}", url).Replace(s.citation)
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

// jsonFragment encodes v without the trailing newline.
func jsonFragment(v any) ([]byte, error) {
	b, err := Encode(v)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b, []byte("\n")), nil
}

// appendDate appends DD.MM.YYYY.
func appendDate(dst []byte, day, month, year int) []byte {
	dst = append2(dst, day)
	dst = append(dst, '.')
	dst = append2(dst, month)
	dst = append(dst, '.')
	return append4(dst, year)
}

func append2(dst []byte, n int) []byte { return append(dst, byte('0'+n/10), byte('0'+n%10)) }

func append4(dst []byte, n int) []byte {
	return append(dst, byte('0'+n/1000), byte('0'+n/100%10), byte('0'+n/10%10), byte('0'+n%10))
}
