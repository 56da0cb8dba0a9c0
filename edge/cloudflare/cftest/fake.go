// Package cftest is a local fake of the parts of Cloudflare's API that deploy uses: the
// Workers assets upload session, the bucketed base64 multipart upload authorised by the
// upload token, the script upload (with Cloudflare's checks of its metadata), zones and
// their worker routes, custom domains and their changeset, and the workers.dev subdomain
// of the account and of a script. It answers with Cloudflare's envelope ({"success",
// "errors", "messages", "result"}), keeps uploaded contents by hash across sessions as
// Cloudflare does, and records what it got.
//
// It is as strict as the real API wherever a real deploy can fail: a brand-new account
// has no workers.dev subdomain (10007 on reading it, 10063 on a script upload), a
// subdomain name can be taken (10031), a zone can be hidden from the token (9109 on the
// zone, 10000 on its routes), a route's host must be in its zone (10022), a custom
// domain is a plain hostname, the upload session's tokens live one hour, a session holds
// at most the plan's files, and run_worker_first and ratelimit bindings follow Cloudflare's
// rules. The codes 10000, 10007, 10022, 10031, 10063, 100116 and 100117 are the ones
// wrangler and Cloudflare's messages use; 10021 is this fake's code for a request
// Cloudflare refuses with a code no public source names.
package cftest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/internal/contract"
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

// Fault is an injected answer: after After matching requests pass, the next Times
// requests whose method is Method (any when empty) and whose path contains PathContains
// get Status, with Retry-After, Code and Message when set: a refusal in Cloudflare's
// envelope, or, with Result, a success envelope holding it.
type Fault struct {
	Method       string
	PathContains string
	Status       int
	RetryAfter   string
	Code         int // the error's code; default 9000 + Status
	Message      string
	Result       any    // answer success with this result instead of an error
	Body         string // answer with exactly this JSON body instead (an envelope Cloudflare should not send)
	Endless      bool   // answer with a JSON body that never ends, until the client hangs up
	Drop         bool   // close the connection without an answer (a network error)
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
	// Now, when set, is the clock the script upload's compatibility date is checked against.
	Now func() time.Time
	// Subdomain is the account's workers.dev subdomain; empty means none registered yet,
	// as on a brand-new account.
	Subdomain string
	// MaxFiles is the most files an upload session's manifest may hold: the account's
	// plan (default 20,000, Workers Free).
	MaxFiles int
	// EditBuckets, when set, rewrites the buckets an upload session answers with: a test's
	// Cloudflare that misbehaves (a hash listed twice, say).
	EditBuckets func([][]string) [][]string

	srv *httptest.Server
	mu  sync.Mutex
	seq int

	store       map[string]Blob
	uploads     map[string]int // hash → times received
	sessions    map[string]*session
	completions map[string]completion
	scripts     map[string]*Script
	routes      map[string][]Route // zone → routes
	domains     map[string]string  // hostname → service
	dnsRecords  map[string]bool    // hostnames with DNS records of their own
	workersDev  map[string]WorkersDev
	zones       map[string]*fakeZone
	taken       map[string]bool // workers.dev subdomains of other accounts
	faults      []*Fault
	requests    []Request
}

// WorkersDev is what a script's workers.dev setting was last set to.
type WorkersDev struct {
	Enabled bool
	// PreviewsEnabled is nil when the request left previews_enabled out.
	PreviewsEnabled *bool
	// APIDate is the request's Cloudflare-Workers-Script-Api-Date header.
	APIDate string
}

type fakeZone struct {
	name   string
	hidden bool // the token has no permission on it
}

// tokenLife is how long the tokens of an upload session are valid.
const tokenLife = time.Hour

type session struct {
	script   string
	manifest map[string]Entry
	sizes    map[string]int64 // the manifest's hashes and their sizes
	missing  map[string]bool  // hashes not yet in the store
	jwt      string
	issued   time.Time // when the upload token was issued
}

// completion is a completion token and when it was issued.
type completion struct {
	*session
	issued time.Time
}

