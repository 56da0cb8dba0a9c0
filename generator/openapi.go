package generator

import (
	"fmt"
	"maps"
	"slices"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/openapi"
	"github.com/opennumerology/numerology/generator/rules"
)

// obj is a JSON object of the OpenAPI document (openapi.Obj): the renderers' schemas and
// field constraints are written with it.
type obj = openapi.Obj

// OpenAPI builds the OpenAPI 3.1 document of the API (/api/public/openapi.json) with package
// openapi, from the edge configuration, the site's facts, the error table and each route's
// renderer: its body's Go type or schema, and a real body of its example as the example.
func (s *Site) OpenAPI() (obj, error) {
	cfg, err := s.EdgeConfig()
	if err != nil {
		return nil, err
	}
	in := openapi.Input{
		Config: cfg,
		Site: openapi.Site{
			Title: s.Content.Site.Title, Publisher: s.Content.Site.Publisher, SupportEmail: s.Content.Site.SupportEmail,
			URL: s.SiteURL, LicenseName: s.Content.Site.LicenseName, LicenseID: LicenseHeader,
			Disclaimer: s.Content.Site.Disclaimer,
		},
		ErrorBody:     ErrorBody{},
		Routes:        map[string]openapi.Route{},
		Fields:        s.fieldExtras(),
		CacheOK:       CacheOK,
		CacheError:    CacheError,
		LimitedRoutes: s.limitedRoutesRu(),
	}
	for _, u := range s.units {
		if u.tag != "" {
			in.Tags = append(in.Tags, openapi.Tag{Name: u.row.Tag, Description: u.tag})
		}
	}
	for _, e := range s.errorSpecs() {
		in.Errors = append(in.Errors, openapi.Error{
			Key: e.key, Response: e.response, Description: e.description,
			Text: e.body.Error, Status: e.body.Status, ValidNumbers: e.body.ValidNumbers,
		})
	}
	rs := s.renderers()
	for _, r := range cfg.Routes {
		rd := rs[r.Name]
		vals, err := exampleValues(r)
		if err != nil {
			return nil, fmt.Errorf("openapi: route %s: %w", r.Name, err)
		}
		or := openapi.Route{Body: rd.body, Values: vals, Head: rd.head}
		if rd.schema != nil {
			or.Schema = func(b *openapi.Builder) (string, obj) { return rd.schema(s, b) }
		}
		if !rd.noExample {
			enc, err := rd.encoder(s)
			if err != nil {
				return nil, fmt.Errorf("openapi: route %s: %w", r.Name, err)
			}
			if or.Example, err = enc(nil, slices.Clone(vals)); err != nil {
				return nil, fmt.Errorf("openapi: route %s example: %w", r.Name, err)
			}
		}
		in.Routes[r.Name] = or
	}
	return openapi.Build(in)
}

// fieldExtras adds constraints and descriptions to the schemas derived from Go types, by
// "Type.json_name"; "*.json_name" applies to every type. The routes' renderers add theirs.
func (s *Site) fieldExtras() map[string]obj {
	out := map[string]obj{
		"*.license":               {"const": License},
		"*.license_url":           {"const": LicenseURL},
		"*.api_version":           {"const": manifest.APIVersion},
		"*.attribution":           {"description": "Готовая подпись об источнике, текстом"},
		"*.attribution_html":      {"description": "Та же подпись ссылкой, HTML (содержимое экранировано)"},
		"*.suggested_citation":    {"description": "Как сослаться на запись"},
		"*.source_url":            {"format": "uri", "description": "Страница сайта с этими данными"},
		"DateInput.day":           {"minimum": 1, "maximum": 31},
		"DateInput.month":         {"minimum": 1, "maximum": 12},
		"DateInput.year":          {"minimum": rules.FirstYear, "maximum": rules.LastYear},
		"ErrorBody.error":         {"enum": s.errorTexts()},
		"ErrorBody.status":        {"enum": s.errorStatuses()},
		"ErrorBody.message":       {"description": "Объяснение по-русски"},
		"ErrorBody.valid_numbers": {"description": "Только у ошибок о несуществующем числе: допустимые числа"},
	}
	rs := s.renderers()
	for _, r := range s.routes() {
		if f := rs[r.Name].fields; f != nil {
			maps.Copy(out, f(s))
		}
	}
	return out
}

func (s *Site) errorTexts() []string {
	var out []string
	for _, e := range s.errorSpecs() {
		out = append(out, e.body.Error)
	}
	return out
}

func (s *Site) errorStatuses() []int {
	var out []int
	for _, e := range s.errorSpecs() {
		if !slices.Contains(out, e.body.Status) {
			out = append(out, e.body.Status)
		}
	}
	slices.Sort(out)
	return out
}
