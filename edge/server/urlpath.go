package server

import "strings"

// resolvePath resolves the dot segments and backslashes of a raw path beginning with "/" as
// the WHATWG URL parser does for an http URL, which is how the Workers runtime hands every
// request to the worker (docs/design.md §3): "\" separates segments like "/"; a segment "."
// (or "%2e") is dropped and ".." (or ".%2e", "%2e.", "%2e%2e", in any case) drops the
// segment before it, never above the root; a dot segment at the end leaves a trailing
// slash. Nothing else changes: no unescaping, no folding of "//". Other paths are returned
// as they are.
func resolvePath(p string) string {
	if p == "" || p[0] != '/' || !hasDotOrBackslash(p) {
		return p
	}
	segs := make([]string, 0, strings.Count(p, "/")+strings.Count(p, "\\"))
	rest := p[1:]
	for {
		seg, next, more := cutSegment(rest)
		switch {
		case isDotDot(seg):
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
			if !more {
				segs = append(segs, "")
			}
		case isDot(seg):
			if !more {
				segs = append(segs, "")
			}
		default:
			segs = append(segs, seg)
		}
		if !more {
			return "/" + strings.Join(segs, "/")
		}
		rest = next
	}
}

// hasDotOrBackslash reports whether p holds a ".", "%2e" (any case) or "\\": whether it
// may need resolving. One pass, as it runs on every request.
func hasDotOrBackslash(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '.', '\\':
			return true
		case '%':
			if i+2 < len(p) && p[i+1] == '2' && p[i+2]|0x20 == 'e' {
				return true
			}
		}
	}
	return false
}

// cutSegment splits p at its first "/" or "\".
func cutSegment(p string) (seg, rest string, found bool) {
	if i := strings.IndexAny(p, "/\\"); i >= 0 {
		return p[:i], p[i+1:], true
	}
	return p, "", false
}

func isDot(s string) bool {
	return s == "." || strings.EqualFold(s, "%2e")
}

func isDotDot(s string) bool {
	switch len(s) {
	case 2:
		return s == ".."
	case 4:
		return strings.EqualFold(s, ".%2e") || strings.EqualFold(s, "%2e.")
	case 6:
		return strings.EqualFold(s, "%2e%2e")
	}
	return false
}
