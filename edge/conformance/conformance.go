// Package conformance is the executable form of docs/design.md §3–§5: a table of requests and of
// what the contract requires of each response (status, every header of §4, body fields and
// types of §5, byte equality with the tree's file). It takes a base URL, so the same suite
// checks the local Go server and the Cloudflare Worker.
package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
)

// Target is a running server to check.
type Target struct {
	BaseURL   string // e.g. "http://127.0.0.1:43123", no trailing slash
	TreeDir   string // the out/ tree it serves: byte equality, manifest, years
	RateLimit int    // the limit it enforces per window (60)
	// RateWindow is the target's window: ShortWindow in every run but one per edge, which
	// passes the contract's own 60 s to prove it. The suite waits one Retry-After, up to a
	// window, so the window sets the run's length (on the real clock; see Clock).
	RateWindow time.Duration
	// ClientHeader, when set, is a header the target trusts as the client address; the
	// suite sends a distinct address per test (from 198.18.0.0/15 and 2001:db8::/32)
	// so that tests do not share a rate-limit bucket. When empty, all requests share one
	// bucket and the suite runs the rate-limit tests last.
	ClientHeader string
	// ExactRetryAfter: the target's Retry-After is exact (Go server) rather than an upper bound (worker).
	ExactRetryAfter bool
	// MissingMatrixFile, when set, is a date "D/M/Y" whose file was deleted from the served tree: expect 500 for it only.
	MissingMatrixFile string
	// Clock, when set, is the target's clock: the suite reads the time and waits (for a
	// Retry-After, for room in a shared bucket) with it alone, so a target whose rate limiter
	// runs on a fake clock is checked without waiting on the real one. Nil is the real clock.
	Clock Clock
	// AlignedWindow: the target counts requests in windows aligned to multiples of RateWindow
	// since the Unix epoch (the Rate Limiting binding of wrangler dev counts per wall-clock
	// minute), not in a window that slides with each request. A burst that straddles two such
	// windows is repeated with a fresh client, as one that overruns the window is.
	AlignedWindow bool
	// UnregisteredMethodStatus, when not zero, is the status the target's runtime itself gives
	// a method outside the IANA registry (such as "FOO") before any API code runs; only the
	// status is checked then. Zero means the contract's 405. workerd, locally and on
	// Cloudflare, answers 501 (cloudflare/workerd#6877), which no worker code can change.
	UnregisteredMethodStatus int
	// RawNonASCIIStatus, when not zero, is the status the target's HTTP parser itself gives a
	// request target holding raw bytes beyond ASCII, before any code runs (Node's 400 in the
	// worker's in-process harness). Zero: the contract's answer, as serve and workerd give it
	// (workerd percent-encodes the bytes of a UTF-8 target).
	RawNonASCIIStatus int
}

// Clock is a target's clock: Now reads it, Sleep waits d on it (at once, for a fake one that
// moves its time on by d; it may move on by more when others sleep on it too).
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// realClock is the machine's clock.
type realClock struct{}

func (realClock) Now() time.Time        { return time.Now() }
func (realClock) Sleep(d time.Duration) { time.Sleep(d) }

// ShortWindow is the rate window of the runs that do not prove the contract's own: long
// enough for a burst of RateLimit requests and the checks after it on a loaded machine (an
// attempt that overruns the window is repeated with a fresh client), short enough that the
// wait for a Retry-After costs seconds.
const ShortWindow = 5 * time.Second

// Run runs every check as subtests of t.
func Run(t *testing.T, target Target) {
	t.Helper()
	s := newSuite(t, target)
	groups := []struct {
		name  string
		cases []tcase
	}{
		{"routes", s.routeCases()},
		{"table", s.tableCases()},
		{"methods", s.methodCases()},
		{"conditional", s.conditionalCases()},
		{"preflight", s.preflightCases()},
		{"encoding", s.encodingCases()},
	}
	if target.ClientHeader != "" && len(s.limitedPaths()) > 0 {
		t.Run("exhaust a client for Retry-After", func(t *testing.T) {
			c, r := s.exhaustClient(t)
			s.retry = &exhaustedClient{client: c, r: r}
		})
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, c := range g.cases {
				t.Run(c.name, func(t *testing.T) {
					s.parallel(t)
					s.check(t, c)
				})
			}
		})
	}
	t.Run("pages", s.testPages)
	if target.MissingMatrixFile != "" {
		t.Run("missing file", s.testMissingFile)
	}
	t.Run("rate limit", s.testRateLimit)
	t.Run("mcp", s.testMCP) // mcp.go
}

// suite is the state of one Run.
type suite struct {
	target  Target
	clock   Clock
	base    *url.URL
	m       *manifest.Manifest
	files   map[string]*manifest.File
	client  *http.Client
	missing string // tree path of Target.MissingMatrixFile
	year    int    // a year the tree holds, for dates expected to answer 200
	nextIP  atomic.Uint32

	mu     sync.Mutex
	shared []time.Time // matrix requests sent when all share one bucket

	// retry is the client Run exhausts before the other checks when every test has a
	// client of its own: "Retry-After honoured" waits out its Retry-After, so that wait (a
	// whole window) runs beside the other checks instead of after them. Nil: that test
	// exhausts a client itself.
	retry *exhaustedClient
}

// exhaustedClient is a client refused by the rate limit, and the refusal.
type exhaustedClient struct {
	client string
	r      response
}

func newSuite(t *testing.T, target Target) *suite {
	t.Helper()
	base, err := url.Parse(target.BaseURL)
	if err != nil || base.Host == "" {
		t.Fatalf("conformance: base URL %q: want scheme://host[:port] (%v)", target.BaseURL, err)
	}
	m, err := manifest.LoadFull(target.TreeDir) // every file, those of the shards too: the tests' trees are small
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	if target.RateLimit <= 0 || target.RateWindow <= 0 {
		t.Fatalf("conformance: RateLimit %d and RateWindow %v must be positive", target.RateLimit, target.RateWindow)
	}
	if len(m.Years) == 0 {
		t.Fatal("conformance: the tree holds no years of the date routes")
	}
	s := &suite{
		target: target, clock: target.Clock, base: base, m: m, files: m.Index(),
		client: &http.Client{
			Timeout:   30 * time.Second,
			Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 16},
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
		year: m.Years[len(m.Years)/2],
	}
	if s.clock == nil {
		s.clock = realClock{}
	}
	if target.MissingMatrixFile != "" {
		d, mo, y, ok := parseDate(target.MissingMatrixFile)
		if !ok {
			t.Fatalf("conformance: MissingMatrixFile %q: want D/M/Y", target.MissingMatrixFile)
		}
		s.missing = s.row(routeMatrix).FilePath([]int{d, mo, y})
	}
	return s
}

func parseDate(s string) (d, m, y int, ok bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	var err [3]error
	d, err[0] = strconv.Atoi(parts[0])
	m, err[1] = strconv.Atoi(parts[1])
	y, err[2] = strconv.Atoi(parts[2])
	return d, m, y, err[0] == nil && err[1] == nil && err[2] == nil
}

// parallel runs the test in parallel when tests can have buckets of their own.
func (s *suite) parallel(t *testing.T) {
	if s.target.ClientHeader != "" {
		t.Parallel()
	}
}

// body kinds, for the §5 field checks of a 200 answer.
const (
	kindNone = iota
	kindIndex
	kindOpenAPI
	kindList
	kindLifePath
	kindMatrix
	kindLifePathDate
	kindArcanaList
	kindArcana
	kindPositions
	kindCompatibility
	kindSquare
	kindSquareMeanings
)

// expect is what the contract requires of one response.
type expect struct {
	status int
	file   string // 200/304: the tree file of the body
	errKey string // errors: the EdgeConfig.Errors key
	kind   int
	date   [3]int // kindMatrix, kindLifePathDate, kindSquare: the canonical date
	number int    // kindLifePath, kindArcana
	pair   [2]int // kindCompatibility: the canonical pair
}

// tcase is one request and its expectation.
type tcase struct {
	name   string
	method string
	path   string // raw request target, sent as is
	header map[string]string
	want   expect
	// static: a non-API path; only the status is the contract's.
	static bool
	// runtime: answered by the target's runtime before the API (Target.UnregisteredMethodStatus);
	// only the status is checked.
	runtime bool
}

func (s *suite) fileExpect(file string, kind int) expect {
	if _, ok := s.files[file]; !ok || file == s.missing {
		return expect{status: 500, errKey: manifest.ErrInternal}
	}
	return expect{status: 200, file: file, kind: kind}
}

func (s *suite) matrixExpect(d, m, y int) expect {
	e := s.fileExpect(s.row(routeMatrix).FilePath([]int{d, m, y}), kindMatrix)
	e.date = [3]int{d, m, y}
	return e
}

func (s *suite) lifePathExpect(n int) expect {
	e := s.fileExpect(s.row(routeLifePath).FilePath([]int{n}), kindLifePath)
	e.number = n
	return e
}

var (
	invalidDate    = expect{status: 400, errKey: manifest.ErrInvalidDate}
	numberNotFound = expect{status: 404, errKey: manifest.ErrNumberNotFound}
	notFound       = expect{status: 404, errKey: manifest.ErrNotFound}
	notAllowed     = expect{status: 405, errKey: manifest.ErrMethodNotAllowed}
)

