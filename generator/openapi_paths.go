package generator

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
)

// The paths of the OpenAPI document describe every answer either edge gives
// (docs/design.md §3): each route with and without its trailing slash, the scope of a route
// that answers its own error (the matrix prefix itself: 400), the catch-all 404 for any
// other one-segment path, and 405 for every other method OpenAPI can name. A validating
// proxy built from the document therefore forwards every request the edges answer, and
// checks the answer.

// routeSchemas names the schema of each route's 200 body: the renderer's half of a route.
var routeSchemas = map[string]string{
	manifest.RouteIndex:        "APIIndex",
	manifest.RouteOpenAPI:      "OpenAPIDocument",
	manifest.RouteLifePathList: "LifePathList",
	manifest.RouteLifePath:     "LifePathRecord",
	manifest.RouteMatrix:       "MatrixRecord",
}

// errorResponses names the components/responses entry of each error key.
var errorResponses = map[string]string{
	manifest.ErrInvalidDate:      "InvalidDate",
	manifest.ErrNumberNotFound:   "NumberNotFound",
	manifest.ErrNotFound:         "NotFound",
	manifest.ErrMethodNotAllowed: "MethodNotAllowed",
	manifest.ErrTooManyRequests:  "TooManyRequests",
	manifest.ErrInternal:         "InternalError",
}

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
	for _, r := range b.cfg.Routes {
		var params []string
		for _, name := range r.Params() {
			params = append(params, strings.ToUpper(name[:1])+name[1:])
		}
		if routeSchemas[r.Name] == "" {
			return nil, fmt.Errorf("openapi: route %s has no schema in routeSchemas", r.Name)
		}
		get := obj{
			"200": obj{
				"description": "Успешный ответ",
				"headers":     b.responseHeaders("200"),
				"content":     b.jsonContent(ref("schemas", routeSchemas[r.Name]), nil),
			},
			"304": ref("responses", "NotModified"),
			"500": ref("responses", errorResponses[manifest.ErrInternal]),
		}
		if r.Error != "" {
			get[b.status(r.Error)] = ref("responses", errorResponses[r.Error])
		}
		b.addPath(out, r.Pattern, camelCase(r.Name), r.Summary, params, get, r.RateLimited)
		// The scope itself, when no route has it as its pattern, answers the route's error.
		if scope := r.Scope(); r.Error != "" && !patterns[scope] {
			get := obj{b.status(r.Error): ref("responses", errorResponses[r.Error])}
			b.addPath(out, scope, camelCase(r.Name)+"Scope", r.Summary+": адрес без параметров", nil, get, r.RateLimited)
		}
	}
	notFound := obj{b.status(manifest.ErrNotFound): ref("responses", errorResponses[manifest.ErrNotFound])}
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
	other := obj{b.status(manifest.ErrMethodNotAllowed): ref("responses", errorResponses[manifest.ErrMethodNotAllowed])}
	if limited {
		tooMany := ref("responses", errorResponses[manifest.ErrTooManyRequests])
		get[b.status(manifest.ErrTooManyRequests)] = tooMany
		other[b.status(manifest.ErrTooManyRequests)] = tooMany
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

// scopeErrors describes, for the document's description, the scopes that answer their
// route's error rather than 404 ("адреса под … — 400 Invalid date.").
func (b *openAPIBuilder) scopeErrors() string {
	var parts []string
	for _, r := range b.cfg.Routes {
		if r.Error == "" {
			continue
		}
		for _, e := range b.site.errorSpecs() {
			if e.key == r.Error {
				parts = append(parts, "адреса под "+r.Scope()+", не подходящие под маршрут, — "+strconv.Itoa(e.body.Status)+" "+e.body.Error)
			}
		}
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
