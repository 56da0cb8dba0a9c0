//go:build !synthetic

package generator

// syntheticFamily is no route: a build without the tag "synthetic" serves only its own.
func syntheticFamily([]routeUnit) []routeUnit { return nil }
