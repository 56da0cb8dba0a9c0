package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
)

// routeKind is what a raw API path resolves to.
type routeKind uint8

const (
	routeFile  routeKind = iota // a 200 body: route.key
	routeError                  // a prebuilt error: route.err
)

// maxParams bounds the parameters of one route pattern; a fileKey holds them inline.
const maxParams = 3

// fileKey names the body of a route without building its path: the route's index in the
// table and its canonical parameters.
type fileKey struct {
	route  int32
	params [maxParams]int32
}

// route is the result of matching a raw path under the API prefix (docs/design.md §3).
type route struct {
	kind routeKind
	err  string // the error key, for routeError
	key  fileKey
}

// checkFunc validates a route's numeric parameters, in pattern order (an array, not a
// slice: a slice passed to a func value escapes, and this runs once per request).
type checkFunc func(params [maxParams]int) bool

// segment is one segment of a pattern after the prefix: a literal, or a parameter.
type segment struct {
	lit   string
	param bool
}

// filePart is one piece of a route's file pattern: a literal, or the index of a parameter.
type filePart struct {
	lit   string
	param int // -1 for a literal
}

// compiledRoute is one row of the route table, prepared for matching.
type compiledRoute struct {
	name    string
	segs    []segment
	nParams int
	check   checkFunc
	file    []filePart
	scope   string // Route.Scope
	err     string // Route.Error
	limited bool
}

// router matches raw, still percent-encoded paths against the route table of edge.json:
// literal segments, numeric parameters and a named validator per route.
type router struct {
	prefix  string
	routes  []compiledRoute
	limited []string // the scopes of the rate-limited routes
}

func newRouter(cfg *manifest.EdgeConfig) (*router, error) {
	valid := map[int]bool{}
	for _, n := range cfg.ValidNumbers {
		valid[n] = true
	}
	checks := map[string]checkFunc{
		manifest.CheckLifePathNumber: func(p [maxParams]int) bool { return valid[p[0]] },
		manifest.CheckDate: func(p [maxParams]int) bool {
			return validDate(p[0], p[1], p[2], cfg.FirstYear, cfg.LastYear)
		},
	}
	r := &router{prefix: cfg.Prefix}
	for _, row := range cfg.Routes {
		c, err := compileRoute(cfg.Prefix, row, checks)
		if err != nil {
			return nil, fmt.Errorf("route %s: %w", row.Name, err)
		}
		if _, ok := cfg.Errors[c.err]; c.err != "" && !ok {
			return nil, fmt.Errorf("route %s: no %s error in the edge config", row.Name, c.err)
		}
		r.routes = append(r.routes, c)
		if c.limited {
			r.limited = append(r.limited, c.scope)
		}
	}
	return r, nil
}

