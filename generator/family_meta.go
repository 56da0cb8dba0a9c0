package generator

import (
	"fmt"
	htmltemplate "html/template"
	"strings"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/openapi"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/contract"
)

// The route names of the API index and the OpenAPI document.
const (
	RouteIndex   = "index"
	RouteOpenAPI = "openapi"
)

// metaFamily is the route family of the API index and the OpenAPI document.
func metaFamily() []routeUnit {
	p := manifest.APIPrefix
	return []routeUnit{{
		row: manifest.Route{
			Name: RouteIndex, Pattern: p, File: "api/public/index.json",
			Summary:     "Оглавление API",
			Description: "Оглавление API: маршруты, ссылка на OpenAPI, лицензия и набор данных",
			English:     "the API index: routes, OpenAPI URL, licence and dataset URLs as JSON",
			Example:     p,
			OperationID: "getIndex", Tag: "meta",
		},
		renderer: renderer{
			tag:     "Оглавление API и этот документ",
			body:    APIIndex{},
			encoder: func(s *Site) (encodeFunc, error) { return encodeOnce(s.APIIndex()) },
			fields: func(*Site) map[string]obj {
				uri := obj{"format": "uri"}
				return map[string]obj{
					"APIIndex.site_url": uri, "APIIndex.openapi": uri, "APIIndex.docs": uri, "APIIndex.llms_txt": uri,
					"APIIndex.license_url": {"const": LicenseURL}, "IndexRoute.example": uri, "IndexFile.url": uri,
				}
			},
			pages: func(p *pageRenderer) []page { return []page{p.homePage()} },
		},
	}, {
		row: manifest.Route{
			Name: RouteOpenAPI, Pattern: p + "/openapi.json", File: "api/public/openapi.json",
			Summary:     "Этот документ OpenAPI 3.1",
			Description: "Описание API в формате OpenAPI 3.1",
			English:     "the OpenAPI 3.1 document: every route, parameter, response schema, error body and header",
			Example:     p + "/openapi.json",
			OperationID: "getOpenAPI", Tag: "meta",
		},
		renderer: renderer{
			body: obj{},
			schema: func(*Site, *openapi.Builder) (string, obj) {
				return "OpenAPIDocument", obj{
					"type": "object", "required": []string{"openapi", "info", "paths"},
					"properties": obj{
						"openapi": obj{"const": openapi.Version},
						"info": obj{
							"type": "object", "required": []string{"title", "version"},
							"properties": obj{"title": obj{"type": "string"}, "version": obj{"type": "string"}},
						},
						"paths": obj{"type": "object", "additionalProperties": obj{"type": "object"}},
					},
					"description": "Этот документ",
				}
			},
			encoder: func(s *Site) (encodeFunc, error) {
				doc, err := s.OpenAPI()
				if err != nil {
					return nil, err
				}
				return encodeOnce(doc)
			},
			noExample: true,
			head:      true, // the document's ETag tells a tool whether to generate its client again
		},
	}}
}

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
	Dataset     []IndexFile  `json:"dataset"` // the dataset's downloads (docs/design.md §11)
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
	Format  string // "zip", "jsonl.gz"
	Note    string // Russian, for the home page
	English string // for llms.txt
}

// DatasetBaseName is the archives' name without extension.
const DatasetBaseName = contract.DatasetName + "-" + manifest.APIVersion

