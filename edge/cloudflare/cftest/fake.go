// Package cftest is a local fake of the parts of Cloudflare's API that deploy uses: the
// Workers assets upload session, the bucketed base64 multipart upload authorised by the
// upload token, the script upload, worker routes, custom domains and cache purge. It
// answers with Cloudflare's envelope ({"success", "errors", "messages", "result"}), keeps
// uploaded contents by hash across sessions as Cloudflare does, and records what it got.
package cftest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	json "github.com/goccy/go-json"
)

// Blob is one uploaded asset content.
type Blob struct {
	Content     []byte
	ContentType string
}

// Entry is one file of a live version: its path's hash and size.
type Entry struct {
	Hash string `json:"hash"`
	Size int64  `json:"size"`
}

// Script is the live version of a worker script.
type Script struct {
	Version  string
	Metadata map[string]any  // the metadata part as decoded JSON
	Modules  map[string]Blob // by multipart part name
	Assets   map[string]Entry
}

// Fault is an injected failure: after After matching requests pass, the next Times
// requests whose method is Method (any when empty) and whose path contains PathContains
// get Status, with Retry-After and Message when set.
type Fault struct {
	Method       string
	PathContains string
	Status       int
	RetryAfter   string
	Message      string
	Drop         bool // close the connection without an answer (a network error)
	After        int
	Times        int
}

// Request is what the fake recorded of one request.
type Request struct {
	Method, Path string
	Status       int
	Auth         bool // whether it carried an acceptable credential
}

// Route is a zone's worker route.
type Route struct {
	ID      string `json:"id"`
	Pattern string `json:"pattern"`
	Script  string `json:"script"`
}

// Server is the fake API. Pass URL to option.WithBaseURL.
type Server struct {
	URL       string // base URL, ending in /client/v4/
	Token     string // the only API token accepted
	AccountID string
	// BucketSize is how many hashes go in one bucket (default 25).
	BucketSize int

	srv *httptest.Server
	mu  sync.Mutex
	seq int

	store       map[string]Blob
	uploads     map[string]int // hash → times received
	sessions    map[string]*session
	completions map[string]*session
	scripts     map[string]*Script
	routes      map[string][]Route // zone → routes
	domains     map[string]string  // hostname → service
	purges      []map[string]any
	faults      []*Fault
	requests    []Request
}

type session struct {
	script   string
	manifest map[string]Entry
	sizes    map[string]int64 // the manifest's hashes and their sizes
	missing  map[string]bool  // hashes not yet in the store
	jwt      string
}

// New starts a fake that accepts token for account.
func New(token, account string) *Server {
	s := &Server{
		Token: token, AccountID: account, BucketSize: 25,
		store: map[string]Blob{}, uploads: map[string]int{}, sessions: map[string]*session{},
		completions: map[string]*session{}, scripts: map[string]*Script{}, routes: map[string][]Route{},
		domains: map[string]string{},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/client/v4/"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Inject queues a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults drops every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Uploads returns how many file parts were received in total, and per hash.
func (s *Server) Uploads() (total int, byHash map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byHash = make(map[string]int, len(s.uploads))
	for h, n := range s.uploads {
		byHash[h] = n
		total += n
	}
	return total, byHash
}

// ResetUploads forgets the upload counts (the stored contents stay).
func (s *Server) ResetUploads() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uploads = map[string]int{}
}

// Script returns the live version of a script, or nil.
func (s *Server) Script(name string) *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scripts[name]
}

// Site returns the files the live version of script serves: URL path → content.
func (s *Server) Site(script string) map[string]Blob {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.scripts[script]
	if sc == nil {
		return nil
	}
	out := make(map[string]Blob, len(sc.Assets))
	for p, e := range sc.Assets {
		out[p] = s.store[e.Hash]
	}
	return out
}

// Requests returns every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Routes returns a zone's routes.
func (s *Server) Routes(zone string) []Route {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Route(nil), s.routes[zone]...)
}

