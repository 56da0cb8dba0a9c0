package server

import (
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
)

// routeKind is what a raw API path resolves to.
type routeKind uint8

const (
	routeFile        routeKind = iota // a 200 body: Route.file
	routeInvalidDate                  // 400
	routeNumberNotFound
	routeNotFound
)

// route is the result of matching a raw path under the API prefix (DESIGN.md §3).
type route struct {
	kind routeKind
	name string // manifest.Route* for routeFile
	file string // the tree path of the body for routeFile, except matrix records
	// day, month and year are the canonical date of a matrix record.
	day, month, year int
}

// treeFile is the tree path of the route's body.
func (rt route) treeFile() string {
	if rt.name == manifest.RouteMatrix {
		return manifest.MatrixFile(rt.day, rt.month, rt.year)
	}
	return rt.file
}

// router matches raw, still percent-encoded paths.
type router struct {
	prefix        string
	validNumber   map[int]bool
	first, last   int
	fileOf        map[string]string // route name → file, for the fixed routes
	rateLimitPath string
}

func newRouter(cfg *manifest.EdgeConfig) *router {
	r := &router{
		prefix:        cfg.Prefix,
		validNumber:   map[int]bool{},
		first:         cfg.FirstYear,
		last:          cfg.LastYear,
		fileOf:        map[string]string{},
		rateLimitPath: cfg.RateLimit.PathPrefix,
	}
	for _, n := range cfg.ValidNumbers {
		r.validNumber[n] = true
	}
	for _, rt := range cfg.Routes {
		r.fileOf[rt.Name] = rt.File
	}
	return r
}

// isAPI reports whether the raw path is the API prefix or under it.
func (r *router) isAPI(p string) bool { return underPrefix(p, r.prefix) }

// isRateLimited reports whether the raw path is the rate-limited matrix route or under it.
func (r *router) isRateLimited(p string) bool {
	return r.rateLimitPath != "" && underPrefix(p, r.rateLimitPath)
}

// underPrefix reports whether p is prefix itself or prefix + "/…".
func underPrefix(p, prefix string) bool {
	return strings.HasPrefix(p, prefix) && (len(p) == len(prefix) || p[len(prefix)] == '/')
}

// match resolves a raw path under the API prefix.
func (r *router) match(p string) route {
	rest := p[len(r.prefix):]
	if strings.HasSuffix(rest, "/") { // one trailing slash is tolerated
		rest = rest[:len(rest)-1]
	}
	switch {
	case rest == "":
		return r.fixed(manifest.RouteIndex)
	case rest == "/openapi.json":
		return r.fixed(manifest.RouteOpenAPI)
	case rest == "/life-path":
		return r.fixed(manifest.RouteLifePathList)
	case strings.HasPrefix(rest, "/life-path/"):
		n, ok := numeric(rest[len("/life-path/"):])
		if !ok || !r.validNumber[n] {
			return route{kind: routeNumberNotFound}
		}
		return route{kind: routeFile, name: manifest.RouteLifePath, file: manifest.LifePathFile(n)}
	case rest == "/matrix" || strings.HasPrefix(rest, "/matrix/"):
		return r.matrix(rest[len("/matrix"):])
	default:
		return route{kind: routeNotFound}
	}
}

func (r *router) fixed(name string) route {
	return route{kind: routeFile, name: name, file: r.fileOf[name]}
}

// matrix matches "/{d}/{m}/{y}".
func (r *router) matrix(rest string) route {
	bad := route{kind: routeInvalidDate}
	if rest == "" {
		return bad
	}
	rest = rest[1:]
	ds, rest, ok1 := strings.Cut(rest, "/")
	ms, ys, ok2 := strings.Cut(rest, "/")
	if !ok1 || !ok2 {
		return bad
	}
	d, ok1 := numeric(ds)
	m, ok2 := numeric(ms)
	y, ok3 := numeric(ys)
	if !ok1 || !ok2 || !ok3 || y < r.first || y > r.last || m < 1 || m > 12 || d < 1 || d > daysIn(m, y) {
		return bad
	}
	return route{kind: routeFile, name: manifest.RouteMatrix, day: d, month: m, year: y}
}

// numeric parses a numeric segment: 1–9 ASCII digits, leading zeros allowed.
func numeric(s string) (int, bool) {
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// daysIn is the number of days of a month in the Gregorian calendar.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	default:
		return 31
	}
}