func (s *suite) routeCases() []tcase {
	p := s.m.Edge.Prefix
	y := s.year
	ys := strconv.Itoa(y)
	mx := func(rest string) string { return p + "/matrix" + rest }
	cases := []tcase{
		{name: "index", path: p, want: s.fileExpect(s.row(routeIndex).File, kindIndex)},
		{name: "index trailing slash", path: p + "/", want: s.fileExpect(s.row(routeIndex).File, kindIndex)},
		{name: "index two trailing slashes", path: p + "//", want: notFound},
		{name: "openapi", path: p + "/openapi.json", want: s.fileExpect(s.row(routeOpenAPI).File, kindOpenAPI)},
		{name: "openapi trailing slash", path: p + "/openapi.json/", want: s.fileExpect(s.row(routeOpenAPI).File, kindOpenAPI)},
		{name: "query ignored", path: p + "/life-path?x=1&y=%2F", want: s.fileExpect(s.row(routeLifePathList).File, kindList)},

		{name: "life-path list", path: p + "/life-path", want: s.fileExpect(s.row(routeLifePathList).File, kindList)},
		{name: "life-path list trailing slash", path: p + "/life-path/", want: s.fileExpect(s.row(routeLifePathList).File, kindList)},
		{name: "life-path list two trailing slashes", path: p + "/life-path//", want: numberNotFound},
		{name: "life-path.json is not a route", path: p + "/life-path.json", want: notFound},
		{name: "life-path 0", path: p + "/life-path/0", want: numberNotFound},
		{name: "life-path 10", path: p + "/life-path/10", want: numberNotFound},
		{name: "life-path 34", path: p + "/life-path/34", want: numberNotFound},
		{name: "life-path 12", path: p + "/life-path/12", want: numberNotFound},
		{name: "life-path percent-encoded 1", path: p + "/life-path/%31", want: numberNotFound},
		{name: "life-path non-numeric", path: p + "/life-path/seven", want: numberNotFound},
		{name: "life-path negative", path: p + "/life-path/-1", want: numberNotFound},
		{name: "life-path plus sign", path: p + "/life-path/+1", want: numberNotFound},
		{name: "life-path exponent", path: p + "/life-path/1e1", want: numberNotFound},
		{name: "life-path ten digits", path: p + "/life-path/0000000001", want: numberNotFound},
		{name: "life-path extra segment", path: p + "/life-path/1/2", want: numberNotFound},
		{name: "life-path 7 two trailing slashes", path: p + "/life-path/7//", want: numberNotFound},
		{name: "life-path nine digits", path: p + "/life-path/000000011", want: s.lifePathExpect(11)},
		{name: "life-path leading zero", path: p + "/life-path/07", want: s.lifePathExpect(7)},
		{name: "life-path trailing slash", path: p + "/life-path/33/", want: s.lifePathExpect(33)},

		{name: "unknown path", path: p + "/unknown", want: notFound},
		{name: "edge.json not public", path: p + "/edge.json", want: notFound},
		{name: "index.json not a route", path: p + "/index.json", want: notFound},
		{name: "error body not public", path: p + "/errors/not-found.json", want: notFound},
		{name: "record file path not a route", path: p + "/life-path/7.json", want: numberNotFound},
		{name: "case sensitive", path: p + "/MATRIX/1/1/" + ys, want: notFound},
		{name: "percent-encoded route name", path: p + "/%6Datrix/1/1/" + ys, want: notFound},
		{name: "matrix prefix word", path: p + "/matrixx/1/1/" + ys, want: notFound},

		{name: "outside the prefix", path: p + "x", static: true, want: expect{status: 404}},
		{name: "outside the prefix matrix", path: "/matrix/1/1/" + ys + "/unknown-page", static: true, want: expect{status: 404}},
	}
	cases = append(cases, s.badEscapeCases()...)
	cases = append(cases, s.matrixRouteCases()...)
	cases = append(cases, s.lifePathDateCases()...)
	cases = append(cases, s.arcanaCases()...)
	cases = append(cases, s.compatibilityCases()...)
	positions := s.rowExpect(s.row(routePositions), nil)
	cases = append(cases,
		tcase{name: "positions", path: p + "/positions", want: positions},
		tcase{name: "positions trailing slash", path: p + "/positions/", want: positions},
		tcase{name: "HEAD positions", method: http.MethodHead, path: p + "/positions", want: positions},
		tcase{name: "positions has no items of its own", path: p + "/positions/1", want: notFound},
		tcase{name: "positions.json is not a route", path: p + "/positions.json", want: notFound},
		tcase{name: "positions two trailing slashes", path: p + "/positions//", want: notFound},
	)
	cases = append(cases, s.squareCases()...)
	cases = append(cases, s.chartCases()...)
	cases = append(cases, s.personalYearCases()...)
	// Every life path number, and HEAD of each kind.
	for _, n := range s.lifePathNumbers() {
		cases = append(cases, tcase{name: "life-path " + strconv.Itoa(n), path: p + "/life-path/" + strconv.Itoa(n), want: s.lifePathExpect(n)})
	}
	for _, c := range []tcase{
		{name: "HEAD matrix", path: mx("/15/5/" + ys), want: s.matrixExpect(15, 5, y)},
		{name: "HEAD life-path", path: p + "/life-path/7", want: s.lifePathExpect(7)},
		{name: "HEAD invalid date", path: mx("/30/2/" + ys), want: invalidDate},
		{name: "HEAD number not found", path: p + "/life-path/10", want: numberNotFound},
		{name: "HEAD not found", path: p + "/nope", want: notFound},
	} {
		c.method = http.MethodHead
		cases = append(cases, c)
	}
	return cases
}

// badEscapeCases are paths with a "%" that starts no escape: routed like any other path
// (docs/design.md §3), the fragment and the query ignored, where net/http alone would
// refuse the whole target.
func (s *suite) badEscapeCases() []tcase {
	p := s.m.Edge.Prefix
	ys := strconv.Itoa(s.year)
	mx := func(rest string) string { return p + "/matrix" + rest }
	return []tcase{
		{name: "bad escape, alone", path: p + "/%", want: notFound},
		{name: "bad escape, not hex", path: p + "/%zz", want: notFound},
		{name: "bad escape, one digit", path: p + "/%2", want: notFound},
		{name: "bad escape, at the end of a route", path: p + "/life-path%", want: notFound},
		{name: "bad escape, a number", path: p + "/life-path/%", want: numberNotFound},
		{name: "bad escape, a date", path: mx("/%zz/1/" + ys), want: invalidDate},
		{name: "bad escape, a year", path: mx("/1/1/" + ys + "%"), want: invalidDate},
		{name: "bad escape, in the fragment", path: p + "/life-path/7#%zz", want: s.lifePathExpect(7)},
		{name: "bad escape, in the query", path: p + "/life-path/7?x=%zz", want: s.lifePathExpect(7)},
		{name: "bad escape, in the query and the fragment", path: p + "/life-path/7?%#%zz", want: s.lifePathExpect(7)},
		{name: "HEAD bad escape", method: http.MethodHead, path: mx("/%/1/" + ys), want: invalidDate},
	}
}

// matrixRouteCases are the §3 cases of the matrix route.
func (s *suite) matrixRouteCases() []tcase {
	y := s.year
	ys := strconv.Itoa(y)
	mx := func(rest string) string { return s.m.Edge.Prefix + "/matrix" + rest }
	date := s.row(routeMatrix).Params[0]
	first, last := date.FirstYear, date.LastYear
	return []tcase{
		{name: "matrix", path: mx("/15/5/" + ys), want: s.matrixExpect(15, 5, y)},
		{name: "matrix leading zeros", path: mx("/05/05/" + ys), want: s.matrixExpect(5, 5, y)},
		{name: "matrix nine digits", path: mx("/000000001/000000012/" + ys), want: s.matrixExpect(1, 12, y)},
		{name: "matrix leading zeros year", path: mx("/1/1/00000" + ys), want: s.matrixExpect(1, 1, y)},
		{name: "matrix trailing slash", path: mx("/1/1/" + ys + "/"), want: s.matrixExpect(1, 1, y)},
		{name: "matrix query", path: mx("/2/1/"+ys) + "?date=1.1.1900", want: s.matrixExpect(2, 1, y)},
		{name: "matrix first date", path: mx("/1/1/" + strconv.Itoa(first)), want: s.matrixExpect(1, 1, first)},
		{name: "matrix last date", path: mx("/31/12/" + strconv.Itoa(last)), want: s.matrixExpect(31, 12, last)},
		{name: "matrix 29.02.2000", path: mx("/29/2/2000"), want: s.matrixExpect(29, 2, 2000)},
		{name: "matrix 29.02.1900", path: mx("/29/2/1900"), want: invalidDate},
		{name: "matrix 29.02.2100", path: mx("/29/2/2100"), want: invalidDate},
		{name: "matrix 30.02", path: mx("/30/2/" + ys), want: invalidDate},
		{name: "matrix 31.04", path: mx("/31/4/" + ys), want: invalidDate},
		{name: "matrix day 0", path: mx("/0/1/" + ys), want: invalidDate},
		{name: "matrix day 32", path: mx("/32/1/" + ys), want: invalidDate},
		{name: "matrix month 0", path: mx("/1/0/" + ys), want: invalidDate},
		{name: "matrix month 13", path: mx("/1/13/" + ys), want: invalidDate},
		{name: "matrix year 1899", path: mx("/31/12/1899"), want: invalidDate},
		{name: "matrix year 2101", path: mx("/1/1/2101"), want: invalidDate},
		{name: "matrix year 0", path: mx("/1/1/0"), want: invalidDate},
		{name: "matrix ten digits", path: mx("/0000000001/1/" + ys), want: invalidDate},
		{name: "matrix non-numeric day", path: mx("/a/1/" + ys), want: invalidDate},
		{name: "matrix non-numeric month", path: mx("/1/may/" + ys), want: invalidDate},
		{name: "matrix non-numeric year", path: mx("/1/1/20x0"), want: invalidDate},
		{name: "matrix negative", path: mx("/-1/1/" + ys), want: invalidDate},
		{name: "matrix plus sign", path: mx("/+1/1/" + ys), want: invalidDate},
		{name: "matrix percent-encoded digit", path: mx("/%31/1/" + ys), want: invalidDate},
		{name: "matrix percent-encoded slashes", path: mx("/1%2F1%2F" + ys), want: invalidDate},
		{name: "matrix percent-encoded dot segment", path: mx("/1/%2e/" + ys), want: invalidDate},
		{name: "matrix percent-encoded dot-dot", path: mx("/1/1/" + ys + "/%2e%2e"), want: invalidDate},
		{name: "matrix space", path: mx("/1/1/%20" + ys), want: invalidDate},
		{name: "matrix itself", path: mx(""), want: invalidDate},
		{name: "matrix slash", path: mx("/"), want: invalidDate},
		{name: "matrix two slashes", path: mx("//"), want: invalidDate},
		{name: "matrix two segments", path: mx("/1/1"), want: invalidDate},
		{name: "matrix one segment", path: mx("/1"), want: invalidDate},
		{name: "matrix four segments", path: mx("/1/1/" + ys + "/1"), want: invalidDate},
		{name: "matrix empty day", path: mx("//1/" + ys), want: invalidDate},
		{name: "matrix empty month", path: mx("/1//" + ys), want: invalidDate},
		{name: "matrix empty year", path: mx("/1/1/"), want: invalidDate},
		{name: "matrix two trailing slashes", path: mx("/1/1/" + ys + "//"), want: invalidDate},
	}
}

// row returns the route of the tree's table with the given name (the zero route for none).
func (s *suite) row(name string) manifest.Route {
	for _, r := range s.m.Edge.Routes {
		if r.Name == name {
			return r
		}
	}
	return manifest.Route{}
}

// lifePathNumbers are the numbers of the life path route.
func (s *suite) lifePathNumbers() []int {
	if r := s.row(routeLifePath); len(r.Params) > 0 {
		return r.Params[0].Numbers
	}
	return nil
}

