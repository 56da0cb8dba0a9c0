package generator

// The synthetic date routes: a family that no build serves. The tests add it to a site's
// table (the route budget, the ten-route tree), and a binary built with the tag
// "synthetic" (make bench-generate) has it in its table, up to ten date routes
// (syntheticFamily), to measure what generate and serve cost with ten.

import (
	"fmt"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// TenDateRoutes is how many date routes the route budget is shown for (issue 26): the ones a
// build has and synthetic ones, packed by year.
const TenDateRoutes = 10

// syntheticRecord is the body of a synthetic date route: the date and one number of it.
type syntheticRecord struct {
	Input  DateInput `json:"input"`
	Number int       `json:"number"`
	attribution
}

// syntheticDateRoutes are n date routes no build serves, for the route budget's and the
// ten-route tree's tests and the ten-route benchmark (syntheticFamily):
// /synthetic-k/{day}/{month}/{year}, packed by unit (a month file
// synthetic-k-months/{year}/{month}.jsonl, or a year file synthetic-k-years/{year}.jsonl),
// each record the date and its life path number.
func syntheticDateRoutes(n int, unit string) []routeUnit {
	var out []routeUnit
	for k := 1; k <= n; k++ {
		name := fmt.Sprintf("synthetic-%d", k)
		packedFile := fmt.Sprintf("%s/%s-months/{year}/{month}.jsonl", manifest.APIDir, name)
		if unit == manifest.UnitYear {
			packedFile = fmt.Sprintf("%s/%s-years/{year}.jsonl", manifest.APIDir, name)
		}
		scope := fmt.Sprintf("%s/%s", manifest.APIPrefix, name)
		out = append(out, routeUnit{
			row: manifest.Route{
				Name: name, Pattern: scope + "/{day}/{month}/{year}",
				File:   fmt.Sprintf("%s/%s/{day}/{month}/{year}.json", manifest.APIDir, name),
				Params: dateParams(), Packed: &manifest.Packed{File: packedFile, Unit: unit},
				Error: manifest.ErrInvalidDate, RateLimited: true,
				Summary: "Синтетический маршрут " + name, Description: "Синтетический маршрут для тестов", English: "a synthetic route of the tests",
				Example: scope + "/15/5/1990", OperationID: fmt.Sprintf("getSynthetic%d", k), Tag: "matrix",
			},
			renderer: renderer{
				body:     syntheticRecord{},
				maxBytes: 1024,
				encoder: func(s *Site) (encodeFunc, error) {
					return encodeEach(func(v []int) (any, error) {
						return syntheticRecord{DateInput{v[0], v[1], v[2]}, rules.LifePath(v[0], v[1], v[2]), s.attribution()}, nil
					}), nil
				},
			},
		})
	}
	return out
}