// New starts a fake that accepts token for account.
func New(token, account string) *Server {
	s := &Server{
		Token: token, AccountID: account, BucketSize: 25,
		store: map[string]Blob{}, uploads: map[string]int{}, sessions: map[string]*session{},
		completions: map[string]completion{}, scripts: map[string]*Script{}, routes: map[string][]Route{},
		domains: map[string]string{}, dnsRecords: map[string]bool{}, workersDev: map[string]WorkersDev{},
		zones: map[string]*fakeZone{}, taken: map[string]bool{},
		Subdomain: "fake-account", MaxFiles: 20_000,
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

// AddDNSRecord gives a hostname a DNS record of its own (an A record of another origin):
// attaching it as a custom domain is then refused.
func (s *Server) AddDNSRecord(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dnsRecords[host] = true
}

// AddDomain attaches a hostname as the custom domain of a service (another Worker).
func (s *Server) AddDomain(host, service string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.domains[host] = service
}

// WorkersDev returns what the script's workers.dev setting was last set to.
func (s *Server) WorkersDev(script string) WorkersDev {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.workersDev[script]
}

// AddZone adds a zone of the account; hidden makes it one the token has no permission on.
func (s *Server) AddZone(id, name string, hidden bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.zones[id] = &fakeZone{name: name, hidden: hidden}
}

// AddRoute adds a route to a zone, running script ("" for none).
func (s *Server) AddRoute(zoneID, pattern, script string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[zoneID] = append(s.routes[zoneID], Route{ID: s.nextID("route"), Pattern: pattern, Script: script})
}

// TakeSubdomain marks a workers.dev subdomain as another account's.
func (s *Server) TakeSubdomain(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.taken[name] = true
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
	reAccSub  = regexp.MustCompile(`^/client/v4/accounts/([^/]+)/workers/subdomain$`)
	reSub     = regexp.MustCompile(`^/client/v4/accounts/([^/]+)/workers/scripts/([^/]+)/subdomain$`)
	reChanges = regexp.MustCompile(`^/client/v4/accounts/([^/]+)/workers/scripts/([^/]+)/domains/changeset$`)
	reZone    = regexp.MustCompile(`^/client/v4/zones/([^/]+)$`)
	reHash    = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// maxAssetSize is Cloudflare's limit per asset.
const maxAssetSize = contract.MaxAssetSize

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rec := &statusRecorder{ResponseWriter: w, status: 200}
	auth := s.handle(rec, r)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Status: rec.status, Auth: auth})
	s.mu.Unlock()
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) (auth bool) {
	if f := s.fault(r); f != nil {
		return s.answerFault(w, r, f)
	}
	// The assets upload is authorised by the session's upload token, everything else by
	// the API token.
	if m := reUpload.FindStringSubmatch(r.URL.Path); m != nil && r.Method == http.MethodPost {
		return s.uploadWithToken(w, r, m[1])
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Token || s.Token == "" {
		fail(w, http.StatusForbidden, apiError{Code: 10000, Message: "Authentication error"})
		return false
	}
	s.dispatch(w, r)
	return true
}

// answerFault answers a request with an injected fault; it reports whether the answer
// counts as authorised.
func (s *Server) answerFault(w http.ResponseWriter, r *http.Request, f *Fault) bool {
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
	switch {
	case f.Endless:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		io.WriteString(w, `{"success":true,"errors":[],"messages":[],"result":{"jwt":"`)
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return true
			}
		}
	case f.Body != "":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		io.WriteString(w, f.Body)
		return true
	case f.Result != nil:
		ok(w, f.Status, f.Result)
		return true
	}
	msg := f.Message
	if msg == "" {
		msg = http.StatusText(f.Status) + " (injected)"
	}
	code := f.Code
	if code == 0 {
		code = 9000 + f.Status
	}
	fail(w, f.Status, apiError{Code: code, Message: msg})
	return false
}

// uploadWithToken checks the upload token of an assets upload to account, then takes it.
func (s *Server) uploadWithToken(w http.ResponseWriter, r *http.Request, account string) bool {
	bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	sess := s.sessions[bearer]
	s.mu.Unlock()
	if sess == nil || account != s.AccountID {
		fail(w, http.StatusUnauthorized, apiError{Code: 10000, Message: "Authentication error"})
		return false
	}
	if s.now().Sub(sess.issued) >= tokenLife {
		fail(w, http.StatusUnauthorized, apiError{Code: 10000, Message: "Authentication error: Expired JWT"})
		return false
	}
	s.upload(w, r, sess)
	return true
}