// validNumbers are the numbers an error lists in valid_numbers: those of the routes that
// answer it (nil when none of them takes numbers).
func (s *suite) validNumbers(key string) []int {
	for _, r := range s.m.Edge.Routes {
		for _, p := range r.Params {
			if r.Error == key && (p.Type == manifest.ParamNumber || p.Type == manifest.ParamPair) {
				return p.Numbers
			}
		}
	}
	return nil
}

// ownerError is what a path that no route matches must answer: the error of the route
// that owns it (manifest.EdgeConfig.Owner), else the edge's not-found error.
func (s *suite) ownerError(raw string) expect {
	raw = pathOf(raw)
	key := s.m.Edge.EdgeErrors.NotFound
	if i := s.m.Edge.Owner(raw); i >= 0 && s.m.Edge.Routes[i].Error != "" {
		key = s.m.Edge.Routes[i].Error
	}
	return expect{status: s.m.Edge.Errors[key].Status, errKey: key}
}

// expectPath is what the contract (docs/design.md §3) requires of a raw path under the
// prefix, computed from the tree's route table: the file of the first route whose segments
// match (numeric segments of 1–9 digits) and whose types admit the parameters, else its
// owner's error.
func (s *suite) expectPath(raw string) expect {
	p := strings.TrimSuffix(pathOf(raw), "/")
	segs := strings.Split(p[len(s.m.Edge.Prefix):], "/")[1:]
	for _, r := range s.m.Edge.Routes {
		shape := strings.Split(r.Pattern[len(s.m.Edge.Prefix):], "/")[1:]
		if len(shape) != len(segs) {
			continue
		}
		var vals []int
		ok := true
		for i, sh := range shape {
			if !strings.HasPrefix(sh, "{") {
				ok = ok && sh == segs[i]
				continue
			}
			n, err := strconv.Atoi(segs[i])
			ok = ok && err == nil && len(segs[i]) <= 9 && strings.Trim(segs[i], "0123456789") == ""
			vals = append(vals, n)
		}
		if ok && r.Admit(slices.Clone(vals)) {
			return s.rowExpect(r, vals)
		}
	}
	return s.ownerError(raw)
}

// routePath fills a route's pattern with raw parameter segments.
func routePath(r manifest.Route, segs []string) string {
	p := r.Pattern
	for i, n := range r.ParamNames() {
		if i < len(segs) {
			p = strings.Replace(p, "{"+n+"}", segs[i], 1)
		}
	}
	return p
}

func itoas(vals []int, lead string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = lead + strconv.Itoa(v)
	}
	return out
}

// The routes of the first families by the names of the route table (docs/design.md §3).
// The suite does not import the generator, so it names them itself, as it names their
// paths; chart.go and cycles.go name theirs.
const (
	routeIndex          = "index"
	routeOpenAPI        = "openapi"
	routeLifePathList   = "life-path-list"
	routeLifePath       = "life-path"
	routeLifePathDate   = "life-path-date"
	routeMatrix         = "matrix"
	routePositions      = "positions"
	routeArcanaList     = "arcana-list"
	routeArcana         = "arcana"
	routeCompatibility  = "compatibility"
	routeSquareMeanings = "square-meanings"
	routeSquare         = "square"
)

// routeKinds names the body checks of the routes this suite knows (checkBody).
var routeKinds = map[string]int{
	routeIndex:                kindIndex,
	routeOpenAPI:              kindOpenAPI,
	routeLifePathList:         kindList,
	routeLifePath:             kindLifePath,
	routeMatrix:               kindMatrix,
	routeLifePathDate:         kindLifePathDate,
	routeArcanaList:           kindArcanaList,
	routeArcana:               kindArcana,
	routePositions:            kindPositions,
	routeCompatibility:        kindCompatibility,
	routeSquare:               kindSquare,
	routeSquareMeanings:       kindSquareMeanings,
	routeChart:                kindChart, // chart.go
	routeChartMeanings:        kindChartMeanings,
	routePersonalYear:         kindPersonalYear, // cycles.go
	routePersonalYearMeanings: kindPersonalYearMeanings,
}

// rowExpect is the answer to a route's value (raw order): the file of its canonical form.
func (s *suite) rowExpect(r manifest.Route, vals []int) expect {
	c := slices.Clone(vals)
	if !r.Admit(c) {
		return s.ownerError(routePath(r, itoas(vals, "")))
	}
	e := s.fileExpect(r.FilePath(c), routeKinds[r.Name])
	switch e.kind {
	case kindMatrix, kindLifePathDate, kindSquare, kindChart, kindPersonalYear:
		e.date = [3]int{c[0], c[1], c[2]}
	case kindCompatibility:
		e.pair = [2]int{c[0], c[1]}
	case kindLifePath, kindArcana:
		e.number = c[0]
	}
	return e
}

// sampleValues are valid values of a route, raw: every number or pair of a small set (a
// pair in both orders), and for a date its example's day and month in a year of the tree,
// the first day of the tree's first year and the last of its last.
func (s *suite) sampleValues(r manifest.Route) [][]int {
	out := [][]int{{}}
	for _, p := range r.Params {
		var vs [][]int
		switch p.Type {
		case manifest.ParamNumber:
			for _, n := range p.Numbers {
				vs = append(vs, []int{n})
			}
		case manifest.ParamPair:
			for i, a := range p.Numbers {
				for _, b := range p.Numbers[i:] {
					vs = append(vs, []int{a, b})
					if a != b {
						vs = append(vs, []int{b, a})
					}
				}
			}
		case manifest.ParamDate:
			ex, y0, y1 := []int{15, 5}, s.m.Years[0], s.m.Years[len(s.m.Years)-1]
			vs = [][]int{{ex[0], ex[1], s.year}, {1, 1, y0}, {31, 12, y1}}
		case manifest.ParamBirthdayYear: // 29 February in the tree's first year, common or not
			y0, y1 := s.m.Years[0], s.m.Years[len(s.m.Years)-1]
			vs = [][]int{{23, 4, s.year}, {29, 2, y0}, {31, 12, y1}}
		}
		var next [][]int
		for _, head := range out {
			for _, v := range vs {
				next = append(next, append(slices.Clip(head), v...))
			}
		}
		out = next
	}
	return out
}

// invalidSegments are parameter segments each route's types must refuse, in place of a
// valid value (valid): for a number or pair, numbers outside the set and forms that are not
// numeric segments; for a date, days, months and years that do not make a date of its
// range.
func (s *suite) invalidSegments(r manifest.Route, valid []int) [][]string {
	var out [][]string
	off := 0
	for _, p := range r.Params {
		k := p.Arity()
		with := func(i int, seg string) {
			segs := itoas(valid, "")
			segs[off+i] = seg
			out = append(out, segs)
		}
		switch p.Type {
		case manifest.ParamNumber, manifest.ParamPair:
			outside := 1
			for slices.Contains(p.Numbers, outside) {
				outside++
			}
			for i := range k {
				for _, seg := range []string{"0", strconv.Itoa(outside), strconv.Itoa(p.Numbers[len(p.Numbers)-1] + 1),
					"x", "%3" + strconv.Itoa(p.Numbers[0]%10), "-1", "+1", "1e1", "0000000001", "", "%", "%zz", "1%"} {
					with(i, seg)
				}
			}
		case manifest.ParamDate:
			y := strconv.Itoa(s.year)
			for _, d := range [][3]string{{"30", "2", y}, {"31", "4", y}, {"0", "1", y}, {"32", "1", y}, {"1", "0", y},
				{"1", "13", y}, {"29", "2", "1900"}, {"31", "12", strconv.Itoa(p.FirstYear - 1)},
				{"1", "1", strconv.Itoa(p.LastYear + 1)}, {"x", "1", y}, {"%31", "1", y}, {"1", "1", ""},
				{"%zz", "1", y}, {"1", "%", y}, {"1", "1", y + "%2"}} {
				segs := itoas(valid, "")
				copy(segs[off:], d[:])
				out = append(out, segs)
			}
		case manifest.ParamBirthdayYear:
			y := strconv.Itoa(s.year)
			for _, d := range [][3]string{{"30", "2", y}, {"31", "4", y}, {"0", "1", y}, {"32", "1", y}, {"1", "0", y},
				{"1", "13", y}, {"31", "12", strconv.Itoa(p.FirstYear - 1)}, {"1", "1", strconv.Itoa(p.LastYear + 1)},
				{"x", "1", y}, {"%31", "1", y}, {"1", "1", ""}, {"%zz", "1", y}, {"1", "%", y}, {"1", "1", y + "%2"}} {
				segs := itoas(valid, "")
				copy(segs[off:], d[:])
				out = append(out, segs)
			}
		}
		off += k
	}
	return out
}

// tableCases are built from the route table of the tree, so every row is checked, those
// this suite names elsewhere and any other: its values and their canonical forms (leading
// zeros, a pair in either order: same bytes, same ETag), HEAD, OPTIONS, 304, a trailing
// slash, an extra segment, and the errors of invalid parameters.
func (s *suite) tableCases() []tcase {
	var cases []tcase
	for _, r := range s.m.Edge.Routes {
		for i, vals := range s.sampleValues(r) {
			path := routePath(r, itoas(vals, ""))
			want := s.rowExpect(r, vals)
			name := r.Name + " " + path
			cases = append(cases, tcase{name: name, path: path, want: want})
			if i > 0 {
				continue
			}
			etag := `"absent"`
			if f, ok := s.files[want.file]; ok {
				etag = f.ETag()
			}
			notModified := want
			if want.status == 200 {
				notModified.status = 304
			}
			cases = append(cases,
				tcase{name: name + " trailing slash", path: path + "/", want: want},
				tcase{name: name + " fragment with a bad escape", path: path + "#%zz", want: want},
				tcase{name: "HEAD " + name, method: http.MethodHead, path: path, want: want},
				tcase{name: "OPTIONS " + name, method: http.MethodOptions, path: path, want: expect{status: 204}},
				tcase{name: "304 " + name, path: path, header: map[string]string{"If-None-Match": etag}, want: notModified},
				tcase{name: name + " extra segment", path: path + "/1", want: s.expectPath(path + "/1")},
				tcase{name: name + " two trailing slashes", path: path + "//", want: s.expectPath(path + "//")},
			)
			if len(vals) > 0 {
				zeros := routePath(r, itoas(vals, "00"))
				cases = append(cases, tcase{name: name + " leading zeros", path: zeros, want: want})
			}
			for j, segs := range s.invalidSegments(r, vals) {
				bad := routePath(r, segs)
				cases = append(cases, tcase{name: r.Name + " invalid " + bad, path: bad, want: s.expectPath(bad)})
				if j == 0 {
					cases = append(cases, tcase{name: "HEAD " + r.Name + " invalid " + bad, method: http.MethodHead, path: bad, want: s.expectPath(bad)})
				}
			}
		}
	}
	return cases
}

