package server

import (
	"net/http"
	"regexp"
	"strings"
)

// headerRules are the rules of a tree's _headers file, read and matched as Cloudflare's
// assets read and match them (workers-sdk, workers-shared: parseHeaders.ts and the asset
// worker's rules-engine.ts and attachCustomHeaders), so that serve's static answers carry
// the headers production gives them (CORS and max-age=300 on /manifest.json, CORS and the
// licence on /downloads/*).
type headerRules []headerRule

// headerRule is one path (or https://host/path) pattern and the headers it sets and
// removes.
type headerRule struct {
	crossHost bool
	re        *regexp.Regexp
	names     []string // the pattern's placeholders, in order, for the values' :name
	set       []headerValue
	unset     []string
}

type headerValue struct{ name, value string }

// Cloudflare's limits on a _headers file.
const (
	maxHeaderRules      = 100
	maxHeaderLineLength = 2000
)

// parseHeaderRules reads a _headers file. Lines Cloudflare would ignore (too long, a
// header before any path, a path with two wildcards, a rule without headers) are ignored
// here too; so is every rule after the 101st (Cloudflare stops reading at the path line
// that follows 100 rules, but keeps the rule it was reading).
func parseHeaderRules(text string) headerRules {
	f := &headerFile{byPath: map[string]*pendingRule{}}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || len(line) > maxHeaderLineLength:
		case looksLikePath(line):
			if f.finished >= maxHeaderRules {
				f.finish() // the rule being read is still kept: Cloudflare's parser does the same
				return f.rules()
			}
			f.startRule(line)
		case f.cur != nil:
			f.cur.addLine(line)
		}
	}
	f.finish()
	return f.rules()
}

// headerFile is a _headers file being read: its rules by path, in the order their paths
// first came, and the rule being read (nil after a path line Cloudflare refuses).
type headerFile struct {
	order    []string
	byPath   map[string]*pendingRule
	cur      *pendingRule
	finished int
}

// pendingRule is a rule being read: its path and the headers it sets and removes.
type pendingRule struct {
	path  string
	set   []headerValue
	unset []string
}

// startRule finishes the rule being read and starts the one of a path line; a path
// Cloudflare refuses (another scheme, a port, two wildcards, "*" beside ":splat") starts
// none, and the header lines under it are ignored.
func (f *headerFile) startRule(line string) {
	f.finish()
	f.cur = nil
	path, ok := rulePath(line)
	if !ok || strings.Count(path, "*") > 1 || strings.Contains(path, "*") && hasSplat(path) {
		return
	}
	f.cur = &pendingRule{path: path}
}

// finish keeps the rule being read, unless it has no headers. Rules are an object keyed by
// path: a repeated path replaces the earlier rule in the earlier one's place.
func (f *headerFile) finish() {
	if f.cur == nil || len(f.cur.set) == 0 && len(f.cur.unset) == 0 {
		return
	}
	f.finished++
	if _, ok := f.byPath[f.cur.path]; !ok {
		f.order = append(f.order, f.cur.path)
	}
	f.byPath[f.cur.path] = f.cur
}

// addLine reads a header line of the rule: "Name: value" sets a header (a second value of
// a name is appended to the first with ", "), "! Name" removes one; anything else is
// ignored.
func (r *pendingRule) addLine(line string) {
	name, value, ok := strings.Cut(line, ":")
	if !ok {
		if rest, ok := strings.CutPrefix(line, "! "); ok {
			r.unset = append(r.unset, rest)
		}
		return
	}
	name = strings.ToLower(strings.TrimSpace(name))
	value = strings.TrimSpace(value)
	if name == "" || value == "" || strings.Contains(name, " ") {
		return
	}
	for i := range r.set {
		if r.set[i].name == name {
			r.set[i].value += ", " + value
			return
		}
	}
	r.set = append(r.set, headerValue{name, value})
}