// dispatch answers a request authorised by the API token.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch m := match(p); {
	case m.re == reSession && r.Method == http.MethodPost && m.args[0] == s.AccountID:
		s.startSession(w, r, m.args[1])
	case m.re == reScript && r.Method == http.MethodPut && m.args[0] == s.AccountID:
		s.putScript(w, r, m.args[1])
	case m.re == reDomains && r.Method == http.MethodPut && m.args[0] == s.AccountID:
		s.putDomain(w, r)
	case m.re == reDomains && r.Method == http.MethodGet && m.args[0] == s.AccountID:
		s.listDomains(w, r)
	case m.re == reRoutes:
		s.route(w, r, m.args[0], m.args[1])
	case m.re == reZone && r.Method == http.MethodGet:
		s.getZone(w, m.args[0])
	case m.re == reAccSub && r.Method == http.MethodGet && m.args[0] == s.AccountID:
		s.getSubdomain(w)
	case m.re == reAccSub && r.Method == http.MethodPut && m.args[0] == s.AccountID:
		s.putSubdomain(w, r)
	case m.re == reSub && r.Method == http.MethodPost && m.args[0] == s.AccountID:
		s.enableSubdomain(w, r, m.args[1])
	case m.re == reChanges && r.Method == http.MethodPost && m.args[0] == s.AccountID:
		s.changeset(w, r, m.args[1])
	case m.re == nil:
		fail(w, 404, apiError{Code: 7003, Message: "Could not route to " + p + ", perhaps your object identifier is invalid?"})
	default:
		fail(w, 403, apiError{Code: 10000, Message: "Authentication error"})
	}
}

// getSubdomain answers the account's workers.dev subdomain, or 10007 when it has none.
func (s *Server) getSubdomain(w http.ResponseWriter) {
	s.mu.Lock()
	sub := s.Subdomain
	s.mu.Unlock()
	if sub == "" {
		fail(w, 404, apiError{Code: 10007, Message: "workers.api.error.not_found: This account does not have a workers.dev subdomain"})
		return
	}
	ok(w, 200, map[string]any{"subdomain": sub})
}

type matched struct {
	re   *regexp.Regexp
	args []string
}