// lifePathDateCases are the §3 cases of the life path route of a date, which shares its
// scope with the route of a number: a path of three segments is a date's, of one a
// number's.
func (s *suite) lifePathDateCases() []tcase {
	y := s.year
	ys := strconv.Itoa(y)
	lp := func(rest string) string { return s.m.Edge.Prefix + "/life-path" + rest }
	at := func(d, m, y int) expect { return s.rowExpect(s.row(routeLifePathDate), []int{d, m, y}) }
	return []tcase{
		{name: "life-path date", path: lp("/15/5/" + ys), want: at(15, 5, y)},
		{name: "life-path date leading zeros", path: lp("/015/05/" + ys), want: at(15, 5, y)},
		{name: "life-path date trailing slash", path: lp("/1/1/" + ys + "/"), want: at(1, 1, y)},
		{name: "life-path date first", path: lp("/1/1/1900"), want: at(1, 1, 1900)},
		{name: "life-path date last", path: lp("/31/12/2100"), want: at(31, 12, 2100)},
		{name: "life-path date 29.02.2000", path: lp("/29/2/2000"), want: at(29, 2, 2000)},
		{name: "life-path date 29.02.1900", path: lp("/29/2/1900"), want: invalidDate},
		{name: "life-path date 30.02", path: lp("/30/2/" + ys), want: invalidDate},
		{name: "life-path date year 1899", path: lp("/31/12/1899"), want: invalidDate},
		{name: "life-path date year 2101", path: lp("/1/1/2101"), want: invalidDate},
		{name: "life-path date month 13", path: lp("/1/13/" + ys), want: invalidDate},
		{name: "life-path date non-numeric", path: lp("/a/b/c"), want: invalidDate},
		{name: "life-path date percent-encoded", path: lp("/%31/1/" + ys), want: invalidDate},
		{name: "life-path date empty day", path: lp("//1/" + ys), want: invalidDate},
		{name: "life-path four segments: a date's form", path: lp("/1/1/" + ys + "/1"), want: invalidDate},
		{name: "life-path two segments: a number's", path: lp("/1/1"), want: numberNotFound},
		{name: "HEAD life-path date", method: http.MethodHead, path: lp("/15/5/" + ys), want: at(15, 5, y)},
		{name: "HEAD life-path date invalid", method: http.MethodHead, path: lp("/30/2/" + ys), want: invalidDate},
	}
}

// arcanaCases are the §3 cases of the arcana routes.
func (s *suite) arcanaCases() []tcase {
	p := s.m.Edge.Prefix + "/arcana"
	list := s.rowExpect(s.row(routeArcanaList), nil)
	one := func(n int) expect { return s.rowExpect(s.row(routeArcana), []int{n}) }
	arcanaNotFound := expect{status: 404, errKey: manifest.ErrArcanaNotFound}
	cases := []tcase{
		{name: "arcana list", path: p, want: list},
		{name: "arcana list trailing slash", path: p + "/", want: list},
		{name: "arcana leading zeros", path: p + "/007", want: one(7)},
		{name: "arcana 22", path: p + "/22/", want: one(22)},
		{name: "arcana 0", path: p + "/0", want: arcanaNotFound},
		{name: "arcana 23", path: p + "/23", want: arcanaNotFound},
		{name: "arcana 33", path: p + "/33", want: arcanaNotFound},
		{name: "arcana non-numeric", path: p + "/fool", want: arcanaNotFound},
		{name: "arcana percent-encoded", path: p + "/%31", want: arcanaNotFound},
		{name: "arcana extra segment", path: p + "/1/2", want: arcanaNotFound},
		{name: "arcana two trailing slashes", path: p + "//", want: arcanaNotFound},
		{name: "arcana.json is not a route", path: p + ".json", want: notFound},
		{name: "HEAD arcana", method: http.MethodHead, path: p + "/1", want: one(1)},
		{name: "HEAD arcana not found", method: http.MethodHead, path: p + "/23", want: arcanaNotFound},
	}
	for _, n := range s.arcanaNumbers() {
		cases = append(cases, tcase{name: "arcana " + strconv.Itoa(n), path: p + "/" + strconv.Itoa(n), want: one(n)})
	}
	return cases
}

// compatibilityCases are the §3 cases of the compatibility route: a pair in either order
// is one file (same bytes, same ETag: checkFile compares both with the file), and any other
// pair or form answers Number not found with the valid numbers.
func (s *suite) compatibilityCases() []tcase {
	p := s.m.Edge.Prefix + "/compatibility"
	pair := func(a, b int) expect { return s.rowExpect(s.row(routeCompatibility), []int{a, b}) }
	etag := `"absent"`
	if f, ok := s.files[pair(3, 11).file]; ok {
		etag = f.ETag()
	}
	notModified := pair(3, 11)
	notModified.status = 304
	return []tcase{
		{name: "compatibility 3 11", path: p + "/3/11", want: pair(3, 11)},
		{name: "compatibility 11 3", path: p + "/11/3", want: pair(3, 11)},
		{name: "compatibility 11 3 leading zeros", path: p + "/011/03/", want: pair(3, 11)},
		{name: "compatibility 11 3 with the ETag of 3 11", path: p + "/11/3", header: map[string]string{"If-None-Match": etag}, want: notModified},
		{name: "compatibility 33 33", path: p + "/33/33", want: pair(33, 33)},
		{name: "compatibility 3 10", path: p + "/3/10", want: numberNotFound},
		{name: "compatibility 0 1", path: p + "/0/1", want: numberNotFound},
		{name: "compatibility 34 1", path: p + "/34/1", want: numberNotFound},
		{name: "compatibility non-numeric", path: p + "/three/11", want: numberNotFound},
		{name: "compatibility percent-encoded", path: p + "/%33/11", want: numberNotFound},
		{name: "compatibility one number", path: p + "/3", want: numberNotFound},
		{name: "compatibility itself", path: p, want: numberNotFound},
		{name: "compatibility three numbers", path: p + "/3/11/22", want: numberNotFound},
		{name: "compatibility prefix word", path: p + "x/3/11", want: notFound},
		{name: "HEAD compatibility", method: http.MethodHead, path: p + "/11/3", want: pair(3, 11)},
		{name: "HEAD compatibility not found", method: http.MethodHead, path: p + "/3/10", want: numberNotFound},
	}
}

func (s *suite) methodCases() []tcase {
	p := s.m.Edge.Prefix
	ys := strconv.Itoa(s.year)
	paths := []struct{ name, path string }{
		{"matrix", p + "/matrix/15/5/" + ys},
		{"invalid date", p + "/matrix/30/2/" + ys},
		{"life-path", p + "/life-path/7"},
		{"index", p},
		{"unknown", p + "/unknown"},
		{"bad escape", p + "/matrix/%zz/1/" + ys},
	}
	var cases []tcase
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "PROPFIND", "MKCOL", "FOO"} {
		for _, q := range paths {
			c := tcase{name: m + " " + q.name, method: m, path: q.path, want: notAllowed}
			if m == "FOO" && s.target.UnregisteredMethodStatus != 0 {
				// Answered by the target's runtime, not the API (see Target).
				c.want, c.runtime = expect{status: s.target.UnregisteredMethodStatus}, true
			}
			cases = append(cases, c)
		}
	}
	return cases
}

func (s *suite) conditionalCases() []tcase {
	p := s.m.Edge.Prefix
	ys := strconv.Itoa(s.year)
	path := p + "/matrix/15/5/" + ys
	want := s.matrixExpect(15, 5, s.year)
	lp := s.lifePathExpect(7)
	etag := func(file string) string {
		if f, ok := s.files[file]; ok {
			return f.ETag()
		}
		return `"absent"`
	}
	et := etag(want.file)
	not := func(e expect) expect {
		if e.status == 200 {
			e.status = 304
		}
		return e
	}
	return []tcase{
		{name: "matching etag", path: path, header: map[string]string{"If-None-Match": et}, want: not(want)},
		{name: "weak etag", path: path, header: map[string]string{"If-None-Match": "W/" + et}, want: not(want)},
		{name: "list of etags", path: path, header: map[string]string{"If-None-Match": `"0000", ` + et + `, "ffff"`}, want: not(want)},
		{name: "star", path: path, header: map[string]string{"If-None-Match": "*"}, want: not(want)},
		{name: "HEAD matching etag", method: http.MethodHead, path: path, header: map[string]string{"If-None-Match": et}, want: not(want)},
		{name: "leading zeros same etag", path: p + "/matrix/015/05/" + ys, header: map[string]string{"If-None-Match": et}, want: not(want)},
		{name: "life-path matching etag", path: p + "/life-path/7", header: map[string]string{"If-None-Match": etag(lp.file)}, want: not(lp)},
		{name: "other etag", path: path, header: map[string]string{"If-None-Match": `"0123456789abcdef"`}, want: want},
		{name: "etag of another record", path: p + "/life-path/7", header: map[string]string{"If-None-Match": et}, want: lp},
		{name: "unquoted etag", path: path, header: map[string]string{"If-None-Match": strings.Trim(et, `"`)}, want: want},
		{name: "error ignores etag", path: p + "/matrix/30/2/" + ys, header: map[string]string{"If-None-Match": "*"}, want: invalidDate},
	}
}

func (s *suite) preflightCases() []tcase {
	p := s.m.Edge.Prefix
	ys := strconv.Itoa(s.year)
	pf := expect{status: 204}
	h := map[string]string{"Origin": "https://example.org", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "if-none-match"}
	var cases []tcase
	for _, q := range []struct{ name, path string }{
		{"index", p},
		{"matrix", p + "/matrix/15/5/" + ys},
		{"invalid date", p + "/matrix/30/2/" + ys},
		{"life-path", p + "/life-path/7"},
		{"number not found", p + "/life-path/99"},
		{"unknown", p + "/unknown"},
		{"bad escape", p + "/%"},
		{"bad escape in a route", p + "/arcana/%"},
		{"bad escape in the fragment", p + "/arcana/1#%zz"},
	} {
		cases = append(cases, tcase{name: q.name, method: http.MethodOptions, path: q.path, header: h, want: pf})
	}
	cases = append(cases, tcase{name: "without CORS headers", method: http.MethodOptions, path: p + "/life-path", want: pf})
	return cases
}

