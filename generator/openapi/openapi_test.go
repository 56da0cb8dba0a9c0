package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// The tests build the document of a small API of two routes from Go values alone: the
// document of the real site, its validation and its clients are tested in
// generator/openapitest.

type testError struct {
	Error        string `json:"error"`
	Status       int    `json:"status"`
	ValidNumbers []int  `json:"valid_numbers,omitempty"`
}

type testIndex struct {
	Name    string   `json:"name"`
	Routes  []string `json:"routes"`
	Version string   `json:"api_version"`
}

type testRecord struct {
	Number int       `json:"number"`
	Text   string    `json:"text,omitempty"`
	Index  testIndex `json:"index"`
}

// testInput is a valid input: an index route and a rate-limited number route with an error.
func testInput() Input {
	errBody := func(text string, status int, valid []int) string {
		b, _ := json.Marshal(testError{text, status, valid})
		return string(b)
	}
	cache := func(v string) map[string]string { return map[string]string{"Cache-Control": v} }
	cfg := manifest.EdgeConfig{
		Prefix: manifest.APIPrefix,
		Routes: []manifest.Route{{
			Name: "index", Pattern: manifest.APIPrefix, File: "index.json", Example: manifest.APIPrefix,
			Summary: "Оглавление", Description: "Оглавление API", OperationID: "getIndex", Tag: "meta",
		}, {
			Name: "number", Pattern: manifest.APIPrefix + "/number/{n}", File: "number/{n}.json",
			Params: []manifest.ParamType{{Type: manifest.ParamNumber, Numbers: []int{1, 2, 3, 4, 7}}},
			Error:  "missing", RateLimited: true, Example: manifest.APIPrefix + "/number/7",
			Summary: "Число", Description: "Одно число", OperationID: "getNumber", Tag: "life-path",
		}},
		RateLimit: manifest.RateLimit{Requests: 60, WindowSeconds: 60, IPv6Prefix: 64},
		Headers: manifest.Headers{
			Common:      map[string]string{"Content-Type": "application/json", "X-API-License": "CC-BY-4.0"},
			ByStatus:    map[string]map[string]string{"200": cache("ok"), "404": cache("err"), "405": cache("none"), "429": cache("none"), "500": cache("none")},
			NotModified: map[string]string{"Cache-Control": "ok"},
			Preflight:   map[string]string{"Access-Control-Allow-Origin": "*"},
		},
		Errors: map[string]manifest.ErrorResponse{
			"missing":  {Status: 404, Body: errBody("Missing", 404, []int{1, 2, 3, 4, 7})},
			"notfound": {Status: 404, Body: errBody("Not found", 404, nil)},
			"method":   {Status: 405, Body: errBody("Method", 405, nil)},
			"many":     {Status: 429, Body: errBody("Many", 429, nil)},
			"internal": {Status: 500, Body: errBody("Internal", 500, nil)},
		},
		EdgeErrors: manifest.EdgeErrors{NotFound: "notfound", MethodNotAllowed: "method", TooManyRequests: "many", Internal: "internal"},
	}
	var errs []Error
	for _, k := range []string{"missing", "notfound", "method", "many", "internal"} {
		var body testError
		_ = json.Unmarshal([]byte(cfg.Errors[k].Body), &body)
		name := strings.ToUpper(k[:1]) + k[1:]
		errs = append(errs, Error{Key: k, Response: name, Description: "Ошибка " + k, Text: body.Error, Status: body.Status, ValidNumbers: body.ValidNumbers})
	}
	return Input{
		Config:    cfg,
		Site:      Site{Title: "Тест", Publisher: "Издатель", SupportEmail: "a@example.org", URL: "https://example.org", LicenseName: "Атрибуция 4.0", LicenseID: "CC-BY-4.0", Disclaimer: "Для развлечения."},
		Errors:    errs,
		ErrorBody: testError{},
		Routes: map[string]Route{
			"index": {Body: testIndex{}, Example: []byte(`{"name":"тест","routes":["/api/public"],"api_version":"1"}`)},
			"number": {Body: testRecord{}, Values: []int{7}, Schema: func(b *Builder) (string, Obj) {
				return "NumberRecord", Obj{"allOf": []any{b.SchemaOf(testRecord{})}, "description": "Запись числа"}
			}},
		},
		Fields:        map[string]Obj{"*.api_version": {"const": "1"}, "testRecord.number": {"enum": []int{1, 2, 3, 4, 7}}},
		CacheOK:       "ok",
		CacheError:    "err",
		LimitedRoutes: "к маршруту " + manifest.APIPrefix + "/number/{n}",
		Tags:          []Tag{{"meta", "Оглавление"}, {"life-path", "Числа"}},
	}
}