// rules compiles the rules kept, in order; Cloudflare drops a rule whose pattern does not
// compile.
func (f *headerFile) rules() headerRules {
	var rules headerRules
	for _, p := range f.order {
		r, ok := compileHeaderRule(p)
		if !ok {
			continue
		}
		r.set, r.unset = f.byPath[p].set, f.byPath[p].unset
		rules = append(rules, r)
	}
	return rules
}

// looksLikePath is Cloudflare's test for a path line: it starts with "/" or "scheme://".
func looksLikePath(line string) bool {
	if line[0] == '/' {
		return true
	}
	i := strings.Index(line, "://")
	return i > 0 && !strings.ContainsAny(line[:i], " \t")
}

// rulePath is a path line as Cloudflare keeps it: "/path" or "https://host/path"; other
// schemes and hosts with a port are refused.
func rulePath(line string) (string, bool) {
	if rest, ok := strings.CutPrefix(line, "https://"); ok {
		rest = strings.TrimLeft(rest, "/")
		host, path, _ := strings.Cut(rest, "/")
		if host == "" || portSuffix.MatchString(host) {
			return "", false
		}
		return "https://" + host + "/" + path, true
	}
	if line[0] != '/' {
		return "", false
	}
	return line, true
}

var (
	portSuffix  = regexp.MustCompile(`:\d+$`)
	placeholder = regexp.MustCompile(`^:[A-Za-z]\w*`)
	splatName   = regexp.MustCompile(`:splat(\W|$)`)
)

func hasSplat(path string) bool { return splatName.MatchString(path) }

// compileHeaderRule turns a pattern into an anchored regular expression: "*" matches
// anything (as :splat), ":name" one path segment (one label when it sits in the host and
// is followed by "." or "/").
func compileHeaderRule(pattern string) (headerRule, bool) {
	r := headerRule{crossHost: strings.HasPrefix(pattern, "https://")}
	hostEnd := 0
	if r.crossHost {
		hostEnd = len("https://") + strings.IndexByte(pattern[len("https://"):], '/')
	}
	var b strings.Builder
	b.WriteByte('^')
	seen := map[string]bool{}
	for i := 0; i < len(pattern); {
		switch m := placeholder.FindString(pattern[i:]); {
		case pattern[i] == '*':
			if seen["splat"] {
				return r, false
			}
			seen["splat"] = true
			r.names = append(r.names, "splat")
			b.WriteString(`(.*)`)
			i++
		case m != "":
			name := m[1:]
			if seen[name] {
				return r, false // a duplicate group name does not compile in JavaScript
			}
			seen[name] = true
			r.names = append(r.names, name)
			next := i + len(m)
			if r.crossHost && next <= hostEnd && next < len(pattern) && (pattern[next] == '.' || pattern[next] == '/') {
				b.WriteString(`([^/.]+)`)
			} else {
				b.WriteString(`([^/]+)`)
			}
			i = next
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
			i++
		}
	}
	b.WriteByte('$')
	re, err := regexp.Compile(b.String())
	if err != nil {
		return r, false
	}
	r.re = re
	return r, true
}

// apply sets and removes the headers of every rule matching the request, in the file's
// order: the first rule to set a header replaces any value it had, later rules append.
func (rules headerRules) apply(hd http.Header, host, rawPath string) {
	var setBy map[string]bool
	for _, r := range rules {
		subject := rawPath
		if r.crossHost {
			subject = "https://" + host + rawPath
		}
		m := r.re.FindStringSubmatch(subject)
		if m == nil {
			continue
		}
		for _, k := range r.unset {
			hd.Del(k)
		}
		for _, v := range r.set {
			value := v.value
			for i, name := range r.names {
				value = strings.ReplaceAll(value, ":"+name, m[i+1])
			}
			k := http.CanonicalHeaderKey(v.name)
			if setBy[k] && len(hd[k]) > 0 {
				hd[k] = []string{hd[k][0] + ", " + value}
				continue
			}
			if setBy == nil {
				setBy = map[string]bool{}
			}
			setBy[k] = true
			hd[k] = []string{value}
		}
	}
}
