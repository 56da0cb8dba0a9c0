package generator

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
)

// The paths of the OpenAPI document describe every answer either edge gives
// (docs/design.md §3): each route with and without its trailing slash, the scope of a route
// that answers its own error (the matrix prefix itself: 400), the catch-all 404 for any
// other one-segment path, and 405 for every other method OpenAPI can name. A validating
// proxy built from the document therefore forwards every request the edges answer, and
// checks the answer.

// otherMethods are the operations of an OpenAPI 3.1 path item besides GET, HEAD and OPTIONS:
// the edges answer each with 405.
var otherMethods = []string{"put", "post", "delete", "patch", "trace"}

// catchAllParam is the parameter of the catch-all path.
const catchAllParam = "Path"

// paths describes every route of the route table, the scopes with their own error and the
// catch-all.
func (b *openAPIBuilder) paths() (obj, error) {
	out := obj{}
	patterns := map[string]bool{}
	for _, r := range b.cfg.Routes {
		patterns[r.Pattern] = true
	}
	cfg := &b.cfg
	for _, r := range cfg.Routes {
		if b.routeSchemas[r.Name] == "" {
			return nil, fmt.Errorf("openapi: route %s has no schema", r.Name)
		}
		get := obj{
			"200": obj{
				"description": "Успешный ответ",
				"headers":     b.responseHeaders("200"),
				"content":     b.jsonContent(ref("schemas", b.routeSchemas[r.Name]), nil),
			},
			"304": ref("responses", "NotModified"),
			"500": ref("responses", b.errorResponse(cfg.EdgeErrors.Internal)),
		}
		if r.Error != "" {
			get[b.status(r.Error)] = ref("responses", b.errorResponse(r.Error))
		}
		b.addPath(out, r.Pattern, camelCase(r.Name), r.Summary, b.routeParams[r.Name], get, r.RateLimited)
		// The scope itself, when no route has it as its pattern, answers its owner's error.
		scope := r.Scope()
		if owner := cfg.Routes[cfg.Owner(scope)]; owner.Name == r.Name && r.Error != "" && !patterns[scope] {
			get := obj{b.status(r.Error): ref("responses", b.errorResponse(r.Error))}
			b.addPath(out, scope, camelCase(r.Name)+"Scope", r.Summary+": адрес без параметров", nil, get, r.RateLimited)
		}
	}
	nf := cfg.EdgeErrors.NotFound
	notFound := obj{b.status(nf): ref("responses", b.errorResponse(nf))}
	b.addPath(out, manifest.APIPrefix+"/{path}", "notFound", "Любой другой адрес", []string{catchAllParam}, notFound, false)
	return out, nil
}

// status is the HTTP status of an error key, as a response key.
func (b *openAPIBuilder) status(key string) string { return strconv.Itoa(b.cfg.Errors[key].Status) }

// addPath adds a path and its trailing-slash twin (operation ids suffixed "Slash").
func (b *openAPIBuilder) addPath(out obj, path, id, summary string, params []string, get obj, limited bool) {
	out[path] = b.pathItem(id, summary, params, get, limited)
	out[path+"/"] = b.pathItem(id+"Slash", summary+" (со слешем в конце)", params, get, limited)
}

// pathItem describes one path: GET with the given responses, HEAD with the same without
// bodies, the preflight, and 405 for the other methods; a rate-limited path adds 429 to
// every operation but OPTIONS (the limit counts before the method is checked).
func (b *openAPIBuilder) pathItem(id, summary string, params []string, get obj, limited bool) obj {
	get = maps.Clone(get)
	ee := b.cfg.EdgeErrors
	other := obj{b.status(ee.MethodNotAllowed): ref("responses", b.errorResponse(ee.MethodNotAllowed))}
	if limited {
		tooMany := ref("responses", b.errorResponse(ee.TooManyRequests))
		get[b.status(ee.TooManyRequests)] = tooMany
		other[b.status(ee.TooManyRequests)] = tooMany
	}
	head := obj{}
	for status, r := range get {
		if status == "200" {
			head[status] = obj{"description": "Те же заголовки, что у GET, без тела", "headers": b.responseHeaders("200")}
			continue
		}
		head[status] = r
	}
	item := obj{
		"summary": summary,
		"get":     obj{"operationId": id, "summary": summary, "responses": get},
		"head":    obj{"operationId": id + "Head", "summary": summary + " (только заголовки)", "responses": head},
		"options": obj{"operationId": id + "Preflight", "summary": "CORS preflight", "responses": obj{"204": ref("responses", "Preflight")}},
	}
	for _, m := range otherMethods {
		item[m] = obj{"operationId": id + camelCase("-"+m), "summary": "Метод не поддерживается", "responses": other}
	}
	var ps []any
	for _, p := range params {
		ps = append(ps, ref("parameters", p))
	}
	if ps != nil {
		item["parameters"] = ps
	}
	return item
}

// scopeErrors describes, for the document's description, the paths that answer their
// owner's error rather than 404 ("адреса под …, не подходящие под маршрут, — 400 Invalid
// date."): under a scope shared by several routes, a path belongs to the one whose number
// of segments is closest to its own.
func (b *openAPIBuilder) scopeErrors() string {
	var parts []string
	shared := map[string]int{}
	for _, r := range b.cfg.Routes {
		if r.Error != "" {
			shared[r.Scope()]++
		}
	}
	for _, r := range b.cfg.Routes {
		if r.Error == "" {
			continue
		}
		e := b.cfg.Errors[r.Error]
		var body ErrorBody
		_ = json.Unmarshal([]byte(e.Body), &body)
		what := "адреса под " + r.Scope()
		if shared[r.Scope()] > 1 {
			what = "адреса вида " + r.Pattern
		}
		parts = append(parts, what+", не подходящие под маршрут, — "+strconv.Itoa(e.Status)+" "+body.Error)
	}
	return strings.Join(parts, "; ") + ".\n"
}

// camelCase turns a route name ("life-path-list") into an operationId ("lifePathList").
func camelCase(name string) string {
	parts := strings.Split(name, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}
