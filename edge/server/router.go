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
const maxParams = 6

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
	types   []manifest.ParamType // the row's parameter types, in pattern order
	file    []filePart
	scope   string // Route.Scope
	depth   int    // the pattern's segments after the scope
	err     string // Route.Error
	limited bool
}

// router matches raw, still percent-encoded paths against the route table of edge.json:
// literal segments, numeric parameters and their types, each route's file, error and
// limit. It knows no route by its path or name.
type router struct {
	prefix   string
	routes   []compiledRoute
	notFound string // the error key of a path whose owner has no error
}

// newRouter compiles the route table of a config that manifest's Check accepts.
func newRouter(cfg *manifest.EdgeConfig) (*router, error) {
	r := &router{prefix: cfg.Prefix, notFound: cfg.EdgeErrors.NotFound}
	for _, row := range cfg.Routes {
		c, err := compileRoute(cfg.Prefix, row)
		if err != nil {
			return nil, fmt.Errorf("route %s: %w", row.Name, err)
		}
		r.routes = append(r.routes, c)
	}
	return r, nil
}

// compileRoute prepares one row: its segments after the prefix, its types and its file.
func compileRoute(prefix string, row manifest.Route) (compiledRoute, error) {
	c := compiledRoute{name: row.Name, scope: row.Scope(), err: row.Error, limited: row.RateLimited, types: row.Params}
	rest, ok := strings.CutPrefix(row.Pattern, prefix)
	if !ok || (rest != "" && rest[0] != '/') {
		return c, fmt.Errorf("pattern %q is not under %s", row.Pattern, prefix)
	}
	names := row.ParamNames()
	if len(names) > maxParams {
		return c, fmt.Errorf("pattern %q has more than %d parameters", row.Pattern, maxParams)
	}
	if a := row.Arity(); a != len(names) {
		return c, fmt.Errorf("the parameter types take %d parameters, the pattern has %d", a, len(names))
	}
	if rest != "" {
		for _, s := range strings.Split(rest[1:], "/") {
			param := strings.HasPrefix(s, "{")
			c.segs = append(c.segs, segment{lit: s, param: param})
		}
	}
	c.depth = strings.Count(row.Pattern[len(c.scope):], "/")
	c.nParams = len(names)
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

// admit reports whether the route's types admit params and makes them canonical.
func (c *compiledRoute) admit(params *[maxParams]int) bool {
	off := 0
	for _, t := range c.types {
		k := t.Arity()
		if !t.Admit(params[off : off+k]) {
			return false
		}
		off += k
	}
	return true
}

// isAPI reports whether the raw path is the API prefix or under it.
func (r *router) isAPI(p string) bool { return manifest.InScope(p, r.prefix) }

// isRateLimited reports whether the raw path's owner is a rate-limited route.
func (r *router) isRateLimited(p string) bool {
	i := r.owner(strings.TrimSuffix(p, "/"))
	return i >= 0 && r.routes[i].limited
}

// owner returns the index of the route that owns p, a path under the prefix with one
// trailing slash removed: of the routes whose scope holds it, the one with the longest
// scope, then the one whose pattern has the number of segments closest to p's, then the
// first (manifest.EdgeConfig.Owner); -1 for none.
func (r *router) owner(p string) int {
	best, bestLen, bestDist := -1, -1, 0
	for i := range r.routes {
		c := &r.routes[i]
		if len(c.scope) < bestLen || !manifest.InScope(p, c.scope) {
			continue
		}
		dist := strings.Count(p[len(c.scope):], "/") - c.depth
		if dist < 0 {
			dist = -dist
		}
		if len(c.scope) > bestLen || dist < bestDist {
			best, bestLen, bestDist = i, len(c.scope), dist
		}
	}
	return best
}

// match resolves a raw path under the API prefix: the first route whose segments match and
// whose types admit the parameters; else the error of the route that owns the path; else
// not found.
func (r *router) match(p string) route {
	p = strings.TrimSuffix(p, "/") // one trailing slash is tolerated
	rest := p[len(r.prefix):]
	var params [maxParams]int
	for i := range r.routes {
		c := &r.routes[i]
		if c.matchSegments(rest, &params) && c.admit(&params) {
			key := fileKey{route: int32(i)}
			for j := range c.nParams {
				key.params[j] = int32(params[j])
			}
			return route{kind: routeFile, key: key}
		}
	}
	if i := r.owner(p); i >= 0 && r.routes[i].err != "" {
		return route{kind: routeError, err: r.routes[i].err}
	}
	return route{kind: routeError, err: r.notFound}
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
		if key, ok := r.routeFileKey(int32(i), path); ok {
			return key, true
		}
	}
	return fileKey{}, false
}

// routeFileKey is fileKeyOf for the files of one route.
func (r *router) routeFileKey(route int32, path string) (fileKey, bool) {
	if route < 0 || int(route) >= len(r.routes) {
		return fileKey{}, false
	}
	key := fileKey{route: route}
	rest := path
	for _, part := range r.routes[route].file {
		if part.param < 0 {
			var ok bool
			if rest, ok = strings.CutPrefix(rest, part.lit); !ok {
				return fileKey{}, false
			}
			continue
		}
		end := 0
		for end < len(rest) && end < 9 && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		n, isNum := numeric(rest[:end])
		if !isNum || (end > 1 && rest[0] == '0') {
			return fileKey{}, false
		}
		key.params[part.param] = int32(n)
		rest = rest[end:]
	}
	return key, rest == ""
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
