package generator

import (
	"fmt"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/contract"
)

// APIIndex is the body of /api/public: a small discovery document.
type APIIndex struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	APIVersion  string       `json:"api_version"`
	SiteURL     string       `json:"site_url"`
	OpenAPI     string       `json:"openapi"`
	Docs        string       `json:"docs"`     // the human home page
	LLMsTxt     string       `json:"llms_txt"` // llms.txt at the site root
	MCP         string       `json:"mcp"`      // the MCP endpoint: every route as a tool (docs/mcp.md)
	Routes      []IndexRoute `json:"routes"`
	RateLimit   string       `json:"rate_limit"`
	Dataset     []IndexFile  `json:"dataset"` // the whole API as downloadable archives
	License     string       `json:"license"`
	LicenseURL  string       `json:"license_url"`
	Attribution string       `json:"attribution"`
	Disclaimer  string       `json:"disclaimer"` // what numerology is: the pages' footer says it too
}

// IndexRoute is one route in the discovery document.
type IndexRoute struct {
	Path        string `json:"path"`
	Description string `json:"description"`
	Example     string `json:"example"`
}

// IndexFile is one downloadable file in the discovery document.
type IndexFile struct {
	Format string `json:"format"`
	URL    string `json:"url"`
}

// Download is one archive of the dataset, as `numerology pack` writes it into the tree.
type Download struct {
	Path    string // URL path from the site root: /downloads/…
	Name    string // file name
	Format  string // "tar.gz", "zip"
	Note    string // Russian, for the home page
	English string // for llms.txt
}

// DatasetBaseName is the archives' name without extension.
const DatasetBaseName = contract.DatasetName + "-" + manifest.APIVersion

// Downloads lists the dataset archives the site publishes. They are linked even from a tree
// generated without them: `numerology pack` adds them to its downloads/ directory. Only the
// .tar.gz is published: the .zip compresses each of the 73,414 records on its own and cannot
// fit the 25 MiB a Cloudflare static asset may hold, so it stays in pack's dist/ output.
func Downloads() []Download {
	dir := "/" + manifest.DownloadsDir + "/"
	return []Download{
		{dir + DatasetBaseName + ".tar.gz", DatasetBaseName + ".tar.gz", "tar.gz",
			"весь API, CSV-таблицы и описание набора; открывается в Linux, macOS и Windows 10 и новее (команда tar или 7-Zip)",
			"the whole API, CSV tables, datapackage.json, CITATION.cff and SHA256SUMS as a tar.gz archive"},
	}
}

// indexRoutes lists the data routes of the route table; the index itself and the OpenAPI
// document have their own fields.
func (s *Site) indexRoutes() []IndexRoute {
	var out []IndexRoute
	for _, r := range Routes() {
		if r.Name == manifest.RouteIndex || r.Name == manifest.RouteOpenAPI {
			continue
		}
		out = append(out, IndexRoute{strings.TrimPrefix(r.Pattern, manifest.APIPrefix), r.Description, s.SiteURL + r.Example})
	}
	return out
}

// APIIndex builds the discovery document.
func (s *Site) APIIndex() APIIndex {
	var dataset []IndexFile
	for _, d := range Downloads() {
		dataset = append(dataset, IndexFile{d.Format, s.SiteURL + d.Path})
	}
	description := fmt.Sprintf("Открытый API только для чтения: 12 чисел жизненного пути и их совместимость, 22 старших аркана и 12 позиций матрицы судьбы, а для каждой даты рождения с 01.01.%d по 31.12.%d — её число жизненного пути, матрица судьбы и квадрат Пифагора (психоматрица).",
		rules.FirstYear, rules.LastYear)
	return APIIndex{
		Name:        s.Content.Site.Title,
		Description: description,
		APIVersion:  manifest.APIVersion,
		SiteURL:     s.SiteURL,
		OpenAPI:     s.SiteURL + RoutePath(manifest.RouteOpenAPI),
		Docs:        s.SiteURL + "/",
		LLMsTxt:     s.SiteURL + "/" + LLMsFile,
		MCP:         s.SiteURL + manifest.MCPPath,
		Routes:      s.indexRoutes(),
		RateLimit:   fmt.Sprintf("%d запросов за %d секунд с одного адреса %s", contract.RateLimitRequests, contract.RateLimitWindowSeconds, limitedRoutesRu()),
		Dataset:     dataset,
		License:     License,
		LicenseURL:  LicenseURL,
		Attribution: s.Attribution,
		Disclaimer:  s.Content.Site.Disclaimer,
	}
}
