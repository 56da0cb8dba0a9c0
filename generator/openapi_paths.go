package generator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// The paths of the OpenAPI document describe the operations clients call (docs/design.md
// §5): GET on every route, with the operationId and tag of its row in the route table; HEAD
// where a client has a use for it; and the CORS preflight. What the edges answer alike on
// every path — 405 for any other method, one tolerated trailing slash, the errors of paths
// no route matches — is said once, in the document's description, with its response under
// components/responses: per-path copies gave every generated client functions that can
// only fail (matrixTrace) and duplicates (lifePathListSlash).

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

// headRoutes are the routes whose HEAD is an operation of the document: the document
// itself, whose ETag tells a tool whether to generate its client again without downloading
// it. HEAD works on every path; the description says so.
var headRoutes = map[string]bool{manifest.RouteOpenAPI: true}

// preflightTag is the tag of the preflight operations: browsers send them, client code
// does not.
const preflightTag = "cors"

// openAPITags are the document's tags, in order, with their descriptions; every route's
// Tag must be one of them.
var openAPITags = []struct{ name, description string }{
	{"meta", "Оглавление API и этот документ"},
	{"life-path", "Числа жизненного пути: список и записи"},
	{"matrix", "Матрица судьбы по дате рождения"},
	{preflightTag, "CORS preflight: браузер отправляет его сам перед запросом с другого сайта; вызывать вручную не нужно"},
}

// tags returns the document's tags.
func tags() []obj {
	var out []obj
	for _, t := range openAPITags {
		out = append(out, obj{"name": t.name, "description": t.description})
	}
	return out
}

// paths describes every route of the route table: one path item per pattern.
func (b *openAPIBuilder) paths() (obj, error) {
	out := obj{}
	known := map[string]bool{}
	for _, t := range openAPITags {
		known[t.name] = true
	}
	ids := map[string]string{}
	for _, r := range b.cfg.Routes {
		switch {
		case routeSchemas[r.Name] == "":
			return nil, fmt.Errorf("openapi: route %s has no schema in routeSchemas", r.Name)
		case r.OperationID == "" || r.Tag == "":
			return nil, fmt.Errorf("openapi: route %s has no operation id or tag", r.Name)
		case !known[r.Tag] || r.Tag == preflightTag:
			return nil, fmt.Errorf("openapi: route %s: tag %q is not one of openAPITags", r.Name, r.Tag)
		case ids[r.OperationID] != "":
			return nil, fmt.Errorf("openapi: routes %s and %s share the operation id %s", ids[r.OperationID], r.Name, r.OperationID)
		}
		ids[r.OperationID] = r.Name
		params, err := b.pathParams(r)
		if err != nil {
			return nil, err
		}
		item := obj{
			"summary": r.Summary,
			"get":     b.getOperation(r),
			"options": obj{
				"operationId": "preflight" + capitalize(r.OperationID),
				"tags":        []string{preflightTag},
				"summary":     "CORS preflight: " + lowerFirst(r.Summary),
				"description": "Ответ браузеру на предварительный CORS-запрос: 204 без тела. Лимит запросов его не считает.",
				"responses":   obj{"204": ref("responses", "Preflight")},
			},
		}
		if headRoutes[r.Name] {
			item["head"] = b.headOperation(r)
		}
		if params != nil {
			item["parameters"] = params
		}
		out[r.Pattern] = item
	}
	return out, nil
}

// getResponses are the answers of a route's GET: the body, 304, the route's own error
// (a parameter it does not admit), 429 where the limit counts and 500.
func (b *openAPIBuilder) getResponses(r manifest.Route) obj {
	out := obj{
		"200": obj{
			"description": "Успешный ответ",
			"headers":     b.responseHeaders("200"),
			"content":     b.jsonContent(ref("schemas", routeSchemas[r.Name]), nil),
		},
		"304": ref("responses", "NotModified"),
		"500": ref("responses", errorResponses[manifest.ErrInternal]),
	}
	if r.Error != "" {
		out[b.status(r.Error)] = ref("responses", errorResponses[r.Error])
	}
	if r.RateLimited {
		out[b.status(manifest.ErrTooManyRequests)] = ref("responses", errorResponses[manifest.ErrTooManyRequests])
	}
	return out
}

func (b *openAPIBuilder) getOperation(r manifest.Route) obj {
	return obj{
		"operationId": r.OperationID,
		"tags":        []string{r.Tag},
		"summary":     r.Summary,
		"description": r.Description + ".",
		"responses":   b.getResponses(r),
	}
}

// headOperation is the GET without bodies: the same statuses and headers.
func (b *openAPIBuilder) headOperation(r manifest.Route) obj {
	head := obj{}
	for status, resp := range b.getResponses(r) {
		if status == "200" {
			resp = obj{"description": "Те же заголовки, что у GET, без тела", "headers": b.responseHeaders("200")}
		}
		head[status] = resp
	}
	return obj{
		"operationId": "head" + strings.TrimPrefix(r.OperationID, "get"),
		"tags":        []string{r.Tag},
		"summary":     r.Summary + ": только заголовки",
		"description": "Те же заголовки, что у GET, без тела: по ETag видно, изменился ли ответ.",
		"responses":   head,
	}
}