// encodingCases send Accept-Encoding as browsers and other clients do: every API answer is
// identity-encoded whatever it says (docs/design.md §4), its raw bytes the tree's file
// under the file's strong ETag (the suite's client never decodes a body: compression off,
// the header sent as it is), and its header sets say Content-Encoding: identity.
func (s *suite) encodingCases() []tcase {
	p := s.m.Edge.Prefix
	ys := strconv.Itoa(s.year)
	matrix := s.matrixExpect(15, 5, s.year)
	notModified := matrix
	notModified.status = 304
	etag := `"absent"`
	if f, ok := s.files[matrix.file]; ok {
		etag = f.ETag()
	}
	var cases []tcase
	for _, ae := range []string{"gzip", "br", "identity", "*", "gzip, deflate, br, zstd", "br;q=1, gzip;q=0.8, identity;q=0", "*;q=0"} {
		h := map[string]string{"Accept-Encoding": ae}
		for _, c := range []tcase{
			{name: "matrix", path: p + "/matrix/15/5/" + ys, want: matrix},
			{name: "openapi", path: p + "/openapi.json", want: s.fileExpect(s.row(routeOpenAPI).File, kindOpenAPI)},
			{name: "life-path list", path: p + "/life-path", want: s.fileExpect(s.row(routeLifePathList).File, kindList)},
			{name: "HEAD matrix", method: http.MethodHead, path: p + "/matrix/15/5/" + ys, want: matrix},
			{name: "304 matrix", path: p + "/matrix/15/5/" + ys, header: map[string]string{"If-None-Match": etag}, want: notModified},
			{name: "invalid date", path: p + "/matrix/30/2/" + ys, want: invalidDate},
			{name: "not found", path: p + "/nope", want: notFound},
			{name: "method not allowed", method: http.MethodDelete, path: p + "/life-path/7", want: notAllowed},
			{name: "preflight", method: http.MethodOptions, path: p + "/life-path/7", want: expect{status: 204}},
		} {
			c.name = ae + ": " + c.name
			c.header = maps.Clone(c.header)
			if c.header == nil {
				c.header = map[string]string{}
			}
			maps.Copy(c.header, h)
			cases = append(cases, c)
		}
	}
	return cases
}

// response is a response read in full.
type response struct {
	status int
	header http.Header
	body   []byte
	sent   time.Time // when the request was sent
	at     time.Time // when the response was received
}

// clientAddr returns a fresh client address (IPv4 from 198.18.0.0/15).
func (s *suite) clientAddr() string {
	n := s.nextIP.Add(1)
	return fmt.Sprintf("198.%d.%d.%d", 18+(n>>16)&1, (n>>8)&0xff, n&0xff)
}

// do sends a raw request as a fresh client; when all requests share one bucket, it first
// waits for room in it.
func (s *suite) do(t *testing.T, method, raw string, header map[string]string) response {
	t.Helper()
	if s.target.ClientHeader == "" && method != http.MethodOptions && s.rateLimited(raw) {
		s.sharedBudget()
	}
	return s.send(t, method, raw, header, "")
}

// send sends a raw request target as is, as the given client ("" for a fresh one).
func (s *suite) send(t *testing.T, method, raw string, header map[string]string, client string) response {
	t.Helper()
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, s.target.BaseURL+"/", nil)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.URL = &url.URL{Scheme: s.base.Scheme, Host: s.base.Host, Opaque: raw}
	for k, v := range header {
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
		t.Fatalf("%s %s: %v", method, raw, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, raw, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body, sent: sent, at: s.clock.Now()}
}

func (s *suite) rateLimited(raw string) bool {
	return s.m.Edge.RateLimited(pathOf(raw))
}

// pathOf is a raw target without its query and fragment.
func pathOf(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i]
	}
	return raw
}

// sharedBudget keeps the suite's own matrix requests under the limit when every request
// shares one bucket: it waits until the oldest of a full window has left it.
func (s *suite) sharedBudget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	cut := now.Add(-s.target.RateWindow)
	for len(s.shared) > 0 && s.shared[0].Before(cut) {
		s.shared = s.shared[1:]
	}
	if len(s.shared) >= s.target.RateLimit-1 {
		wait := s.shared[0].Add(s.target.RateWindow + 250*time.Millisecond).Sub(now)
		s.clock.Sleep(wait)
		s.shared = s.shared[1:]
	}
	s.shared = append(s.shared, s.clock.Now())
}

// drainShared waits until none of the suite's earlier matrix requests is in the window.
func (s *suite) drainShared() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.shared); n > 0 {
		s.sleepUntil(s.shared[n-1].Add(s.target.RateWindow + 250*time.Millisecond))
		s.shared = nil
	}
}

// sleepUntil waits on the target's clock until at.
func (s *suite) sleepUntil(at time.Time) {
	if d := at.Sub(s.clock.Now()); d > 0 {
		s.clock.Sleep(d)
	}
}

// check sends one case and checks the response against the contract.
func (s *suite) check(t *testing.T, c tcase) {
	t.Helper()
	r := s.do(t, c.method, c.path, c.header)
	s.checkResponse(t, c.method, c.path, r, c.want, c.static || c.runtime)
}

// checkResponse checks a response against what the contract requires of it; for static
// (and runtime) answers only the status.
func (s *suite) checkResponse(t *testing.T, method, path string, r response, want expect, static bool) {
	t.Helper()
	if method == "" {
		method = http.MethodGet
	}
	what := method + " " + path
	if r.status != want.status {
		t.Fatalf("%s: status %d, want %d (body %.200q)", what, r.status, want.status, r.body)
	}
	if static {
		return
	}
	switch want.status {
	case 204:
		s.checkPreflight(t, what, r)
	case 200, 304:
		s.checkFile(t, what, method == http.MethodHead, r, want)
	default:
		s.checkError(t, what, method == http.MethodHead, r, want)
	}
}

// checkPreflight checks a 204 preflight answer.
func (s *suite) checkPreflight(t *testing.T, what string, r response) {
	t.Helper()
	hs := s.m.Edge.Headers
	s.headersExactly(t, what, r.header, hs.Preflight)
	for _, k := range []string{"Content-Type", "Cache-Control", "ETag", "Retry-After", "Allow", "Access-Control-Expose-Headers"} {
		if _, ok := hs.Preflight[k]; !ok {
			absent(t, what, r.header, k)
		}
	}
	if len(r.body) != 0 {
		t.Errorf("%s: 204 with a body of %d bytes", what, len(r.body))
	}
}

// checkFile checks a 200 or 304 answer of a tree file.
func (s *suite) checkFile(t *testing.T, what string, head bool, r response, want expect) {
	t.Helper()
	hs := s.m.Edge.Headers
	if want.status == 304 {
		// RFC 9110 §15.4.5: a 304 carries the validator and caching headers but no
		// representation metadata; the config's set says which.
		s.headers(t, what, r.header, hs.NotModified)
		for k := range hs.Common {
			if _, ok := hs.NotModified[k]; !ok {
				absent(t, what, r.header, k)
			}
		}
	} else {
		s.headers(t, what, r.header, hs.Common, hs.ByStatus[strconv.Itoa(want.status)])
	}
	f := s.files[want.file]
	if got := r.header.Get("ETag"); got != f.ETag() {
		t.Errorf("%s: ETag %q, want %q", what, got, f.ETag())
	}
	absent(t, what, r.header, "Retry-After")
	absent(t, what, r.header, "Allow")
	if want.status == 304 {
		if len(r.body) != 0 {
			t.Errorf("%s: 304 with a body of %d bytes", what, len(r.body))
		}
		return
	}
	if got := r.header.Get("Content-Length"); got != strconv.FormatInt(f.Size, 10) {
		t.Errorf("%s: Content-Length %q, want %d", what, got, f.Size)
	}
	if head {
		if len(r.body) != 0 {
			t.Errorf("%s: HEAD with a body of %d bytes", what, len(r.body))
		}
		return
	}
	wantBody, err := os.ReadFile(filepath.Join(s.target.TreeDir, filepath.FromSlash(want.file)))
	if err != nil {
		t.Fatalf("%s: read the tree's file: %v", what, err)
	}
	if !bytes.Equal(r.body, wantBody) {
		t.Fatalf("%s: body differs from %s (%d bytes, want %d)", what, want.file, len(r.body), len(wantBody))
	}
	s.checkBody(t, what, r.body, want)
}

// checkError checks an answer with a prebuilt error body.
func (s *suite) checkError(t *testing.T, what string, head bool, r response, want expect) {
	t.Helper()
	hs := s.m.Edge.Headers
	e, ok := s.m.Edge.Errors[want.errKey]
	if !ok {
		t.Fatalf("%s: the manifest has no %s error", what, want.errKey)
	}
	if e.Status != want.status {
		t.Fatalf("%s: error %s has status %d in the manifest, want %d", what, want.errKey, e.Status, want.status)
	}
	s.headers(t, what, r.header, hs.Common, hs.ByStatus[strconv.Itoa(want.status)])
	absent(t, what, r.header, "ETag")
	if want.status != 429 {
		absent(t, what, r.header, "Retry-After")
	}
	if _, ok := hs.ByStatus[strconv.Itoa(want.status)]["Allow"]; !ok {
		absent(t, what, r.header, "Allow")
	}
	if got := r.header.Get("Content-Length"); got != "" && got != strconv.Itoa(len(e.Body)) {
		t.Errorf("%s: Content-Length %q, want %d", what, got, len(e.Body))
	}
	if head {
		if len(r.body) != 0 {
			t.Errorf("%s: HEAD with a body of %d bytes", what, len(r.body))
		}
		return
	}
	if string(r.body) != e.Body {
		t.Fatalf("%s: body %q, want the prebuilt %s body %q", what, r.body, want.errKey, e.Body)
	}
	checkErrorBody(t, what, r.body, want.errKey, want.status, s.validNumbers(want.errKey))
}

// headers checks that every header of the sets is present with exactly its value.
func (s *suite) headers(t *testing.T, what string, h http.Header, sets ...map[string]string) {
	t.Helper()
	for _, set := range sets {
		for k, v := range set {
			if got := h.Values(k); len(got) != 1 || got[0] != v {
				t.Errorf("%s: header %s = %q, want %q", what, k, got, v)
			}
		}
	}
}

// headersExactly checks the set like headers and that no other header is added but those
// of the transport (Date, Server, Connection, …) and of Cloudflare.
func (s *suite) headersExactly(t *testing.T, what string, h http.Header, set map[string]string) {
	t.Helper()
	s.headers(t, what, h, set)
	for k := range h {
		if _, ok := set[k]; ok {
			continue
		}
		found := false
		for sk := range set {
			if http.CanonicalHeaderKey(sk) == k {
				found = true
			}
		}
		if !found && strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("%s: unexpected header %s: %q", what, k, h.Values(k))
		}
	}
}

