// Package mcptest drives the MCP tools of a generated tree with the official clients, for
// the tests of the endpoint on both edges (edge/mcptest's own tests) and of numerology mcp
// over stdio (cmd/numerology): the Go SDK client here, and through Node the TypeScript SDK
// client and the official conformance suite, which the npm project beside it pins.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/opennumerology/numerology/generator/manifest"
)

// Versions are the protocol versions the clients speak to the endpoint: the stateless
// revision and the latest one with the initialize handshake.
var Versions = []string{"2026-07-28", "2025-11-25"}

// Call is one tool call and the tree file whose bytes it must answer ("" for an error).
type Call struct {
	Tool string
	Args map[string]any
	File string
	// Structured: the record is also the result's structuredContent.
	Structured bool
}

// Calls are a call of every tool of the tree's MCP config, with an example value of its
// route in a year the tree holds, and an invalid call of each tool that takes arguments.
func Calls(t testing.TB, dir string) []Call {
	t.Helper()
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(manifest.MCPFile)))
	if err != nil {
		t.Fatal(err)
	}
	var c manifest.MCPConfig
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	year := m.Years[0]
	var calls []Call
	for _, tool := range c.Tools {
		i := slices.IndexFunc(m.Edge.Routes, func(r manifest.Route) bool { return r.Name == tool.Route })
		if i < 0 {
			t.Fatalf("tool %s: no route %s", tool.Name, tool.Route)
		}
		r := m.Edge.Routes[i]
		var vals []int
		args, bad := map[string]any{}, map[string]any{}
		for j, p := range r.Params {
			switch p.Type {
			case manifest.ParamDate:
				vals = append(vals, 15, 5, year)
				args[tool.Args[j][0]] = fmt.Sprintf("%04d-05-15", year)
				bad[tool.Args[j][0]] = fmt.Sprintf("%04d-02-30", year)
			default:
				for _, name := range tool.Args[j] {
					n := p.Numbers[len(p.Numbers)-1-len(vals)%len(p.Numbers)]
					vals = append(vals, n)
					args[name] = n
					bad[name] = p.Numbers[len(p.Numbers)-1] + 1
				}
			}
		}
		canon := slices.Clone(vals)
		if !r.Admit(canon) {
			t.Fatalf("tool %s: %v is not a value of route %s", tool.Name, vals, r.Name)
		}
		calls = append(calls, Call{Tool: tool.Name, Args: args, File: r.FilePath(canon), Structured: tool.Structured})
		if len(r.Params) > 0 {
			calls = append(calls, Call{Tool: tool.Name, Args: bad})
		}
	}
	return calls
}

// CheckSession lists the tools of a session and calls every one (Calls), comparing each
// answer with the tree: the text is the file's bytes, structuredContent the same record,
// an invalid call a tool error.
func CheckSession(t testing.TB, ctx context.Context, cs *mcp.ClientSession, dir string) {
	t.Helper()
	calls := Calls(t, dir)
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s: not read-only", tool.Name)
		}
	}
	for _, c := range calls {
		if !slices.Contains(names, c.Tool) {
			t.Errorf("tools/list lacks %s: %v", c.Tool, names)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		if err != nil {
			t.Errorf("tools/call %s %v: %v", c.Tool, c.Args, err)
			continue
		}
		CheckResult(t, dir, c, res)
	}
}

// CheckResult checks the result of a call.
func CheckResult(t testing.TB, dir string, c Call, res *mcp.CallToolResult) {
	t.Helper()
	what := fmt.Sprintf("tools/call %s %v", c.Tool, c.Args)
	if len(res.Content) == 0 {
		t.Errorf("%s: no content", what)
		return
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if c.File == "" {
		if !res.IsError || text == nil || !bytes.Contains([]byte(text.Text), []byte(`"error"`)) {
			t.Errorf("%s: want a tool error with the route's error body, got %+v", what, res)
		}
		return
	}
	want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(c.File)))
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || text == nil || text.Text != string(want) {
		t.Errorf("%s: the text is not %s byte for byte", what, c.File)
	}
	if !c.Structured {
		if res.StructuredContent != nil {
			t.Errorf("%s: structuredContent for a tool without outputSchema", what)
		}
		return
	}
	got, err := json.Marshal(res.StructuredContent)
	if err != nil || !JSONEqual(got, want) {
		t.Errorf("%s: structuredContent is not the record of %s: %.200s", what, c.File, got)
	}
}

// JSONEqual reports whether two JSON texts hold the same value.
func JSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
