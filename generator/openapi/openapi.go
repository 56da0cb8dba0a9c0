// Package openapi builds the OpenAPI 3.1 document of the API (/api/public/openapi.json)
// from what the generator knows: the edge configuration (the route table, the header sets,
// the error bodies and the rate limit), the site's facts, the error table, and each route's
// body schema and example. It knows nothing of the generator's types: the generator gathers
// an Input and writes the document Build returns (docs/design.md §5).
package openapi

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
)

// Version is the version of the OpenAPI Specification the document follows.
const Version = "3.1.0"

// Obj is a JSON object of the document; the generator's encoder writes its keys sorted, so
// the document is byte-identical across runs.
type Obj = map[string]any

// Input is what the document is built from.
type Input struct {
	// Config is the edge configuration: routes, header sets, error bodies, rate limit.
	Config manifest.EdgeConfig
	Site   Site
	// Errors are the API's errors, in the order the document lists them; one per key of
	// Config.Errors.
	Errors []Error
	// ErrorBody is a value of the Go type of an error body: the schema every error extends.
	ErrorBody any
	// Routes holds each route's body, by route name: one per row of Config.Routes.
	Routes map[string]Route
	// Fields adds constraints and descriptions to the schemas derived from Go types, by
	// "Type.json_name"; "*.json_name" applies to every type.
	Fields map[string]Obj
	// CacheOK and CacheError are the Cache-Control values of a 200 and of a cached error:
	// they name its header components (any other value is Cache-Control-No-Store).
	CacheOK, CacheError string
	// LimitedRoutes names the rate-limited routes for a Russian sentence ("к маршрутам …").
	LimitedRoutes string
	// Tags are the document's tags, in order, each with its description: every route's Tag
	// is one of them. The preflight operations' tag ("cors") follows them.
	Tags []Tag
}

// Tag is a tag of the document: a group of operations (a route family's, in the generator).
type Tag struct{ Name, Description string }

// Site holds the site's facts the document states.
type Site struct {
	Title, Publisher, SupportEmail string
	// URL is the site's URL without a trailing slash: the document's server.
	URL string
	// LicenseName is the licence's Russian name, LicenseID its SPDX identifier.
	LicenseName, LicenseID string
	// Disclaimer ends the document's description.
	Disclaimer string
}

// Error is one error of the API.
type Error struct {
	Key string
	// Response names the error in components/responses; Description describes it there.
	Response, Description string
	// Text, Status and ValidNumbers are those of its body.
	Text         string
	Status       int
	ValidNumbers []int
}

// Route is what the document says of one route's 200 body.
type Route struct {
	// Body is a value of the Go type of the body: its schema is derived from that type,
	// unless Schema builds it.
	Body any
	// Schema, when set, builds the body's schema (one that no Go type gives, or a list with
	// its length) and names it.
	Schema func(b *Builder) (name string, schema Obj)
	// Example is a real body, its exact bytes; nil for none.
	Example []byte
	// Values are the parameter values of the route's Example path, in pattern order.
	Values []int
	// Head makes the route's HEAD an operation of the document: for the document itself,
	// whose ETag tells a tool whether to generate its client again without downloading it.
	// HEAD works on every path; the description says so.
	Head bool
}

