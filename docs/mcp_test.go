package docs_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
)

// mcpTableRow is a row of docs/mcp.md's tools table: the tool's name and its route's pattern
// after the API prefix.
var mcpTableRow = regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| `(/[^`]*)` \\|")

// TestMCPToolsTable: docs/mcp.md's table of tools lists exactly the tools of mcp.json, in its
// order, each beside its route's path.
func TestMCPToolsTable(t *testing.T) {
	s := generatortest.Site(t)
	c, err := s.MCPConfig()
	if err != nil {
		t.Fatal(err)
	}
	patterns := map[string]string{}
	for _, r := range generator.Routes() {
		patterns[r.Name] = strings.TrimPrefix(r.Pattern, manifest.APIPrefix)
	}
	var want, got []string
	for _, tool := range c.Tools {
		want = append(want, tool.Name+" "+patterns[tool.Route])
	}
	for _, m := range mcpTableRow.FindAllStringSubmatch(doc(t, "docs/mcp.md"), -1) {
		got = append(got, m[1]+" "+m[2])
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/mcp.md's tools table lists\n  %s\nmcp.json's tools are\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestREADMENamesMCP: the README tells a reader where the MCP endpoint is, how to run it over
// stdio and where its setup is written.
func TestREADMENamesMCP(t *testing.T) {
	readme := doc(t, "README.md")
	for _, want := range []string{"`POST " + manifest.MCPPath + "`", "`numerology mcp --dir out`", "(docs/mcp.md)"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}
