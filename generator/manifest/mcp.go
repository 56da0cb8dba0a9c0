package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// The MCP endpoint (docs/mcp.md): every route as a tool of the Model Context Protocol.
const (
	// MCPPath is the URL path of the MCP endpoint on both edges: POST, JSON-RPC 2.0.
	MCPPath = "/mcp"
	// MCPFile is the MCP config (MCPConfig), read by the edges; like edge.json it is not
	// served as an API route.
	MCPFile = APIDir + "/mcp.json"
)

// MCPConfig is what the edges need to answer MCP requests, besides the edge config: the
// server's identity, the limits of a request, the header sets of an answer, which route
// each tool calls and how its arguments fill the route's parameters, and the tools/list
// result, prebuilt.
type MCPConfig struct {
	Server       MCPServer `json:"server"`
	Instructions string    `json:"instructions"` // for the model: what the server offers
	// MaxBodyBytes caps a request body; a larger one is refused unread.
	MaxBodyBytes int `json:"max_body_bytes"`
	// TTLMs is the freshness hint of the cacheable results (tools/list, server/discover).
	TTLMs int64 `json:"ttl_ms"`
	// Hosts are the host names, besides loopback names and IP addresses, under which a
	// browser page may call the endpoint from its own origin (the site's): a same-origin
	// request under any other name is a DNS rebinding and is refused (docs/mcp.md).
	Hosts   []string   `json:"hosts"`
	Headers MCPHeaders `json:"headers"`
	Tools   []MCPTool  `json:"tools"`
	// List is the result of tools/list, byte for byte what an answer holds after "result":.
	List json.RawMessage `json:"list"`
}

// MCPServer is the server's identity (MCP's Implementation).
type MCPServer struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
}

// MCPHeaders are the header sets of the MCP endpoint's answers.
type MCPHeaders struct {
	// Response is the set of every answer with a body (JSON-RPC), whatever its status.
	Response map[string]string `json:"response"`
	// Accepted is the set of the 202 to a notification, which has no body.
	Accepted map[string]string `json:"accepted"`
	// NotAllowed is added to Response for a method other than POST and OPTIONS (405).
	NotAllowed map[string]string `json:"not_allowed"`
	// Preflight is the CORS preflight's set (204, no body).
	Preflight map[string]string `json:"preflight"`
}

// MCPTool binds one tool to a route: its name, the route's name in the edge config, and for
// each parameter type of the route the names of the tool arguments it takes (MCPArgNames).
type MCPTool struct {
	Name  string     `json:"name"`
	Route string     `json:"route"`
	Args  [][]string `json:"args"`
	// Structured: a call's result carries the record as structuredContent too, and the tool
	// has an outputSchema. Only a record that is a JSON object can be (MCP 2025-06-18 and
	// 2025-11-25 want an object there), so a list that is an array is text alone.
	Structured bool `json:"structured"`
}

// MCPArgNames is how many tool arguments a parameter type takes, in order: a number one
// (the parameter's name), a pair two (its two names), a date one (a "YYYY-MM-DD" string
// named ArgDate). Adding a parameter type is a case here and one per edge.
func MCPArgNames(t ParamType, params []string) []string {
	switch t.Type {
	case ParamNumber, ParamPair:
		return params
	case ParamDate:
		return []string{ArgDate}
	}
	return nil
}

// ArgDate is the name of a date's tool argument, a "YYYY-MM-DD" string.
const ArgDate = "date"

// Check reports what makes the MCP config unusable with the edge config cfg, all of it: a
// tool of an unknown route, arguments that do not fit the route's types, a tool named
// twice, a missing limit or header set, a list that is not a JSON object.
func (m *MCPConfig) Check(cfg *EdgeConfig) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if m.MaxBodyBytes <= 0 || m.TTLMs < 0 {
		bad("max_body_bytes must be positive and ttl_ms not negative")
	}
	if m.Server.Name == "" || m.Server.Version == "" {
		bad("server: name and version must not be empty")
	}
	if len(m.Headers.Response) == 0 || len(m.Headers.Preflight) == 0 || len(m.Headers.NotAllowed) == 0 {
		bad("headers: the response, not_allowed and preflight sets must not be empty")
	}
	var list map[string]json.RawMessage
	if err := json.Unmarshal(m.List, &list); err != nil || list["tools"] == nil {
		bad("list: want the JSON object of a tools/list result")
	}
	var names []string
	for _, t := range m.Tools {
		if slices.Contains(names, t.Name) {
			bad("tool %s: the name is used twice", t.Name)
		}
		names = append(names, t.Name)
		i := slices.IndexFunc(cfg.Routes, func(r Route) bool { return r.Name == t.Route })
		if i < 0 {
			bad("tool %s: no route %q", t.Name, t.Route)
			continue
		}
		r := cfg.Routes[i]
		if len(t.Args) != len(r.Params) {
			bad("tool %s: %d argument lists for the %d parameter types of route %s", t.Name, len(t.Args), len(r.Params), r.Name)
			continue
		}
		params := r.ParamNames()
		if r.Arity() != len(params) {
			bad("tool %s: route %s: its types do not take its pattern's parameters", t.Name, r.Name)
			continue
		}
		for j, p := range r.Params {
			want := MCPArgNames(p, params[:p.Arity()])
			params = params[p.Arity():]
			if !slices.Equal(t.Args[j], want) {
				bad("tool %s: arguments %v for a %s, want %v", t.Name, t.Args[j], p.Type, want)
			}
		}
	}
	return errors.Join(errs...)
}