// at walks a decoded document by keys.
func at(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: not an object on the way to %v", k, keys)
		}
		v = m[k]
	}
	return v
}

func TestBuild(t *testing.T) {
	doc, err := Build(testInput())
	if err != nil {
		t.Fatal(err)
	}
	b1, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc2, err := Build(testInput())
	if err != nil {
		t.Fatal(err)
	}
	if b2, _ := json.Marshal(doc2); string(b1) != string(b2) {
		t.Error("two builds of the document differ")
	}
	var d any
	if err := json.Unmarshal(b1, &d); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		keys []string
		want any
	}{
		{"version", []string{"openapi"}, Version},
		{"server", []string{"servers"}, []any{map[string]any{"url": "https://example.org", "description": "Сайт; пути API начинаются с " + manifest.APIPrefix}}},
		{"licence", []string{"info", "license", "identifier"}, "CC-BY-4.0"},
		{"schema from a Go type", []string{"components", "schemas", "testIndex", "required"}, []any{"name", "routes", "api_version"}},
		{"field extra on every type", []string{"components", "schemas", "testIndex", "properties", "api_version"}, map[string]any{"const": "1", "type": "string"}},
		{"field extra on one type", []string{"components", "schemas", "testRecord", "properties", "number", "enum"}, []any{1.0, 2.0, 3.0, 4.0, 7.0}},
		{"omitempty is optional", []string{"components", "schemas", "testRecord", "required"}, []any{"number", "index"}},
		{"nested struct as a ref", []string{"components", "schemas", "testRecord", "properties", "index", "$ref"}, "#/components/schemas/testIndex"},
		{"example from the exact body", []string{"components", "schemas", "testIndex", "examples"}, []any{map[string]any{"name": "тест", "routes": []any{"/api/public"}, "api_version": "1"}}},
		{"schema built by the route", []string{"components", "schemas", "NumberRecord", "description"}, "Запись числа"},
		{"no example without a body", []string{"components", "schemas", "NumberRecord", "examples"}, nil},
		{"error schema extends the error body", []string{"components", "schemas", "MissingError", "allOf"}, []any{map[string]any{"$ref": "#/components/schemas/testError"}}},
		{"error const typed", []string{"components", "schemas", "MissingError", "properties", "status"}, map[string]any{"const": 404.0, "type": "integer"}},
		{"valid numbers listed", []string{"components", "schemas", "MissingError", "properties", "valid_numbers", "const"}, []any{1.0, 2.0, 3.0, 4.0, 7.0}},
		{"valid numbers absent", []string{"components", "schemas", "NotfoundError", "properties", "valid_numbers"}, false},
		{"cache header of a 200", []string{"components", "headers", "Cache-Control-OK", "schema", "enum"}, []any{"ok"}},
		{"cache header of an error", []string{"components", "headers", "Cache-Control-Error", "schema", "enum"}, []any{"err"}},
		{"content type is no header", []string{"components", "headers", "Content-Type"}, nil},
		{"route error", []string{"paths", manifest.APIPrefix + "/number/{n}", "get", "responses", "404", "$ref"}, "#/components/responses/Missing"},
		{"rate limit", []string{"paths", manifest.APIPrefix + "/number/{n}", "get", "responses", "429", "$ref"}, "#/components/responses/Many"},
		{"no rate limit", []string{"paths", manifest.APIPrefix, "get", "responses", "429"}, nil},
		{"HEAD of a route", []string{"paths", manifest.APIPrefix, "head"}, nil},
		{"preflight", []string{"paths", manifest.APIPrefix, "options", "operationId"}, "preflightGetIndex"},
		{"error example", []string{"components", "responses", "Missing", "content", "application/json", "example", "error"}, "Missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := at(t, d, c.keys...); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%v = %#v, want %#v", c.keys, got, c.want)
			}
		})
	}
	param := at(t, d, "paths", manifest.APIPrefix+"/number/{n}", "parameters").([]any)[0]
	if got := at(t, param, "example"); got != 7.0 {
		t.Errorf("parameter example = %v, want 7", got)
	}
	wantDesc := "Одно из чисел 1–4, 7. От 1 до 9 цифр, ведущие нули допустимы (07 — это 7). Любой другой сегмент — не ошибка запроса: маршрут отвечает 404 Missing."
	if got := at(t, param, "description"); got != wantDesc {
		t.Errorf("parameter description = %q, want %q", got, wantDesc)
	}
	desc := at(t, d, "info", "description").(string)
	for _, want := range []string{
		manifest.APIPrefix + "/number/{n} — 404 Missing (components/responses/Missing)",
		"60 запросов за 60 секунд с одного IP (IPv6 — по сети /64) к маршруту " + manifest.APIPrefix + "/number/{n}",
		"405 Method (components/responses/Method)",
		"«Атрибуция 4.0»",
		"Для развлечения.",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("the description lacks %q", want)
		}
	}
}

