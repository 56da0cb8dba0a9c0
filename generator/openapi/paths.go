package openapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
)

// The paths of the OpenAPI document describe the operations clients call (docs/design.md
// §5): GET on every route, with the operationId and tag of its row in the route table; HEAD
// where a client has a use for it; and the CORS preflight. What the edges answer alike on
// every path — 405 for any other method, one tolerated trailing slash, the errors of paths
// no route matches — is said once, in the document's description, with its response under
// components/responses: per-path copies gave every generated client functions that can
// only fail (matrixTrace) and duplicates (lifePathListSlash).

// preflightTag is the tag of the preflight operations: browsers send them, client code
// does not.
const preflightTag = "cors"

// preflightDescription is the description of the preflight operations' tag.
const preflightDescription = "CORS preflight: браузер отправляет его сам перед запросом с другого сайта; вызывать вручную не нужно"

// tags returns the document's tags: the route families' (Input.Tags), then the preflight's.
func (b *Builder) tags() []Obj {
	var out []Obj
	for _, t := range b.in.Tags {
		out = append(out, Obj{"name": t.Name, "description": t.Description})
	}
	return append(out, Obj{"name": preflightTag, "description": preflightDescription})
}

// checkTags checks Input.Tags (each named once, with a description, none the preflight's)
// and returns their names.
func (b *Builder) checkTags() (map[string]bool, error) {
	seen := map[string]bool{}
	for _, t := range b.in.Tags {
		switch {
		case t.Name == "" || t.Description == "":
			return nil, fmt.Errorf("openapi: tag %q has no name or no description", t.Name)
		case t.Name == preflightTag:
			return nil, fmt.Errorf("openapi: tag %q is the preflight operations'", t.Name)
		case seen[t.Name]:
			return nil, fmt.Errorf("openapi: tag %q is given twice", t.Name)
		}
		seen[t.Name] = true
	}
	return seen, nil
}

// paths describes every route of the route table: one path item per pattern.
func (b *Builder) paths() (Obj, error) {
	out := Obj{}
	known, err := b.checkTags()
	if err != nil {
		return nil, err
	}
	ids := map[string]string{}
	for _, r := range b.cfg.Routes {
		switch {
		case b.routeSchemas[r.Name] == "":
			return nil, fmt.Errorf("openapi: route %s has no schema", r.Name)
		case r.OperationID == "" || r.Tag == "":
			return nil, fmt.Errorf("openapi: route %s has no operation id or tag", r.Name)
		case !known[r.Tag] || r.Tag == preflightTag:
			return nil, fmt.Errorf("openapi: route %s: tag %q is not one of Input.Tags", r.Name, r.Tag)
		case ids[r.OperationID] != "":
			return nil, fmt.Errorf("openapi: routes %s and %s share the operation id %s", ids[r.OperationID], r.Name, r.OperationID)
		}
		ids[r.OperationID] = r.Name
		item := Obj{
			"summary": r.Summary,
			"get":     b.getOperation(r),
			"options": Obj{
				"operationId": "preflight" + capitalize(r.OperationID),
				"tags":        []string{preflightTag},
				"summary":     "CORS preflight: " + lowerFirst(r.Summary),
				"description": "Ответ браузеру на предварительный CORS-запрос: 204 без тела. Лимит запросов его не считает.",
				"responses":   Obj{"204": ref("responses", "Preflight")},
			},
		}
		if b.in.Routes[r.Name].Head {
			item["head"] = b.headOperation(r)
		}
		if params := b.routeParams[r.Name]; params != nil {
			item["parameters"] = params
		}
		out[r.Pattern] = item
	}
	return out, nil
}

// getResponses are the answers of a route's GET: the body, 304, the route's own error
// (a parameter it does not admit), 429 where the limit counts and 500.
func (b *Builder) getResponses(r manifest.Route) Obj {
	ee := b.cfg.EdgeErrors
	out := Obj{
		"200": Obj{
			"description": "Успешный ответ",
			"headers":     b.responseHeaders("200"),
			"content":     b.jsonContent(ref("schemas", b.routeSchemas[r.Name]), nil),
		},
		"304": ref("responses", "NotModified"),
		"500": ref("responses", b.errorResponse(ee.Internal)),
	}
	if r.Error != "" {
		out[b.status(r.Error)] = ref("responses", b.errorResponse(r.Error))
	}
	if r.RateLimited {
		out[b.status(ee.TooManyRequests)] = ref("responses", b.errorResponse(ee.TooManyRequests))
	}
	return out
}

func (b *Builder) getOperation(r manifest.Route) Obj {
	return Obj{
		"operationId": r.OperationID,
		"tags":        []string{r.Tag},
		"summary":     r.Summary,
		"description": r.Description + ".",
		"responses":   b.getResponses(r),
	}
}

