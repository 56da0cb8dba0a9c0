// Command routeliterals prints, one a line, the forms in which a route of the route table or
// an error key of the edge config could be written into an edge's source: each literal
// segment of each pattern after the API prefix, after a slash or an opening quote, and each
// error key in quotes. scripts/check-route-literals.sh greps the edges for them: both edges
// take routes and errors from the config alone (docs/design.md §3).
package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
)

func main() {
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