func absent(t *testing.T, what string, h http.Header, k string) {
	t.Helper()
	if v := h.Values(k); len(v) > 0 {
		t.Errorf("%s: header %s = %q, want none", what, k, v)
	}
}

// testMissingFile checks that a deleted matrix file gives 500 for its date only.
func (s *suite) testMissingFile(t *testing.T) {
	d, m, y, _ := parseDate(s.target.MissingMatrixFile)
	p := s.m.Edge.Prefix + "/matrix/"
	internal := expect{status: 500, errKey: manifest.ErrInternal}
	for _, c := range []tcase{
		{name: "GET", path: fmt.Sprintf("%s%d/%d/%d", p, d, m, y), want: internal},
		{name: "leading zeros", path: fmt.Sprintf("%s%02d/%02d/%d", p, d, m, y), want: internal},
		{name: "HEAD", method: http.MethodHead, path: fmt.Sprintf("%s%d/%d/%d", p, d, m, y), want: internal},
		{name: "with its ETag", path: fmt.Sprintf("%s%d/%d/%d", p, d, m, y), want: internal,
			header: map[string]string{"If-None-Match": s.files[s.missing].ETag()}},
		{name: "another date of the year", path: fmt.Sprintf("%s%d/%d/%d", p, 1+d%28, 1+m%12, y), want: s.matrixExpect(1+d%28, 1+m%12, y)},
		{name: "life-path", path: s.m.Edge.Prefix + "/life-path/7", want: s.lifePathExpect(7)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "with its ETag" && s.files[s.missing] == nil {
				t.Fatalf("%s is not in the manifest", s.missing)
			}
			s.check(t, c)
		})
	}
}

// testRateLimit checks §3's limit: the first RateLimit requests of a client in a window to
// the rate-limited routes, together, are admitted whatever their method or validity, the
// next gets 429 with Retry-After on every one of them, OPTIONS and other routes are not
// counted, IPv6 clients share a /64, and a request after Retry-After seconds is admitted.
func (s *suite) testRateLimit(t *testing.T) {
	if len(s.limitedPaths()) == 0 {
		t.Fatal("the route table has no rate-limited route")
	}
	if s.target.ClientHeader == "" {
		s.drainShared()
	} else {
		t.Parallel()
	}
	t.Run("61st request", s.testLimitReached)
	if s.target.ClientHeader != "" {
		t.Run("IPv6 grouped by /64", s.testIPv6Grouped)
	}
	t.Run("Retry-After honoured", s.testRetryAfter)
}

var tooMany = expect{status: 429, errKey: manifest.ErrTooManyRequests}

// limitedPath is what the rate-limit tests send to one rate-limited route: paths the route
// owns (a valid value, an invalid one, a malformed one, one with a bad percent-escape).
type limitedPath struct {
	valid, invalid, malformed, badEscape string
	want                                 expect // the answer to valid under the limit
}

// limitedPaths are the paths of the rate-limited routes, in table order.
func (s *suite) limitedPaths() []limitedPath {
	var out []limitedPath
	for _, r := range s.m.Edge.Routes {
		if !r.RateLimited {
			continue
		}
		vals := s.sampleValues(r)[0]
		x := make([]string, len(vals))
		esc := make([]string, len(vals))
		for i := range x {
			x[i], esc[i] = "x", "%zz"
		}
		lp := limitedPath{valid: routePath(r, itoas(vals, "")), malformed: routePath(r, x), badEscape: routePath(r, esc), want: s.rowExpect(r, vals)}
		lp.invalid = lp.malformed
		if bad := s.invalidSegments(r, vals); len(bad) > 0 {
			lp.invalid = routePath(r, bad[0])
		}
		out = append(out, lp)
	}
	return out
}

// burst sends RateLimit requests as client to the rate-limited routes in turn, mixing
// valid, invalid and other methods, all of which must be admitted. It returns when it
// started.
func (s *suite) burst(t *testing.T, client string) time.Time {
	t.Helper()
	start := s.clock.Now()
	lims := s.limitedPaths()
	for i := range s.target.RateLimit {
		lp := lims[(i/4)%len(lims)]
		var r response
		switch i % 4 {
		case 0:
			r = s.doRaw(t, http.MethodGet, lp.valid, client)
		case 1:
			if i%8 == 1 {
				r = s.doRaw(t, http.MethodGet, lp.invalid, client)
			} else {
				r = s.doRaw(t, http.MethodGet, lp.badEscape, client)
			}
		case 2:
			r = s.doRaw(t, http.MethodPost, lp.malformed, client)
		default:
			r = s.doRaw(t, http.MethodHead, lp.valid+"/", client)
		}
		if r.status == 429 {
			t.Fatalf("request %d of %d in the window: 429, want admitted", i+1, s.target.RateLimit)
		}
	}
	return start
}

// exhausted runs attempt, which exhausts the budget of a fresh client with a burst, sends
// the requests its test checks and returns when the burst started and the checks of the
// answers. The checks run when all of it fell within one window of the burst's start (and,
// for an AlignedWindow target, within one aligned window), on the target's clock: on a
// machine slow enough to overrun the window, or when a fake clock was moved on by a wait of
// another test, or when the burst straddled two aligned windows, the burst's first requests
// may have left the window and a request that must be refused may be admitted, so the
// attempt is repeated with a fresh client, three attempts at most (the last one is checked
// whatever its time).
func (s *suite) exhausted(t *testing.T, attempt func() (time.Time, func())) {
	t.Helper()
	for n := 1; ; n++ {
		start, check := attempt()
		why := s.spoiled(start, s.clock.Now())
		if why == "" || s.target.ClientHeader == "" || n == 3 {
			if why != "" {
				t.Logf("attempt %d %s: its checks may fail for that alone", n, why)
			}
			check()
			return
		}
		t.Logf("attempt %d %s: again with a fresh client", n, why)
	}
}

// spoiled says why a burst that started at start and whose checked requests were answered
// by end may have lost some of its requests from the window, or "" when it cannot have.
func (s *suite) spoiled(start, end time.Time) string {
	w := s.target.RateWindow
	if took := end.Sub(start); took >= w {
		return fmt.Sprintf("took %v, longer than the %v window", took, w)
	}
	if s.target.AlignedWindow && start.UnixNano()/int64(w) != end.UnixNano()/int64(w) {
		return fmt.Sprintf("straddled two aligned %v windows (%s to %s)", w,
			start.UTC().Format("15:04:05.000"), end.UTC().Format("15:04:05.000"))
	}
	return ""
}

// retryAfter checks a 429's Retry-After and returns it in seconds.
func (s *suite) retryAfter(t *testing.T, r response) int {
	t.Helper()
	v := r.header.Values("Retry-After")
	if len(v) != 1 {
		t.Fatalf("429: Retry-After %q, want one value", v)
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 1 || time.Duration(n)*time.Second > s.target.RateWindow {
		t.Fatalf("429: Retry-After %q, want whole seconds in [1, %v]", v[0], s.target.RateWindow)
	}
	return n
}

// testLimitReached checks that OPTIONS is not counted, that the request after the limit
// gets 429 on every rate-limited route (one budget) whatever its method or validity, and
// that other routes and clients are not limited.
func (s *suite) testLimitReached(t *testing.T) {
	if s.target.ClientHeader != "" {
		t.Parallel()
	}
	lims := s.limitedPaths()
	path := lims[0].valid
	type query struct {
		method, path string
		want         expect
	}
	qs := []query{{http.MethodGet, path, tooMany}}
	for _, lp := range lims {
		qs = append(qs,
			query{http.MethodGet, lp.valid, tooMany},
			query{http.MethodGet, lp.malformed, tooMany},
			query{http.MethodGet, lp.badEscape, tooMany},
			query{http.MethodGet, lp.valid + "#%zz", tooMany},
			query{http.MethodDelete, lp.valid, tooMany},
			query{http.MethodHead, lp.valid, tooMany},
			query{http.MethodOptions, lp.valid, expect{status: 204}})
	}
	for _, rt := range s.m.Edge.Routes {
		if !rt.RateLimited {
			vals := s.sampleValues(rt)[0]
			qs = append(qs, query{http.MethodGet, routePath(rt, itoas(vals, "")), s.rowExpect(rt, vals)})
		}
	}
	s.exhausted(t, func() (time.Time, func()) {
		c := s.clientAddr()
		for range s.target.RateLimit + 3 {
			r := s.doRaw(t, http.MethodOptions, lims[0].valid, c)
			if r.status != 204 {
				t.Fatalf("OPTIONS: status %d, want 204 (not counted)", r.status)
			}
		}
		start := s.burst(t, c)
		rs := make([]response, len(qs))
		for i, q := range qs {
			rs[i] = s.doRaw(t, q.method, q.path, c)
		}
		return start, func() {
			for i, q := range qs {
				s.checkResponse(t, q.method, q.path, rs[i], q.want, false)
			}
			s.retryAfter(t, rs[0])
		}
	})
	if s.target.ClientHeader != "" {
		other := s.doRaw(t, http.MethodGet, path, s.clientAddr())
		s.checkResponse(t, "GET (another client)", path, other, lims[0].want, false)
	}
}

// testIPv6Grouped checks that IPv6 clients share a bucket per /64.
func (s *suite) testIPv6Grouped(t *testing.T) {
	t.Parallel()
	lp := s.limitedPaths()[0]
	s.exhausted(t, func() (time.Time, func()) {
		n := s.nextIP.Add(1)
		start := s.burst(t, fmt.Sprintf("2001:db8:%x:%x::1", n>>16, n&0xffff))
		same := s.doRaw(t, http.MethodGet, lp.valid, fmt.Sprintf("2001:db8:%x:%x:ffff:ffff:ffff:fffe", n>>16, n&0xffff))
		next := s.doRaw(t, http.MethodGet, lp.valid, fmt.Sprintf("2001:db8:%x:%x::1", n>>16, (n&0xffff)^0x8000))
		return start, func() {
			s.checkResponse(t, "GET (same /64)", lp.valid, same, tooMany, false)
			s.checkResponse(t, "GET (next /64)", lp.valid, next, lp.want, false)
		}
	})
}

// testRetryAfter checks that a request after Retry-After seconds is admitted (and, for an
// exact Retry-After, that one a second earlier is not), for the client Run exhausted first
// when there is one.
func (s *suite) testRetryAfter(t *testing.T) {
	if s.target.ClientHeader != "" {
		t.Parallel()
	} else {
		s.drainShared()
	}
	lp := s.limitedPaths()[0]
	var c string
	var r response
	switch {
	case s.retry != nil:
		c, r = s.retry.client, s.retry.r
	case s.target.ClientHeader != "":
		t.Fatal("the client exhausted at the start failed (see its test): nothing to wait for")
	default:
		c, r = s.exhaustClient(t)
	}
	wait := time.Duration(s.retryAfter(t, r)) * time.Second
	if s.target.ExactRetryAfter {
		// The server counted from a moment between sending and receiving the 429;
		// counting from the sending is never later than its "one second earlier".
		s.sleepUntil(r.sent.Add(wait - time.Second))
		early := s.doRaw(t, http.MethodGet, lp.valid, c)
		s.checkResponse(t, "GET one second before Retry-After", lp.valid, early, tooMany, false)
	}
	s.sleepUntil(r.at.Add(wait))
	late := s.doRaw(t, http.MethodGet, lp.valid, c)
	s.checkResponse(t, "GET after Retry-After", lp.valid, late, lp.want, false)
}

// exhaustClient exhausts the budget of a fresh client on the first rate-limited route and
// returns the client and the refusal of its next request.
func (s *suite) exhaustClient(t *testing.T) (string, response) {
	t.Helper()
	lp := s.limitedPaths()[0]
	var c string
	var r response
	s.exhausted(t, func() (time.Time, func()) {
		c = s.clientAddr()
		start := s.burst(t, c)
		r = s.doRaw(t, http.MethodGet, lp.valid, c)
		return start, func() { s.checkResponse(t, "GET", lp.valid, r, tooMany, false) }
	})
	return c, r
}

// doRaw sends a request as client, outside the suite's shared-bucket budget: the
// rate-limit tests exhaust the bucket on purpose.
func (s *suite) doRaw(t *testing.T, method, raw, client string) response {
	t.Helper()
	if s.target.ClientHeader == "" && method != http.MethodOptions && s.rateLimited(raw) {
		s.mu.Lock()
		s.shared = append(s.shared, s.clock.Now())
		s.mu.Unlock()
	}
	return s.send(t, method, raw, nil, client)
}

// checkBody checks the §5 fields of a 200 body of the given kind.
func (s *suite) checkBody(t *testing.T, what string, body []byte, want expect) {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("}\n")) && !bytes.HasSuffix(body, []byte("]\n")) {
		t.Errorf("%s: body does not end with one newline", what)
	}
	switch want.kind {
	case kindIndex:
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Errorf("%s: index: %v", what, err)
		}
	case kindOpenAPI:
		var v struct {
			OpenAPI string `json:"openapi"`
		}
		if err := json.Unmarshal(body, &v); err != nil || !strings.HasPrefix(v.OpenAPI, "3.1") {
			t.Errorf("%s: openapi %q, want 3.1.x (%v)", what, v.OpenAPI, err)
		}
	case kindList:
		s.checkList(t, what, body)
	case kindLifePath:
		s.checkLifePath(t, what, body, want)
	case kindMatrix:
		s.checkMatrix(t, what, body, want)
	case kindLifePathDate:
		s.checkLifePathDate(t, what, body, want)
	case kindArcanaList:
		s.checkArcanaList(t, what, body)
	case kindArcana:
		s.checkArcana(t, what, body, want)
	case kindPositions:
		s.checkPositions(t, what, body)
	case kindCompatibility:
		s.checkCompatibility(t, what, body, want)
	case kindSquare:
		s.checkSquare(t, what, body, want)
	case kindSquareMeanings:
		s.checkSquareMeanings(t, what, body)
	case kindChart:
		s.checkChart(t, what, body, want)
	case kindChartMeanings:
		s.checkChartMeanings(t, what, body)
	case kindPersonalYear:
		s.checkPersonalYear(t, what, body, want)
	case kindPersonalYearMeanings:
		s.checkPersonalYearMeanings(t, what, body)
	}
}

