package generator

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// OpenAPIVersion is the version of the OpenAPI Specification the document follows.
const OpenAPIVersion = "3.1.0"

// obj is a JSON object of the OpenAPI document; Encode writes its keys sorted, so the
// document is byte-identical across runs.
type obj = map[string]any

// OpenAPI builds the OpenAPI 3.1 document of the API (/api/public/openapi.json). Schemas are
// derived from the Go types of the bodies, headers from the header sets of EdgeConfig and
// examples from real records and error bodies, so the document cannot drift from the tree.
// The server is the site URL and the paths carry the /api/public prefix, because the index
// route is the prefix itself.
func (s *Site) OpenAPI() (obj, error) {
	cfg, err := s.EdgeConfig()
	if err != nil {
		return nil, err
	}
	b := &openAPIBuilder{site: s, cfg: cfg, schemas: obj{}, headers: obj{}, routeSchemas: map[string]string{}, routeParams: map[string][]string{}, extras: s.fieldExtras()}
	if err := b.buildSchemas(); err != nil {
		return nil, err
	}
	b.buildHeaders()
	parameters, err := b.buildParameters()
	if err != nil {
		return nil, err
	}
	responses, err := b.buildResponses()
	if err != nil {
		return nil, err
	}
	paths, err := b.paths()
	if err != nil {
		return nil, err
	}
	p := manifest.APIPrefix
	doc := obj{
		"openapi": OpenAPIVersion,
		"info": obj{
			"title":   s.Content.Site.Title,
			"summary": "Числа жизненного пути и матрица судьбы в JSON: открытый API только для чтения.",
			"description": "Публичный API только для чтения. Все ответы — заранее рассчитанный JSON в UTF-8 " +
				"(кириллица без экранирования), неизменный и помеченный сильным ETag. Тексты на русском языке.\n\n" +
				"* Методы: GET и HEAD (те же заголовки, без тела), OPTIONS — CORS preflight; на любой другой метод " +
				"любой адрес под " + p + " отвечает 405 (components/responses/MethodNotAllowed).\n" +
				"* Любой другой адрес под " + p + " отвечает 404 Not found (путь " + p + "/{path} и components/responses/NotFound); " +
				b.scopeErrors() +
				"* Один завершающий слеш допускается на всех маршрутах: у каждого пути есть вариант со слешем. " +
				"Числовой сегмент — от 1 до 9 цифр, ведущие нули допустимы.\n" +
				fmt.Sprintf("* Лимит: %d запросов за %d секунд с одного IP (IPv6 — по сети /%d) %s, "+
					"считаются все методы, кроме OPTIONS; сверх лимита — 429 с Retry-After.\n",
					b.cfg.RateLimit.Requests, b.cfg.RateLimit.WindowSeconds, b.cfg.RateLimit.IPv6Prefix, limitedRoutesRu()) +
				"* Данные — по лицензии Creative Commons «" + s.Content.Site.LicenseName + "» (CC BY 4.0): " +
				"указывайте источник (поля attribution, attribution_html, suggested_citation).\n\n" +
				s.Content.Site.Disclaimer,
			"version": manifest.APIVersion,
			"contact": obj{"name": s.Content.Site.Publisher, "url": s.SiteURL + "/", "email": s.Content.Site.SupportEmail},
			"license": obj{"name": "Creative Commons «" + s.Content.Site.LicenseName + "» (CC BY 4.0)", "identifier": LicenseHeader},
		},
		"externalDocs": obj{"description": "Документация и примеры", "url": s.SiteURL + "/"},
		"servers":      []obj{{"url": s.SiteURL}},
		"security":     []any{}, // public: no route needs credentials
		"paths":        paths,
		"components": obj{
			"schemas":    b.schemas,
			"headers":    b.headers,
			"responses":  responses,
			"parameters": parameters,
		},
	}
	return doc, nil
}

type openAPIBuilder struct {
	site    *Site
	cfg     manifest.EdgeConfig
	schemas obj
	headers obj
	// routeSchemas names the schema of each route's 200 body.
	routeSchemas map[string]string
	// routeParams names the components/parameters of each route's parameters, in order.
	routeParams map[string][]string
	extras      map[string]obj
}