func match(p string) matched {
	for _, re := range []*regexp.Regexp{reSession, reScript, reDomains, reRoutes, reAccSub, reSub, reChanges, reZone} {
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
	if n := len(body.Manifest); n > s.MaxFiles {
		fail(w, 400, apiError{Code: 10021, Message: fmt.Sprintf("the assets manifest has %d files, more than the %d a version of this account's plan holds", n, s.MaxFiles)})
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
	if s.EditBuckets != nil {
		buckets = s.EditBuckets(buckets)
	}
	sess.issued = s.now()
	if len(buckets) == 0 {
		sess.jwt = s.nextID("fake-completion")
		s.completions[sess.jwt] = completion{sess, sess.issued}
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
	jwt := s.nextID("fake-completion")
	s.completions[jwt] = completion{sess, s.now()}
	ok(w, http.StatusCreated, map[string]any{"jwt": jwt})
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
	if errs := validateMetadata(meta, s.now()); len(errs) > 0 {
		failAll(w, 400, errs)
		return
	}
	assets, _ := meta["assets"].(map[string]any)
	jwt, _ := assets["jwt"].(string)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Subdomain == "" {
		// A brand-new account's first script upload, after every file was sent.
		fail(w, 400, apiError{Code: 10063, Message: "You need a workers.dev subdomain in order to proceed. Please go to the dashboard and open the Workers menu."})
		return
	}
	c, found := s.completions[jwt]
	switch {
	case !found || c.script != name:
		fail(w, 400, apiError{Code: 10021, Message: "assets.jwt is not a completion token for this script"})
		return
	case s.now().Sub(c.issued) >= tokenLife:
		fail(w, 400, apiError{Code: 10021, Message: "assets.jwt: Expired JWT"})
		return
	}
	sess := c.session
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
	host := body["hostname"]
	if msg := badHostname(host); msg != "" {
		fail(w, 400, apiError{Code: 10021, Message: msg})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dnsRecords[host] {
		fail(w, 409, apiError{Code: 100117, Message: fmt.Sprintf("Hostname '%s' already has externally managed DNS records (A, CNAME, etc). Either delete them, try a different hostname, or use the option 'override_existing_dns_record' to override.", host)})
		return
	}
	if other, taken := s.domains[host]; taken && other != body["service"] {
		fail(w, 409, apiError{Code: 100116, Message: fmt.Sprintf("Hostname '%s' is already in use by another Worker. Either detach it, try a different hostname, or use the option 'override_existing_origin' to override.", host)})
		return
	}
	s.domains[host] = body["service"]
	ok(w, 200, map[string]any{"id": "domain-" + host, "hostname": host, "service": body["service"]})
}

func (s *Server) listDomains(w http.ResponseWriter, r *http.Request) {
	host := r.URL.Query().Get("hostname")
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []map[string]any{}
	for _, h := range slices.Sorted(maps.Keys(s.domains)) {
		if host == "" || h == host {
			out = append(out, map[string]any{"id": "domain-" + h, "hostname": h, "service": s.domains[h], "environment": "production", "zone_id": "", "zone_name": "", "cert_id": ""})
		}
	}
	ok(w, 200, out)
}

func (s *Server) enableSubdomain(w http.ResponseWriter, r *http.Request, script string) {
	var body struct {
		Enabled         *bool `json:"enabled"`
		PreviewsEnabled *bool `json:"previews_enabled"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Enabled == nil {
		fail(w, 400, apiError{Code: 10021, Message: "enabled is required"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scripts[script] == nil {
		fail(w, 404, apiError{Code: 10007, Message: "workers.api.error.script_not_found"})
		return
	}
	s.workersDev[script] = WorkersDev{Enabled: *body.Enabled, PreviewsEnabled: body.PreviewsEnabled, APIDate: r.Header.Get("Cloudflare-Workers-Script-Api-Date")}
	// Left out, previews follow the workers.dev address (the 2025-08-01 API default).
	previews := *body.Enabled
	if body.PreviewsEnabled != nil {
		previews = *body.PreviewsEnabled
	}
	ok(w, 200, map[string]any{"enabled": *body.Enabled, "previews_enabled": previews})
}

// putSubdomain registers the account's workers.dev subdomain.
func (s *Server) putSubdomain(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Subdomain string `json:"subdomain"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || !reSubdomain.MatchString(body.Subdomain) {
		fail(w, 400, apiError{Code: 10021, Message: "subdomain must be 1 to 63 lowercase letters, digits and hyphens"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.taken[body.Subdomain] {
		fail(w, 409, apiError{Code: 10031, Message: "workers.api.error.subdomain_unavailable"})
		return
	}
	s.Subdomain = body.Subdomain
	ok(w, 200, map[string]any{"subdomain": body.Subdomain})
}

var reSubdomain = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// changeset answers what attaching the hostnames to the script would do, as
// POST …/domains/changeset does: domains of another Worker under updated (modified),
// hostnames with DNS records of their own under conflicting.
func (s *Server) changeset(w http.ResponseWriter, r *http.Request, script string) {
	var origins []struct {
		Hostname string `json:"hostname"`
	}
	if err := json.NewDecoder(r.Body).Decode(&origins); err != nil {
		fail(w, 400, apiError{Code: 10021, Message: "the body must be a list of origins"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scripts[script] == nil {
		fail(w, 404, apiError{Code: 10007, Message: "workers.api.error.script_not_found"})
		return
	}
	type domain struct {
		Hostname string `json:"hostname"`
		Service  string `json:"service"`
		Modified bool   `json:"modified,omitempty"`
	}
	out := map[string][]domain{"added": {}, "removed": {}, "updated": {}, "conflicting": {}}
	for _, o := range origins {
		if msg := badHostname(o.Hostname); msg != "" {
			fail(w, 400, apiError{Code: 10021, Message: msg})
			return
		}
		other, taken := s.domains[o.Hostname]
		switch {
		case taken:
			out["updated"] = append(out["updated"], domain{Hostname: o.Hostname, Service: script, Modified: other != script})
		case s.dnsRecords[o.Hostname]:
			out["conflicting"] = append(out["conflicting"], domain{Hostname: o.Hostname, Service: script})
		default:
			out["added"] = append(out["added"], domain{Hostname: o.Hostname, Service: script})
		}
	}
	ok(w, 200, out)
}

// badHostname says why a custom domain is not a plain hostname, or "".
func badHostname(h string) string {
	switch {
	case strings.Contains(h, "*"):
		return fmt.Sprintf("hostname %q: wildcards are not allowed in Custom Domains", h)
	case strings.ContainsAny(h, "/:"):
		return fmt.Sprintf("hostname %q: paths, schemes and ports are not allowed in Custom Domains", h)
	case !strings.Contains(h, "."):
		return fmt.Sprintf("hostname %q is not a hostname", h)
	}
	return ""
}

// getZone answers GET /zones/{id}: the zone's name, unless the token cannot see it.
func (s *Server) getZone(w http.ResponseWriter, id string) {
	s.mu.Lock()
	z := s.zones[id]
	s.mu.Unlock()
	switch {
	case z == nil:
		fail(w, 404, apiError{Code: 7003, Message: "Could not route to /zones/" + id + ", perhaps your object identifier is invalid?"})
	case z.hidden:
		fail(w, 403, apiError{Code: 9109, Message: "Unauthorized to access requested resource"})
	default:
		ok(w, 200, map[string]any{"id": id, "name": z.name, "status": "active"})
	}
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, zoneID, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	z := s.zones[zoneID]
	switch {
	case z == nil:
		fail(w, 404, apiError{Code: 7003, Message: "Could not route to /zones/" + zoneID + "/workers/routes, perhaps your object identifier is invalid?"})
		return
	case z.hidden:
		fail(w, 403, apiError{Code: 10000, Message: "Authentication error"})
		return
	}
	zone := zoneID
	check := func(pattern string) bool {
		if msg := badPattern(pattern, z.name); msg != "" {
			fail(w, 400, apiError{Code: 10022, Message: msg})
			return false
		}
		return true
	}
	switch {
	case r.Method == http.MethodGet && id == "":
		ok(w, 200, append([]Route{}, s.routes[zone]...))
	case r.Method == http.MethodPost && id == "":
		var rt Route
		if err := json.NewDecoder(r.Body).Decode(&rt); err != nil || rt.Pattern == "" {
			fail(w, 400, apiError{Code: 10021, Message: "pattern is required"})
			return
		}
		if !check(rt.Pattern) {
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
		if !check(rt.Pattern) {
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

// badPattern says why Cloudflare refuses a route pattern in the zone named zoneName: its
// host must be in the zone (10022: "Route pattern must include zone name"), and "*" may
// only lead the host and end the path.
func badPattern(pattern, zoneName string) string {
	p := strings.TrimPrefix(strings.TrimPrefix(pattern, "https://"), "http://")
	host, path, hasPath := strings.Cut(p, "/")
	bare := strings.TrimPrefix(strings.TrimPrefix(host, "*"), ".")
	if !hasPath {
		return "Route pattern must have a path: " + pattern
	}
	if bare != zoneName && !strings.HasSuffix(bare, "."+zoneName) {
		return "Route pattern must include zone name: " + zoneName
	}
	if strings.Contains(bare, "*") || strings.Contains(strings.TrimSuffix(path, "*"), "*") || strings.ContainsAny(path, "?#") {
		return "Route pattern may only hold a wildcard leading the host and ending the path: " + pattern
	}
	return ""
}

// now is the fake's clock: Server.Now when set, else the time.
func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// validateMetadata checks a script upload's metadata as Cloudflare does, one error per
// refused field: compatibility_date (a date, not in the future), assets.config
// (html_handling and not_found_handling enums; run_worker_first true, false or rules as
// staticRouting checks them; _redirects a string) and ratelimit bindings (namespace_id a
// positive integer as a string, simple.period 10 or 60).
func validateMetadata(meta map[string]any, now time.Time) []apiError {
	var errs []apiError
	bad := func(format string, args ...any) {
		errs = append(errs, apiError{Code: 10021, Message: fmt.Sprintf(format, args...)})
	}
	date, _ := meta["compatibility_date"].(string)
	if d, err := time.Parse(time.DateOnly, date); err != nil {
		bad("compatibility_date %q is not a valid date", date)
	} else if d.After(now.UTC()) {
		bad("compatibility_date %s is in the future", date)
	}
	assets, _ := meta["assets"].(map[string]any)
	cfg, _ := assets["config"].(map[string]any)
	if v, set := cfg["html_handling"]; set && !oneOf(v, "auto-trailing-slash", "force-trailing-slash", "drop-trailing-slash", "none") {
		bad("assets.config.html_handling: invalid value %v", v)
	}
	if v, set := cfg["not_found_handling"]; set && !oneOf(v, "single-page-application", "404-page", "none") {
		bad("assets.config.not_found_handling: invalid value %v", v)
	}
	switch rwf := cfg["run_worker_first"].(type) {
	case nil, bool:
	case []any:
		for _, msg := range staticRouting(rwf) {
			bad("assets.config.run_worker_first: %s", msg)
		}
	default:
		bad("assets.config.run_worker_first: must be a boolean or an array of strings")
	}
	if v, set := cfg["_redirects"]; set {
		if _, isString := v.(string); !isString {
			bad("assets.config._redirects: must be the content of a _redirects file")
		}
	}
	bindings, _ := meta["bindings"].([]any)
	for i, b := range bindings {
		bm, _ := b.(map[string]any)
		if bm["type"] != "ratelimit" {
			continue
		}
		if ns, isString := bm["namespace_id"].(string); !isString || !positiveInteger(ns) {
			bad("bindings[%d].namespace_id: must be a positive integer", i)
		}
		simple, _ := bm["simple"].(map[string]any)
		if p, _ := simple["period"].(float64); p != 10 && p != 60 {
			bad("bindings[%d].simple.period: must be 10 or 60", i)
		}
	}
	return errs
}

// positiveInteger reports whether s is the decimal form of an integer of at least 1.
func positiveInteger(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n >= 1 && strconv.FormatInt(n, 10) == s
}

// staticRouting checks run_worker_first rules the way Cloudflare does (its
// assets/staticrouting.go, which workers-sdk's parseStaticRouting.ts translates): 1 to 100
// rules, each "/…" or "!/…", not only negative ones, and per kind at most 100 characters,
// no duplicate and none that a rule ending in "*" makes redundant.
func staticRouting(rules []any) []string {
	var out []string
	if len(rules) == 0 {
		return []string{"no rules were provided; must provide at least 1 rule"}
	}
	if len(rules) > 100 {
		return []string{fmt.Sprintf("%d rules provided exceeds max of 100", len(rules))}
	}
	var user, asset []string
	for _, v := range rules {
		r, _ := v.(string)
		switch {
		case strings.HasPrefix(r, "!/"):
			asset = append(asset, r)
		case strings.HasPrefix(r, "/"):
			user = append(user, r)
		case strings.HasPrefix(r, "!"):
			out = append(out, fmt.Sprintf("'%s': negative rules must start with '!/'", r))
		default:
			out = append(out, fmt.Sprintf("'%s': rules must start with '/' or '!/'", r))
		}
	}
	if len(asset) > 0 && len(user) == 0 {
		out = append(out, "only negative rules were provided; must provide at least 1 non-negative rule")
	}
	for _, group := range [][]string{user, asset} {
		seen := map[string]bool{}
		for _, r := range group {
			if len(utf16.Encode([]rune(r))) > 100 {
				out = append(out, fmt.Sprintf("'%s': all rules must be less than 100 characters in length", r))
			}
			if seen[r] {
				out = append(out, fmt.Sprintf("'%s': rule is a duplicate; rules must be unique", r))
			}
			seen[r] = true
			if strings.HasSuffix(r, "*") {
				for _, o := range group {
					if o != r && strings.HasPrefix(o, r[:len(r)-1]) {
						out = append(out, fmt.Sprintf("'%s': rule '%s' makes it redundant", o, r))
					}
				}
			}
		}
	}
	return out
}

func oneOf(v any, values ...string) bool {
	s, _ := v.(string)
	for _, x := range values {
		if s == x {
			return true
		}
	}
	return false
}

func failAll(w http.ResponseWriter, status int, errs []apiError) {
	writeEnvelope(w, status, map[string]any{"success": false, "errors": errs, "messages": []any{}, "result": nil})
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