// checkList checks the life path list.
func (s *suite) checkList(t *testing.T, what string, body []byte) {
	t.Helper()
	var items []map[string]any
	if err := json.Unmarshal(body, &items); err != nil {
		t.Fatalf("%s: list: %v", what, err)
	}
	numbers := s.lifePathNumbers()
	if len(items) != len(numbers) {
		t.Fatalf("%s: %d items, want %d", what, len(items), len(numbers))
	}
	for i, it := range items {
		n := numbers[i]
		if it["number"] != float64(n) {
			t.Errorf("%s: item %d number %v, want %d", what, i, it["number"], n)
		}
		for _, k := range []string{"archetype", "tagline", "short_description", "url", "source_url"} {
			isString(t, what, it, k)
		}
		if it["url"] != s.m.APIBase+"/life-path/"+strconv.Itoa(n) {
			t.Errorf("%s: item %d url %v", what, i, it["url"])
		}
		// The list has no room for record-wide fields: each item carries the caveat.
		checkDisclaimer(t, fmt.Sprintf("%s item %d", what, i), it)
	}
	keysInOrder(t, what+" item", firstElement(t, body), "number", "archetype", "tagline", "short_description", "url", "source_url", "disclaimer")
}

// checkLifePath checks a life path record.
func (s *suite) checkLifePath(t *testing.T, what string, body []byte, want expect) {
	t.Helper()
	site := s.m.SiteURL
	keysInOrder(t, what, body, "number", "archetype", "tagline", "short_description", "description", "traits",
		"weaknesses", "career", "love", "advice", "famous_people", "source_url", "suggested_citation", "disclaimer", "license",
		"license_url", "attribution", "attribution_html", "api_version")
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if v["number"] != float64(want.number) {
		t.Errorf("%s: number %v, want %d", what, v["number"], want.number)
	}
	for _, k := range []string{"archetype", "tagline", "short_description", "description", "love", "advice", "suggested_citation", "attribution", "attribution_html"} {
		isString(t, what, v, k)
	}
	for _, k := range []string{"traits", "weaknesses", "career"} {
		arr, ok := v[k].([]any)
		if !ok {
			t.Errorf("%s: %s is %T, want an array of strings", what, k, v[k])
		}
		for _, e := range arr {
			if _, ok := e.(string); !ok {
				t.Errorf("%s: %s holds %T, want strings", what, k, e)
			}
		}
	}
	people, ok := v["famous_people"].([]any)
	if !ok {
		t.Errorf("%s: famous_people is %T, want an array", what, v["famous_people"])
	}
	for _, p := range people {
		pm, ok := p.(map[string]any)
		if !ok {
			t.Errorf("%s: famous_people holds %T", what, p)
			continue
		}
		isString(t, what+" famous_people", pm, "name")
		isString(t, what+" famous_people", pm, "field")
	}
	equal(t, what, v, "source_url", site+"/life-path/"+strconv.Itoa(want.number))
	s.checkLicence(t, what, v)
}

// checkMatrix checks a matrix record.
func (s *suite) checkMatrix(t *testing.T, what string, body []byte, want expect) {
	t.Helper()
	site := s.m.SiteURL
	keysInOrder(t, what, body, "input", "matrix", "suggested_citation", "source_url", "details_url", "disclaimer", "license",
		"license_url", "attribution", "attribution_html", "api_version")
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	d, m, y := want.date[0], want.date[1], want.date[2]
	in, _ := v["input"].(map[string]any)
	if in["day"] != float64(d) || in["month"] != float64(m) || in["year"] != float64(y) {
		t.Errorf("%s: input %v, want %d.%d.%d", what, v["input"], d, m, y)
	}
	var raw struct {
		Matrix json.RawMessage `json:"matrix"`
	}
	_ = json.Unmarshal(body, &raw)
	keysInOrder(t, what+" matrix", raw.Matrix, positionKeys...)
	mx, _ := v["matrix"].(map[string]any)
	for k, pos := range mx {
		pm, _ := pos.(map[string]any)
		a, ok := pm["arcana"].(float64)
		if !ok || a != float64(int(a)) || a < 1 || a > 22 {
			t.Errorf("%s: matrix.%s.arcana %v, want an int 1–22", what, k, pm["arcana"])
		}
		for _, f := range []string{"name", "keyword", "emoji"} {
			isString(t, what+" matrix."+k, pm, f)
		}
	}
	cit, _ := v["suggested_citation"].(string)
	if !strings.Contains(cit, fmt.Sprintf("%02d.%02d.%04d", d, m, y)) {
		t.Errorf("%s: suggested_citation %q lacks the date", what, cit)
	}
	equal(t, what, v, "source_url", site+"/matrix")
	equal(t, what, v, "details_url", fmt.Sprintf("%s/matrix/details?date=%04d-%02d-%02d", site, y, m, d))
	s.checkLicence(t, what, v)
}

// lifePathOf is the life path number of a date by the words of docs/design.md §7: all the
// digits of DD, MM and YYYY summed, then, while above 9 and not 11, 22 or 33, the digits of
// the sum.
func lifePathOf(d, m, y int) int {
	n := 0
	for _, c := range fmt.Sprintf("%02d%02d%04d", d, m, y) {
		n += int(c - '0')
	}
	for n > 9 && n != 11 && n != 22 && n != 33 {
		sum := 0
		for ; n > 0; n /= 10 {
			sum += n % 10
		}
		n = sum
	}
	return n
}