// errorResponse names the components/responses entry of an error key.
func (b *openAPIBuilder) errorResponse(key string) string {
	for _, e := range b.site.errorSpecs() {
		if e.key == key {
			return e.response
		}
	}
	panic("generator bug: no error " + key)
}

// errorSchema names the schema of an error key's body: "InvalidDateError", …
func (b *openAPIBuilder) errorSchema(key string) string {
	return strings.TrimSuffix(b.errorResponse(key), "Error") + "Error"
}

func ref(kind, name string) obj { return obj{"$ref": "#/components/" + kind + "/" + name} }

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
	rs := renderers()
	for _, r := range Routes() {
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

// schemaOf returns the schema of v's type, adding the components it needs.
func (b *openAPIBuilder) schemaOf(v any) obj { return schemaOf(reflect.TypeOf(v), b.schemas, b.extras) }

// buildSchemas builds the schema of each route's 200 body, with a real body as its example
// (decoded from its exact bytes), and one schema per error body.
func (b *openAPIBuilder) buildSchemas() error {
	b.schemaOf(ErrorBody{})
	// The error schema's name in the document is Error.
	b.schemas["Error"] = b.schemas["ErrorBody"]
	delete(b.schemas, "ErrorBody")
	rs := renderers()
	for _, r := range b.cfg.Routes {
		rd := rs[r.Name]
		var name string
		if rd.schema != nil {
			var sch obj
			name, sch = rd.schema(b)
			b.schemas[name] = sch
		} else {
			sch := b.schemaOf(rd.body)
			ref, _ := sch["$ref"].(string)
			name = strings.TrimPrefix(ref, "#/components/schemas/")
			if ref == "" {
				return fmt.Errorf("openapi: route %s: the body type %T is not a named struct", r.Name, rd.body)
			}
		}
		b.routeSchemas[r.Name] = name
		if rd.noExample {
			continue
		}
		enc, err := rd.encoder(b.site)
		if err != nil {
			return fmt.Errorf("openapi: route %s: %w", r.Name, err)
		}
		vals, err := exampleValues(r)
		if err != nil {
			return fmt.Errorf("openapi: route %s: %w", r.Name, err)
		}
		body, err := enc(nil, vals)
		if err != nil {
			return fmt.Errorf("openapi: route %s example: %w", r.Name, err)
		}
		var ex any
		if err := json.Unmarshal(body, &ex); err != nil {
			return fmt.Errorf("openapi: route %s example: %w", r.Name, err)
		}
		b.schemas[name].(obj)["examples"] = []any{ex}
	}
	// One schema per error: its exact text and status, so an answer with another error's
	// body does not validate; only the errors that list valid numbers carry valid_numbers.
	for _, e := range b.site.errorSpecs() {
		sch := obj{
			"allOf":      []any{ref("schemas", "Error")},
			"properties": obj{"error": obj{"const": e.body.Error}, "status": obj{"const": e.body.Status}},
		}
		if e.body.ValidNumbers != nil {
			sch["required"] = []string{"valid_numbers"}
			sch["properties"].(obj)["valid_numbers"] = obj{"const": e.body.ValidNumbers}
		} else {
			sch["not"] = obj{"required": []string{"valid_numbers"}}
		}
		b.schemas[b.errorSchema(e.key)] = sch
	}
	return nil
}

// roundTrip turns a body into the generic JSON value it encodes to.
func roundTrip(v any) (any, error) {
	bs, err := Encode(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(bs, &out)
}

// schemaOf returns the JSON Schema of t: named struct types become components (a $ref),
// fields come from json tags, embedded structs are flattened, a field is required unless
// it is omitempty, and objects admit no other properties.
func schemaOf(t reflect.Type, comps obj, extras map[string]obj) obj {
	switch t.Kind() {
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return obj{"type": "integer"}
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Slice, reflect.Array:
		return obj{"type": "array", "items": schemaOf(t.Elem(), comps, extras)}
	case reflect.Struct:
		name := t.Name()
		if _, done := comps[name]; !done {
			comps[name] = obj{} // reserve: breaks cycles
			props := obj{}
			var required []string
			addFields(t, name, props, &required, comps, extras)
			comps[name] = obj{"type": "object", "properties": props, "required": required, "additionalProperties": false}
		}
		return ref("schemas", name)
	}
	panic("generator bug: no JSON schema for " + t.String())
}

func addFields(t reflect.Type, owner string, props obj, required *[]string, comps obj, extras map[string]obj) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			addFields(f.Type, owner, props, required, comps, extras)
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		s := schemaOf(f.Type, comps, extras)
		for _, key := range []string{"*." + name, owner + "." + name} {
			if extra, ok := extras[key]; ok {
				if _, isRef := s["$ref"]; isRef {
					s = obj{"allOf": []any{s}} // keep the $ref alone; constraints beside it
				}
				s = maps.Clone(s)
				maps.Copy(s, extra)
			}
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") {
			*required = append(*required, name)
		}
	}
}

