package generator

import (
	"slices"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
)

// TestCheckRoutes: the route table and the renderers are checked against each other at
// start-up, and a table out of step is refused with what is wrong.
func TestCheckRoutes(t *testing.T) {
	cfg, err := testSite(t).EdgeConfig()
	if err != nil {
		t.Fatalf("the table of this build: %v", err)
	}
	tests := []struct {
		name   string
		change func(rs []manifest.Route) []manifest.Route
		want   string
	}{
		{"a row without a renderer", func(rs []manifest.Route) []manifest.Route {
			return append(rs, manifest.Route{Name: "tarot", Pattern: manifest.APIPrefix + "/tarot", File: "api/public/tarot.json", Example: manifest.APIPrefix + "/tarot"})
		}, "route tarot has no renderer"},
		{"a renderer without a row", func(rs []manifest.Route) []manifest.Route {
			return slices.DeleteFunc(rs, func(r manifest.Route) bool { return r.Name == RoutePositions })
		}, "renderer positions has no route"},
		{"an example the types refuse", func(rs []manifest.Route) []manifest.Route {
			rs[3].Example = manifest.APIPrefix + "/life-path/10"
			return rs
		}, "the route's parameter types do not admit [10]"},
		{"a date route without packed files", func(rs []manifest.Route) []manifest.Route {
			for i := range rs {
				if rs[i].Name == RouteMatrix {
					rs[i].Packed = nil
				}
			}
			return rs
		}, "route matrix: a date route has one date parameter and packed files"},
		{"packed files that are not a month", func(rs []manifest.Route) []manifest.Route {
			for i := range rs {
				if rs[i].Name == RouteMatrix {
					rs[i].Packed = &manifest.Packed{File: "api/public/m/{year}.jsonl", Unit: manifest.UnitMonth}
				}
			}
			return rs
		}, "packed file \"api/public/m/{year}.jsonl\": a file per month holds exactly {month} and {year}"},
		{"an error without a body", func(rs []manifest.Route) []manifest.Route {
			rs[3].Error = "gone"
			return rs
		}, `route life-path: error "gone" has no body`},
		{"a row an edge would refuse", func(rs []manifest.Route) []manifest.Route {
			rs[3].Params[0].Type = "colour"
			return rs
		}, `unknown parameter type "colour"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := Routes()
			err := checkRoutes(tt.change(rs), renderers(), cfg.Errors)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("checkRoutes = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
