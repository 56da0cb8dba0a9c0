package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/opennumerology/numerology/generator/manifest"
)

// The MCP endpoint (docs/mcp.md): POST manifest.MCPPath, JSON-RPC 2.0 answered as
// application/json, no sessions and no server-to-client streams. It speaks the stateless
// revision 2026-07-28 (per-request _meta, server/discover) and, for clients in use today,
// the 2025 revisions statelessly (initialize answered without a session). Each tool is a
// route of the table (api/public/mcp.json binds them): a call builds the route's path from
// its arguments and answers what a GET of that path answers, the record's bytes or the
// route's error body, counted against the client's rate limit like the request.

// Protocol versions: the modern (stateless) one and the legacy ones answered statelessly.
const mcpModern = "2026-07-28"

var mcpLegacy = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// mcpSupported is the list a version error and server/discover give.
var mcpSupported = append([]string{mcpModern}, mcpLegacy...)

// mcpNoHeaderVersion is the version of a request without MCP-Protocol-Version and without
// _meta: a client from before the header (2025-06-18 added it) or curl.
const mcpNoHeaderVersion = "2025-03-26"

// JSON-RPC and MCP error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeHeaderMismatch = -32020
	codeVersion        = -32022
)

// Per-request _meta keys of 2026-07-28.
const (
	metaVersion      = "io.modelcontextprotocol/protocolVersion"
	metaCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// mcpArgType is how a parameter type takes its tool arguments: how many (in the order of
// MCPTool.Args) and how they become the type's parameters, Arity of them; false for
// arguments that are no value of the type's shape. Adding a parameter type is an entry here.
type mcpArgType struct {
	args   int
	decode func(args []json.RawMessage, params []int) bool
}

var mcpArgTypes = map[string]mcpArgType{
	manifest.ParamNumber: {1, func(a []json.RawMessage, p []int) bool { return argInt(a[0], &p[0]) }},
	manifest.ParamPair: {2, func(a []json.RawMessage, p []int) bool {
		return argInt(a[0], &p[0]) && argInt(a[1], &p[1])
	}},
	manifest.ParamDate: {1, func(a []json.RawMessage, p []int) bool {
		var s string
		if json.Unmarshal(a[0], &s) != nil || len(s) != 10 || s[4] != '-' || s[7] != '-' {
			return false
		}
		y, oky := numeric(s[:4])
		m, okm := numeric(s[5:7])
		d, okd := numeric(s[8:])
		p[0], p[1], p[2] = d, m, y
		return oky && okm && okd
	}},
	manifest.ParamBirthdayYear: {2, func(a []json.RawMessage, p []int) bool {
		var s string
		if json.Unmarshal(a[0], &s) != nil || len(s) != 5 || s[2] != '-' {
			return false
		}
		m, okm := numeric(s[:2])
		d, okd := numeric(s[3:])
		p[0], p[1] = d, m
		return okm && okd && argInt(a[1], &p[2])
	}},
}

// argInt reads an integer-valued JSON number of at most nine digits (7, 7.0 and 7e0 alike).
func argInt(raw json.RawMessage, n *int) bool {
	var f float64
	if json.Unmarshal(raw, &f) != nil || f != float64(int64(f)) || f < 0 || f > 999_999_999 {
		return false
	}
	*n = int(f)
	return true
}

// mcpState is the MCP config of one tree, prepared for answers.
type mcpState struct {
	tree       *tree
	cfg        manifest.MCPConfig
	hdr        http.Header // the answers with a body
	accepted   http.Header // 202
	notAllowed http.Header // 405
	preflight  http.Header
	tools      map[string]*mcpTool
	meta       []byte // the results' "_meta" value: the server's identity
	discover   []byte // the server/discover result
	initRest   []byte // the initialize result after its protocolVersion
}

// mcpTool is one tool bound to a compiled route.
type mcpTool struct {
	route      *compiledRoute
	args       [][]string
	structured bool
}

// mcpCache holds the MCP state of the current tree, built on the first MCP request.
type mcpCache = atomic.Pointer[mcpState]

// mcpFor returns the MCP state of tree t, loading api/public/mcp.json (checked against its
// manifest entry) the first time.
func (h *Handler) mcpFor(t *tree) (*mcpState, error) {
	if s := h.mcp.Load(); s != nil && s.tree == t {
		return s, nil
	}
	e := t.files[manifest.MCPFile]
	if e == nil {
		return nil, fmt.Errorf("%s is not in the manifest", manifest.MCPFile)
	}
	b, _, err := h.readRecord(t, e)
	if err != nil {
		return nil, err
	}
	s, err := newMCPState(t, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifest.MCPFile, err)
	}
	h.mcp.Store(s)
	return s, nil
}

