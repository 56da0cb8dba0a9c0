package cloudflare

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// AssetsIgnoreFile is the file of the assets directory, in gitignore syntax, that lists
// what not to upload: wrangler's convention (workers-sdk, workers-shared/utils/helpers.ts,
// createAssetsIgnoreFunction), which deploy follows.
const AssetsIgnoreFile = ".assetsignore"

// alwaysIgnored are the patterns wrangler adds before the file's own: the ignore file itself
// and the two files Cloudflare reads as configuration rather than serves.
var alwaysIgnored = []string{"/" + AssetsIgnoreFile, "/_redirects", "/_headers"}

// Ignore matches tree paths against gitignore patterns, the way wrangler's "ignore" library
// does for .assetsignore: the last matching pattern wins, "!" re-includes, a path whose
// parent directory is ignored stays ignored, a pattern with a slash (other than a trailing
// one) is anchored at the root, "*" and "?" stay within a segment and "**" spans them.
type Ignore struct {
	rules []ignoreRule
}

type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
	text    string
}

// ParseIgnore reads the content of an .assetsignore file (nil or empty: only wrangler's
// defaults). Like wrangler it rejects content that is not UTF-8 or holds a NUL.
func ParseIgnore(content []byte) (*Ignore, error) {
	if !utf8.Valid(content) || strings.ContainsRune(string(content), 0) {
		return nil, fmt.Errorf("%s must be UTF-8 text without NUL characters", AssetsIgnoreFile)
	}
	ig := &Ignore{}
	lines := append(append([]string{}, alwaysIgnored...), strings.Split(string(content), "\n")...)
	for _, line := range lines {
		if r, ok := parseIgnoreLine(line); ok {
			ig.rules = append(ig.rules, r)
		}
	}
	return ig, nil
}

// parseIgnoreLine turns one line into a rule; blank lines and comments give none.
func parseIgnoreLine(line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if line == "" || strings.HasPrefix(line, "#") {
		return ignoreRule{}, false
	}
	r := ignoreRule{text: line}
	if strings.HasPrefix(line, "!") {
		r.negate, line = true, line[1:]
	}
	if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case strings.HasPrefix(line[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(line[i:], "/**") && i+3 == len(line):
			b.WriteString("/.*")
			i += 2
		case strings.HasPrefix(line[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '\\' && i+1 < len(line):
			i++
			b.WriteString(regexp.QuoteMeta(line[i : i+1]))
		case c == '[':
			end := strings.IndexByte(line[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := line[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return ignoreRule{}, false // a pattern git would not match either, such as "[z-a]"
	}
	r.re = re
	return r, true
}

// Ignored reports whether the file at rel (relative to the assets directory, forward
// slashes, no leading slash) is left out of the upload.
func (ig *Ignore) Ignored(rel string) bool {
	// A directory that is ignored hides everything below it, whatever later "!" say.
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && ig.match(rel[:i], true) {
			return true
		}
	}
	return ig.match(rel, false)
}

// match applies the rules in order to one path; the last that matches decides.
func (ig *Ignore) match(p string, isDir bool) bool {
	ignored := false
	for _, r := range ig.rules {
		if r.dirOnly && !isDir {
			continue
		}
		if r.negate == ignored && r.re.MatchString(p) {
			ignored = !r.negate
		}
	}
	return ignored
}
