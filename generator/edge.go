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

// Header values of docs/design.md §4.
const (
	CacheOK       = "public, max-age=86400, stale-while-revalidate=86400"
	CacheError    = "public, max-age=3600"
	CacheNoStore  = "no-store"
	AllowMethods  = "GET, HEAD, OPTIONS"
	ContentType   = "application/json; charset=utf-8"
	LicenseHeader = "CC-BY-4.0"
)

// Headers returns the header sets of §4.
func Headers() manifest.Headers {
	return manifest.Headers{
		Common: map[string]string{
			"Content-Type":                  ContentType,
			"Access-Control-Allow-Origin":   "*",
			"Access-Control-Expose-Headers": "ETag, Retry-After, X-API-License",
			"X-API-License":                 LicenseHeader,
			"X-Content-Type-Options":        "nosniff",
		},
		ByStatus: map[string]map[string]string{
			"200": {"Cache-Control": CacheOK},
			"304": {"Cache-Control": CacheOK},
			"400": {"Cache-Control": CacheError},
			"404": {"Cache-Control": CacheError},
			"405": {"Cache-Control": CacheNoStore, "Allow": AllowMethods},
			"429": {"Cache-Control": CacheNoStore},
			"500": {"Cache-Control": CacheNoStore},
		},
		// The preflight has no body, so no Content-Type; it keeps the licence and nosniff.
		Preflight: map[string]string{
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

// errorSpec is one prebuilt error: its key, file and body.
type errorSpec struct {
	key  string
	file string
	body ErrorBody
}

func (s *Site) errorSpecs() []errorSpec {
	dir := manifest.ErrorsDir + "/"
	return []errorSpec{
		{manifest.ErrInvalidDate, dir + "invalid-date.json", ErrorBody{
			Error: "Invalid date", Status: 400,
			Message: fmt.Sprintf("Дата не распознана. Укажите существующую дату с 01.01.%d по 31.12.%d в виде /matrix/{день}/{месяц}/{год}, например %s/matrix/15/5/1990.",
				rules.FirstYear, rules.LastYear, s.APIBase),
		}},
		{manifest.ErrNumberNotFound, dir + "number-not-found.json", ErrorBody{
			Error: "Number not found", Status: 404,
			Message:      "Такого числа жизненного пути нет. Есть числа от 1 до 9 и мастер-числа 11, 22 и 33; полный список — " + s.APIBase + "/life-path.",
			ValidNumbers: rules.LifePathNumbers,
		}},
		{manifest.ErrNotFound, dir + "not-found.json", ErrorBody{
			Error: "Not found", Status: 404,
			Message: "Такого адреса в API нет. Список маршрутов — " + s.APIBase + ", описание OpenAPI — " + s.APIBase + "/openapi.json.",
		}},
		{manifest.ErrMethodNotAllowed, dir + "method-not-allowed.json", ErrorBody{
			Error: "Method not allowed", Status: 405,
			Message: "Этот метод не поддерживается: API только читает данные. Используйте GET, HEAD или OPTIONS.",
		}},
		{manifest.ErrTooManyRequests, dir + "too-many-requests.json", ErrorBody{
			Error: "Too many requests", Status: 429,
			Message: fmt.Sprintf("Слишком много запросов: не больше %d запросов к матрице за %d секунд с одного адреса. Повторите запрос через столько секунд, сколько указано в заголовке Retry-After, или скачайте весь набор данных.",
				contract.RateLimitRequests, contract.RateLimitWindowSeconds),
		}},
		{manifest.ErrInternal, dir + "internal-error.json", ErrorBody{
			Error: "Internal error", Status: 500,
			Message: "Внутренняя ошибка сервера: ответ временно недоступен. Если ошибка повторяется, напишите нам на " + s.Content.Site.SupportEmail + " и укажите адрес запроса.",
		}},
	}
}

// EdgeConfig builds the edge configuration and the error bodies it holds.
func (s *Site) EdgeConfig() (manifest.EdgeConfig, error) {
	cfg := manifest.EdgeConfig{
		APIVersion:   manifest.APIVersion,
		Prefix:       manifest.APIPrefix,
		FirstYear:    rules.FirstYear,
		LastYear:     rules.LastYear,
		ValidNumbers: rules.LifePathNumbers,
		Routes:       Routes(),
		RateLimit: manifest.RateLimit{
			Requests:      contract.RateLimitRequests,
			WindowSeconds: contract.RateLimitWindowSeconds,
			IPv6Prefix:    contract.RateLimitIPv6Prefix,
		},
		Headers:      Headers(),
		Errors:       map[string]manifest.ErrorResponse{},
		MatrixMonths: manifest.MatrixMonthsPattern,
	}
	for _, e := range s.errorSpecs() {
		b, err := Encode(e.body)
		if err != nil {
			return cfg, fmt.Errorf("encode %s: %w", e.file, err)
		}
		cfg.Errors[e.key] = manifest.ErrorResponse{Status: e.body.Status, File: e.file, Body: string(b)}
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
