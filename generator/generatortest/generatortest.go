// Package generatortest generates trees of the built-in content for the tests of the
// packages that read them (the edges, deploy, pack), as httptest does for servers.
package generatortest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator"
)

// Site returns the site of the built-in content with its own site URL.
func Site(tb testing.TB) *generator.Site {
	tb.Helper()
	s, err := site()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Tree generates a tree of the given years (every year when none are given) into a new
// temporary directory of tb and returns its path.
func Tree(tb testing.TB, years ...int) string {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "out")
	if _, err := Generate(out, years...); err != nil {
		tb.Fatal(err)
	}
	return out
}

// Generate writes a tree of the given years (every year when none are given) to out and
// returns its site, for setups that have no testing.TB (TestMain, sync.Once).
func Generate(out string, years ...int) (*generator.Site, error) {
	s, err := site()
	if err != nil {
		return nil, err
	}
	if len(years) == 0 {
		years = nil
	}
	if _, err := generator.Generate(context.Background(), generator.Options{Site: s, Out: out, Years: years}); err != nil {
		return nil, fmt.Errorf("generate the test tree: %w", err)
	}
	return s, nil
}

func site() (*generator.Site, error) {
	c, err := generator.LoadContent(content.Embedded(), "content")
	if err != nil {
		return nil, fmt.Errorf("load the built-in content: %w", err)
	}
	return generator.NewSite(c, "")
}