// checkLifePathDate checks the life path record of a date: its number by the rule, the
// number's item of the tree's list, its source and licence.
func (s *suite) checkLifePathDate(t *testing.T, what string, body []byte, want expect) {
	t.Helper()
	keysInOrder(t, what, body, "input", "number", "life_path", "pinnacles", "challenges", "suggested_citation", "source_url",
		"disclaimer", "license", "license_url", "attribution", "attribution_html", "api_version")
	var v struct {
		Input    struct{ Day, Month, Year int } `json:"input"`
		Number   int                            `json:"number"`
		LifePath json.RawMessage                `json:"life_path"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	d, m, y := want.date[0], want.date[1], want.date[2]
	if v.Input.Day != d || v.Input.Month != m || v.Input.Year != y {
		t.Errorf("%s: input %+v, want %d.%d.%d", what, v.Input, d, m, y)
	}
	n := lifePathOf(d, m, y)
	if v.Number != n {
		t.Errorf("%s: number %d, the rule gives %d", what, v.Number, n)
	}
	checkLifeCycles(t, what, body, d, m, y) // cycles.go
	list, err := os.ReadFile(filepath.Join(s.target.TreeDir, filepath.FromSlash(s.row(routeLifePathList).File)))
	if err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(list, &items); err != nil {
		t.Fatalf("%s: %v", s.row(routeLifePathList).File, err)
	}
	// The item is the list's without its disclaimer, which the record carries once.
	i := slices.Index(s.lifePathNumbers(), n)
	var item []byte
	if i >= 0 && i < len(items) {
		if j := bytes.LastIndex(items[i], []byte(`,"disclaimer":`)); j > 0 {
			item = append(slices.Clip(items[i][:j]), '}')
		}
	}
	if item == nil || !bytes.Equal(v.LifePath, item) {
		t.Errorf("%s: life_path %s, want the list's item of %d without its disclaimer", what, v.LifePath, n)
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	equal(t, what, rec, "source_url", s.m.SiteURL+"/life-path/"+strconv.Itoa(n))
	isString(t, what, rec, "suggested_citation")
	s.checkLicence(t, what, rec)
}

// positionKeys are the keys of the 12 matrix positions, in the record's order (§5).
var positionKeys = []string{"personal", "social", "soul", "body", "spirit", "center", "talents",
	"karma", "money", "relationships", "destiny", "purpose"}

// checkPositions checks /positions: the 12 positions in the matrix record's order.
func (s *suite) checkPositions(t *testing.T, what string, body []byte) {
	t.Helper()
	keysInOrder(t, what, body, "positions", "source_url", "suggested_citation", "disclaimer", "license", "license_url", "attribution",
		"attribution_html", "api_version")
	var v struct {
		Positions []json.RawMessage `json:"positions"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(v.Positions) != len(positionKeys) {
		t.Fatalf("%s: %d positions, want %d", what, len(v.Positions), len(positionKeys))
	}
	for i, raw := range v.Positions {
		keysInOrder(t, what+" item", raw, "key", "title", "description")
		var it map[string]any
		_ = json.Unmarshal(raw, &it)
		equal(t, what, it, "key", positionKeys[i])
		isString(t, what, it, "title")
		isString(t, what, it, "description")
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	equal(t, what, rec, "source_url", s.m.SiteURL+"/matrix#positions")
	isString(t, what, rec, "suggested_citation")
	s.checkLicence(t, what, rec)
}

// checkCompatibility checks the record of a pair of life path numbers: the canonical pair,
// a level that is a word and not a score, the texts, the page, the help sentence and the
// licence.
func (s *suite) checkCompatibility(t *testing.T, what string, body []byte, want expect) {
	t.Helper()
	keysInOrder(t, what, body, "numbers", "level", "level_description", "summary", "strengths", "challenges", "advice",
		"source_url", "suggested_citation", "help", "disclaimer", "license", "license_url", "attribution", "attribution_html", "api_version")
	var v struct {
		Numbers    []int    `json:"numbers"`
		Level      string   `json:"level"`
		Strengths  []string `json:"strengths"`
		Challenges []string `json:"challenges"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(v.Numbers) != 2 || v.Numbers[0] != want.pair[0] || v.Numbers[1] != want.pair[1] {
		t.Errorf("%s: numbers %v, want %v", what, v.Numbers, want.pair)
	}
	if v.Level == "" || strings.ContainsAny(v.Level, "0123456789%") {
		t.Errorf("%s: level %q, want a word", what, v.Level)
	}
	if len(v.Strengths) == 0 || len(v.Challenges) == 0 || slices.Contains(v.Strengths, "") || slices.Contains(v.Challenges, "") {
		t.Errorf("%s: strengths %q, challenges %q: want non-empty lists of texts", what, v.Strengths, v.Challenges)
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	for _, k := range []string{"level_description", "summary", "advice", "suggested_citation"} {
		isString(t, what, rec, k)
	}
	equal(t, what, rec, "source_url", fmt.Sprintf("%s/compatibility/%d/%d", s.m.SiteURL, want.pair[0], want.pair[1]))
	checkHelp(t, what, rec)
	s.checkLicence(t, what, rec)
}

// checkHelp checks the help sentence every compatibility record carries, whatever its level
// (docs/design.md §5): violence in a relationship is not a matter of numbers, and at a threat
// to life the emergency number is 112.
func checkHelp(t *testing.T, what string, v map[string]any) {
	t.Helper()
	h, _ := v["help"].(string)
	h = strings.ReplaceAll(h, "\u00a0", " ")
	if !strings.Contains(h, "насили") || !strings.Contains(h, "112") {
		t.Errorf("%s: help %q: want the sentence on violence in a relationship, with where to get help and 112", what, h)
	}
}

// arcanaNumbers are the numbers of the arcana route.
func (s *suite) arcanaNumbers() []int {
	if r := s.row(routeArcana); len(r.Params) > 0 {
		return r.Params[0].Numbers
	}
	return nil
}

// checkArcanaList checks /arcana: the 22 arcana in order, briefly, with their URLs.
func (s *suite) checkArcanaList(t *testing.T, what string, body []byte) {
	t.Helper()
	keysInOrder(t, what, body, "arcana", "source_url", "suggested_citation", "disclaimer", "license", "license_url", "attribution",
		"attribution_html", "api_version")
	var v struct {
		Arcana []json.RawMessage `json:"arcana"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	numbers := s.arcanaNumbers()
	if len(v.Arcana) != len(numbers) || len(numbers) != 22 {
		t.Fatalf("%s: %d arcana, the route has %d numbers; want 22", what, len(v.Arcana), len(numbers))
	}
	for i, raw := range v.Arcana {
		keysInOrder(t, what+" item", raw, "number", "name", "keyword", "emoji", "url", "source_url")
		var it map[string]any
		_ = json.Unmarshal(raw, &it)
		n := numbers[i]
		if it["number"] != float64(n) {
			t.Errorf("%s: item %d number %v, want %d", what, i, it["number"], n)
		}
		for _, k := range []string{"name", "keyword", "emoji"} {
			isString(t, what, it, k)
		}
		equal(t, what, it, "url", s.m.APIBase+"/arcana/"+strconv.Itoa(n))
		equal(t, what, it, "source_url", s.m.SiteURL+"/arcana/"+strconv.Itoa(n))
	}
	var rec map[string]any
	_ = json.Unmarshal(body, &rec)
	equal(t, what, rec, "source_url", s.m.SiteURL+"/arcana")
	isString(t, what, rec, "suggested_citation")
	s.checkLicence(t, what, rec)
}

// checkArcana checks the record of one arcanum.
func (s *suite) checkArcana(t *testing.T, what string, body []byte, want expect) {
	t.Helper()
	keysInOrder(t, what, body, "number", "name", "keyword", "emoji", "description", "source_url", "suggested_citation",
		"disclaimer", "license", "license_url", "attribution", "attribution_html", "api_version")
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if v["number"] != float64(want.number) {
		t.Errorf("%s: number %v, want %d", what, v["number"], want.number)
	}
	for _, k := range []string{"name", "keyword", "emoji", "description", "suggested_citation"} {
		isString(t, what, v, k)
	}
	equal(t, what, v, "source_url", s.m.SiteURL+"/arcana/"+strconv.Itoa(want.number))
	s.checkLicence(t, what, v)
}

func (s *suite) checkLicence(t *testing.T, what string, v map[string]any) {
	t.Helper()
	checkDisclaimer(t, what, v)
	equal(t, what, v, "license", "CC-BY 4.0")
	equal(t, what, v, "license_url", "https://creativecommons.org/licenses/by/4.0/")
	equal(t, what, v, "api_version", s.m.APIVersion)
	isString(t, what, v, "attribution")
	if h, _ := v["attribution_html"].(string); !strings.HasPrefix(h, `<a href="`) || !strings.Contains(h, `rel="nofollow noopener"`) {
		t.Errorf("%s: attribution_html %q", what, h)
	}
}

// checkDisclaimer checks a record's (or a list item's) caveat: numerology is not a science.
func checkDisclaimer(t *testing.T, what string, v map[string]any) {
	t.Helper()
	if d, _ := v["disclaimer"].(string); !strings.Contains(strings.ReplaceAll(d, "\u00a0", " "), "не наука") {
		t.Errorf("%s: disclaimer %q: want the caveat that numerology is not a science", what, d)
	}
}

// errorTexts are the error texts of the contract's error keys (docs/design.md §5).
var errorTexts = map[string]string{
	manifest.ErrInvalidDate:      "Invalid date",
	manifest.ErrNumberNotFound:   "Number not found",
	manifest.ErrArcanaNotFound:   "Arcana not found",
	manifest.ErrNotFound:         "Not found",
	manifest.ErrMethodNotAllowed: "Method not allowed",
	manifest.ErrTooManyRequests:  "Too many requests",
	manifest.ErrInternal:         "Internal error",
}

// checkErrorBody checks the fields of an error body: its text (for the contract's keys),
// its status, a message, and valid_numbers when the error lists them (valid: the numbers
// of the routes that answer it), always for Number not found.
func checkErrorBody(t *testing.T, what string, body []byte, key string, status int, valid []int) {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: error body: %v", what, err)
	}
	if want, ok := errorTexts[key]; ok {
		equal(t, what, v, "error", want)
	} else {
		isString(t, what, v, "error")
	}
	if v["status"] != float64(status) {
		t.Errorf("%s: status field %v, want %d", what, v["status"], status)
	}
	isString(t, what, v, "message")
	_, has := v["valid_numbers"]
	if (key == manifest.ErrNumberNotFound || key == manifest.ErrArcanaNotFound) && !has {
		t.Errorf("%s: %s without valid_numbers", what, errorTexts[key])
	}
	if !has {
		keysInOrder(t, what, body, "error", "status", "message")
		return
	}
	nums, _ := v["valid_numbers"].([]any)
	got := make([]int, 0, len(nums))
	for _, n := range nums {
		f, _ := n.(float64)
		got = append(got, int(f))
	}
	if !slices.Equal(got, valid) {
		t.Errorf("%s: valid_numbers %v, want %v", what, got, valid)
	}
	keysInOrder(t, what, body, "error", "status", "message", "valid_numbers")
}

func isString(t *testing.T, what string, v map[string]any, k string) {
	t.Helper()
	if s, ok := v[k].(string); !ok || s == "" {
		t.Errorf("%s: %s is %T %v, want a non-empty string", what, k, v[k], v[k])
	}
}

func equal(t *testing.T, what string, v map[string]any, k, want string) {
	t.Helper()
	if v[k] != want {
		t.Errorf("%s: %s = %v, want %q", what, k, v[k], want)
	}
}

// keysInOrder checks that a JSON object has exactly these keys, in this order.
func keysInOrder(t *testing.T, what string, obj []byte, keys ...string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Errorf("%s: not a JSON object", what)
		return
	}
	var got []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
		got = append(got, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
	}
	if !slices.Equal(got, keys) {
		t.Errorf("%s: fields %v, want %v", what, got, keys)
	}
}

func firstElement(t *testing.T, arr []byte) []byte {
	t.Helper()
	var items []json.RawMessage
	if err := json.Unmarshal(arr, &items); err != nil || len(items) == 0 {
		t.Fatalf("not a non-empty JSON array: %v", err)
	}
	return items[0]
}