// Build builds the document. Schemas are derived from the Go types of the bodies, headers
// from the header sets of the edge configuration and examples from real records and error
// bodies, so the document cannot drift from the tree. It is made for clients: its paths are
// the operations they call (paths.go), and what every path answers alike is said once, in
// the description. The server is the site URL and the paths carry the /api/public prefix,
// because the index route is the prefix itself.
func Build(in Input) (Obj, error) {
	b := &Builder{in: in, cfg: in.Config, schemas: Obj{}, headers: Obj{}, routeSchemas: map[string]string{}, routeParams: map[string][]any{}}
	if err := b.buildSchemas(); err != nil {
		return nil, err
	}
	b.buildHeaders()
	if err := b.buildParameters(); err != nil {
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
	site := in.Site
	doc := Obj{
		"openapi": Version,
		"info": Obj{
			"title":       site.Title,
			"summary":     "Числа жизненного пути и матрица судьбы в JSON: открытый API только для чтения.",
			"description": b.description(),
			"version":     manifest.APIVersion,
			"contact":     Obj{"name": site.Publisher, "url": site.URL + "/", "email": site.SupportEmail},
			"license":     Obj{"name": "Creative Commons «" + site.LicenseName + "» (CC BY 4.0)", "identifier": site.LicenseID},
		},
		"externalDocs": Obj{"description": "Документация и примеры", "url": site.URL + "/"},
		"servers":      []Obj{{"url": site.URL, "description": "Сайт; пути API начинаются с " + manifest.APIPrefix}},
		"security":     []any{}, // public: no route needs credentials
		"tags":         b.tags(),
		"paths":        paths,
		"components": Obj{
			"schemas":   b.schemas,
			"headers":   b.headers,
			"responses": responses,
		},
	}
	typeConsts(b.schemas)
	return doc, nil
}

// Builder holds the document's components while Build fills them.
type Builder struct {
	in      Input
	cfg     manifest.EdgeConfig
	schemas Obj
	headers Obj
	// routeSchemas names the schema of each route's 200 body.
	routeSchemas map[string]string
	// routeParams are the path parameters of each route, in order.
	routeParams map[string][]any
}

// errorSpec returns the error of a key.
func (b *Builder) errorSpec(key string) Error {
	for _, e := range b.in.Errors {
		if e.Key == key {
			return e
		}
	}
	panic("openapi bug: no error " + key)
}

// errorResponse names the components/responses entry of an error key.
func (b *Builder) errorResponse(key string) string { return b.errorSpec(key).Response }

// errorSchema names the schema of an error key's body: "InvalidDateError", …
func (b *Builder) errorSchema(key string) string {
	return strings.TrimSuffix(b.errorResponse(key), "Error") + "Error"
}

func ref(kind, name string) Obj { return Obj{"$ref": "#/components/" + kind + "/" + name} }

// SchemaOf returns the schema of v's type, adding the components it needs.
func (b *Builder) SchemaOf(v any) Obj { return schemaOf(reflect.TypeOf(v), b.schemas, b.in.Fields) }

// buildSchemas builds the schema of each route's 200 body, with a real body as its example
// (decoded from its exact bytes), and one schema per error body.
func (b *Builder) buildSchemas() error {
	errorBody := b.SchemaOf(b.in.ErrorBody)
	for _, r := range b.cfg.Routes {
		rd, ok := b.in.Routes[r.Name]
		if !ok {
			return fmt.Errorf("openapi: route %s has no body", r.Name)
		}
		var name string
		if rd.Schema != nil {
			var sch Obj
			name, sch = rd.Schema(b)
			b.schemas[name] = sch
		} else {
			sch := b.SchemaOf(rd.Body)
			ref, _ := sch["$ref"].(string)
			name = strings.TrimPrefix(ref, "#/components/schemas/")
			if ref == "" {
				return fmt.Errorf("openapi: route %s: the body type %T is not a named struct", r.Name, rd.Body)
			}
		}
		b.routeSchemas[r.Name] = name
		if rd.Example == nil {
			continue
		}
		var ex any
		if err := json.Unmarshal(rd.Example, &ex); err != nil {
			return fmt.Errorf("openapi: route %s example: %w", r.Name, err)
		}
		b.schemas[name].(Obj)["examples"] = []any{ex}
	}
	// One schema per error: its exact text and status, so an answer with another error's
	// body does not validate; only the errors that list valid numbers carry valid_numbers.
	// Each extends the error body's schema, which keeps its Go name (ErrorBody): a schema
	// named Error would give generated TypeScript clients a type that shadows the global
	// Error.
	for _, e := range b.in.Errors {
		props := Obj{"error": Obj{"const": e.Text}, "status": Obj{"const": e.Status}}
		sch := Obj{
			"allOf":      []any{errorBody},
			"properties": props,
			"required":   []string{"error", "status"},
		}
		if e.ValidNumbers != nil {
			sch["required"] = []string{"error", "status", "valid_numbers"}
			props["valid_numbers"] = Obj{"type": "array", "items": Obj{"type": "integer"}, "const": e.ValidNumbers}
		} else {
			props["valid_numbers"] = false // never present
		}
		b.schemas[b.errorSchema(e.Key)] = sch
	}
	return nil
}

// schemaOf returns the JSON Schema of t: named struct types become components (a $ref),
// fields come from json tags, embedded structs are flattened, a field is required unless
// it is omitempty, and objects admit no other properties.
func schemaOf(t reflect.Type, comps Obj, extras map[string]Obj) Obj {
	switch t.Kind() {
	case reflect.String:
		return Obj{"type": "string"}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return Obj{"type": "integer"}
	case reflect.Float64:
		return Obj{"type": "number"}
	case reflect.Bool:
		return Obj{"type": "boolean"}
	case reflect.Slice, reflect.Array:
		return Obj{"type": "array", "items": schemaOf(t.Elem(), comps, extras)}
	case reflect.Pointer: // a pointer to a scalar is the scalar or null (the last pinnacle's to_age)
		if s := schemaOf(t.Elem(), comps, extras); s["type"] != nil && s["type"] != "array" {
			s["type"] = []any{s["type"], "null"}
			return s
		}
	case reflect.Struct:
		name := t.Name()
		if _, done := comps[name]; !done {
			comps[name] = Obj{} // reserve: breaks cycles
			props := Obj{}
			var required []string
			addFields(t, name, props, &required, comps, extras)
			comps[name] = Obj{"type": "object", "properties": props, "required": required, "additionalProperties": false}
		}
		return ref("schemas", name)
	}
	panic("openapi bug: no JSON schema for " + t.String())
}

func addFields(t reflect.Type, owner string, props Obj, required *[]string, comps Obj, extras map[string]Obj) {
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
					s = Obj{"allOf": []any{s}} // keep the $ref alone; constraints beside it
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

// headerComponent returns the component name of a response header with a given value.
func (b *Builder) headerComponent(name, value string) string {
	if name != "Cache-Control" {
		return name
	}
	switch value {
	case b.in.CacheOK:
		return "Cache-Control-OK"
	case b.in.CacheError:
		return "Cache-Control-Error"
	}
	return "Cache-Control-No-Store"
}

func (b *Builder) addHeader(name, value, description string) {
	b.headers[b.headerComponent(name, value)] = Obj{
		"required": true, "description": description,
		"schema": Obj{"type": "string", "enum": []string{value}},
	}
}

func (b *Builder) buildHeaders() {
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
		"Content-Encoding":              "Тело не сжато: его байты — те, чей sha256 в ETag",
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
	b.headers["ETag"] = Obj{
		"required": true, "description": "Сильный ETag: sha256 тела в шестнадцатеричном виде, в кавычках",
		"schema": Obj{"type": "string", "pattern": `^"[0-9a-f]{64}"$`},
	}
	b.headers["Retry-After"] = Obj{
		"required": true, "description": "Через сколько секунд запрос будет принят",
		"schema": Obj{"type": "integer", "minimum": 1},
	}
}

// responseHeaders lists the headers of an answer with the given status, as refs.
func (b *Builder) responseHeaders(status string) Obj {
	h := b.cfg.Headers
	out := Obj{}
	sets := []map[string]string{h.Common, h.ByStatus[status]}
	if status == "304" {
		sets = []map[string]string{h.NotModified}
	}
	for _, set := range sets {
		for name, value := range set {
			if name != "Content-Type" {
				out[name] = ref("headers", b.headerComponent(name, value))
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

func (b *Builder) jsonContent(schema Obj, example any) Obj {
	mt := Obj{"schema": schema}
	if example != nil {
		mt["example"] = example
	}
	return Obj{"application/json": mt}
}

// buildResponses builds the shared responses: every error (with its exact body as the
// example), the 304 and the preflight.
func (b *Builder) buildResponses() (Obj, error) {
	out := Obj{}
	for _, e := range b.in.Errors {
		r := b.cfg.Errors[e.Key]
		var example any
		if err := json.Unmarshal([]byte(r.Body), &example); err != nil {
			return nil, fmt.Errorf("openapi: error body %s: %w", e.Key, err)
		}
		status := strconv.Itoa(r.Status)
		out[e.Response] = Obj{
			"description": e.Description,
			"headers":     b.responseHeaders(status),
			"content":     b.jsonContent(ref("schemas", b.errorSchema(e.Key)), example),
		}
	}
	out["NotModified"] = Obj{
		"description": "Не изменилось: If-None-Match совпал с ETag; тела нет",
		"headers":     b.responseHeaders("304"),
	}
	pre := Obj{}
	for name, value := range b.cfg.Headers.Preflight {
		pre[name] = ref("headers", b.headerComponent(name, value))
	}
	out["Preflight"] = Obj{"description": "CORS preflight: без тела", "headers": pre}
	return out, nil
}

// buildParameters describes the path parameters of every route from their types, inline
// in each path: named components would give generated clients types such as Number that
// shadow TypeScript's own. Any segment is a request the route answers: a value its types
// admit with the body, any other (10, 0, letters, %31, ten digits) with the route's error,
// which the operation documents. So a parameter is a number or any string — typed clients
// pass numbers, and a validating proxy forwards every segment to the edge — and the values
// the route admits are in its description, not in the schema: a validator that reads "10"
// as the number 10 would otherwise reject it instead of letting the edge answer.
func (b *Builder) buildParameters() error {
	for _, r := range b.cfg.Routes {
		vals := b.in.Routes[r.Name].Values
		if len(vals) != r.Arity() {
			return fmt.Errorf("openapi: route %s: %d example values, want %d", r.Name, len(vals), r.Arity())
		}
		names := r.ParamNames()
		i := 0
		for _, t := range r.Params {
			for k := range t.Arity() {
				b.routeParams[r.Name] = append(b.routeParams[r.Name], Obj{
					"name": names[i], "in": "path", "required": true,
					"description": b.paramDescription(r, t, k),
					"schema": Obj{"anyOf": []any{
						Obj{"type": "integer", "description": "Число"},
						Obj{"type": "string", "description": "Сегмент пути как есть"},
					}},
					"example": vals[i],
				})
				i++
			}
		}
	}
	return nil
}

// paramDescription describes the k-th parameter of a type in Russian.
func (b *Builder) paramDescription(r manifest.Route, t manifest.ParamType, k int) string {
	const digits = " От 1 до 9 цифр, ведущие нули допустимы (07 — это 7)."
	otherwise := ""
	if r.Error != "" {
		otherwise = fmt.Sprintf(" Любой другой сегмент — не ошибка запроса: маршрут отвечает %d %s.", b.cfg.Errors[r.Error].Status, b.errorSpec(r.Error).Text)
	}
	var what string
	switch t.Type {
	case manifest.ParamNumber:
		what = "Одно из чисел " + numbersRu(t.Numbers) + "."
	case manifest.ParamPair:
		what = [2]string{"Первое", "Второе"}[k] + " число пары: одно из " + numbersRu(t.Numbers) + "; порядок чисел не важен."
	case manifest.ParamDate:
		what = [3]string{
			"День месяца, 1–31; вместе с месяцем и годом — существующая дата.",
			"Месяц, 1–12.",
			fmt.Sprintf("Год, %d–%d.", t.FirstYear, t.LastYear),
		}[k]
	case manifest.ParamBirthdayYear:
		what = [3]string{
			"День рождения, 1–31; вместе с месяцем — день, который есть в календаре високосного года (29 февраля допустимо для любого года).",
			"Месяц рождения, 1–12.",
			fmt.Sprintf("Год, для которого считается цикл, %d–%d.", t.FirstYear, t.LastYear),
		}[k]
	}
	return what + digits + otherwise
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

// typeConsts gives every schema with a const the type of its value, wherever it sits among
// the schemas (examples aside): generators type a bare const as unknown or as a conflict.
func typeConsts(v any) {
	switch v := v.(type) {
	case Obj:
		if c, ok := v["const"]; ok && v["type"] == nil {
			v["type"] = jsonType(c)
		}
		for k, sub := range v {
			if k != "examples" && k != "example" && k != "const" && k != "enum" {
				typeConsts(sub)
			}
		}
	case []any:
		for _, sub := range v {
			typeConsts(sub)
		}
	}
}

// jsonType is the JSON Schema type of a Go value as it encodes.
func jsonType(v any) string {
	switch reflect.ValueOf(v).Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	panic(fmt.Sprintf("openapi bug: no JSON type for the const %v", v))
}
