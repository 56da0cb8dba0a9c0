//go:build synthetic

package generator

import "github.com/opennumerology/numerology/generator/manifest"

// syntheticFamily is, in a build with the tag "synthetic" (the ten-route benchmark), as many
// synthetic date routes packed by year as make the date routes of units TenDateRoutes.
func syntheticFamily(units []routeUnit) []routeUnit {
	n := TenDateRoutes
	for _, u := range units {
		if u.row.Packed != nil {
			n--
		}
	}
	return syntheticDateRoutes(n, manifest.UnitYear)
}