// headerName returns the component name of a response header with a given value.
func headerComponent(name, value string) string {
	if name != "Cache-Control" {
		return name
	}
	switch value {
	case CacheOK:
		return "Cache-Control-OK"
	case CacheError:
		return "Cache-Control-Error"
	}
	return "Cache-Control-No-Store"
}

func (b *openAPIBuilder) addHeader(name, value, description string) {
	b.headers[headerComponent(name, value)] = obj{
		"required": true, "description": description,
		"schema": obj{"type": "string", "enum": []string{value}},
	}
}

func (b *openAPIBuilder) buildHeaders() {
	h := b.cfg.Headers
	describe := map[string]string{
		"Access-Control-Allow-Origin":   "CORS: данные доступны с любого сайта",
		"Access-Control-Expose-Headers": "CORS: заголовки, которые видит скрипт",
		"Access-Control-Allow-Methods":  "CORS preflight: разрешённые методы",
		"Access-Control-Allow-Headers":  "CORS preflight: разрешённые заголовки",
		"Access-Control-Max-Age":        "CORS preflight: сколько секунд кешировать ответ",
		"X-API-License":                 "Лицензия данных (SPDX)",
		"X-Content-Type-Options":        "Запрет угадывания типа содержимого",
		"Cache-Control":                 "Правила кеширования",
		"Allow":                         "Поддерживаемые методы",
	}
	sets := []map[string]string{h.Common, h.Preflight, h.NotModified}
	for _, st := range slices.Sorted(maps.Keys(h.ByStatus)) {
		sets = append(sets, h.ByStatus[st])
	}
	for _, set := range sets {
		for name, value := range set {
			if name == "Content-Type" {
				continue // described by the response's media type, never as a header (OAS 3.1 §4.8.17.1)
			}
			b.addHeader(name, value, describe[name])
		}
	}
	b.headers["ETag"] = obj{
		"required": true, "description": "Сильный ETag: sha256 тела в шестнадцатеричном виде, в кавычках",
		"schema": obj{"type": "string", "pattern": `^"[0-9a-f]{64}"$`},
	}
	b.headers["Retry-After"] = obj{
		"required": true, "description": "Через сколько секунд запрос будет принят",
		"schema": obj{"type": "integer", "minimum": 1},
	}
}

// responseHeaders lists the headers of an answer with the given status, as refs.
func (b *openAPIBuilder) responseHeaders(status string) obj {
	h := b.cfg.Headers
	out := obj{}
	sets := []map[string]string{h.Common, h.ByStatus[status]}
	if status == "304" {
		sets = []map[string]string{h.NotModified}
	}
	for _, set := range sets {
		for name, value := range set {
			if name != "Content-Type" {
				out[name] = ref("headers", headerComponent(name, value))
			}
		}
	}
	switch status {
	case "200", "304":
		out["ETag"] = ref("headers", "ETag")
	case "429":
		out["Retry-After"] = ref("headers", "Retry-After")
	}
	return out
}

func (b *openAPIBuilder) jsonContent(schema obj, example any) obj {
	mt := obj{"schema": schema}
	if example != nil {
		mt["example"] = example
	}
	return obj{"application/json": mt}
}