// Domains returns the custom domains: hostname → service.
func (s *Server) Domains() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.domains {
		out[k] = v
	}
	return out
}

// Purges returns the bodies of the cache purge requests.
func (s *Server) Purges() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.purges...)
}

type apiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

var (
	reSession = regexp.MustCompile(`^/client/v4/accounts/([^/]+)/workers/scripts/([^/]+)/assets-upload-session$`)
	reUpload  = regexp.MustCompile(`^/client/v4/accounts/([^/]+)/workers/assets/upload$`)
	reScript  = regexp.MustCompile(`^/client/v4/accounts/([^/]+)/workers/scripts/([^/]+)$`)
	reDomains = regexp.MustCompile(`^/client/v4/accounts/([^/]+)/workers/domains$`)
	reRoutes  = regexp.MustCompile(`^/client/v4/zones/([^/]+)/workers/routes(?:/([^/]+))?$`)
	rePurge   = regexp.MustCompile(`^/client/v4/zones/([^/]+)/purge_cache$`)
	reHash    = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// maxAssetSize is Cloudflare's limit per asset.
const maxAssetSize = 25 << 20

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rec := &statusRecorder{ResponseWriter: w, status: 200}
	auth := s.handle(rec, r)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Status: rec.status, Auth: auth})
	s.mu.Unlock()
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) (auth bool) {
	if f := s.fault(r); f != nil {
		if f.Drop {
			if hj, isHJ := w.(*statusRecorder).ResponseWriter.(http.Hijacker); isHJ {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return false
				}
			}
		}
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		io.Copy(io.Discard, r.Body)
		msg := f.Message
		if msg == "" {
			msg = http.StatusText(f.Status) + " (injected)"
		}
		fail(w, f.Status, apiError{Code: 9000 + f.Status, Message: msg})
		return false
	}
	p := r.URL.Path
	bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	// The assets upload is authorised by the session's upload token, everything else by
	// the API token.
	if m := reUpload.FindStringSubmatch(p); m != nil && r.Method == http.MethodPost {
		s.mu.Lock()
		sess := s.sessions[bearer]
		s.mu.Unlock()
		if sess == nil || m[1] != s.AccountID {
			fail(w, http.StatusUnauthorized, apiError{Code: 10000, Message: "Authentication error"})
			return false
		}
		s.upload(w, r, sess)
		return true
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Token || s.Token == "" {
		fail(w, http.StatusForbidden, apiError{Code: 10000, Message: "Authentication error"})
		return false
	}
	switch m := match(p); {
	case m.re == reSession && r.Method == http.MethodPost && m.args[0] == s.AccountID:
		s.startSession(w, r, m.args[1])
	case m.re == reScript && r.Method == http.MethodPut && m.args[0] == s.AccountID:
		s.putScript(w, r, m.args[1])
	case m.re == reDomains && r.Method == http.MethodPut && m.args[0] == s.AccountID:
		s.putDomain(w, r)
	case m.re == reRoutes:
		s.route(w, r, m.args[0], m.args[1])
	case m.re == rePurge && r.Method == http.MethodPost:
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			fail(w, 400, apiError{Code: 1012, Message: "invalid JSON: " + err.Error()})
			return true
		}
		s.mu.Lock()
		s.purges = append(s.purges, body)
		s.mu.Unlock()
		ok(w, 200, map[string]any{"id": "purge-" + m.args[0]})
	case m.re == nil:
		fail(w, 404, apiError{Code: 7003, Message: "Could not route to " + p + ", perhaps your object identifier is invalid?"})
	default:
		fail(w, 403, apiError{Code: 10000, Message: "Authentication error"})
	}
	return true
}

type matched struct {
	re   *regexp.Regexp
	args []string
}

func match(p string) matched {
	for _, re := range []*regexp.Regexp{reSession, reScript, reDomains, reRoutes, rePurge} {
		if m := re.FindStringSubmatch(p); m != nil {
			return matched{re: re, args: m[1:]}
		}
	}
	return matched{}
}

