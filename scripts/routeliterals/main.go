// Command routeliterals prints, one a line, the forms in which a route of the route table or
// an error key of the edge config could be written into an edge's source: each literal
// segment of each pattern after the API prefix, after a slash or an opening quote, and each
// error key in quotes. scripts/check-route-literals.sh greps the edges for them: both edges
// take routes and errors from the config alone (docs/design.md §3).
//
// With -tree it prints instead the forms in which generate, verify and pack could write a
// route's tree path or API path by hand: a string that starts with the API's folder or
// prefix, the prefix or the API's URL joined to a literal path, and the folder of each
// route's packed files. They take paths from the route table and the manifest's names.
//
// With -format it checks instead that the packages named by its arguments, folders of Go
// sources, know no route: no string literal of their non-test sources is a route's name or
// a literal segment of its pattern, file or packed file. It prints each one found as
// file:line: and exits 1. scripts/check-imports.sh runs it on the tree's format
// (generator/manifest) and on pack.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
)

func main() {
	tree := flag.Bool("tree", false, "print the forms of tree and API paths written by hand")
	format := flag.Bool("format", false, "check that the packages of the folders given know no route")
	flag.Parse()
	if *format {
		runFormat(flag.Args())
		return
	}
	if *tree {
		printTreeForms()
		return
	}
	seen := map[string]bool{}
	for _, r := range generator.Routes() {
		for _, seg := range strings.Split(strings.TrimPrefix(r.Pattern, manifest.APIPrefix), "/") {
			if seg == "" || strings.HasPrefix(seg, "{") || seen[seg] {
				continue
			}
			seen[seg] = true
			for _, lead := range []string{"/", `"`, "'", "`"} {
				fmt.Println(lead + seg)
			}
		}
	}
	c, err := generator.LoadContent(content.Embedded(), "content")
	if err != nil {
		fmt.Fprintln(os.Stderr, "routeliterals:", err)
		os.Exit(1)
	}
	site, err := generator.NewSite(c, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "routeliterals:", err)
		os.Exit(1)
	}
	cfg, err := site.EdgeConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "routeliterals:", err)
		os.Exit(1)
	}
	keys := make([]string, 0, len(cfg.Errors))
	for k := range cfg.Errors {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, q := range []string{`"`, "'", "`"} {
			fmt.Println(q + k + q)
		}
	}
}

// printTreeForms prints the forms of -tree, as extended regular expressions.
func printTreeForms() {
	q := regexp.QuoteMeta
	fmt.Println("[\"`]" + q(manifest.APIDir))
	fmt.Println("[\"`]" + q(manifest.APIPrefix) + "/")
	// The prefix or the API's URL joined to a path; "/*" (every API path, in _headers) is
	// not a route's.
	fmt.Println(`(APIPrefix|APIBase) ?\+ ?"/[^*]`)
	seen := map[string]bool{}
	for _, r := range generator.Routes() {
		if r.Packed == nil {
			continue
		}
		dir, _, _ := strings.Cut(strings.TrimPrefix(r.Packed.File, manifest.APIDir+"/"), "/")
		if !seen[dir] {
			seen[dir] = true
			fmt.Println("[\"/]" + q(dir))
		}
	}
}
