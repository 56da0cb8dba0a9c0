package generator

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// Routes returns the route table of docs/design.md §3: the one place that names the API's
// routes, their path shapes, the types of their parameters, where their bodies live, their
// errors, rate limit and descriptions. The generator emits it in edge.json and the
// manifest, and both edges route from that alone. Each row has one renderer (renderers):
// what its files hold and how the tree, the documents, the pages and the dataset show it.
// Adding a route is a row here, its renderer, and its content (docs/design.md, "How to add
// a route").
func Routes() []manifest.Route {
	p := manifest.APIPrefix
	years := fmt.Sprintf("%d–%d", rules.FirstYear, rules.LastYear)
	lifePathNumber := []manifest.ParamType{{Type: manifest.ParamNumber, Numbers: rules.LifePathNumbers}}
	date := []manifest.ParamType{{Type: manifest.ParamDate, FirstYear: rules.FirstYear, LastYear: rules.LastYear}}
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
		Params: lifePathNumber, Error: manifest.ErrNumberNotFound,
		Summary:     "Одно число жизненного пути целиком",
		Description: "Одно число жизненного пути целиком: 1–9, 11, 22, 33",
		English:     "one life path number in full (1–9, 11, 22, 33)",
		Example:     p + "/life-path/7",
		OperationID: "getLifePath", Tag: "life-path",
	}, {
		Name: manifest.RouteLifePathDate, Pattern: p + "/life-path/{day}/{month}/{year}", File: "api/public/life-path/{day}/{month}/{year}.json",
		Params: date, Packed: &manifest.Packed{File: "api/public/life-path-months/{year}/{month}.jsonl", Unit: manifest.UnitMonth},
		Error: manifest.ErrInvalidDate, RateLimited: true,
		Summary:     "Число жизненного пути для даты рождения",
		Description: fmt.Sprintf("Число жизненного пути для даты рождения с %d по %d год и его краткое описание", rules.FirstYear, rules.LastYear),
		English:     "the life path number of a birth date, " + years + ", with the number's brief description",
		Example:     p + "/life-path/15/5/1990",
		OperationID: "getLifePathOfDate", Tag: "life-path",
	}, {
		Name: manifest.RouteMatrix, Pattern: p + "/matrix/{day}/{month}/{year}", File: "api/public/matrix/{day}/{month}/{year}.json",
		Params: date, Packed: &manifest.Packed{File: manifest.MatrixMonthsPattern, Unit: manifest.UnitMonth},
		Error: manifest.ErrInvalidDate, RateLimited: true,
		Summary:     "Матрица судьбы для даты рождения",
		Description: fmt.Sprintf("Матрица судьбы для даты рождения с %d по %d год", rules.FirstYear, rules.LastYear),
		English:     "the destiny matrix of a birth date, " + years,
		Example:     p + "/matrix/15/5/1990",
		OperationID: "getMatrix", Tag: "matrix",
	}, {
		Name: manifest.RouteArcanaList, Pattern: p + "/arcana", File: "api/public/arcana.json",
		Summary:     "Все 22 старших аркана, кратко",
		Description: "22 старших аркана матрицы судьбы, кратко: номер, название, ключевое слово и эмодзи",
		English:     "the 22 major arcana of the destiny matrix, briefly",
		Example:     p + "/arcana",
		OperationID: "listArcana", Tag: "arcana",
	}, {
		Name: manifest.RouteArcana, Pattern: p + "/arcana/{number}", File: "api/public/arcana/{number}.json",
		Params: []manifest.ParamType{{Type: manifest.ParamNumber, Numbers: rules.ArcanaNumbers}}, Error: manifest.ErrArcanaNotFound,
		Summary:     "Один старший аркан целиком",
		Description: "Один старший аркан целиком, 1–22: название, ключевое слово, эмодзи и описание",
		English:     "one major arcanum in full (1–22): name, keyword, emoji and description",
		Example:     p + "/arcana/7",
		OperationID: "getArcanum", Tag: "arcana",
	}, {
		Name: manifest.RoutePositions, Pattern: p + "/positions", File: "api/public/positions.json",
		Summary:     "12 позиций матрицы судьбы",
		Description: "12 позиций матрицы судьбы: ключ в записи матрицы, название и описание",
		English:     "the 12 positions of the destiny matrix: the record's key, Russian title and description",
		Example:     p + "/positions",
		OperationID: "listPositions", Tag: "matrix",
	}, {
		Name: manifest.RouteCompatibility, Pattern: p + "/compatibility/{a}/{b}", File: "api/public/compatibility/{a}/{b}.json",
		Params: []manifest.ParamType{{Type: manifest.ParamPair, Numbers: rules.LifePathNumbers}}, Error: manifest.ErrNumberNotFound,
		Summary:     "Совместимость двух чисел жизненного пути",
		Description: "Совместимость двух чисел жизненного пути (1–9, 11, 22, 33, в любом порядке): уровень словом, суть, сильные стороны, трудности и совет",
		English:     "the compatibility of two life path numbers (1–9, 11, 22, 33, in either order): a level as a word, a summary, strengths, challenges and advice",
		Example:     p + "/compatibility/3/11",
		OperationID: "getCompatibility", Tag: "compatibility",
	}, {
		Name: manifest.RouteSquareMeanings, Pattern: p + "/square/meanings", File: "api/public/square/meanings.json",
		Summary:     "Тексты квадрата Пифагора",
		Description: "Тексты квадрата Пифагора: что означает каждая клетка и каждая линия, чтения по числу цифр и по силе линии",
		English:     "the Pythagoras square's texts: each cell and line described, a reading per count and per line band",
		Example:     p + "/square/meanings",
		OperationID: "getSquareMeanings", Tag: "square",
	}, {
		Name: manifest.RouteSquare, Pattern: p + "/square/{day}/{month}/{year}", File: "api/public/square/{day}/{month}/{year}.json",
		Params: date, Packed: &manifest.Packed{File: "api/public/square-months/{year}/{month}.jsonl", Unit: manifest.UnitMonth},
		Error: manifest.ErrInvalidDate, RateLimited: true,
		Summary:     "Квадрат Пифагора для даты рождения",
		Description: fmt.Sprintf("Квадрат Пифагора (психоматрица) для даты рождения с %d по %d год: рабочие числа, девять клеток с краткими чтениями и суммы восьми линий", rules.FirstYear, rules.LastYear),
		English:     "the Pythagoras square (psychomatrix) of a birth date, " + years + ": working numbers, nine cells with short readings, the sums of the eight lines",
		Example:     p + "/square/15/5/1990",
		OperationID: "getSquare", Tag: "square",
	}}
}

