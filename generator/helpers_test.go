package generator

import (
	"testing"

	"github.com/opennumerology/numerology/content"
)

// testSite returns the site of the built-in content.
func testSite(tb testing.TB) *Site {
	tb.Helper()
	c, err := LoadContent(content.Embedded(), "content")
	if err != nil {
		tb.Fatal(err)
	}
	s, err := NewSite(c, "")
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
