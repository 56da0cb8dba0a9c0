package generator

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// The MCP endpoint (docs/mcp.md): one tool per route of the route table, derived from its
// row and its body's schema in the OpenAPI document, written to manifest.MCPFile for the
// edges.

// mcpMaxBodyBytes caps an MCP request body: a tools/call with a date and the _meta a client
// adds (its name, version and capabilities) is under 2 KiB, so 64 KiB leaves room for any
// client and bounds what one request can make an edge hold.
const mcpMaxBodyBytes = 64 << 10

// mcpServerName is the server's name in its identity (serverInfo).
const mcpServerName = "open-numerology-data"

// mcpTTLMs is the freshness hint of tools/list and server/discover: the tools change only
// with a deploy, and a day is the 200's max-age (docs/design.md §4).
const mcpTTLMs = 86_400_000

// mcpRoutes are the routes that are tools: all but those tagged "meta" (the index and the
// OpenAPI document describe the API, which tools/list itself does for a client).
func mcpRoutes(routes []manifest.Route) []manifest.Route {
	var out []manifest.Route
	for _, r := range routes {
		if r.Tag != "meta" {
			out = append(out, r)
		}
	}
	return out
}

// mcpToolName is a tool's name: the route's operationId in snake case (getMatrix →
// get_matrix), the usual spelling of tool names.
func mcpToolName(r manifest.Route) string {
	var b strings.Builder
	for i, c := range r.OperationID {
		if unicode.IsUpper(c) {
			if i > 0 {
				b.WriteByte('_')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// MCPConfig builds the MCP config of the edges (manifest.MCPFile): the tools of the route
// table, their input schemas from the parameter types and their output schemas from the
// OpenAPI document's component schemas, made self-contained.
func (s *Site) MCPConfig() (manifest.MCPConfig, error) {
	cfg, err := s.EdgeConfig()
	if err != nil {
		return manifest.MCPConfig{}, err
	}
	doc, err := s.OpenAPI()
	if err != nil {
		return manifest.MCPConfig{}, err
	}
	server := manifest.MCPServer{Name: mcpServerName, Title: s.Content.Site.Title, Version: manifest.APIVersion}
	m := manifest.MCPConfig{
		Server:       server,
		Instructions: s.mcpInstructions(),
		MaxBodyBytes: mcpMaxBodyBytes,
		TTLMs:        mcpTTLMs,
		Hosts:        []string{siteHost(s.SiteURL)},
		Headers:      MCPHeaders(),
	}
	var tools []obj
	for _, r := range mcpRoutes(cfg.Routes) {
		out, err := outputSchema(doc, r.Pattern)
		if err != nil {
			return m, fmt.Errorf("mcp: route %s: %w", r.Name, err)
		}
		t := manifest.MCPTool{Name: mcpToolName(r), Route: r.Name, Args: [][]string{}}
		props, required := obj{}, []string{}
		names := r.ParamNames()
		for _, p := range r.Params {
			args := manifest.MCPArgNames(p, names[:p.Arity()])
			names = names[p.Arity():]
			t.Args = append(t.Args, args)
			for _, a := range args {
				props[a] = argSchema(p)
				required = append(required, a)
			}
		}
		in := obj{"type": "object", "additionalProperties": false}
		if len(required) > 0 {
			in["properties"] = props
			in["required"] = required
		}
		t.Structured = out["type"] == "object"
		m.Tools = append(m.Tools, t)
		def := obj{
			"name":        t.Name,
			"title":       r.Summary,
			"description": mcpDescription(r),
			"inputSchema": in,
			"annotations": obj{
				"title":           r.Summary,
				"readOnlyHint":    true,
				"destructiveHint": false,
				"idempotentHint":  true,
				"openWorldHint":   false,
			},
		}
		if t.Structured {
			def["outputSchema"] = out
		}
		tools = append(tools, def)
	}
	list, err := Encode(obj{
		"tools":      tools,
		"ttlMs":      mcpTTLMs,
		"cacheScope": "public",
		"resultType": "complete",
		"_meta":      obj{"io.modelcontextprotocol/serverInfo": server},
	})
	if err != nil {
		return m, fmt.Errorf("mcp: encode tools/list: %w", err)
	}
	m.List = list[:len(list)-1] // without Encode's newline: it is spliced into answers
	if err := m.Check(&cfg); err != nil {
		return m, fmt.Errorf("mcp config: %w", err)
	}
	return m, nil
}

// MCPFileBody is the content of manifest.MCPFile.
func (s *Site) MCPFileBody() ([]byte, error) {
	m, err := s.MCPConfig()
	if err != nil {
		return nil, err
	}
	return Encode(m)
}

// MCPHeaders are the header sets of the MCP endpoint: JSON answers that no cache keeps
// (POST), open to every origin like the API (§4), with the preflight a browser client
// sends before its POST (its Content-Type and MCP's own headers).
func MCPHeaders() manifest.MCPHeaders {
	common := map[string]string{
		"Access-Control-Allow-Origin":   "*",
		"Access-Control-Expose-Headers": "Retry-After, X-API-License",
		"X-API-License":                 LicenseHeader,
		"X-Content-Type-Options":        "nosniff",
		"Cache-Control":                 CacheNoStore,
	}
	with := func(extra map[string]string) map[string]string {
		out := maps.Clone(common)
		maps.Copy(out, extra)
		return out
	}
	return manifest.MCPHeaders{
		Response:   with(map[string]string{"Content-Type": "application/json; charset=utf-8"}),
		Accepted:   with(nil),
		NotAllowed: map[string]string{"Allow": "POST"},
		Preflight: map[string]string{
			"Access-Control-Allow-Origin":  "*",
			"Access-Control-Allow-Methods": "POST, OPTIONS",
			// "*" is any header for a request without credentials, which MCP's are
			// (Content-Type, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*,
			// Mcp-Session-Id and Last-Event-ID of older clients, which are ignored).
			"Access-Control-Allow-Headers": "*",
			"Access-Control-Max-Age":       "86400",
			"X-API-License":                LicenseHeader,
			"X-Content-Type-Options":       "nosniff",
		},
	}
}

// argSchema is the JSON Schema of one tool argument of a parameter type.
func argSchema(p manifest.ParamType) obj {
	switch p.Type {
	case manifest.ParamNumber, manifest.ParamPair:
		return obj{"type": "integer", "enum": slices.Clone(p.Numbers),
			"description": "one of " + numbersEn(p.Numbers)}
	case manifest.ParamDate:
		return obj{"type": "string", "pattern": `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`,
			"description": fmt.Sprintf("a birth date as YYYY-MM-DD, from %d-01-01 to %d-12-31", p.FirstYear, p.LastYear)}
	}
	panic("generator bug: no tool argument for parameter type " + p.Type)
}

// numbersEn writes ascending numbers with runs shortened: 1–9, 11, 22, 33.
func numbersEn(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, fmt.Sprintf("%d–%d", ns[i], ns[j]))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, fmt.Sprint(ns[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// mcpDescription is a tool's description: the row's English description, the Russian one,
// and what the answer is.
func mcpDescription(r manifest.Route) string {
	en := strings.ToUpper(r.English[:1]) + r.English[1:]
	return fmt.Sprintf("%s. %s. Returns the record of GET %s as JSON (Russian texts, CC BY 4.0: keep its attribution and suggested_citation).",
		en, r.Description, r.Pattern)
}

// mcpInstructions tells the model what the server offers.
func (s *Site) mcpInstructions() string {
	return fmt.Sprintf("%s: read-only numerology data in Russian (life path numbers and their compatibility, the destiny matrix, the Pythagoras square, the 22 major arcana) for birth dates from %d-01-01 to %d-12-31. "+
		"Each tool returns the API's record as JSON; dates are YYYY-MM-DD. The data is CC BY 4.0: credit it with the record's attribution or suggested_citation. %s",
		s.Content.Site.Title, rules.FirstYear, rules.LastYear, s.Content.Site.DisclaimerEN)
}

// outputSchema is the schema of the 200 body of the route with the given pattern in the
// OpenAPI document, made self-contained: the component schemas it refers to, transitively,
// become its $defs, and keywords JSON Schema 2020-12 lacks (OpenAPI's example) are dropped.
func outputSchema(doc obj, pattern string) (obj, error) {
	schema, ok := dig(doc, "paths", pattern, "get", "responses", "200", "content", "application/json", "schema").(obj)
	if !ok {
		return nil, fmt.Errorf("the OpenAPI document has no JSON schema for GET %s 200", pattern)
	}
	comps, _ := dig(doc, "components", "schemas").(obj)
	const prefix = "#/components/schemas/"
	if ref, ok := schema["$ref"].(string); ok && len(schema) == 1 {
		// MCP wants an object schema at the root ("type": "object"), not a reference.
		if schema, ok = comps[strings.TrimPrefix(ref, prefix)].(obj); !ok {
			return nil, fmt.Errorf("$ref %q: no such component", ref)
		}
	}
	defs := obj{}
	var walk func(v any) (any, error)
	walk = func(v any) (any, error) {
		switch v := v.(type) {
		case obj:
			out := obj{}
			for k, x := range v {
				if k == "example" || k == "examples" {
					continue
				}
				if k == "$ref" {
					ref, _ := x.(string)
					name, ok := strings.CutPrefix(ref, prefix)
					if !ok {
						return nil, fmt.Errorf("$ref %q is not a component schema", ref)
					}
					if _, done := defs[name]; !done {
						c, ok := comps[name]
						if !ok {
							return nil, fmt.Errorf("$ref %q: no such component", ref)
						}
						defs[name] = nil // taken: a schema that refers to itself ends here
						w, err := walk(c)
						if err != nil {
							return nil, err
						}
						defs[name] = w
					}
					out[k] = "#/$defs/" + name
					continue
				}
				w, err := walk(x)
				if err != nil {
					return nil, err
				}
				out[k] = w
			}
			return out, nil
		case []any:
			out := make([]any, len(v))
			for i, x := range v {
				w, err := walk(x)
				if err != nil {
					return nil, err
				}
				out[i] = w
			}
			return out, nil
		}
		return v, nil
	}
	w, err := walk(schema)
	if err != nil {
		return nil, err
	}
	out := w.(obj)
	if len(defs) > 0 {
		out["$defs"] = defs
	}
	return out, nil
}

// siteHost is the host name of a site URL, lowercase, without port.
func siteHost(siteURL string) string {
	h, _ := strings.CutPrefix(siteURL, "https://")
	h, _ = strings.CutPrefix(h, "http://")
	h, _, _ = strings.Cut(h, "/")
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.HasSuffix(h, "]") {
		h = h[:i]
	}
	return strings.ToLower(h)
}

// dig follows keys through nested objects, nil when one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		o, ok := v.(obj)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}
