package generator

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/openapi"
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
	var out []manifest.Route
	for _, u := range routeUnits() {
		out = append(out, u.row)
	}
	return out
}

// route returns the row of the named route, from the table built once (routeRows):
// renderers call it for every record they build.
func route(name string) manifest.Route {
	if r, ok := routeRows()[name]; ok {
		return r
	}
	panic("generator bug: no route " + name)
}

// routeRows returns the route table by name, built on first use. The table is fixed for a
// binary (routeUnits has no input), and route's callers only read the rows; before, each
// call built the whole table again, and that was 72% of the CPU of building the life path
// record of every date.
func routeRows() map[string]manifest.Route {
	routeTable.once.Do(func() {
		routeTable.rows = map[string]manifest.Route{}
		for _, r := range Routes() {
			routeTable.rows[r.Name] = r
		}
	})
	return routeTable.rows
}

// routeTable holds what routeRows builds.
var routeTable struct {
	once sync.Once
	rows map[string]manifest.Route
}

// RoutePath is the path of the named route with its parameters filled in, in order
// (the life path 7 → its record's API path); renderers build API URLs with it.
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
func checkRoutes(routes []manifest.Route, rs map[string]renderer, errs map[string]manifest.ErrorResponse) error {
	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
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
			if dated(p) {
				dates++
			}
		}
		switch {
		case dates > 0 && (dates != 1 || len(r.Params) != 1 || r.Packed == nil):
			bad("route %s: a date route has one date parameter and packed files", r.Name)
		case dates == 0 && r.Packed != nil:
			bad("route %s: only date routes are packed", r.Name)
		case r.Packed != nil && rd.maxBytes <= 0:
			bad("route %s: a date route bounds its records (renderer.maxBytes), which the route budget counts on", r.Name)
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

// renderer is the generator's half of a route (docs/design.md §3, "How to add a route"):
// what its files hold, the schema the OpenAPI document gives them, the human pages behind
// their source_url and the dataset's tables. The tree writer, verify, the OpenAPI document,
// the pages, the sitemap and the dataset iterate the route table and ask each row's
// renderer; checkRoutes holds the two in step.
type renderer struct {
	// body is a value of the Go type of the route's 200 body: its OpenAPI schema is derived
	// from that type, unless schema builds it.
	body any
	// schema, when set, builds the body's schema (one that no Go type gives, or a list with
	// its length) and names it.
	schema func(s *Site, b *openapi.Builder) (name string, schema obj)
	// fields adds constraints and descriptions to the schemas derived from Go types, by
	// "Type.json_name" (see fieldExtras).
	fields func(s *Site) map[string]obj
	// encoder prepares, for a site, what renders the body of a canonical parameter value.
	encoder func(s *Site) (encodeFunc, error)
	// maxBytes bounds the body of one value of a date route: the encoder refuses a larger
	// one, naming the date, and the route budget (checkBudget) counts on it.
	maxBytes int
	// goldens are values whose bodies testdata/golden pins besides the row's example
	// (TestGolden): the cases a reader of the goldens should see.
	goldens [][]int
	// tag, on the first route of each family, is the description of the OpenAPI tag its
	// rows name (manifest.Route.Tag); the document lists the tags in table order.
	tag string
	// noExample leaves the schema without an example body (the OpenAPI document itself).
	noExample bool
	// head makes the route's HEAD an operation of the OpenAPI document (openapi.Route.Head).
	head bool
	// pages are the route's human pages: every source_url of its records is one of them.
	pages func(p *pageRenderer) []page
	// tables, when set, are the dataset's tables the route's files fill (docs/design.md §11):
	// a row per date for a date route, the texts as tables of their own.
	tables func() []Table
}

// encodeFunc appends the body of a canonical parameter value to dst.
type encodeFunc func(dst []byte, vals []int) ([]byte, error)

// renderers maps each route of Routes to its renderer.
func renderers() map[string]renderer {
	rs := map[string]renderer{}
	for _, u := range routeUnits() {
		rs[u.row.Name] = u.renderer
	}
	return rs
}

// routes is the site's route table: Routes, unless a test added routes of its own.
func (s *Site) routes() []manifest.Route {
	out := make([]manifest.Route, len(s.units))
	for i, u := range s.units {
		out[i] = u.row
	}
	return out
}

// renderers maps each route of the site's table to its renderer.
func (s *Site) renderers() map[string]renderer {
	rs := make(map[string]renderer, len(s.units))
	for _, u := range s.units {
		rs[u.row.Name] = u.renderer
	}
	return rs
}

// routeUnit is one route: its row of the table (docs/design.md §3) and the generator's half of it.
type routeUnit struct {
	row manifest.Route
	renderer
}

// routeUnits returns every route of the table with its renderer, in table order: the route
// families, in order. Each family lives in one file, family_*.go: its rows and renderers, its
// record types and encoders, its pages and its dataset tables. Adding a family is its file
// and a line here (docs/design.md §13).
func routeUnits() []routeUnit {
	units := slices.Concat(
		metaFamily(),
		lifePathFamily(),
		matrixFamily(),
		arcanaFamily(),
		compatibilityFamily(),
		squareFamily(),
		chartFamily(),
		personalYearFamily(),
	)
	return append(units, syntheticFamily(units)...) // none but in the ten-route benchmark
}

// dated reports whether a parameter type is a date's: a date or a birthday in a year, three
// parameters, day, month and year, whose routes keep packed month files.
func dated(p manifest.ParamType) bool {
	return p.Type == manifest.ParamDate || p.Type == manifest.ParamBirthdayYear
}

// dateParams is the parameter type of a date route: a real Gregorian date of the range.
func dateParams() []manifest.ParamType {
	return []manifest.ParamType{{Type: manifest.ParamDate, FirstYear: rules.FirstYear, LastYear: rules.LastYear}}
}

// yearsLabel is the range of years, "1900–2100", for the routes' English descriptions.
func yearsLabel() string { return fmt.Sprintf("%d–%d", rules.FirstYear, rules.LastYear) }

// encodeOnce is the encoder of a route whose one body is v.
func encodeOnce(v any) (encodeFunc, error) {
	b, err := Encode(v)
	if err != nil {
		return nil, err
	}
	return func(dst []byte, _ []int) ([]byte, error) { return append(dst, b...), nil }, nil
}

// encodeEach is the encoder of a route whose body of each value is body(value), encoded.
func encodeEach(body func(vals []int) (any, error)) encodeFunc {
	return func(dst []byte, vals []int) ([]byte, error) {
		v, err := body(vals)
		if err != nil {
			return nil, err
		}
		b, err := Encode(v)
		if err != nil {
			return nil, err
		}
		return append(dst, b...), nil
	}
}

// encoders prepares the encoder of every route of the table for a site.
func (s *Site) encoders() (map[string]encodeFunc, error) {
	rs := s.renderers()
	out := map[string]encodeFunc{}
	for _, r := range s.routes() {
		enc, err := rs[r.Name].encoder(s)
		if err != nil {
			return nil, fmt.Errorf("route %s: %w", r.Name, err)
		}
		if max := rs[r.Name].maxBytes; max > 0 {
			enc = boundedEncoder(enc, max)
		}
		out[r.Name] = enc
	}
	return out, nil
}

// boundedEncoder is enc refusing a body over max bytes (renderer.maxBytes).
func boundedEncoder(enc encodeFunc, max int) encodeFunc {
	return func(dst []byte, vals []int) ([]byte, error) {
		start := len(dst)
		out, err := enc(dst, vals)
		if err == nil && len(out)-start > max {
			err = fmt.Errorf("the body is %d bytes, over the route's %d (renderer.maxBytes)", len(out)-start, max)
		}
		return out, err
	}
}

// valuesLabel writes canonical parameter values as a path does ("15/5/1990").
func valuesLabel(vals []int) string {
	b := make([]byte, 0, 16)
	for i, v := range vals {
		if i > 0 {
			b = append(b, '/')
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return string(b)
}
