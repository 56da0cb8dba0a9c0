// Package assetsignore reads a tree's .assetsignore exactly as wrangler does, and checks a
// list of files against it (Check), so that deploy and verify can prove none of the files
// the Cloudflare Worker reads (manifest.Manifest.WorkerFiles) is left out of the upload. It
// imports nothing of the project: the caller hands it the files and what the manifest lists.
//
// wrangler (workers-shared/utils/helpers.ts, createAssetsIgnoreFunction) splits the file on
// "\n", puts "/.assetsignore", "/_redirects" and "/_headers" before its lines, and asks npm's
// ignore 5.3.1 with its default options whether each file of the assets directory is
// ignored. This package is a port of that library: each line becomes the same JavaScript
// regular expression (source.go), which is translated to Go with JavaScript's matching
// rules (jsregexp.go, canon.go), and paths are tested as ignore tests them, a directory
// before what it holds. edge/worker's differential test runs the npm package itself on a
// corpus of pattern files and paths and requires the same answer for every case.
package assetsignore

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// FileName is the ignore file of an assets directory: wrangler's convention.
const FileName = ".assetsignore"

// Defaults are the patterns wrangler adds before the file's own: the ignore file itself
// and the two files Cloudflare reads as configuration rather than serves.
var Defaults = []string{"/" + FileName, "/_redirects", "/_headers"}

// Bounds on the work of one file. wrangler has none, but a file of thousands of rules would
// make deploy test every rule against every path of a 75,000-file tree; such a file is
// refused rather than run for minutes. Identical rules are merged first (only the last of
// them can decide), so repeating a line costs nothing.
const (
	// MaxRules is the most distinct rules a file may hold, wrangler's defaults included.
	MaxRules = 500
	// MaxTests is the most regular expressions a Matcher runs in all, over every path it is
	// asked about. A rule whose literal part (its name, its extension) is not in a path is
	// passed over without running its expression and costs nothing here, so a file of
	// ordinary rules stays far below this for the full tree; one of hundreds of pure
	// wildcards ("*/*", "**/?*") reaches it within seconds.
	MaxTests = 1_000_000
)

// ErrTooMuchWork reports an ignore file whose rules would take too long to apply to the tree.
var ErrTooMuchWork = errors.New("too much work")

// Rule is one rule of an ignore file.
type Rule struct {
	Line     int    // 1-based line of the file; 0 for wrangler's defaults
	Text     string // the line as written
	Negative bool   // a "!" rule, which re-includes what it matches
	re       *regexp.Regexp
	// lit is a string every match contains (canonical units), or "": a path without it is
	// rejected without running the expression.
	lit string
}

// String names the rule for messages: `.assetsignore:7: "/api/"`, or wrangler's default.
func (r *Rule) String() string {
	if r.Line == 0 {
		return fmt.Sprintf("wrangler's default rule %q", r.Text)
	}
	return fmt.Sprintf("%s:%d: %q", FileName, r.Line, r.Text)
}

// Matcher answers, for paths relative to the assets directory, whether wrangler leaves
// them out of the upload. It is not safe for concurrent use.
type Matcher struct {
	rules []*Rule
	// cache holds the deciding rule of every path and directory tested ("a/b/" for a
	// directory, as ignore writes it); nil means not ignored.
	cache map[string]*Rule
	tests int
	limit int
}

// SyntaxError reports a line that wrangler cannot read either: its regular expression is
// refused by JavaScript, so wrangler stops with an error too.
type SyntaxError struct {
	Line int
	Text string
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: %q: %s (wrangler cannot read this rule either)", FileName, e.Line, e.Text, e.Msg)
}