// Downloads lists the dataset's downloads the site publishes (docs/design.md §11), as
// `numerology pack --publish` names them: the zip of the tables, the SQLite database and the
// documents, then one JSON Lines file per date route, in the route table's order. They are
// linked even from a tree generated without them: pack adds them to its downloads/.
func Downloads() []Download {
	dir := "/" + manifest.DownloadsDir + "/"
	zip := DatasetBaseName + ".zip" // pack.Zip: pack's tests import this package, so not imported

	out := []Download{{dir + zip, zip, "zip",
		"все таблицы в CSV и Parquet, база SQLite, ответы маршрутов без даты в JSON, описание набора (datapackage.json), CITATION.cff и SHA256SUMS",
		"every table as CSV and Parquet, one SQLite database of them all, the routes without a date as JSON, datapackage.json, CITATION.cff and SHA256SUMS"}}
	for _, r := range Routes() {
		if r.Packed == nil {
			continue
		}
		name := r.Name + ".jsonl.gz" // pack.JSONLName (cmd/numerology's TestPackAndVerifyArchive holds them equal)
		out = append(out, Download{dir + name, name, "jsonl.gz",
			"все записи маршрута " + strings.TrimPrefix(r.Pattern, manifest.APIPrefix) + " в формате JSON Lines, по одной на строку, в порядке дат",
			"every record of " + strings.TrimPrefix(r.Pattern, manifest.APIPrefix) + " as JSON Lines, the API's bytes, one a line, in date order"})
	}
	return out
}

// indexRoutes lists the data routes of the route table; the index itself and the OpenAPI
// document have their own fields.
func (s *Site) indexRoutes() []IndexRoute {
	var out []IndexRoute
	for _, r := range s.routes() {
		if r.Name == RouteIndex || r.Name == RouteOpenAPI {
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
	description := fmt.Sprintf("Открытый API только для чтения: 12 чисел жизненного пути и их совместимость, 22 старших аркана и 12 позиций матрицы судьбы, а для каждой даты рождения с 01.01.%d по 31.12.%d — её число жизненного пути, матрица судьбы, полная карта матрицы судьбы и квадрат Пифагора (психоматрица), а для дня рождения в любом году с %d по %d — личный год с личными месяцами и днями.",
		rules.FirstYear, rules.LastYear, rules.FirstYear, rules.LastYear)
	return APIIndex{
		Name:        s.Content.Site.Title,
		Description: description,
		APIVersion:  manifest.APIVersion,
		SiteURL:     s.SiteURL,
		OpenAPI:     s.SiteURL + RoutePath(RouteOpenAPI),
		Docs:        s.SiteURL + "/",
		LLMsTxt:     s.SiteURL + "/" + LLMsFile,
		MCP:         s.SiteURL + manifest.MCPPath,
		Routes:      s.indexRoutes(),
		RateLimit:   fmt.Sprintf("%d запросов за %d секунд с одного адреса %s", contract.RateLimitRequests, contract.RateLimitWindowSeconds, s.limitedRoutesRu()),
		Dataset:     dataset,
		License:     License,
		LicenseURL:  LicenseURL,
		Attribution: s.Attribution,
		Disclaimer:  s.Content.Site.Disclaimer,
	}
}

// homeDoc is what the home page shows besides the routes: the errors, the matrix rule, the
// count of dates, the attribution and the 12 numbers.
type homeDoc struct {
	Errors          []errorDoc
	Rule            []ruleLine
	MatrixCount     string
	AttributionLink htmltemplate.HTML
	LifePaths       []LifePathItem
}

// homePage is the index route's page: what the API is, its routes, errors, limits, the
// attribution rules and the dataset.
func (p *pageRenderer) homePage() page {
	s := p.s
	description := fmt.Sprintf("Открытый API на русском: числа жизненного пути и совместимость, матрица судьбы и её полная карта, квадрат Пифагора и личный год для дат %d–%d. JSON, CORS, CC BY 4.0.",
		rules.FirstYear, rules.LastYear)
	return page{file: HomePage, template: "home.html", path: "/", indexed: true,
		card:        cards.Card{Title: "Числа жизненного пути и матрица судьбы"},
		title:       s.Content.Site.Title + " — числа жизненного пути и матрица судьбы",
		description: description,
		fill: func(d *pageData) error {
			d.Page = &homeDoc{
				Errors:          p.errorDocs(),
				Rule:            p.ruleLines(),
				MatrixCount:     GroupThousands(rules.DatesInYears(allYears())),
				AttributionLink: htmltemplate.HTML(s.AttributionHTML), // built and escaped by NewSite
				LifePaths:       s.LifePathList(),
			}
			return nil
		}}
}