// headOperation is the GET without bodies: the same statuses and headers.
func (b *Builder) headOperation(r manifest.Route) Obj {
	head := Obj{}
	for status, resp := range b.getResponses(r) {
		if status == "200" {
			resp = Obj{"description": "Те же заголовки, что у GET, без тела", "headers": b.responseHeaders("200")}
		}
		head[status] = resp
	}
	return Obj{
		"operationId": "head" + strings.TrimPrefix(r.OperationID, "get"),
		"tags":        []string{r.Tag},
		"summary":     r.Summary + ": только заголовки",
		"description": "Те же заголовки, что у GET, без тела: по ETag видно, изменился ли ответ.",
		"responses":   head,
	}
}

// status is the HTTP status of an error key, as a response key.
func (b *Builder) status(key string) string { return strconv.Itoa(b.cfg.Errors[key].Status) }

// description is the document's description: what holds on every path, said once.
func (b *Builder) description() string {
	p := manifest.APIPrefix
	ee := b.cfg.EdgeErrors
	rl := b.cfg.RateLimit
	example := p
	for _, r := range b.cfg.Routes {
		if len(r.Params) > 0 {
			example = r.Example
			break
		}
	}
	return "Публичный API только для чтения. Все ответы — заранее рассчитанный JSON в UTF-8 " +
		"(кириллица без экранирования) с сильным ETag; между обновлениями данных ответ не меняется. Тексты на русском языке.\n\n" +
		"## Что верно для всех адресов\n\n" +
		"* **Методы.** Каждый путь отвечает на GET, на HEAD (те же заголовки, что у GET, без тела) " +
		"и на OPTIONS (CORS preflight). На любой другой метод любой адрес под " + p + " отвечает " +
		b.errorLine(ee.MethodNotAllowed) + " с заголовком Allow. Этот ответ описан здесь один раз, а не у каждого пути: " +
		"API доступен только для чтения, и операции, способные лишь вернуть ошибку, дали бы сгенерированным " +
		"клиентам бесполезные функции. HEAD описан отдельной операцией только у этого документа: " +
		"по его ETag удобно проверять, не пора ли заново сгенерировать клиент.\n" +
		"* **Завершающий слеш.** Один слеш в конце пути допускается на всех маршрутах: " + example + "/ — " +
		"то же, что " + example + ", с тем же ответом. Пути документа записаны без него; с двумя слешами " +
		"в конце адрес уже другой.\n" +
		"* **Числа в пути** — от 1 до 9 цифр, ведущие нули допустимы. Сегмент, который не подходит маршруту " +
		"(буквы, 0, лишние цифры, %31), — не ошибка запроса: маршрут отвечает своей ошибкой, и она описана у операции.\n" +
		"* **Другие адреса.** Адрес под " + p + ", который не подходит ни под один маршрут, получает ошибку " +
		"ближайшего маршрута: того, чья часть до первого параметра — самая длинная из содержащих адрес, " +
		"а при равенстве — того, чьё число сегментов ближе к числу сегментов адреса. Ошибки маршрутов: " +
		b.routeErrors() + ". Если у ближайшего маршрута своей ошибки нет или адрес не под маршрутом — " +
		b.errorLine(ee.NotFound) + ".\n" +
		fmt.Sprintf("* **Лимит.** %d запросов за %d секунд с одного IP (IPv6 — по сети /%d) %s; "+
			"считаются все методы, кроме OPTIONS; сверх лимита — %s с заголовком Retry-After.\n",
			rl.Requests, rl.WindowSeconds, rl.IPv6Prefix, b.in.LimitedRoutes, b.errorLine(ee.TooManyRequests)) +
		"* **Лицензия.** Данные — по лицензии Creative Commons «" + b.in.Site.LicenseName + "» (CC BY 4.0): " +
		"указывайте источник (поля attribution, attribution_html, suggested_citation).\n" +
		"* **Неразрывные пробелы.** Русские тексты записей набраны по правилам типографики, как страницы сайта: " +
		"после коротких предлогов, союзов и частиц (в, и, на, не…), перед тире, перед «же», «ли», «бы» и между числом " +
		"и следующим словом стоит неразрывный пробел U+00A0, а не обычный. Приложению ничего не нужно делать: строки " +
		"не рвутся там, где русский набор этого не допускает. Если нужен простой текст (поиск, разбиение на слова), " +
		"замените U+00A0 обычным пробелом. Других невидимых символов в текстах нет.\n\n" +
		b.in.Site.Disclaimer
}

// errorLine names an error for the description: "404 Not found (components/responses/NotFound)".
func (b *Builder) errorLine(key string) string {
	return strconv.Itoa(b.cfg.Errors[key].Status) + " " + b.errorSpec(key).Text + " (components/responses/" + b.errorResponse(key) + ")"
}

// routeErrors lists the routes that have an error of their own, with it:
// "/api/public/matrix/{day}/{month}/{year} — 400 Invalid date (…)".
func (b *Builder) routeErrors() string {
	var parts []string
	for _, r := range b.cfg.Routes {
		if r.Error != "" {
			parts = append(parts, r.Pattern+" — "+b.errorLine(r.Error))
		}
	}
	return strings.Join(parts, "; ")
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
