package generator_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
)

// mcpTool is a tool of tools/list, as MCP clients read it.
type mcpTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  struct {
		ReadOnly   bool `json:"readOnlyHint"`
		Idempotent bool `json:"idempotentHint"`
	} `json:"annotations"`
}

func mcpConfig(t *testing.T) (manifest.MCPConfig, []mcpTool) {
	t.Helper()
	c, err := generatortest.Site(t).MCPConfig()
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools      []mcpTool `json:"tools"`
		TTL        int64     `json:"ttlMs"`
		Scope      string    `json:"cacheScope"`
		ResultType string    `json:"resultType"`
	}
	if err := json.Unmarshal(c.List, &list); err != nil {
		t.Fatal(err)
	}
	if list.TTL != c.TTLMs || list.Scope != "public" || list.ResultType != "complete" {
		t.Errorf("tools/list: ttlMs %d, cacheScope %q, resultType %q", list.TTL, list.Scope, list.ResultType)
	}
	return c, list.Tools
}

// compile compiles a tool's schema as a JSON Schema 2020-12 validator asserting formats.
func compile(t *testing.T, name string, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: not a JSON Schema 2020-12: %v", name, err)
	}
	return s
}

// TestMCPTools: one tool per route but the meta ones, named, titled and described from its
// row, read-only, with input schemas that take exactly the values the route admits
// (written as tool arguments) and object output schemas; the config passes its own check.
func TestMCPTools(t *testing.T) {
	c, tools := mcpConfig(t)
	cfg, err := generatortest.Site(t).EdgeConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(&cfg); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range generator.Routes() {
		if r.Tag != "meta" {
			want = append(want, r.Name)
		}
	}
	var got []string
	for i, b := range c.Tools {
		got = append(got, b.Route)
		tool := tools[i]
		r := cfg.Routes[slices.IndexFunc(cfg.Routes, func(r manifest.Route) bool { return r.Name == b.Route })]
		if tool.Name != b.Name || tool.Title != r.Summary || !strings.Contains(tool.Description, r.Description) ||
			!strings.Contains(strings.ToLower(tool.Description), strings.ToLower(r.English)) {
			t.Errorf("tool %s: name, title or description not from route %s: %+v", b.Name, r.Name, tool)
		}
		if !tool.Annotations.ReadOnly || !tool.Annotations.Idempotent {
			t.Errorf("tool %s: not read-only and idempotent", tool.Name)
		}
		if b.Structured != (tool.OutputSchema != nil) {
			t.Errorf("tool %s: structured %v, outputSchema %s", tool.Name, b.Structured, tool.OutputSchema)
		}
		in := compile(t, tool.Name+"-input", tool.InputSchema)
		// Every value the route admits, as arguments, is valid; a value it does not admit
		// of the right shape is the edge's to refuse (30.02 passes the pattern).
		vals := r.Values([]int{1900, 2000, 2100})
		for _, v := range vals[:min(len(vals), 400)] {
			args := argsOf(b, r, v)
			if err := in.Validate(args); err != nil {
				t.Errorf("tool %s: %v: %v", tool.Name, args, err)
				break
			}
		}
		if len(r.Params) > 0 {
			for _, bad := range []map[string]any{{}, {"extra": 1}} {
				if in.Validate(bad) == nil {
					t.Errorf("tool %s: the input schema admits %v", tool.Name, bad)
				}
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("tools of the routes %v, want %v", got, want)
	}
}

// argsOf writes canonical values of a route as the tool's arguments.
func argsOf(b manifest.MCPTool, r manifest.Route, vals []int) map[string]any {
	args := map[string]any{}
	k := 0
	for i, p := range r.Params {
		if p.Type == manifest.ParamDate {
			args[b.Args[i][0]] = fmt.Sprintf("%04d-%02d-%02d", vals[k+2], vals[k+1], vals[k])
		} else if p.Type == manifest.ParamBirthdayYear {
			args[b.Args[i][0]] = fmt.Sprintf("%02d-%02d", vals[k+1], vals[k])
			args[b.Args[i][1]] = json.Number(fmt.Sprint(vals[k+2]))
		} else {
			for j, name := range b.Args[i] {
				args[name] = json.Number(fmt.Sprint(vals[k+j]))
			}
		}
		k += p.Arity()
	}
	return args
}

// TestMCPCheck: the config's check refuses tools an edge cannot follow.
func TestMCPCheck(t *testing.T) {
	cfg, err := generatortest.Site(t).EdgeConfig()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(c *manifest.MCPConfig)
		want   string
	}{
		{"unknown route", func(c *manifest.MCPConfig) { c.Tools[0].Route = "nope" }, `no route "nope"`},
		{"wrong arguments", func(c *manifest.MCPConfig) {
			for i := range c.Tools {
				if len(c.Tools[i].Args) > 0 {
					c.Tools[i].Args[0] = []string{"x", "y"}
					return
				}
			}
		}, "arguments [x y]"},
		{"a name twice", func(c *manifest.MCPConfig) { c.Tools[1].Name = c.Tools[0].Name }, "used twice"},
		{"no body cap", func(c *manifest.MCPConfig) { c.MaxBodyBytes = 0 }, "max_body_bytes"},
		{"no list", func(c *manifest.MCPConfig) { c.List = json.RawMessage(`[]`) }, "list:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := generatortest.Site(t).MCPConfig()
			if err != nil {
				t.Fatal(err)
			}
			tt.change(&c)
			if err := c.Check(&cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestMCPRecordsValidate: the records of three years of the full tree (1900, 2000, 2100)
// validate against their tools' outputSchema, as MCP clients check structuredContent (the
// TypeScript SDK with Ajv, the Go SDK with jsonschema-go); here a second, independent 2020-12
// validator, formats asserted.
func TestMCPRecordsValidate(t *testing.T) {
	dir := generatortest.FullTree(t)
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
	var list struct {
		Tools []mcpTool `json:"tools"`
	}
	if err := json.Unmarshal(c.List, &list); err != nil {
		t.Fatal(err)
	}
	// A job is one file: a record, or a packed month file of records, one a line (the same
	// bytes as the per-date files, in a twelfth of the files).
	type job struct {
		schema *jsonschema.Schema
		tool   string
		file   string
	}
	jobs := make(chan job, 256)
	var mu sync.Mutex
	var failures []string
	counts := map[string]int{}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(j.file)))
				if err != nil {
					t.Error(err)
					continue
				}
				n := 0
				for rec := range bytes.Lines(b) {
					n++
					v, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec))
					if err == nil {
						err = j.schema.Validate(v)
					}
					if err != nil {
						mu.Lock()
						if len(failures) < 10 {
							failures = append(failures, fmt.Sprintf("%s: %s line %d: %v", j.tool, j.file, n, err))
						}
						mu.Unlock()
					}
				}
				mu.Lock()
				counts[j.tool] += n
				mu.Unlock()
			}
		})
	}
	// The records of the first year, 2000 and the last: every date of the full range is
	// validated by edge/mcptest's TestRecordsValidate with the TypeScript SDK's own
	// validator (Ajv), in a twentieth of this validator's time.
	years := []int{m.Years[0], 2000, m.Years[len(m.Years)-1]}
	if !slices.Contains(m.Years, 2000) {
		t.Fatalf("the full tree lacks 2000: %v", m.Years)
	}
	for i, tool := range list.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		s := compile(t, tool.Name+"-output", tool.OutputSchema)
		r := m.Edge.Routes[slices.IndexFunc(m.Edge.Routes, func(r manifest.Route) bool { return r.Name == c.Tools[i].Route })]
		seen := map[string]bool{}
		for _, v := range r.Values(years) {
			f := r.FilePath(v)
			if p, _ := r.PackedPath(v); p != "" {
				f = p
			}
			if !seen[f] {
				seen[f] = true
				jobs <- job{s, tool.Name, f}
			}
		}
	}
	close(jobs)
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	for _, tool := range list.Tools {
		if tool.OutputSchema != nil && counts[tool.Name] == 0 {
			t.Errorf("tool %s: no record validated", tool.Name)
		}
	}
	t.Logf("records validated per tool: %v", counts)
}