// route returns the row of the named route.
func route(name string) manifest.Route {
	for _, r := range Routes() {
		if r.Name == name {
			return r
		}
	}
	panic("generator bug: no route " + name)
}

// RoutePath is the path of the named route with its parameters filled in, in order
// ("life-path", 7 → "/api/public/life-path/7"); renderers build API URLs with it.
func RoutePath(name string, params ...int) string {
	r := route(name)
	p := r.Pattern
	for i, param := range r.ParamNames() {
		if i < len(params) {
			p = strings.Replace(p, "{"+param+"}", strconv.Itoa(params[i]), 1)
		}
	}
	return p
}

// exampleValues are the canonical parameter values of a row's Example.
func exampleValues(r manifest.Route) ([]int, error) {
	segs := strings.Split(strings.TrimPrefix(r.Example, r.Scope()), "/")
	pat := strings.Split(strings.TrimPrefix(r.Pattern, r.Scope()), "/")
	if !strings.HasPrefix(r.Example, r.Scope()) || len(segs) != len(pat) {
		return nil, fmt.Errorf("example %q does not have the pattern's shape", r.Example)
	}
	var vals []int
	for i, s := range pat {
		if !strings.HasPrefix(s, "{") {
			if segs[i] != s {
				return nil, fmt.Errorf("example %q does not have the pattern's shape", r.Example)
			}
			continue
		}
		n, err := strconv.Atoi(segs[i])
		if err != nil {
			return nil, fmt.Errorf("example %q: %q is not a number", r.Example, segs[i])
		}
		vals = append(vals, n)
	}
	if !r.Admit(vals) {
		return nil, fmt.Errorf("example %q: the route's parameter types do not admit %v", r.Example, vals)
	}
	return vals, nil
}

// checkRoutes checks the route table against the renderers and the edge's rules, all at
// once: every row has one renderer and every renderer a row, every row is one an edge
// accepts, its example is one of its values, and a date route keeps packed files (by month
// or by year, as manifest.Route.Check requires) that the tree writer can fill.
// Generate, Verify and OpenAPI call it before they start.
func checkRoutes(routes []manifest.Route, errs map[string]manifest.ErrorResponse) error {
	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	rs := renderers()
	for _, r := range routes {
		rd, ok := rs[r.Name]
		if !ok {
			bad("route %s has no renderer", r.Name)
			continue
		}
		if rd.encoder == nil || rd.body == nil {
			bad("route %s: its renderer has no encoder or no body type", r.Name)
		}
		if _, err := exampleValues(r); err != nil {
			bad("route %s: %w", r.Name, err)
		}
		if r.Error != "" {
			if _, ok := errs[r.Error]; !ok {
				bad("route %s: error %q has no body", r.Name, r.Error)
			}
		}
		dates := 0
		for _, p := range r.Params {
			if p.Type == manifest.ParamDate {
				dates++
			}
		}
		switch {
		case dates > 0 && (dates != 1 || len(r.Params) != 1 || r.Packed == nil):
			bad("route %s: a date route has one date parameter and packed month files", r.Name)
		case dates == 0 && r.Packed != nil:
			bad("route %s: only date routes are packed", r.Name)
		}
	}
	for name := range rs {
		if !slices.ContainsFunc(routes, func(r manifest.Route) bool { return r.Name == name }) {
			bad("renderer %s has no route", name)
		}
	}
	for _, r := range routes {
		if err := r.Check(manifest.APIPrefix); err != nil {
			bad("route %s: %w", r.Name, err)
		}
	}
	slices.SortFunc(problems, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(problems...)
}