func newMCPState(t *tree, b []byte) (*mcpState, error) {
	s := &mcpState{tree: t, tools: map[string]*mcpTool{}}
	if err := json.Unmarshal(b, &s.cfg); err != nil {
		return nil, err
	}
	c := &s.cfg
	if c.MaxBodyBytes <= 0 || len(c.Headers.Response) == 0 || !json.Valid(c.List) {
		return nil, errors.New("incomplete MCP config")
	}
	var hv headerValues = map[string][]string{}
	s.hdr = hv.set(c.Headers.Response)
	s.accepted = hv.set(c.Headers.Accepted)
	s.notAllowed = hv.set(c.Headers.Response, c.Headers.NotAllowed)
	s.preflight = hv.set(c.Headers.Preflight)
	for _, tool := range c.Tools {
		var route *compiledRoute
		for i := range t.router.routes {
			if t.router.routes[i].name == tool.Route {
				route = &t.router.routes[i]
			}
		}
		if route == nil || len(tool.Args) != len(route.types) {
			return nil, fmt.Errorf("tool %s: route %q has no such parameters", tool.Name, tool.Route)
		}
		for i, p := range route.types {
			if at, ok := mcpArgTypes[p.Type]; !ok || len(tool.Args[i]) != at.args {
				return nil, fmt.Errorf("tool %s: %d arguments for a %s", tool.Name, len(tool.Args[i]), p.Type)
			}
		}
		s.tools[tool.Name] = &mcpTool{route: route, args: tool.Args, structured: tool.Structured}
	}
	// The results are built in the member order the worker writes them (edge/worker).
	type tools struct{}
	type caps struct {
		Tools tools `json:"tools"`
	}
	meta := marshal(struct {
		Server manifest.MCPServer `json:"io.modelcontextprotocol/serverInfo"`
	}{c.Server})
	s.meta = meta
	s.discover = marshal(struct {
		Versions     []string        `json:"supportedVersions"`
		Capabilities caps            `json:"capabilities"`
		Instructions string          `json:"instructions"`
		TTLMs        int64           `json:"ttlMs"`
		CacheScope   string          `json:"cacheScope"`
		ResultType   string          `json:"resultType"`
		Meta         json.RawMessage `json:"_meta"`
	}{mcpSupported, caps{}, c.Instructions, c.TTLMs, "public", "complete", meta})
	rest := marshal(struct {
		Capabilities caps               `json:"capabilities"`
		Server       manifest.MCPServer `json:"serverInfo"`
		Instructions string             `json:"instructions"`
	}{caps{}, c.Server, c.Instructions})
	s.initRest = rest[1:] // after "{"
	return s, nil
}

// rpcRequest is a JSON-RPC message as received: each member raw, nil when absent.
type rpcRequest struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// rpcAnswer is what the endpoint answers: a status and a body ("" for none).
type rpcAnswer struct {
	status int
	body   []byte
	retry  int // Retry-After, for a tools/call refused by the rate limit
}