// buildResponses builds the shared responses: every error (with its exact body as the
// example), the 304 and the preflight.
func (b *openAPIBuilder) buildResponses() (obj, error) {
	out := obj{}
	for _, e := range b.site.errorSpecs() {
		r := b.cfg.Errors[e.key]
		var example any
		if err := json.Unmarshal([]byte(r.Body), &example); err != nil {
			return nil, fmt.Errorf("openapi: error body %s: %w", e.key, err)
		}
		status := strconv.Itoa(r.Status)
		out[e.response] = obj{
			"description": e.description,
			"headers":     b.responseHeaders(status),
			"content":     b.jsonContent(ref("schemas", b.errorSchema(e.key)), example),
		}
	}
	out["NotModified"] = obj{
		"description": "Не изменилось: If-None-Match совпал с ETag; тела нет",
		"headers":     b.responseHeaders("304"),
	}
	pre := obj{}
	for name, value := range b.cfg.Headers.Preflight {
		pre[name] = ref("headers", headerComponent(name, value))
	}
	out["Preflight"] = obj{"description": "CORS preflight: без тела", "headers": pre}
	return out, nil
}

// buildParameters describes the path parameters of every route from their types, as
// components/parameters: one per name, or per route and name where two routes give one
// name different types.
func (b *openAPIBuilder) buildParameters() (obj, error) {
	comps := obj{
		catchAllParam: obj{
			"name": "path", "in": "path", "required": true,
			"description": "Любой сегмент, кроме маршрутов выше: ответ — 404 Not found",
			"schema":      obj{"type": "string"}, "example": "nope",
		},
	}
	for _, r := range b.cfg.Routes {
		vals, err := exampleValues(r)
		if err != nil {
			return nil, fmt.Errorf("openapi: route %s: %w", r.Name, err)
		}
		names := r.ParamNames()
		i := 0
		for _, t := range r.Params {
			for k := range t.Arity() {
				p := obj{
					"name": names[i], "in": "path", "required": true,
					"description": b.paramDescription(r, t, k),
					"schema":      obj{"type": "string", "pattern": "^[0-9]{1,9}$"},
					"example":     strconv.Itoa(vals[i]),
				}
				key := capitalize(names[i])
				if old, ok := comps[key]; ok && !reflect.DeepEqual(old, p) {
					key = capitalize(camelCase(r.Name)) + key
				}
				comps[key] = p
				b.routeParams[r.Name] = append(b.routeParams[r.Name], key)
				i++
			}
		}
	}
	return comps, nil
}

// paramDescription describes the k-th parameter of a type in Russian.
func (b *openAPIBuilder) paramDescription(r manifest.Route, t manifest.ParamType, k int) string {
	const digits = " (1–9 цифр, ведущие нули допустимы)"
	otherwise := ""
	if r.Error != "" {
		e := b.cfg.Errors[r.Error]
		var body ErrorBody
		_ = json.Unmarshal([]byte(e.Body), &body)
		otherwise = fmt.Sprintf(" Иное — %d %s.", e.Status, body.Error)
	}
	switch t.Type {
	case manifest.ParamNumber:
		return "Одно из чисел " + numbersRu(t.Numbers) + digits + "." + otherwise
	case manifest.ParamPair:
		which := [2]string{"Первое", "Второе"}[k]
		return which + " число пары: одно из " + numbersRu(t.Numbers) + digits + "; порядок чисел не важен." + otherwise
	case manifest.ParamDate:
		return [3]string{
			"День месяца, 1–31" + digits + "; дата должна существовать." + otherwise,
			"Месяц, 1–12",
			fmt.Sprintf("Год, %d–%d", t.FirstYear, t.LastYear),
		}[k]
	}
	return ""
}

// numbersRu lists numbers with runs shortened: "1–9, 11, 22, 33".
func numbersRu(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, fmt.Sprintf("%d–%d", ns[i], ns[j]))
		case j > i:
			parts = append(parts, strconv.Itoa(ns[i]), strconv.Itoa(ns[j]))
		default:
			parts = append(parts, strconv.Itoa(ns[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// capitalize upper-cases the first letter of an ASCII name.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
