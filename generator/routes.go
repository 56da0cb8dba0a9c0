package generator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// Routes returns the route table of docs/design.md §3: the one place that names the API's
// routes, their path shapes, files, validators, errors, rate limit and descriptions. The
// generator emits it in edge.json and the manifest, and both edges match paths from that
// alone; the index, the OpenAPI document and the pages render their route lists from it.
// Adding a route is a row here plus its renderer (the file it answers with).
func Routes() []manifest.Route {
	p := manifest.APIPrefix
	years := fmt.Sprintf("%d–%d", rules.FirstYear, rules.LastYear)
	return []manifest.Route{{
		Name: manifest.RouteIndex, Pattern: p, File: manifest.IndexFile,
		Summary:     "Оглавление API",
		Description: "Оглавление API: маршруты, ссылка на OpenAPI, лицензия и набор данных",
		English:     "the API index: routes, OpenAPI URL, licence and dataset URLs as JSON",
		Example:     p,
		OperationID: "getIndex", Tag: "meta",
	}, {
		Name: manifest.RouteOpenAPI, Pattern: p + "/openapi.json", File: manifest.OpenAPIFile,
		Summary:     "Этот документ OpenAPI 3.1",
		Description: "Описание API в формате OpenAPI 3.1",
		English:     "the OpenAPI 3.1 document: every route, parameter, response schema, error body and header",
		Example:     p + "/openapi.json",
		OperationID: "getOpenAPI", Tag: "meta",
	}, {
		Name: manifest.RouteLifePathList, Pattern: p + "/life-path", File: manifest.ListFile,
		Summary:     "Все 12 чисел жизненного пути, кратко",
		Description: "Все 12 чисел жизненного пути, кратко",
		English:     "the 12 life path numbers, briefly",
		Example:     p + "/life-path",
		OperationID: "listLifePaths", Tag: "life-path",
	}, {
		Name: manifest.RouteLifePath, Pattern: p + "/life-path/{number}", File: "api/public/life-path/{number}.json",
		Check: manifest.CheckLifePathNumber, Error: manifest.ErrNumberNotFound,
		Summary:     "Одно число жизненного пути целиком",
		Description: "Одно число жизненного пути целиком: 1–9, 11, 22, 33",
		English:     "one life path number in full (1–9, 11, 22, 33)",
		Example:     p + "/life-path/7",
		OperationID: "getLifePath", Tag: "life-path",
	}, {
		Name: manifest.RouteMatrix, Pattern: p + "/matrix/{day}/{month}/{year}", File: "api/public/matrix/{day}/{month}/{year}.json",
		Check: manifest.CheckDate, Error: manifest.ErrInvalidDate, RateLimited: true,
		Summary:     "Матрица судьбы для даты рождения",
		Description: fmt.Sprintf("Матрица судьбы для даты рождения с %d по %d год", rules.FirstYear, rules.LastYear),
		English:     "the destiny matrix of a birth date, " + years,
		Example:     p + "/matrix/15/5/1990",
		OperationID: "getMatrix", Tag: "matrix",
	}}
}

// RoutePath is the path of the named route with its parameters filled in, in order
// ("life-path", 7 → "/api/public/life-path/7"); renderers build API URLs with it.
func RoutePath(name string, params ...int) string {
	for _, r := range Routes() {
		if r.Name != name {
			continue
		}
		p := r.Pattern
		for i, param := range r.Params() {
			if i < len(params) {
				p = strings.Replace(p, "{"+param+"}", strconv.Itoa(params[i]), 1)
			}
		}
		return p
	}
	panic("generator bug: no route " + name)
}