// compileRoute prepares one row: its segments after the prefix, its validator and its file.
func compileRoute(prefix string, row manifest.Route, checks map[string]checkFunc) (compiledRoute, error) {
	c := compiledRoute{name: row.Name, scope: row.Scope(), err: row.Error, limited: row.RateLimited}
	rest, ok := strings.CutPrefix(row.Pattern, prefix)
	if !ok || (rest != "" && rest[0] != '/') {
		return c, fmt.Errorf("pattern %q is not under %s", row.Pattern, prefix)
	}
	names := row.Params()
	if len(names) > maxParams {
		return c, fmt.Errorf("pattern %q has more than %d parameters", row.Pattern, maxParams)
	}
	if rest != "" {
		for _, s := range strings.Split(rest[1:], "/") {
			param := strings.HasPrefix(s, "{")
			c.segs = append(c.segs, segment{lit: s, param: param})
		}
	}
	c.nParams = len(names)
	if c.nParams > 0 {
		if c.check = checks[row.Check]; c.check == nil {
			return c, fmt.Errorf("unknown check %q", row.Check)
		}
		if want := checkParams[row.Check]; c.nParams != want {
			return c, fmt.Errorf("check %s takes %d parameters, the pattern has %d", row.Check, want, c.nParams)
		}
	}
	file := row.File
	for file != "" {
		i := strings.IndexByte(file, '{')
		if i < 0 {
			c.file = append(c.file, filePart{lit: file, param: -1})
			break
		}
		j := strings.IndexByte(file[i:], '}')
		if j < 0 {
			return c, fmt.Errorf("file %q: unterminated parameter", row.File)
		}
		name := file[i+1 : i+j]
		k := indexOf(names, name)
		if k < 0 {
			return c, fmt.Errorf("file %q: parameter %q is not in the pattern", row.File, name)
		}
		if i > 0 {
			c.file = append(c.file, filePart{lit: file[:i], param: -1})
		}
		c.file = append(c.file, filePart{param: k})
		file = file[i+j+1:]
	}
	return c, nil
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// checkParams is how many parameters each check takes.
var checkParams = map[string]int{manifest.CheckLifePathNumber: 1, manifest.CheckDate: 3}

// isAPI reports whether the raw path is the API prefix or under it.
func (r *router) isAPI(p string) bool { return manifest.InScope(p, r.prefix) }

// isRateLimited reports whether the raw path is in the scope of a rate-limited route.
func (r *router) isRateLimited(p string) bool {
	for _, s := range r.limited {
		if manifest.InScope(p, s) {
			return true
		}
	}
	return false
}

// match resolves a raw path under the API prefix: the first route whose segments match and
// whose validator admits the parameters; else the error of the narrowest route scope that
// holds the path; else not found.
func (r *router) match(p string) route {
	p = strings.TrimSuffix(p, "/") // one trailing slash is tolerated
	rest := p[len(r.prefix):]
	var params [maxParams]int
	for i := range r.routes {
		c := &r.routes[i]
		if c.matchSegments(rest, &params) && (c.nParams == 0 || c.check(params)) {
			key := fileKey{route: int32(i)}
			for j := range c.nParams {
				key.params[j] = int32(params[j])
			}
			return route{kind: routeFile, key: key}
		}
	}
	best := -1
	for i := range r.routes {
		c := &r.routes[i]
		if c.err != "" && manifest.InScope(p, c.scope) && (best < 0 || len(c.scope) > len(r.routes[best].scope)) {
			best = i
		}
	}
	if best >= 0 {
		return route{kind: routeError, err: r.routes[best].err}
	}
	return route{kind: routeError, err: manifest.ErrNotFound}
}

// matchSegments reports whether rest ("" or "/seg/…") has the route's segments, and parses
// its numeric parameters into params.
func (c *compiledRoute) matchSegments(rest string, params *[maxParams]int) bool {
	k := 0
	for _, s := range c.segs {
		if rest == "" || rest[0] != '/' {
			return false
		}
		rest = rest[1:]
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		seg := rest[:end]
		rest = rest[end:]
		if !s.param {
			if seg != s.lit {
				return false
			}
			continue
		}
		n, ok := numeric(seg)
		if !ok {
			return false
		}
		params[k] = n
		k++
	}
	return rest == ""
}

// treeFile is the tree path of the body a file key names.
func (r *router) treeFile(key fileKey) string {
	var b strings.Builder
	for _, part := range r.routes[key.route].file {
		if part.param < 0 {
			b.WriteString(part.lit)
		} else {
			b.WriteString(strconv.Itoa(int(key.params[part.param])))
		}
	}
	return b.String()
}

// fileKeyOf is the inverse of treeFile: the key of a tree path that is some route's file with
// canonical parameters (no leading zeros), ok false for any other path.
func (r *router) fileKeyOf(path string) (fileKey, bool) {
	for i := range r.routes {
		c := &r.routes[i]
		key := fileKey{route: int32(i)}
		rest := path
		ok := true
		for _, part := range c.file {
			if part.param < 0 {
				if rest, ok = strings.CutPrefix(rest, part.lit); !ok {
					break
				}
				continue
			}
			end := 0
			for end < len(rest) && end < 9 && rest[end] >= '0' && rest[end] <= '9' {
				end++
			}
			n, isNum := numeric(rest[:end])
			if !isNum || (end > 1 && rest[0] == '0') {
				ok = false
				break
			}
			key.params[part.param] = int32(n)
			rest = rest[end:]
		}
		if ok && rest == "" {
			return key, true
		}
	}
	return fileKey{}, false
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

// validDate reports whether d.m.y is a real Gregorian date of the years first–last.
func validDate(d, m, y, first, last int) bool {
	return y >= first && y <= last && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(m, y)
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