// Parse reads the content of an .assetsignore file; nil or empty gives wrangler's defaults
// only. Content that is not UTF-8, or holds a NUL, is refused: wrangler would read it with
// replacement characters, which no file name of a tree holds.
func Parse(content []byte) (*Matcher, error) {
	if !utf8.Valid(content) || strings.ContainsRune(string(content), 0) {
		return nil, fmt.Errorf("%s must be UTF-8 text without NUL characters", FileName)
	}
	m := &Matcher{cache: map[string]*Rule{}, limit: MaxTests}
	type key struct {
		src string
		neg bool
	}
	last := map[key]int{} // the index in m.rules of a rule's last occurrence
	add := func(line int, text string) error {
		r, err := newRule(line, text)
		if err != nil || r == nil {
			return err
		}
		k := key{r.re.String(), r.Negative}
		if i, dup := last[k]; dup {
			m.rules[i] = nil // an earlier identical rule never decides
		}
		last[k] = len(m.rules)
		m.rules = append(m.rules, r)
		return nil
	}
	for _, d := range Defaults {
		if err := add(0, d); err != nil {
			return nil, err
		}
	}
	if len(content) > 0 {
		for i, line := range strings.Split(string(content), "\n") {
			if err := add(i+1, line); err != nil {
				return nil, err
			}
		}
	}
	kept := m.rules[:0]
	for _, r := range m.rules {
		if r != nil {
			kept = append(kept, r)
		}
	}
	m.rules = kept
	if len(m.rules) > MaxRules {
		return nil, fmt.Errorf("%s has %d distinct rules, more than the %d deploy applies: merge them (a rule with * or ** covers many paths)", FileName, len(m.rules), MaxRules)
	}
	return m, nil
}

// newRule builds the rule of one line, or nil for a line that gives none.
func newRule(line int, text string) (*Rule, error) {
	p := []rune(text)
	if !checkPattern(p) {
		return nil, nil
	}
	p, negative := createRule(p)
	re, err := compileJS(makeSource(p))
	if err != nil {
		var se *jsSyntaxError
		if errors.As(err, &se) {
			return nil, &SyntaxError{Line: line, Text: text, Msg: "invalid regular expression: " + se.msg}
		}
		return nil, fmt.Errorf("%s:%d: %q: %w", FileName, line, text, err)
	}
	return &Rule{Line: line, Text: text, Negative: negative, re: re, lit: requiredLiteral(re)}, nil
}

// requiredLiteral returns the longest literal that the top-level concatenation of re
// requires, or "".
func requiredLiteral(re *regexp.Regexp) string {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return ""
	}
	tree = tree.Simplify()
	best := ""
	var walk func(t *syntax.Regexp)
	walk = func(t *syntax.Regexp) {
		switch t.Op {
		case syntax.OpConcat:
			for _, sub := range t.Sub {
				walk(sub)
			}
		case syntax.OpLiteral:
			if t.Flags&syntax.FoldCase == 0 && len(string(t.Rune)) > len(best) {
				best = string(t.Rune)
			}
		}
	}
	walk(tree)
	return best
}

// Rules returns the rules in the order they apply, duplicates merged.
func (m *Matcher) Rules() []*Rule { return m.rules }

// Ignored reports whether wrangler leaves the file at rel (relative to the assets
// directory, forward slashes, no leading slash) out of the upload.
func (m *Matcher) Ignored(rel string) (bool, error) {
	r, err := m.Why(rel)
	return r != nil, err
}

// Why returns the rule that leaves rel out of the upload (its own, or one of a directory
// holding it), or nil when rel is uploaded. The error is ErrTooMuchWork once the matcher
// has made MaxTests rule tests.
func (m *Matcher) Why(rel string) (*Rule, error) {
	// ignore tests "a/", then "a/b/", then "a/b/c": an ignored directory hides what it holds,
	// whatever a later "!" says.
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/") + "/"
		r, err := m.test(dir)
		if err != nil || r != nil {
			return r, err
		}
	}
	return m.test(rel)
}

// test applies the rules to one path; the last rule that matches decides.
func (m *Matcher) test(p string) (*Rule, error) {
	if r, ok := m.cache[p]; ok {
		return r, nil
	}
	cp := canonicalPath(p)
	var decided *Rule
	for i := len(m.rules) - 1; i >= 0; i-- {
		if m.tests >= m.limit {
			return nil, fmt.Errorf("%s: its %d rules need more than %s pattern tests against the tree's paths: %w; use fewer rules with wildcards only",
				FileName, len(m.rules), "1,000,000", ErrTooMuchWork)
		}
		r := m.rules[i]
		if r.lit != "" && !strings.Contains(cp, r.lit) {
			continue
		}
		m.tests++
		if r.re.MatchString(cp) {
			if !r.Negative {
				decided = r
			}
			break
		}
	}
	m.cache[p] = decided
	return decided, nil
}
