package manifest

import "strings"

// Parameter validators, as used in Route.Check (docs/design.md §3).
const (
	// CheckLifePathNumber admits one param that is one of EdgeConfig.ValidNumbers.
	CheckLifePathNumber = "life_path_number"
	// CheckDate admits three params, day, month and year, that form a real Gregorian date
	// from EdgeConfig.FirstYear to LastYear.
	CheckDate = "date"
)

// Scope is the route's literal part: the pattern up to its first parameter, without the
// slash before it, or the whole pattern when it has none. A path is in the scope when it is
// the scope itself or under it; the route's Error and rate limit apply to the whole scope.
func (r Route) Scope() string {
	if i := strings.Index(r.Pattern, "/{"); i >= 0 {
		return r.Pattern[:i]
	}
	return r.Pattern
}

// Params returns the names of the pattern's parameters, in order.
func (r Route) Params() []string {
	var out []string
	for _, seg := range strings.Split(r.Pattern, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, seg[1:len(seg)-1])
		}
	}
	return out
}

// InScope reports whether the raw path p is prefix itself or under it ("prefix/…").
func InScope(p, prefix string) bool {
	return strings.HasPrefix(p, prefix) && (len(p) == len(prefix) || p[len(prefix)] == '/')
}

// RateLimited reports whether the raw path p is in the scope of a rate-limited route.
func (c *EdgeConfig) RateLimited(p string) bool {
	for _, r := range c.Routes {
		if r.RateLimited && InScope(p, r.Scope()) {
			return true
		}
	}
	return false
}
