package manifest

import (
	"slices"
	"strconv"
	"strings"
)

// A Template is a file pattern prepared for filling in and matching: its literal parts,
// each but the last followed by the value of a parameter. Filling or matching it takes no
// allocation but the path made.
type Template struct {
	lits []string
	idx  []int // idx[i]: the index, in names, of the parameter after lits[i]; -1 for none
	n    int   // len(names)
}

// NewTemplate prepares pattern, whose {name}s are parameters of names.
func NewTemplate(pattern string, names []string) Template {
	t := Template{n: len(names)}
	for {
		i := strings.IndexByte(pattern, '{')
		j := strings.IndexByte(pattern, '}')
		if i < 0 || j < i {
			t.lits = append(t.lits, pattern)
			return t
		}
		t.lits = append(t.lits, pattern[:i])
		t.idx = append(t.idx, slices.Index(names, pattern[i+1:j]))
		pattern = pattern[j+1:]
	}
}

// Append appends the path of vals (one per name) to b.
func (t Template) Append(b []byte, vals []int) []byte {
	for i, lit := range t.lits {
		b = append(b, lit...)
		if i < len(t.idx) && t.idx[i] >= 0 {
			b = strconv.AppendInt(b, int64(vals[t.idx[i]]), 10)
		}
	}
	return b
}

// Fill returns the path of vals (one per name).
func (t Template) Fill(vals []int) string { return string(t.Append(make([]byte, 0, 64), vals)) }

// Match reports whether p is a path of the template with canonical numbers (no leading
// zeros, 1–9 digits each), and stores each parameter's value in vals (one per name; the
// others are left as they are).
func (t Template) Match(p string, vals []int) bool {
	for i, lit := range t.lits {
		var ok bool
		if p, ok = strings.CutPrefix(p, lit); !ok {
			return false
		}
		if i == len(t.idx) {
			break
		}
		end := 0
		for end < len(p) && end < 9 && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		if end == 0 || (end > 1 && p[0] == '0') || t.idx[i] < 0 {
			return false
		}
		vals[t.idx[i]], _ = strconv.Atoi(p[:end])
		p = p[end:]
	}
	return p == ""
}

// RouteFiles is a packed route's file patterns prepared for filling in and matching, for
// the code that goes over every file of a tree (Route.Files).
type RouteFiles struct {
	Route  *Route
	file   Template
	packed Template
	arity  int
}

// Files prepares the file patterns of a packed route; nil for a route without packed files.
func (r *Route) Files() *RouteFiles {
	if r.Packed == nil || len(r.Params) != 1 {
		return nil
	}
	return &RouteFiles{Route: r, file: NewTemplate(r.File, r.ParamNames()),
		packed: NewTemplate(r.Packed.File, r.Packed.placeholders()), arity: r.Arity()}
}

// FilePath is Route.FilePath.
func (f *RouteFiles) FilePath(vals []int) string { return f.file.Fill(vals) }

// PackedPath is the packed file that holds the body of the value at pl.
func (f *RouteFiles) PackedPath(pl Place) string { return f.packed.Fill([]int{pl.Year, pl.Month}) }

// ShardFiles is Route.ShardFiles.
func (f *RouteFiles) ShardFiles(year int) []string {
	vals := f.Route.YearValues(year)
	out := make([]string, 0, len(vals)+12)
	b := make([]byte, 0, 64)
	for _, v := range vals {
		out = append(out, string(f.file.Append(b[:0], v)))
		if pl := f.Route.Place(v); f.Route.Packed.Line(pl) == 1 {
			out = append(out, f.PackedPath(pl))
		}
	}
	slices.Sort(out)
	return out
}

// ShardOf is Route.ShardOf.
func (f *RouteFiles) ShardOf(p string) (year int, ok bool) {
	var buf, canon [8]int
	if f.arity > len(buf) {
		return 0, false
	}
	vals := buf[:f.arity]
	if f.file.Match(p, vals) {
		c := append(canon[:0], vals...)
		if !f.Route.Admit(c) || !slices.Equal(c, vals) {
			return 0, false
		}
		return f.Route.Place(vals).Year, true
	}
	pv := buf[:2]
	pv[1] = 0
	if !f.packed.Match(p, pv) {
		return 0, false
	}
	if !f.Route.HasYear(pv[0]) || f.Route.Packed.Unit == UnitMonth && (pv[1] < 1 || pv[1] > 12) {
		return 0, false
	}
	return pv[0], true
}
