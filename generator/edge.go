package generator

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/contract"
)

// Header values of docs/design.md §4. Every Cache-Control says no-transform and every answer
// Content-Encoding: identity, so that no layer between an edge and its client compresses
// an answer under its identity ETag (§4, "Identity only").
const (
	CacheOK         = "public, max-age=86400, stale-while-revalidate=86400, no-transform"
	CacheError      = "public, max-age=3600, no-transform"
	CacheNoStore    = "no-store, no-transform"
	AllowMethods    = "GET, HEAD, OPTIONS"
	ContentType     = "application/json; charset=utf-8"
	ContentEncoding = "identity"
	LicenseHeader   = "CC-BY-4.0"
)

// Headers returns the header sets of §4.
func Headers() manifest.Headers {
	return manifest.Headers{
		Common: map[string]string{
			"Content-Type":                  ContentType,
			"Content-Encoding":              ContentEncoding,
			"Access-Control-Allow-Origin":   "*",
			"Access-Control-Expose-Headers": "ETag, Retry-After, X-API-License",
			"X-API-License":                 LicenseHeader,
			"X-Content-Type-Options":        "nosniff",
		},
		ByStatus: map[string]map[string]string{
			"200": {"Cache-Control": CacheOK},
			"400": {"Cache-Control": CacheError},
			"404": {"Cache-Control": CacheError},
			"405": {"Cache-Control": CacheNoStore, "Allow": AllowMethods},
			"429": {"Cache-Control": CacheNoStore},
			"500": {"Cache-Control": CacheNoStore},
		},
		// A 304 carries the 200's validator and caching headers but no representation
		// metadata (RFC 9110 §15.4.5): no Content-Type. Its Content-Encoding guides the
		// update of a cached 200, which a layer adding "gzip" to it (wrangler dev's does to
		// every answer without one) would mislabel.
		NotModified: map[string]string{
			"Cache-Control":                 CacheOK,
			"Content-Encoding":              ContentEncoding,
			"Access-Control-Allow-Origin":   "*",
			"Access-Control-Expose-Headers": "ETag, Retry-After, X-API-License",
			"X-API-License":                 LicenseHeader,
			"X-Content-Type-Options":        "nosniff",
		},
		// The preflight has no body, so no Content-Type; it keeps the licence and nosniff,
		// and says identity like every other answer.
		Preflight: map[string]string{
			"Content-Encoding":             ContentEncoding,
			"Access-Control-Allow-Origin":  "*",
			"Access-Control-Allow-Methods": "GET, OPTIONS",
			"Access-Control-Allow-Headers": "*",
			"Access-Control-Max-Age":       "86400",
			"X-API-License":                LicenseHeader,
			"X-Content-Type-Options":       "nosniff",
		},
	}
}

// ErrorBody is the JSON body of an error answer (§5).
type ErrorBody struct {
	Error        string `json:"error"`
	Status       int    `json:"status"`
	Message      string `json:"message"`
	ValidNumbers []int  `json:"valid_numbers,omitempty"`
}

// errorSpec is one error of the API: its key, file and body, and how the OpenAPI document
// and the home page describe it. The table of them (errorSpecs) is the one list of errors:
// the edge config, the error files, the document and the pages iterate it.
type errorSpec struct {
	key  string
	file string
	body ErrorBody
	// response names the error in the OpenAPI document's components/responses, and
	// description describes it there.
	response, description string
	// when says on the home page when the error is answered.
	when string
}

// edgeErrors names the errors the edges answer themselves (manifest.EdgeErrors).
var edgeErrors = manifest.EdgeErrors{
	NotFound:         manifest.ErrNotFound,
	MethodNotAllowed: manifest.ErrMethodNotAllowed,
	TooManyRequests:  manifest.ErrTooManyRequests,
	Internal:         manifest.ErrInternal,
}