// pathParams describes the route's path parameters as its edge checks them. Any segment
// is a request the route answers: a value its check admits with the body, any other (10,
// 0, letters, %31, ten digits) with the route's error, which the operation documents. So
// a parameter is a number or any string — typed clients pass numbers, and a validating
// proxy forwards every segment to the edge — and the values the route admits are in its
// description, not in the schema: a validator that reads "10" as the number 10 would
// otherwise reject it instead of letting the edge answer.
func (b *openAPIBuilder) pathParams(r manifest.Route) ([]any, error) {
	names := r.Params()
	if len(names) == 0 {
		return nil, nil
	}
	var out []any
	otherwise := ""
	if r.Error != "" {
		for _, e := range b.site.errorSpecs() {
			if e.key == r.Error {
				otherwise = " Любой другой сегмент — не ошибка запроса: маршрут отвечает " + strconv.Itoa(e.body.Status) + " " + e.body.Error + "."
			}
		}
	}
	const digits = " От 1 до 9 цифр, ведущие нули допустимы (07 — это 7)."
	for _, name := range names {
		var description string
		var example int
		switch {
		case r.Check == manifest.CheckLifePathNumber:
			description, example = "Число жизненного пути: 1–9, 11, 22 или 33.", 7
		case r.Check == manifest.CheckDate && name == "day":
			description, example = "День месяца, 1–31; вместе с месяцем и годом — существующая дата.", 15
		case r.Check == manifest.CheckDate && name == "month":
			description, example = "Месяц, 1–12.", 5
		case r.Check == manifest.CheckDate && name == "year":
			description, example = fmt.Sprintf("Год, %d–%d.", rules.FirstYear, rules.LastYear), 1990
		default:
			return nil, fmt.Errorf("openapi: route %s: no description of parameter %s (check %q)", r.Name, name, r.Check)
		}
		out = append(out, obj{
			"name": name, "in": "path", "required": true,
			"description": description + digits + otherwise,
			"schema": obj{"anyOf": []any{
				obj{"type": "integer", "description": "Число"},
				obj{"type": "string", "description": "Сегмент пути как есть"},
			}},
			"example": example,
		})
	}
	return out, nil
}

// status is the HTTP status of an error key, as a response key.
func (b *openAPIBuilder) status(key string) string { return strconv.Itoa(b.cfg.Errors[key].Status) }

// description is the document's description: what holds on every path, said once.
func (b *openAPIBuilder) description() string {
	p := manifest.APIPrefix
	s := b.site
	rl := b.cfg.RateLimit
	return "Публичный API только для чтения. Все ответы — заранее рассчитанный JSON в UTF-8 " +
		"(кириллица без экранирования), неизменный и помеченный сильным ETag. Тексты на русском языке.\n\n" +
		"## Что верно для всех адресов\n\n" +
		"* **Методы.** Каждый путь отвечает на GET, на HEAD (те же заголовки, что у GET, без тела) " +
		"и на OPTIONS (CORS preflight). На любой другой метод любой адрес под " + p + " отвечает " +
		b.status(manifest.ErrMethodNotAllowed) + " Method not allowed с заголовком Allow " +
		"(components/responses/MethodNotAllowed). Этот ответ описан здесь один раз, а не у каждого пути: " +
		"API только читает данные, и операции, которые могут лишь вернуть ошибку, дали бы сгенерированным " +
		"клиентам функции, которые незачем вызывать. HEAD описан отдельной операцией только у этого документа: " +
		"по его ETag удобно проверять, не пора ли заново сгенерировать клиент.\n" +
		"* **Завершающий слеш.** Один слеш в конце пути допускается на всех маршрутах: " + p + "/life-path/7/ — " +
		"то же, что " + p + "/life-path/7, с тем же ответом. Пути документа записаны без него; с двумя слешами " +
		"в конце адрес уже другой.\n" +
		"* **Числа в пути** — от 1 до 9 цифр, ведущие нули допустимы. Сегмент, который не подходит маршруту " +
		"(буквы, 0, лишние цифры, %31), — не ошибка запроса: маршрут отвечает своей ошибкой, и она описана у операции.\n" +
		"* **Другие адреса.** " + b.scopeErrors() + "; любой другой адрес под " + p + " — " +
		b.status(manifest.ErrNotFound) + " Not found (components/responses/NotFound).\n" +
		fmt.Sprintf("* **Лимит.** Маршрут матрицы ограничен: %d запросов за %d секунд с одного IP (IPv6 — по сети /%d), "+
			"считаются все методы, кроме OPTIONS; сверх лимита — 429 с Retry-After.\n",
			rl.Requests, rl.WindowSeconds, rl.IPv6Prefix) +
		"* **Лицензия.** Данные — по лицензии Creative Commons «" + s.Content.Site.LicenseName + "» (CC BY 4.0): " +
		"указывайте источник (поля attribution, attribution_html, suggested_citation)."
}

// scopeErrors describes the scopes that answer their route's error rather than 404:
// "адреса под …, не подходящие под маршрут, — 400 Invalid date".
func (b *openAPIBuilder) scopeErrors() string {
	var parts []string
	patterns := map[string]bool{}
	for _, r := range b.cfg.Routes {
		patterns[r.Pattern] = true
	}
	for _, r := range b.cfg.Routes {
		if r.Error == "" {
			continue
		}
		what := "адреса под " + r.Scope()
		if !patterns[r.Scope()] {
			what = r.Scope() + " и адреса под ним"
		}
		for _, e := range b.site.errorSpecs() {
			if e.key == r.Error {
				parts = append(parts, what+", не подходящие под маршрут, — "+strconv.Itoa(e.body.Status)+" "+e.body.Error+
					" (components/responses/"+errorResponses[e.key]+")")
			}
		}
	}
	return capitalize(strings.Join(parts, "; "))
}

// capitalize upper-cases the first letter of a string.
func capitalize(s string) string {
	for _, r := range s {
		return strings.ToUpper(string(r)) + s[len(string(r)):]
	}
	return s
}

// lowerFirst lower-cases the first letter of a string.
func lowerFirst(s string) string {
	for _, r := range s {
		return strings.ToLower(string(r)) + s[len(string(r)):]
	}
	return s
}