func TestBuildRejects(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(in *Input)
		want   string
	}{
		{"route without a body", func(in *Input) { delete(in.Routes, "number") }, "route number has no body"},
		{"body not a named struct", func(in *Input) { in.Routes["index"] = Route{Body: []int{}} }, "the body type []int is not a named struct"},
		{"example not JSON", func(in *Input) { in.Routes["index"] = Route{Body: testIndex{}, Example: []byte("{")} }, "route index example"},
		{"example values", func(in *Input) { in.Routes["number"] = Route{Body: testRecord{}} }, "route number: 0 example values, want 1"},
		{"no operation id", func(in *Input) { in.Config.Routes[1].OperationID = "" }, "route number has no operation id or tag"},
		{"unknown tag", func(in *Input) { in.Config.Routes[1].Tag = "other" }, `tag "other" is not one of Input.Tags`},
		{"preflight tag", func(in *Input) { in.Config.Routes[1].Tag = preflightTag }, `tag "cors" is not one of Input.Tags`},
		{"a tag given twice", func(in *Input) { in.Tags = append(in.Tags, Tag{"meta", "Ещё раз"}) }, `tag "meta" is given twice`},
		{"a tag without a description", func(in *Input) { in.Tags[1].Description = "" }, `tag "life-path" has no name or no description`},
		{"the preflight's tag given", func(in *Input) { in.Tags = append(in.Tags, Tag{preflightTag, "CORS"}) }, `tag "cors" is the preflight operations'`},
		{"shared operation id", func(in *Input) { in.Config.Routes[1].OperationID = "getIndex" }, "routes index and number share the operation id getIndex"},
		{"error body not JSON", func(in *Input) { in.Config.Errors["method"] = manifest.ErrorResponse{Status: 405, Body: "{"} }, "error body method"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := testInput()
			c.change(&in)
			_, err := Build(in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Build: %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestNumbersRu(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 22, 33}, "1–9, 11, 22, 33"},
		{[]int{1, 2, 5}, "1, 2, 5"},
		{[]int{4}, "4"},
		{nil, ""},
	} {
		if got := numbersRu(c.in); got != c.want {
			t.Errorf("numbersRu(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCapitalize(t *testing.T) {
	if got := capitalize("getMatrix"); got != "GetMatrix" {
		t.Errorf("capitalize = %q", got)
	}
	if got := lowerFirst("Матрица судьбы"); got != "матрица судьбы" {
		t.Errorf("lowerFirst = %q", got)
	}
	if capitalize("") != "" || lowerFirst("") != "" {
		t.Error("the empty string changed")
	}
}
