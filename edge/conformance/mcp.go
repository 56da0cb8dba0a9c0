package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
)

// The MCP endpoint (docs/mcp.md): its transport (methods, preflight, body cap, Origin,
// batches, notifications), its protocol versions (2026-07-28 with _meta and the standard
// headers, the 2025 revisions with initialize), and its tools, each called with the values
// the route's table cases use and compared byte for byte with the tree's files, the
// invalid ones answered with the route's error body, and the rate limit counting calls.

// mcpModern is the stateless revision; mcpLegacy the 2025 revisions answered statelessly.
const mcpModern = "2026-07-28"

var mcpLegacy = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// rpcAnswer is a decoded JSON-RPC answer of the endpoint.
type rpcAnswer struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id"`
	Result  json.RawMessage  `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// toolResult is a decoded tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	IsError    bool            `json:"isError"`
	ResultType string          `json:"resultType"`
}

// mcpConfig reads the tree's MCP config.
func (s *suite) mcpConfig(t *testing.T) manifest.MCPConfig {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.target.TreeDir, filepath.FromSlash(manifest.MCPFile)))
	if err != nil {
		t.Fatalf("mcp: %v", err)
	}
	var c manifest.MCPConfig
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("mcp: %s: %v", manifest.MCPFile, err)
	}
	return c
}

// mcpSend posts body to the endpoint with the given headers (a "Host" entry sets the
// request's Host) as client ("" for a fresh one).
func (s *suite) mcpSend(t *testing.T, method string, body []byte, header map[string]string, client string) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, s.target.BaseURL+manifest.MCPPath, rd)
	if err != nil {
		t.Fatalf("mcp: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if s.target.ClientHeader != "" {
		if client == "" {
			client = s.clientAddr()
		}
		req.Header.Set(s.target.ClientHeader, client)
	}
	sent := s.clock.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("mcp %s: %v", method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("mcp %s: read body: %v", method, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b, sent: sent, at: s.clock.Now()}
}

// modern is a request of 2026-07-28: the _meta fields in its params and the standard headers.
func modern(id any, method string, params map[string]any) ([]byte, map[string]string) {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    mcpModern,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "conformance", "version": "1"},
	}
	h := map[string]string{"MCP-Protocol-Version": mcpModern, "Mcp-Method": method}
	if n, ok := params["name"].(string); ok {
		h["Mcp-Name"] = n
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return b, h
}

// legacy is a request of a 2025 revision after its initialize.
func legacy(id any, method string, params map[string]any) ([]byte, map[string]string) {
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return b, map[string]string{"MCP-Protocol-Version": mcpLegacy[0]}
}

// decode decodes a JSON-RPC answer of the endpoint, which must be JSON with the response
// header set.
func (s *suite) decodeRPC(t *testing.T, what string, r response, c manifest.MCPConfig) rpcAnswer {
	t.Helper()
	s.headers(t, what, r.header, c.Headers.Response)
	var a rpcAnswer
	if err := json.Unmarshal(r.body, &a); err != nil || a.JSONRPC != "2.0" {
		t.Fatalf("%s: not a JSON-RPC answer (%v): %.300s", what, err, r.body)
	}
	return a
}

// wantError checks an error answer: status, code and, when id is not nil, the echoed id.
func (s *suite) wantError(t *testing.T, what string, r response, c manifest.MCPConfig, status, code int, id any) rpcAnswer {
	t.Helper()
	if r.status != status {
		t.Errorf("%s: status %d, want %d: %.300s", what, r.status, status, r.body)
	}
	a := s.decodeRPC(t, what, r, c)
	if a.Error == nil || a.Error.Code != code || a.Error.Message == "" {
		t.Fatalf("%s: want error %d, got %.300s", what, code, r.body)
	}
	if id != nil {
		want, _ := json.Marshal(id)
		if a.ID == nil || !bytes.Equal(*a.ID, want) {
			t.Errorf("%s: id %s, want %s", what, ptrString(a.ID), want)
		}
	} else if a.ID != nil {
		t.Errorf("%s: id %s, want none (it could not be read)", what, *a.ID)
	}
	return a
}

func ptrString(p *json.RawMessage) string {
	if p == nil {
		return "(none)"
	}
	return string(*p)
}

// testMCP runs the MCP checks.
func (s *suite) testMCP(t *testing.T) {
	c := s.mcpConfig(t)
	t.Run("transport", func(t *testing.T) { s.parallel(t); s.testMCPTransport(t, c) })
	t.Run("versions", func(t *testing.T) { s.parallel(t); s.testMCPVersions(t, c) })
	t.Run("tools", func(t *testing.T) { s.parallel(t); s.testMCPTools(t, c) })
	t.Run("rate limit", func(t *testing.T) { s.parallel(t); s.testMCPRateLimit(t, c) })
}

func (s *suite) testMCPTransport(t *testing.T, c manifest.MCPConfig) {
	r := s.mcpSend(t, http.MethodOptions, nil, map[string]string{
		"Origin": "https://example.org", "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "content-type, mcp-protocol-version, mcp-method, mcp-name"}, "")
	if r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Errorf("OPTIONS: status %d, body %q; want 204 and none", r.status, r.body)
	}
	s.headersExactly(t, "OPTIONS", r.header, c.Headers.Preflight)
	for _, m := range []string{http.MethodGet, http.MethodDelete, http.MethodPut} {
		r := s.mcpSend(t, m, nil, nil, "")
		s.wantError(t, m, r, c, http.StatusMethodNotAllowed, -32600, nil)
		if got := r.header.Get("Allow"); got != "POST" {
			t.Errorf("%s: Allow %q, want POST", m, got)
		}
	}
	ping, _ := legacy(1, "ping", nil)
	cases := []struct {
		name         string
		body         []byte
		header       map[string]string
		status, code int
		id           any
	}{
		{"parse error", []byte(`{"jsonrpc":"2.0","id":1,`), nil, 400, -32700, nil},
		{"batch", []byte(`[` + string(ping) + `]`), nil, 400, -32600, nil},
		{"not an object", []byte(`"ping"`), nil, 400, -32600, nil},
		{"no jsonrpc", []byte(`{"id":7,"method":"ping"}`), nil, 400, -32600, 7},
		{"null id", []byte(`{"jsonrpc":"2.0","id":null,"method":"ping"}`), nil, 400, -32600, nil},
		{"body over the cap", append(append([]byte(nil), ping[:len(ping)-1]...), append(bytes.Repeat([]byte(" "), c.MaxBodyBytes), '}')...), nil, 413, -32600, nil},
		{"same-origin page under a foreign name (DNS rebinding)", ping, map[string]string{"Host": "rebind.example", "Origin": "http://rebind.example"}, 403, -32600, nil},
		{"Origin that is no origin", ping, map[string]string{"Origin": "file:///etc/passwd"}, 403, -32600, nil},
	}
	for _, tc := range cases {
		r := s.mcpSend(t, http.MethodPost, tc.body, tc.header, "")
		s.wantError(t, tc.name, r, c, tc.status, tc.code, tc.id)
	}
	// Admitted: a body just under the cap, a cross-origin page (CORS), the site's own
	// origin, a loopback origin.
	under := append(append([]byte(nil), ping[:len(ping)-1]...), append(bytes.Repeat([]byte(" "), c.MaxBodyBytes-len(ping)), '}')...)
	for name, tc := range map[string]struct {
		body   []byte
		header map[string]string
	}{
		"body at the cap":     {under, nil},
		"cross-origin page":   {ping, map[string]string{"Origin": "https://example.org"}},
		"the site's own page": {ping, map[string]string{"Host": c.Hosts[0], "Origin": "https://" + c.Hosts[0]}},
		"a loopback page":     {ping, map[string]string{"Host": "localhost:8080", "Origin": "http://localhost:8080"}},
	} {
		r := s.mcpSend(t, http.MethodPost, tc.body, tc.header, "")
		if a := s.decodeRPC(t, name, r, c); r.status != 200 || string(a.Result) != "{}" {
			t.Errorf("%s: status %d, %.200s; want 200 and the ping's {}", name, r.status, r.body)
		}
	}
	r = s.mcpSend(t, http.MethodPost, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil, "")
	if r.status != http.StatusAccepted || len(r.body) != 0 {
		t.Errorf("notification: status %d, body %q; want 202 and none", r.status, r.body)
	}
	s.headersExactly(t, "notification", r.header, c.Headers.Accepted)
}

func (s *suite) testMCPVersions(t *testing.T, c manifest.MCPConfig) {
	supported := append([]string{mcpModern}, mcpLegacy...)
	// initialize negotiates a legacy version, and no session.
	for asked, want := range map[string]string{"2025-06-18": "2025-06-18", "2025-11-25": "2025-11-25", "2024-01-01": mcpLegacy[0], mcpModern: mcpLegacy[0]} {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": map[string]any{
			"protocolVersion": asked, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "1"}}})
		r := s.mcpSend(t, http.MethodPost, b, nil, "")
		a := s.decodeRPC(t, "initialize "+asked, r, c)
		var res struct {
			Version      string             `json:"protocolVersion"`
			Capabilities map[string]any     `json:"capabilities"`
			Server       manifest.MCPServer `json:"serverInfo"`
		}
		if err := json.Unmarshal(a.Result, &res); err != nil || res.Version != want || res.Server != c.Server || res.Capabilities["tools"] == nil {
			t.Errorf("initialize %s: %.300s; want version %s, the server %v and tools", asked, r.body, want, c.Server)
		}
		if v := r.header.Values("Mcp-Session-Id"); len(v) > 0 {
			t.Errorf("initialize %s: Mcp-Session-Id %q, want none (stateless)", asked, v)
		}
	}
	discover, dh := modern(5, "server/discover", nil)
	r := s.mcpSend(t, http.MethodPost, discover, dh, "")
	a := s.decodeRPC(t, "server/discover", r, c)
	var d struct {
		Versions   []string `json:"supportedVersions"`
		TTL        *int64   `json:"ttlMs"`
		Scope      string   `json:"cacheScope"`
		ResultType string   `json:"resultType"`
		Meta       map[string]manifest.MCPServer
	}
	if json.Unmarshal(a.Result, &d) != nil || !slices.Equal(d.Versions, supported) || d.TTL == nil || *d.TTL != c.TTLMs ||
		d.Scope != "public" || d.ResultType != "complete" {
		t.Errorf("server/discover: %.400s", r.body)
	}
	bad := func(mutate func(h map[string]string, meta map[string]any)) ([]byte, map[string]string) {
		params := map[string]any{}
		b, h := modern(9, "tools/list", params)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		meta := m["params"].(map[string]any)["_meta"].(map[string]any)
		mutate(h, meta)
		b, _ = json.Marshal(m)
		return b, h
	}
	cases := []struct {
		name         string
		body         []byte
		header       map[string]string
		status, code int
	}{}
	add := func(name string, status, code int, mutate func(h map[string]string, meta map[string]any)) {
		b, h := bad(mutate)
		cases = append(cases, struct {
			name         string
			body         []byte
			header       map[string]string
			status, code int
		}{name, b, h, status, code})
	}
	add("unknown version (header and _meta)", 400, -32022, func(h map[string]string, m map[string]any) {
		h["MCP-Protocol-Version"] = "2099-01-01"
		m["io.modelcontextprotocol/protocolVersion"] = "2099-01-01"
	})
	add("header and _meta disagree", 400, -32020, func(h map[string]string, m map[string]any) { h["MCP-Protocol-Version"] = mcpLegacy[0] })
	add("no MCP-Protocol-Version header", 400, -32020, func(h map[string]string, m map[string]any) { delete(h, "MCP-Protocol-Version") })
	add("no Mcp-Method header", 400, -32020, func(h map[string]string, m map[string]any) { delete(h, "Mcp-Method") })
	add("Mcp-Method of another method", 400, -32020, func(h map[string]string, m map[string]any) { h["Mcp-Method"] = "tools/call" })
	add("no clientCapabilities", 400, -32602, func(h map[string]string, m map[string]any) {
		delete(m, "io.modelcontextprotocol/clientCapabilities")
	})
	for _, tc := range cases {
		r := s.mcpSend(t, http.MethodPost, tc.body, tc.header, "")
		a := s.wantError(t, tc.name, r, c, tc.status, tc.code, 9)
		if tc.code == -32022 {
			var data struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			}
			if json.Unmarshal(a.Error.Data, &data) != nil || !slices.Equal(data.Supported, supported) || data.Requested != "2099-01-01" {
				t.Errorf("%s: data %s, want the supported versions and the requested one", tc.name, a.Error.Data)
			}
		}
	}
	// A legacy client's unknown header version is the same error, answered, not refused.
	b, h := legacy(3, "tools/list", nil)
	h["MCP-Protocol-Version"] = "1999-12-31"
	s.wantError(t, "unknown legacy header version", s.mcpSend(t, http.MethodPost, b, h, ""), c, 400, -32022, 3)
	// Methods: 2026-07-28 has no ping or initialize and answers an unknown method 404; the
	// legacy revisions answer it in the body.
	for _, m := range []string{"ping", "initialize", "prompts/list", "no/such"} {
		b, h := modern("m", m, nil)
		s.wantError(t, "modern "+m, s.mcpSend(t, http.MethodPost, b, h, ""), c, 404, -32601, "m")
	}
	b, h = legacy("m", "resources/list", nil)
	s.wantError(t, "legacy resources/list", s.mcpSend(t, http.MethodPost, b, h, ""), c, 200, -32601, "m")
	b, _ = legacy(4, "ping", nil)
	if r := s.mcpSend(t, http.MethodPost, b, nil, ""); r.status != 200 || string(s.decodeRPC(t, "ping without a header", r, c).Result) != "{}" {
		t.Errorf("ping without MCP-Protocol-Version (2025-03-26): %d %.200s", r.status, r.body)
	}
}

// toolArgs are the tool arguments of a route's canonical or raw values.
func toolArgs(tool manifest.MCPTool, r manifest.Route, vals []int) map[string]any {
	args := map[string]any{}
	k := 0
	for i, p := range r.Params {
		switch p.Type {
		case manifest.ParamDate:
			args[tool.Args[i][0]] = fmt.Sprintf("%04d-%02d-%02d", vals[k+2], vals[k+1], vals[k])
		case manifest.ParamBirthdayYear:
			args[tool.Args[i][0]] = fmt.Sprintf("%02d-%02d", vals[k+1], vals[k])
			args[tool.Args[i][1]] = vals[k+2]
		default:
			for j, name := range tool.Args[i] {
				args[name] = vals[k+j]
			}
		}
		k += p.Arity()
	}
	return args
}

func (s *suite) testMCPTools(t *testing.T, c manifest.MCPConfig) {
	for _, era := range []string{"modern", "legacy"} {
		req := modern
		if era == "legacy" {
			req = legacy
		}
		b, h := req(1, "tools/list", nil)
		r := s.mcpSend(t, http.MethodPost, b, h, "")
		a := s.decodeRPC(t, era+" tools/list", r, c)
		if !bytes.Equal(a.Result, c.List) {
			t.Errorf("%s tools/list: the result is not mcp.json's list byte for byte: %.300s", era, a.Result)
		}
	}
	b, h := modern(2, "tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}})
	s.wantError(t, "unknown tool", s.mcpSend(t, http.MethodPost, b, h, ""), c, 200, -32602, 2)
	routes := map[string]manifest.Route{}
	for _, r := range s.m.Edge.Routes {
		routes[r.Name] = r
	}
	// callID calls a tool with a request id and returns the answer's result, checking that
	// the answer carries that id.
	callID := func(t *testing.T, id any, name string, args any) (toolResult, json.RawMessage) {
		t.Helper()
		b, h := modern(id, "tools/call", map[string]any{"name": name, "arguments": args})
		r := s.mcpSend(t, http.MethodPost, b, h, "")
		a := s.decodeRPC(t, name, r, c)
		var res toolResult
		if r.status != 200 || a.Error != nil || json.Unmarshal(a.Result, &res) != nil || res.ResultType != "complete" || len(res.Content) == 0 {
			t.Fatalf("tools/call %s %v: %d %.300s", name, args, r.status, r.body)
		}
		if wantID, _ := json.Marshal(id); a.ID == nil || !bytes.Equal(*a.ID, wantID) {
			t.Errorf("tools/call %s %v with id %s: the answer's id is %s", name, args, wantID, ptrString(a.ID))
		}
		return res, a.Result
	}
	call := func(t *testing.T, name string, args any) toolResult {
		t.Helper()
		res, _ := callID(t, name, name, args)
		return res
	}
	for _, tool := range c.Tools {
		r, ok := routes[tool.Route]
		if !ok {
			t.Fatalf("tool %s: no route %s in edge.json", tool.Name, tool.Route)
		}
		t.Run(tool.Name, func(t *testing.T) {
			s.parallel(t)
			if r.RateLimited {
				s.drainShared()
			}
			for _, vals := range s.sampleValues(r)[:min(3, len(s.sampleValues(r)))] {
				args := toolArgs(tool, r, vals)
				res, first := callID(t, tool.Name, tool.Name, args)
				// The same call again, with another id, gets the same result under its own
				// id (the worker keeps the results of one-file-a-value routes).
				if _, again := callID(t, 7, tool.Name, args); !bytes.Equal(again, first) {
					t.Errorf("%v: a second call's result differs from the first's:\n%.300s\n%.300s", args, again, first)
				}
				want := s.rowExpect(r, vals)
				if want.status != 200 {
					if !res.IsError || res.Content[0].Text != s.m.Edge.Errors[want.errKey].Body {
						t.Errorf("%v: want isError and the %s body, got %+v", args, want.errKey, res)
					}
					continue
				}
				file, err := os.ReadFile(filepath.Join(s.target.TreeDir, filepath.FromSlash(want.file)))
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError || res.Content[0].Type != "text" || res.Content[0].Text != string(file) {
					t.Errorf("%v: the text is not %s byte for byte", args, want.file)
				}
				if tool.Structured != (res.Structured != nil) || (tool.Structured && !bytes.Equal(res.Structured, bytes.TrimSuffix(file, []byte("\n")))) {
					t.Errorf("%v: structuredContent %.100s, want %s (structured %v)", args, res.Structured, want.file, tool.Structured)
				}
			}
			if len(r.Params) == 0 {
				return
			}
			// Invalid arguments: missing, of the wrong type, outside the type's values.
			wantErr := r.Error
			if wantErr == "" {
				wantErr = s.m.Edge.EdgeErrors.NotFound
			}
			valid := toolArgs(tool, r, s.sampleValues(r)[0])
			var bad []map[string]any
			bad = append(bad, map[string]any{})
			for name, v := range valid {
				wrong := map[string]any{}
				for k, x := range valid {
					wrong[k] = x
				}
				if _, isString := v.(string); isString {
					wrong[name] = "15.05.1990"
				} else {
					wrong[name] = strconv.Itoa(v.(int))
				}
				bad = append(bad, wrong)
			}
			for _, args := range bad {
				res := call(t, tool.Name, args)
				if !res.IsError || res.Structured != nil || res.Content[0].Text != s.m.Edge.Errors[wantErr].Body {
					t.Errorf("%v: want isError with the %s body, got %+v", args, wantErr, res)
				}
			}
			for _, segs := range s.invalidSegments(r, s.sampleValues(r)[0]) {
				vals := make([]int, len(segs))
				numericSegs := true
				for i, seg := range segs {
					n, err := strconv.Atoi(seg)
					vals[i] = n
					numericSegs = numericSegs && err == nil && n >= 0 && strconv.Itoa(n) == seg && n < 10000
				}
				if !numericSegs {
					continue
				}
				want := s.ownerError(routePath(r, segs))
				res := call(t, tool.Name, toolArgs(tool, r, vals))
				if !res.IsError || res.Content[0].Text != s.m.Edge.Errors[want.errKey].Body {
					t.Errorf("%v: want isError with the %s body, got %+v", segs, want.errKey, res)
				}
			}
		})
	}
	if s.missing != "" {
		t.Run("missing file", func(t *testing.T) {
			d, m, y, _ := parseDate(s.target.MissingMatrixFile)
			for _, tool := range c.Tools {
				if r := routes[tool.Route]; r.Name == routeMatrix {
					res := call(t, tool.Name, toolArgs(tool, r, []int{d, m, y}))
					if !res.IsError || res.Content[0].Text != s.m.Edge.Errors[manifest.ErrInternal].Body {
						t.Errorf("the missing record: want isError with the internal error body, got %+v", res)
					}
				}
			}
		})
	}
}

// testMCPRateLimit checks that a call of a rate-limited tool counts against the client's
// budget as a request does, and that a refused call says when to retry.
func (s *suite) testMCPRateLimit(t *testing.T, c manifest.MCPConfig) {
	if s.target.ClientHeader == "" {
		t.Fatal("the MCP rate-limit checks need a target with Target.ClientHeader (a client per test)")
	}
	var tool manifest.MCPTool
	var route manifest.Route
	for _, tl := range c.Tools {
		for _, r := range s.m.Edge.Routes {
			if r.Name == tl.Route && r.RateLimited && tool.Name == "" {
				tool, route = tl, r
			}
		}
	}
	if tool.Name == "" {
		t.Fatal("no tool of a rate-limited route")
	}
	lp := s.limitedPaths()[0]
	args := toolArgs(tool, route, s.sampleValues(route)[0])
	callBody, callHeader := modern(1, "tools/call", map[string]any{"name": tool.Name, "arguments": args})
	s.exhausted(t, func() (time.Time, func()) {
		client := s.clientAddr()
		start := s.clock.Now()
		// RateLimit-1 requests and one call: all admitted; then the budget is spent.
		for i := range s.target.RateLimit - 1 {
			if r := s.doRaw(t, http.MethodGet, lp.valid, client); r.status == 429 {
				t.Fatalf("request %d: 429 under the limit", i+1)
			}
		}
		first := s.mcpSend(t, http.MethodPost, callBody, callHeader, client)
		after := s.doRaw(t, http.MethodGet, lp.valid, client)
		refused := s.mcpSend(t, http.MethodPost, callBody, callHeader, client)
		return start, func() {
			var res toolResult
			a := s.decodeRPC(t, "the call within the limit", first, c)
			if json.Unmarshal(a.Result, &res) != nil || res.IsError {
				t.Errorf("the call within the limit: %.300s", first.body)
			}
			if after.status != 429 {
				t.Errorf("the request after %d requests and one call: %d, want 429 (the call counts)", s.target.RateLimit-1, after.status)
			}
			a = s.decodeRPC(t, "the refused call", refused, c)
			res = toolResult{}
			if refused.status != 200 || json.Unmarshal(a.Result, &res) != nil || !res.IsError || len(res.Content) != 2 ||
				res.Content[0].Text != s.m.Edge.Errors[manifest.ErrTooManyRequests].Body {
				t.Fatalf("the refused call: %d %.300s; want isError with the 429 body and Retry-After", refused.status, refused.body)
			}
			secs, ok := strings.CutPrefix(res.Content[1].Text, "Retry-After: ")
			n, err := strconv.Atoi(secs)
			if !ok || err != nil || n < 1 || time.Duration(n)*time.Second > s.target.RateWindow || refused.header.Get("Retry-After") != secs {
				t.Errorf("the refused call: %q and header Retry-After %q, want whole seconds in [1, %v]", res.Content[1].Text, refused.header.Get("Retry-After"), s.target.RateWindow)
			}
		}
	})
}