func (s *Site) errorSpecs() []errorSpec {
	dir := manifest.ErrorsDir + "/"
	return []errorSpec{
		{manifest.ErrInvalidDate, dir + "invalid-date.json", ErrorBody{
			Error: "Invalid date", Status: 400,
			Message: fmt.Sprintf("Дата не распознана. Укажите существующую дату с 01.01.%d по 31.12.%d тремя числами: {день}/{месяц}/{год}, например %s или %s.",
				rules.FirstYear, rules.LastYear, s.SiteURL+RoutePath(RouteMatrix, 15, 5, 1990), s.SiteURL+RoutePath(RouteLifePathDate, 15, 5, 1990)),
		}, "InvalidDate", fmt.Sprintf("Несуществующая дата, год вне %d–%d или неверный формат адреса", rules.FirstYear, rules.LastYear),
			fmt.Sprintf("такой даты нет в календаре, год вне диапазона %d–%d или адрес с датой в неверном формате", rules.FirstYear, rules.LastYear)},
		{manifest.ErrNumberNotFound, dir + "number-not-found.json", ErrorBody{
			Error: "Number not found", Status: 404,
			Message:      "Такого числа жизненного пути нет. Есть числа от 1 до 9 и мастер-числа 11, 22 и 33; полный список — " + s.SiteURL + RoutePath(RouteLifePathList) + ".",
			ValidNumbers: rules.LifePathNumbers,
		}, "NumberNotFound", "Такого числа жизненного пути нет",
			"такого числа жизненного пути нет; в ответе есть список valid_numbers"},
		{manifest.ErrArcanaNotFound, dir + "arcana-not-found.json", ErrorBody{
			Error: "Arcana not found", Status: 404,
			Message:      "Такого старшего аркана нет. Старшие арканы пронумерованы от 1 до 22; их список — " + s.SiteURL + RoutePath(RouteArcanaList) + ".",
			ValidNumbers: rules.ArcanaNumbers,
		}, "ArcanaNotFound", "Такого старшего аркана нет",
			"такого старшего аркана нет; в ответе есть список valid_numbers"},
		{manifest.ErrNotFound, dir + "not-found.json", ErrorBody{
			Error: "Not found", Status: 404,
			Message: "Такого адреса в API нет. Список маршрутов — " + s.APIBase + ", описание OpenAPI — " + s.SiteURL + RoutePath(RouteOpenAPI) + ".",
		}, "NotFound", "Такого адреса в API нет",
			"такого адреса в API нет: путь начинается с " + manifest.APIPrefix + ", но не ведёт ни к одному маршруту"},
		{manifest.ErrMethodNotAllowed, dir + "method-not-allowed.json", ErrorBody{
			Error: "Method not allowed", Status: 405,
			Message: "Этот метод не поддерживается: API доступен только для чтения. Используйте GET, HEAD или OPTIONS.",
		}, "MethodNotAllowed", "Любой метод, кроме GET, HEAD и OPTIONS", "любой метод, кроме GET, HEAD и OPTIONS"},
		{manifest.ErrTooManyRequests, dir + "too-many-requests.json", ErrorBody{
			Error: "Too many requests", Status: 429,
			Message: fmt.Sprintf("Слишком много запросов: не больше %d запросов за %d секунд с одного IP-адреса %s. Повторите запрос через столько секунд, сколько указано в заголовке Retry-After, или скачайте весь набор данных.",
				contract.RateLimitRequests, contract.RateLimitWindowSeconds, s.limitedRoutesRu()),
		}, "TooManyRequests", "Превышен лимит запросов " + s.limitedRoutesRu(),
			"превышен лимит запросов " + s.limitedRoutesRu() + "; подождите Retry-After секунд"},
		{manifest.ErrInternal, dir + "internal-error.json", ErrorBody{
			Error: "Internal error", Status: 500,
			Message: "Внутренняя ошибка сервера: ответ временно недоступен. Если ошибка повторяется, напишите нам на " + s.Content.Site.SupportEmail + " и укажите адрес запроса.",
		}, "InternalError", "Файл ответа недоступен",
			"файл ответа недоступен на сервере: повторите запрос позже, а если ошибка не проходит, напишите нам"},
	}
}

// limitedRoutes are the patterns of the rate-limited routes, which share one budget.
func (s *Site) limitedRoutes() []string {
	var out []string
	for _, r := range s.routes() {
		if r.RateLimited {
			out = append(out, r.Pattern)
		}
	}
	return out
}

// limitedRoutesRu names the rate-limited routes for a Russian sentence: "к маршруту …", or
// "к маршрутам …, … и … вместе" (one budget for all).
func (s *Site) limitedRoutesRu() string {
	l := s.limitedRoutes()
	if len(l) == 1 {
		return "к маршруту " + l[0]
	}
	return "к маршрутам " + strings.Join(l[:len(l)-1], ", ") + " и " + l[len(l)-1] + " вместе"
}

// EdgeConfig builds the edge configuration and the error bodies it holds.
func (s *Site) EdgeConfig() (manifest.EdgeConfig, error) {
	cfg := manifest.EdgeConfig{
		APIVersion: manifest.APIVersion,
		Prefix:     manifest.APIPrefix,
		Routes:     s.routes(),
		RateLimit: manifest.RateLimit{
			Requests:      contract.RateLimitRequests,
			WindowSeconds: contract.RateLimitWindowSeconds,
			IPv6Prefix:    contract.RateLimitIPv6Prefix,
		},
		Headers:    Headers(),
		Errors:     map[string]manifest.ErrorResponse{},
		EdgeErrors: edgeErrors,
	}
	for _, e := range s.errorSpecs() {
		b, err := Encode(e.body)
		if err != nil {
			return cfg, fmt.Errorf("encode %s: %w", e.file, err)
		}
		cfg.Errors[e.key] = manifest.ErrorResponse{Status: e.body.Status, File: e.file, Body: string(b)}
	}
	if err := checkRoutes(cfg.Routes, s.renderers(), cfg.Errors); err != nil {
		return cfg, fmt.Errorf("route table: %w", err)
	}
	if err := cfg.Check(); err != nil {
		return cfg, fmt.Errorf("edge config: %w", err)
	}
	return cfg, nil
}

// HeadersFile renders _headers, the Cloudflare/Netlify header rules: what a plain static
// host can attach to the 200 answers (the edges do the rest).
func HeadersFile(h manifest.Headers) []byte {
	var b strings.Builder
	b.WriteString("# Generated by numerology generate. Header rules for static hosts (Cloudflare, Netlify).\n")
	b.WriteString("# The API's errors, 304s and rate limit need an edge: numerology serve or the worker in edge/.\n")
	rule := func(path string, sets ...map[string]string) {
		merged := map[string]string{}
		for _, s := range sets {
			maps.Copy(merged, s)
		}
		// A static host that compresses anyway would send its coding labelled identity.
		delete(merged, "Content-Encoding")
		b.WriteString(path + "\n")
		for _, k := range slices.Sorted(maps.Keys(merged)) {
			b.WriteString("  " + k + ": " + merged[k] + "\n")
		}
	}
	rule(manifest.APIPrefix+"/*", h.Common, h.ByStatus["200"])
	rule("/"+manifest.FileName, map[string]string{"Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=300"})
	rule("/"+manifest.DownloadsDir+"/*", map[string]string{"Access-Control-Allow-Origin": "*", "X-API-License": LicenseHeader})
	return []byte(b.String())
}