// rpcError is a JSON-RPC error answer; without an id (one that could not be read) it has
// none, as MCP's error responses may. data, when not nil, is encoded as JSON.
func rpcError(status int, id json.RawMessage, code int, msg string, data any) rpcAnswer {
	b := []byte(`{"jsonrpc":"2.0",`)
	if id != nil {
		b = append(append(append(b, `"id":`...), id...), ',')
	}
	b = append(b, `"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(append(b, `,"message":`...), jsonString(msg)...)
	if data != nil {
		b = append(append(b, `,"data":`...), marshal(data)...)
	}
	return rpcAnswer{status: status, body: append(b, "}}"...)}
}

// versionData is the data of an unsupported protocol version error.
type versionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// rpcResult is a JSON-RPC result answer around result's bytes, which are not re-encoded.
func rpcResult(id json.RawMessage, result ...[]byte) rpcAnswer {
	b := make([]byte, 0, 64+len(id)+lenAll(result))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	for _, r := range result {
		b = append(b, r...)
	}
	return rpcAnswer{status: http.StatusOK, body: append(b, '}')}
}

func lenAll(bs [][]byte) int {
	n := 0
	for _, b := range bs {
		n += len(b)
	}
	return n
}

// serveMCP answers a request to the MCP endpoint.
func (h *Handler) serveMCP(w http.ResponseWriter, r *http.Request, t *tree) {
	s, err := h.mcpFor(t)
	if err != nil {
		h.log.Error("mcp config", "err", err)
		writeError(w, r, t, t.edgeErrs.Internal)
		return
	}
	switch r.Method {
	case http.MethodOptions:
		copyHeader(w.Header(), s.preflight)
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		a := rpcError(http.StatusMethodNotAllowed, nil, codeInvalidRequest, "Method not allowed: send JSON-RPC messages with POST", nil)
		copyHeader(w.Header(), s.notAllowed)
		w.WriteHeader(a.status)
		if r.Method != http.MethodHead {
			w.Write(a.body)
		}
		return
	}
	a := h.mcpPost(r, t, s)
	hd := w.Header()
	if a.body == nil {
		copyHeader(hd, s.accepted)
		w.WriteHeader(a.status)
		return
	}
	copyHeader(hd, s.hdr)
	if a.retry > 0 {
		hd["Retry-After"] = []string{strconv.Itoa(a.retry)}
	}
	hd["Content-Length"] = []string{strconv.Itoa(len(a.body))}
	w.WriteHeader(a.status)
	w.Write(a.body)
}

// mcpPost answers a POST: the checks of the transport (Origin, size, one message), then the
// protocol version, then the method.
func (h *Handler) mcpPost(r *http.Request, t *tree, s *mcpState) rpcAnswer {
	if !originAllowed(r.Header.Get("Origin"), r.Host, s.cfg.Hosts) {
		return rpcError(http.StatusForbidden, nil, codeInvalidRequest, "Forbidden: invalid Origin", nil)
	}
	max := int64(s.cfg.MaxBodyBytes)
	tooLarge := rpcError(http.StatusRequestEntityTooLarge, nil, codeInvalidRequest,
		fmt.Sprintf("Request body larger than %d bytes", max), nil)
	if r.ContentLength > max {
		return tooLarge
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return rpcError(http.StatusBadRequest, nil, codeParse, "Parse error: cannot read the body", nil)
	}
	if int64(len(body)) > max {
		return tooLarge
	}
	return h.mcpMessage(body, r.Header, t, s, func() (bool, int) {
		if h.limiter == nil {
			return true, 0
		}
		return h.limiter.Allow(h.client(r))
	})
}

// mcpMessage answers one JSON-RPC message. allow counts a call of a rate-limited tool.
func (h *Handler) mcpMessage(body []byte, hdr http.Header, t *tree, s *mcpState, allow func() (bool, int)) rpcAnswer {
	body = bytes.TrimSpace(body)
	if !json.Valid(body) {
		return rpcError(http.StatusBadRequest, nil, codeParse, "Parse error", nil)
	}
	if body[0] == '[' {
		return rpcError(http.StatusBadRequest, nil, codeInvalidRequest, "Invalid Request: batches are not supported", nil)
	}
	var req rpcRequest
	var method string
	if body[0] != '{' || json.Unmarshal(body, &req) != nil {
		return rpcError(http.StatusBadRequest, nil, codeInvalidRequest, "Invalid Request", nil)
	}
	id := req.ID
	if len(id) > 0 && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') {
		id = nil // null, or not an id: the answer's id is null
	}
	if string(req.JSONRPC) != `"2.0"` || json.Unmarshal(req.Method, &method) != nil ||
		(req.ID != nil && id == nil) {
		return rpcError(http.StatusBadRequest, id, codeInvalidRequest, "Invalid Request", nil)
	}
	if req.ID == nil {
		return rpcAnswer{status: http.StatusAccepted} // a notification: nothing to answer
	}
	var params struct {
		Meta      map[string]json.RawMessage `json:"_meta"`
		Name      json.RawMessage            `json:"name"`
		Arguments json.RawMessage            `json:"arguments"`
		Version   string                     `json:"protocolVersion"`
	}
	if len(req.Params) > 0 && (req.Params[0] != '{' || json.Unmarshal(req.Params, &params) != nil) {
		return rpcError(http.StatusBadRequest, id, codeInvalidParams, "Invalid params: want an object", nil)
	}
	// The request's protocol version: its _meta's (2026-07-28), which the header must
	// repeat; else the header's; else, for initialize, the one the handshake negotiates.
	headerVersion := strings.Trim(hdr.Get("MCP-Protocol-Version"), " \t")
	version := headerVersion
	metaVersion, modernMeta := params.Meta[metaVersion]
	switch {
	case modernMeta:
		var v string
		if json.Unmarshal(metaVersion, &v) != nil {
			return rpcError(http.StatusBadRequest, id, codeInvalidParams, "Invalid params: _meta protocolVersion is not a string", nil)
		}
		if v != headerVersion {
			return rpcError(http.StatusBadRequest, id, codeHeaderMismatch,
				fmt.Sprintf("Header mismatch: MCP-Protocol-Version %q, _meta protocolVersion %q", headerVersion, v), nil)
		}
		version = v
	case method == "initialize":
		return rpcResult(id, []byte(`{"protocolVersion":`), jsonString(legacyVersion(params.Version)), []byte{','}, s.initRest)
	case version == "":
		version = mcpNoHeaderVersion
	}
	if version == mcpModern {
		if a, ok := checkModern(id, method, hdr, modernMeta, params.Meta, params.Name); !ok {
			return a
		}
	} else if !isLegacy(version) {
		return rpcError(http.StatusBadRequest, id, codeVersion, "Unsupported protocol version",
			versionData{mcpSupported, version})
	}
	switch method {
	case "server/discover":
		return rpcResult(id, s.discover)
	case "tools/list":
		return rpcResult(id, s.cfg.List)
	case "tools/call":
		var name string
		if json.Unmarshal(params.Name, &name) != nil {
			return rpcError(http.StatusOK, id, codeInvalidParams, "Invalid params: name is not a string", nil)
		}
		tool := s.tools[name]
		if tool == nil {
			return rpcError(http.StatusOK, id, codeInvalidParams, "Unknown tool: "+name, nil)
		}
		var args map[string]json.RawMessage
		if len(params.Arguments) > 0 && string(params.Arguments) != "null" &&
			(params.Arguments[0] != '{' || json.Unmarshal(params.Arguments, &args) != nil) {
			return rpcError(http.StatusOK, id, codeInvalidParams, "Invalid params: arguments is not an object", nil)
		}
		return h.mcpCall(id, t, s, tool, args, allow)
	case "ping":
		if version != mcpModern {
			return rpcResult(id, []byte("{}"))
		}
	}
	status := http.StatusOK
	if version == mcpModern {
		status = http.StatusNotFound // 2026-07-28: an unknown method is a 404
	}
	return rpcError(status, id, codeNoMethod, "Method not found: "+method, nil)
}

// checkModern checks what 2026-07-28 requires of every request: the _meta fields and the
// standard headers that mirror the body.
func checkModern(id json.RawMessage, method string, hdr http.Header, hasVersion bool, meta map[string]json.RawMessage, name json.RawMessage) (rpcAnswer, bool) {
	caps := meta[metaCapabilities]
	if !hasVersion || len(caps) == 0 || caps[0] != '{' {
		return rpcError(http.StatusBadRequest, id, codeInvalidParams,
			"Invalid params: _meta must hold "+metaVersion+" and "+metaCapabilities, nil), false
	}
	mismatch := func(h, body string) (rpcAnswer, bool) {
		return rpcError(http.StatusBadRequest, id, codeHeaderMismatch,
			fmt.Sprintf("Header mismatch: %s header %q does not match the body's %q", h, hdr.Get(h), body), nil), false
	}
	if mcpHeader(hdr, "Mcp-Method") != method {
		return mismatch("Mcp-Method", method)
	}
	if method == "tools/call" {
		var n string
		_ = json.Unmarshal(name, &n)
		if v := mcpHeader(hdr, "Mcp-Name"); len(hdr.Values("Mcp-Name")) == 0 || v != n {
			return mismatch("Mcp-Name", n)
		}
	}
	return rpcAnswer{}, true
}

// mcpHeader is a standard MCP header's value, OWS trimmed and, in the Base64 sentinel
// form "=?base64?…?=", decoded.
func mcpHeader(hdr http.Header, name string) string {
	v := strings.Trim(hdr.Get(name), " \t")
	if enc, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if enc, ok = strings.CutSuffix(enc, "?="); ok {
			if b, err := base64.StdEncoding.DecodeString(enc); err == nil {
				return string(b)
			}
		}
	}
	return v
}

func isLegacy(v string) bool {
	for _, l := range mcpLegacy {
		if v == l {
			return true
		}
	}
	return false
}

// legacyVersion is the version an initialize negotiates: the client's when it is a legacy
// one, else the latest legacy one (2026-07-28 has no handshake).
func legacyVersion(v string) string {
	if isLegacy(v) {
		return v
	}
	return mcpLegacy[0]
}

// mcpCall answers a tools/call.
func (h *Handler) mcpCall(id json.RawMessage, t *tree, s *mcpState, tool *mcpTool, args map[string]json.RawMessage, allow func() (bool, int)) rpcAnswer {
	buf := bodyBufs.Get().(*[]byte)
	defer bodyBufs.Put(buf)
	o := h.runTool(t, tool, args, allow, *buf)
	if o.retry > 0 {
		a := toolResult(id, s, true, false, o.body, []byte("Retry-After: "+strconv.Itoa(o.retry)))
		a.retry = o.retry
		return a
	}
	return toolResult(id, s, o.isError, tool.structured, o.body)
}

// toolOutcome is what a tool call answers: a record, or an error body (with the seconds
// to wait when the rate limit refused the call).
type toolOutcome struct {
	body    []byte
	isError bool
	retry   int
}

// runTool runs a call: the tool's route is asked for the path its arguments make, after
// the rate limit counted the call when the route is rate-limited (before the arguments are
// looked at, as a request is counted before its path is validated). The body may be held
// in buf.
func (h *Handler) runTool(t *tree, tool *mcpTool, args map[string]json.RawMessage, allow func() (bool, int), buf []byte) toolOutcome {
	if tool.route.limited && allow != nil {
		if ok, retry := allow(); !ok {
			return toolOutcome{t.errs[t.edgeErrs.TooManyRequests].body, true, max(retry, 1)}
		}
	}
	path, ok := tool.path(t.router.prefix, args)
	rt := route{kind: routeError, err: tool.route.err}
	if rt.err == "" {
		rt.err = t.edgeErrs.NotFound
	}
	if ok {
		rt = t.router.match(path)
	}
	internal := toolOutcome{t.errs[t.edgeErrs.Internal].body, true, 0}
	if rt.kind == routeError {
		if e := t.errs[rt.err]; e != nil {
			return toolOutcome{e.body, true, 0}
		}
		return internal
	}
	var scratch entry
	e, err := h.routeEntry(t, rt.key, &scratch)
	if e == nil && err == nil {
		h.log.Error("route file not in the tree", "file", t.router.treeFile(rt.key), "tool", path)
		return internal
	}
	var body []byte
	if err == nil {
		body, err = h.body(t, e, buf)
	}
	if err != nil {
		h.log.Error("read route file", "file", t.router.treeFile(rt.key), "err", err)
		return internal
	}
	return toolOutcome{body, false, 0}
}

// MCPInfo is what an MCP server of the tree offers: its identity, its instructions and the
// tools/list result of its tools, as the endpoint answers it.
type MCPInfo struct {
	Server       manifest.MCPServer
	Instructions string
	List         json.RawMessage
}

// MCP returns the MCP server of the current tree (numerology mcp serves it over stdio).
func (h *Handler) MCP() (MCPInfo, error) {
	s, err := h.mcpFor(h.cur.Load())
	if err != nil {
		return MCPInfo{}, err
	}
	return MCPInfo{s.cfg.Server, s.cfg.Instructions, s.cfg.List}, nil
}

// ErrUnknownTool reports a call of a tool the tree's MCP config does not have.
var ErrUnknownTool = errors.New("unknown tool")

// CallTool answers a call of a tool as the endpoint does, without the rate limit: the
// record's bytes, or the error body with isError; structured tells whether the record is
// also the result's structuredContent.
func (h *Handler) CallTool(name string, args json.RawMessage) (body []byte, isError, structured bool, err error) {
	t := h.cur.Load()
	s, err := h.mcpFor(t)
	if err != nil {
		return nil, false, false, err
	}
	tool := s.tools[name]
	if tool == nil {
		return nil, false, false, fmt.Errorf("%w: %s", ErrUnknownTool, name)
	}
	var a map[string]json.RawMessage
	if len(args) > 0 && string(args) != "null" && (args[0] != '{' || json.Unmarshal(args, &a) != nil) {
		return nil, false, false, errors.New("arguments is not an object")
	}
	o := h.runTool(t, tool, a, nil, nil)
	return bytes.Clone(o.body), o.isError, tool.structured && !o.isError, nil
}

// path is the route path a call's arguments make, false when an argument is missing or
// of the wrong shape.
func (tool *mcpTool) path(prefix string, args map[string]json.RawMessage) (string, bool) {
	var params [maxParams]int
	k := 0
	for i, p := range tool.route.types {
		at := mcpArgTypes[p.Type]
		vals := make([]json.RawMessage, len(tool.args[i]))
		for j, name := range tool.args[i] {
			if vals[j] = args[name]; vals[j] == nil {
				return "", false
			}
		}
		if !at.decode(vals, params[k:k+p.Arity()]) {
			return "", false
		}
		k += p.Arity()
	}
	var b strings.Builder
	b.WriteString(prefix)
	k = 0
	for _, seg := range tool.route.segs {
		b.WriteByte('/')
		if seg.param {
			b.WriteString(strconv.Itoa(params[k]))
			k++
		} else {
			b.WriteString(seg.lit)
		}
	}
	return b.String(), true
}

// toolResult is a tools/call result around a body's bytes: one text item holding them and,
// for a structured tool's record, the same record as structuredContent; an error (the route's error body, the
// rate limit's) has isError and more text items.
func toolResult(id json.RawMessage, s *mcpState, isError, structured bool, body []byte, more ...[]byte) rpcAnswer {
	parts := [][]byte{[]byte(`{"content":[{"type":"text","text":`), jsonString(string(body)), []byte(`}`)}
	for _, m := range more {
		parts = append(parts, []byte(`,{"type":"text","text":`), jsonString(string(m)), []byte(`}`))
	}
	switch {
	case isError:
		parts = append(parts, []byte(`],"isError":true`))
	case structured:
		parts = append(parts, []byte(`],"structuredContent":`), bytes.TrimRight(body, "\n"), []byte(`,"isError":false`))
	default:
		parts = append(parts, []byte(`],"isError":false`))
	}
	parts = append(parts, []byte(`,"resultType":"complete","_meta":`), s.meta, []byte(`}`))
	return rpcResult(id, parts...)
}

// jsonString encodes s as a JSON string, leaving <, > and & as they are.
func jsonString(s string) []byte { return marshal(s) }

// marshal encodes v as JSON as the worker's JSON.stringify does: <, > and & as they are.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// originAllowed applies docs/mcp.md's Origin rule: no Origin (not a browser) is allowed; an
// Origin must be an http(s) origin; a request from a page of the same host name (not
// cross-origin) is allowed only under a loopback name, an IP address or one of hosts, for
// under any other name it is a DNS rebinding. Cross-origin requests are the API's CORS:
// open to every site, as the data is public and nothing is behind a credential.
func originAllowed(origin, host string, hosts []string) bool {
	if origin == "" {
		return true
	}
	rest, ok := strings.CutPrefix(origin, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(origin, "http://"); !ok {
			return false
		}
	}
	if rest == "" || strings.ContainsAny(rest, "/?#@ ") {
		return false
	}
	oh := strings.ToLower(hostName(rest))
	if oh != strings.ToLower(hostName(host)) {
		return true
	}
	if oh == "localhost" || strings.HasSuffix(oh, ".localhost") {
		return true
	}
	if _, err := netip.ParseAddr(strings.Trim(oh, "[]")); err == nil {
		return true
	}
	for _, h := range hosts {
		if oh == h {
			return true
		}
	}
	return false
}

// hostName is the host of "host[:port]", an IPv6 address keeping its brackets.
func hostName(hp string) string {
	if strings.HasPrefix(hp, "[") {
		if i := strings.IndexByte(hp, ']'); i >= 0 {
			return hp[:i+1]
		}
		return hp
	}
	if i := strings.LastIndexByte(hp, ':'); i >= 0 {
		return hp[:i]
	}
	return hp
}