func (s *Server) fault(r *http.Request) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if f.Times > 0 && (f.Method == "" || f.Method == r.Method) && strings.Contains(r.URL.Path, f.PathContains) {
			if f.After > 0 {
				f.After--
				continue
			}
			f.Times--
			return f
		}
	}
	return nil
}

func (s *Server) nextID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s-%04d", prefix, s.seq)
}

func (s *Server) startSession(w http.ResponseWriter, r *http.Request, script string) {
	var body struct {
		Manifest map[string]Entry `json:"manifest"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		fail(w, 400, apiError{Code: 10021, Message: "invalid manifest JSON: " + err.Error()})
		return
	}
	if len(body.Manifest) == 0 {
		fail(w, 400, apiError{Code: 10021, Message: "manifest is empty"})
		return
	}
	sess := &session{script: script, manifest: body.Manifest, sizes: map[string]int64{}, missing: map[string]bool{}}
	for p, e := range body.Manifest {
		if !strings.HasPrefix(p, "/") || !reHash.MatchString(e.Hash) || e.Size < 0 || e.Size > maxAssetSize {
			fail(w, 400, apiError{Code: 10021, Message: fmt.Sprintf("invalid manifest entry %q: %+v", p, e)})
			return
		}
		sess.sizes[e.Hash] = e.Size
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var missing []string
	for h := range sess.sizes {
		if _, have := s.store[h]; !have {
			missing = append(missing, h)
			sess.missing[h] = true
		}
	}
	sort.Strings(missing)
	buckets := [][]string{}
	size := max(s.BucketSize, 1)
	for len(missing) > 0 {
		n := min(size, len(missing))
		buckets = append(buckets, missing[:n])
		missing = missing[n:]
	}
	if len(buckets) == 0 {
		sess.jwt = s.nextID("fake-completion")
		s.completions[sess.jwt] = sess
	} else {
		sess.jwt = s.nextID("fake-upload")
		s.sessions[sess.jwt] = sess
	}
	ok(w, 200, map[string]any{"jwt": sess.jwt, "buckets": buckets})
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request, sess *session) {
	if r.URL.Query().Get("base64") != "true" {
		fail(w, 400, apiError{Code: 10021, Message: "base64 must be true"})
		return
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		fail(w, 400, apiError{Code: 10021, Message: "want multipart/form-data"})
		return
	}
	sizes := sess.sizes
	mr := multipart.NewReader(r.Body, params["boundary"])
	got := map[string]Blob{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(w, 400, apiError{Code: 10021, Message: "bad multipart body: " + err.Error()})
			return
		}
		h := part.FormName()
		raw, _ := io.ReadAll(part)
		content, err := base64.StdEncoding.DecodeString(string(raw))
		if err != nil {
			fail(w, 400, apiError{Code: 10021, Message: "part " + h + " is not base64"})
			return
		}
		want, known := sizes[h]
		if !known || int64(len(content)) != want {
			fail(w, 400, apiError{Code: 10021, Message: fmt.Sprintf("part %s is not in the session's manifest or has the wrong size", h)})
			return
		}
		got[h] = Blob{Content: content, ContentType: part.Header.Get("Content-Type")}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, b := range got {
		s.store[h] = b
		s.uploads[h]++
		delete(sess.missing, h)
	}
	for h := range sess.missing { // uploaded meanwhile through another session
		if _, have := s.store[h]; have {
			delete(sess.missing, h)
		}
	}
	if len(sess.missing) > 0 {
		ok(w, http.StatusAccepted, map[string]any{})
		return
	}
	completion := s.nextID("fake-completion")
	s.completions[completion] = sess
	ok(w, http.StatusCreated, map[string]any{"jwt": completion})
}

func (s *Server) putScript(w http.ResponseWriter, r *http.Request, name string) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		fail(w, 400, apiError{Code: 10021, Message: "want multipart/form-data"})
		return
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var meta map[string]any
	modules := map[string]Blob{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(w, 400, apiError{Code: 10021, Message: "bad multipart body: " + err.Error()})
			return
		}
		b, _ := io.ReadAll(part)
		if part.FormName() == "metadata" {
			if err := json.Unmarshal(b, &meta); err != nil {
				fail(w, 400, apiError{Code: 10021, Message: "metadata is not JSON: " + err.Error()})
				return
			}
			continue
		}
		// Cloudflare finds modules by part name: main_module names a part.
		modules[part.FormName()] = Blob{Content: b, ContentType: part.Header.Get("Content-Type")}
	}
	main, _ := meta["main_module"].(string)
	if mod, found := modules[main]; !found || mod.ContentType != "application/javascript+module" {
		fail(w, 400, apiError{Code: 10021, Message: fmt.Sprintf("main_module %q is not an uploaded ES module", main)})
		return
	}
	if d, _ := meta["compatibility_date"].(string); d == "" {
		fail(w, 400, apiError{Code: 10021, Message: "compatibility_date is missing"})
		return
	}
	assets, _ := meta["assets"].(map[string]any)
	jwt, _ := assets["jwt"].(string)
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.completions[jwt]
	if sess == nil || sess.script != name {
		fail(w, 400, apiError{Code: 10021, Message: "assets.jwt is not a completion token for this script"})
		return
	}
	version := s.nextID("fake-version")
	s.scripts[name] = &Script{Version: version, Metadata: meta, Modules: modules, Assets: sess.manifest}
	ok(w, 200, map[string]any{
		"id": name, "etag": "etag-" + version, "deployment_id": version,
		"has_assets": true, "has_modules": true, "startup_time_ms": 1,
	})
}

func (s *Server) putDomain(w http.ResponseWriter, r *http.Request) {
	var body map[string]string
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["hostname"] == "" || body["service"] == "" {
		fail(w, 400, apiError{Code: 10021, Message: "hostname and service are required"})
		return
	}
	s.mu.Lock()
	s.domains[body["hostname"]] = body["service"]
	s.mu.Unlock()
	ok(w, 200, map[string]any{"id": "domain-" + body["hostname"], "hostname": body["hostname"], "service": body["service"]})
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, zone, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && id == "":
		ok(w, 200, append([]Route{}, s.routes[zone]...))
	case r.Method == http.MethodPost && id == "":
		var rt Route
		if err := json.NewDecoder(r.Body).Decode(&rt); err != nil || rt.Pattern == "" {
			fail(w, 400, apiError{Code: 10021, Message: "pattern is required"})
			return
		}
		for _, e := range s.routes[zone] {
			if e.Pattern == rt.Pattern {
				fail(w, 409, apiError{Code: 10020, Message: "A route with the same pattern already exists"})
				return
			}
		}
		rt.ID = s.nextID("route")
		s.routes[zone] = append(s.routes[zone], rt)
		ok(w, 200, rt)
	case r.Method == http.MethodPut && id != "":
		var rt Route
		if err := json.NewDecoder(r.Body).Decode(&rt); err != nil {
			fail(w, 400, apiError{Code: 10021, Message: "bad JSON"})
			return
		}
		for i, e := range s.routes[zone] {
			if e.ID == id {
				rt.ID = id
				s.routes[zone][i] = rt
				ok(w, 200, rt)
				return
			}
		}
		fail(w, 404, apiError{Code: 10019, Message: "route not found"})
	default:
		fail(w, 405, apiError{Code: 10000, Message: "method not allowed"})
	}
}

func ok(w http.ResponseWriter, status int, result any) {
	writeEnvelope(w, status, map[string]any{"success": true, "errors": []apiError{}, "messages": []any{}, "result": result})
}

func fail(w http.ResponseWriter, status int, e apiError) {
	writeEnvelope(w, status, map[string]any{"success": false, "errors": []apiError{e}, "messages": []any{}, "result": nil})
}

func writeEnvelope(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}
