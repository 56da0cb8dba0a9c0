package generator

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/openapi"
	"github.com/opennumerology/numerology/generator/rules"
)

// renderer is the generator's half of a route (docs/design.md §3, "How to add a route"):
// what its files hold, the schema the OpenAPI document gives them, the human pages behind
// their source_url and the dataset's tables. The tree writer, verify, the OpenAPI document,
// the pages, the sitemap and the dataset iterate the route table and ask each row's
// renderer; checkRoutes holds the two in step.
type renderer struct {
	// body is a value of the Go type of the route's 200 body: its OpenAPI schema is derived
	// from that type, unless schema builds it.
	body any
	// schema, when set, builds the body's schema (one that no Go type gives, or a list with
	// its length) and names it.
	schema func(s *Site, b *openapi.Builder) (name string, schema obj)
	// fields adds constraints and descriptions to the schemas derived from Go types, by
	// "Type.json_name" (see fieldExtras).
	fields func(s *Site) map[string]obj
	// encoder prepares, for a site, what renders the body of a canonical parameter value.
	encoder func(s *Site) (encodeFunc, error)
	// noExample leaves the schema without an example body (the OpenAPI document itself).
	noExample bool
	// pages are the route's human pages: every source_url of its records is one of them.
	pages func(p *pageRenderer) []page
	// tables are the dataset's CSV tables filled from the route's files.
	tables []Table
}

// encodeFunc appends the body of a canonical parameter value to dst.
type encodeFunc func(dst []byte, vals []int) ([]byte, error)

// renderers maps each route of Routes to its renderer.
func renderers() map[string]renderer {
	rs := map[string]renderer{
		manifest.RouteIndex: {
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
		manifest.RouteOpenAPI: {
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
		},
		manifest.RouteLifePathList: {
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
			tables:  []Table{lifePathTable()},
		},
		manifest.RouteLifePath: {
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
		manifest.RouteLifePathDate: {
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
			tables: []Table{lifePathDatesTable()},
		},
		manifest.RouteMatrix: {
			body: MatrixRecord{},
			fields: func(*Site) map[string]obj {
				return map[string]obj{
					"MatrixRecord.details_url": {"format": "uri", "description": "Страница с расшифровкой этой даты"},
					"MatrixCell.arcana":        {"minimum": 1, "maximum": 22, "description": "Номер старшего аркана"},
					"MatrixCell.emoji":         {"minLength": 1},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) {
				e, err := newMatrixEncoder(s)
				if err != nil {
					return nil, err
				}
				return func(dst []byte, v []int) ([]byte, error) { return e.Append(dst, v[0], v[1], v[2]), nil }, nil
			},
			pages:  func(p *pageRenderer) []page { return p.matrixPages() },
			tables: []Table{matrixTable()},
		},
		manifest.RouteArcanaList: {
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
		manifest.RouteArcana: {
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
			tables: []Table{arcanaTable()},
		},
		manifest.RoutePositions: {
			body: PositionsList{},
			fields: func(*Site) map[string]obj {
				return map[string]obj{
					"PositionsList.positions":  {"minItems": rules.NumPositions, "maxItems": rules.NumPositions, "description": "12 позиций в порядке записи матрицы"},
					"PositionItem.key":         {"enum": rules.PositionKeys(), "description": "Ключ позиции в поле matrix записи матрицы"},
					"PositionItem.description": {"minLength": 1},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) { return encodeOnce(s.PositionsList()) },
			tables:  []Table{positionsTable()},
		},
		manifest.RouteCompatibility: {
			body: CompatibilityRecord{},
			fields: func(s *Site) map[string]obj {
				var levels []string
				for _, l := range s.Content.Compatibility.Levels {
					levels = append(levels, l.Name)
				}
				return map[string]obj{
					"CompatibilityRecord.numbers": {"minItems": 2, "maxItems": 2, "items": obj{"type": "integer", "enum": rules.LifePathNumbers},
						"description": "Пара чисел жизненного пути, меньшее первым: ответ для /a/b и /b/a один"},
					"CompatibilityRecord.level":      {"enum": levels, "description": "Уровень совместимости словом — не процент и не балл"},
					"CompatibilityRecord.strengths":  {"minItems": 1},
					"CompatibilityRecord.challenges": {"minItems": 1},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) {
				return encodeEach(func(vals []int) (any, error) {
					r, ok := s.CompatibilityRecord(vals[0], vals[1])
					if !ok {
						return nil, fmt.Errorf("no compatibility text for %d and %d", vals[0], vals[1])
					}
					return r, nil
				}), nil
			},
			pages:  func(p *pageRenderer) []page { return p.compatibilityPages() },
			tables: []Table{compatibilityTable()},
		},
	}
	maps.Copy(rs, squareRenderers())
	return rs
}

// encodeOnce is the encoder of a route whose one body is v.
func encodeOnce(v any) (encodeFunc, error) {
	b, err := Encode(v)
	if err != nil {
		return nil, err
	}
	return func(dst []byte, _ []int) ([]byte, error) { return append(dst, b...), nil }, nil
}

// encodeEach is the encoder of a route whose body of each value is body(value), encoded.
func encodeEach(body func(vals []int) (any, error)) encodeFunc {
	return func(dst []byte, vals []int) ([]byte, error) {
		v, err := body(vals)
		if err != nil {
			return nil, err
		}
		b, err := Encode(v)
		if err != nil {
			return nil, err
		}
		return append(dst, b...), nil
	}
}

// encoders prepares the encoder of every route of the table for a site.
func (s *Site) encoders() (map[string]encodeFunc, error) {
	rs := renderers()
	out := map[string]encodeFunc{}
	for _, r := range Routes() {
		enc, err := rs[r.Name].encoder(s)
		if err != nil {
			return nil, fmt.Errorf("route %s: %w", r.Name, err)
		}
		out[r.Name] = enc
	}
	return out, nil
}

// lifePath returns the content of a life path number, nil when there is none.
func (s *Site) lifePath(n int) *content.LifePath {
	i := slices.IndexFunc(s.Content.LifePaths, func(lp content.LifePath) bool { return lp.Number == n })
	if i < 0 {
		return nil
	}
	return &s.Content.LifePaths[i]
}

// valuesLabel writes canonical parameter values as a path does ("15/5/1990").
func valuesLabel(vals []int) string {
	b := make([]byte, 0, 16)
	for i, v := range vals {
		if i > 0 {
			b = append(b, '/')
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return string(b)
}
