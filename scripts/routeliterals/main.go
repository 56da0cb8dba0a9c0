// Command routeliterals prints, one a line, the forms in which a route of the route table
// could be written into an edge's source: each literal segment of each pattern after the API
// prefix, after a slash or an opening quote. scripts/check-route-literals.sh greps the
// edges for them.
package main

import (
	"fmt"
	"strings"

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
}
