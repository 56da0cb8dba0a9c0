package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/opennumerology/numerology/edge/server/servertest"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/openapi"
	"github.com/opennumerology/numerology/generator/rules"
)

// treeYears are the years of the test tree: both ends of the range and one in between.
var treeYears = []int{1900, 1990, 2100}

// missingDate is a valid date whose file is deleted, so the server answers 500 for it.
var missingDate = [3]int{2, 1, 1990}

// exchange is one request and the response the local server gave.
type exchange struct {
	name   string
	req    *http.Request
	status int
	header http.Header
	body   []byte
	wantSC int // the status the contract requires
	// fixture names the components/responses entry of an answer that no operation of the
	// document has (another method, a path no route matches): the document's description
	// says which, and the answer must match that response.
	fixture string
}

func TestResponsesMatchOpenAPI(t *testing.T) {
	t.Parallel() // beside TestGeneratedClients, which mostly waits for its npm tools
	tree := generateTree(t)
	srv := servertest.ServeTree(t, tree, 0)
	ctx := context.Background()

	// The document as served, not as generated: that is what clients load.
	docBytes := fetch(t, http.MethodGet, srv.URL+manifest.APIPrefix+"/openapi.json", nil).body
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(docBytes)
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	if doc.OpenAPI != openapi.Version || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi = %q, want %s", doc.OpenAPI, openapi.Version)
	}
	if err := doc.Validate(ctx); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI 3.1 document: %v", err)
	}
	// The router matches the server's host; point the document at the test server.
	doc.Servers = openapi3.Servers{{URL: srv.URL}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("router: %v", err)
	}

	var xs []exchange
	add := func(name, method, url string, wantSC int, fixture string, header http.Header) *exchange {
		x := fetch(t, method, url, header)
		x.name, x.wantSC, x.fixture = name, wantSC, fixture
		xs = append(xs, x)
		return &xs[len(xs)-1]
	}
	api := srv.URL + manifest.APIPrefix
	routes := []string{"", "/openapi.json", "/life-path", "/life-path/7", "/matrix/15/5/1990", "/life-path/15/5/1990", "/arcana", "/arcana/7", "/positions", "/compatibility/3/11", "/compatibility/11/3", "/square/meanings", "/square/15/5/1990"}
	for _, r := range routes {
		for _, r := range []string{r, r + "/"} { // one trailing slash is tolerated
			ok := add("GET "+r, http.MethodGet, api+r, 200, "", nil)
			add("HEAD "+r, http.MethodHead, api+r, 200, "", nil)
			add("OPTIONS "+r, http.MethodOptions, api+r, 204, "", nil)
			add("304 "+r, http.MethodGet, api+r, 304, "", http.Header{"If-None-Match": {ok.header.Get("ETag")}})
			for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodTrace} {
				add("405 "+m+" "+r, m, api+r, 405, "MethodNotAllowed", nil)
			}
		}
	}
	for _, n := range rules.LifePathNumbers {
		add(fmt.Sprintf("life path %d", n), http.MethodGet, api+"/life-path/"+strconv.Itoa(n), 200, "", nil)
	}
	add("life path 07", http.MethodGet, api+"/life-path/07", 200, "", nil)
	for _, date := range sampleDates() {
		add("matrix "+date, http.MethodGet, api+"/matrix/"+date, 200, "", nil)
	}
	// A segment the route does not admit, digits or not, is no request error: a validating
	// proxy forwards it, and the operation documents the edge's answer.
	for _, p := range []string{"/matrix/30/2/1990", "/matrix/29/2/1900", "/matrix/1/13/1990", "/matrix/1/1/1899", "/matrix/0/1/1990",
		"/matrix/1/1/199000000", "/matrix/x/1/1990", "/matrix/%31/1/1990", "/matrix/1/1/1234567890", "/matrix/-1/1/1990/"} {
		add("400 "+p, http.MethodGet, api+p, 400, "", nil)
	}
	for _, date := range sampleDates() {
		add("life path of "+date, http.MethodGet, api+"/life-path/"+date, 200, "", nil)
	}
	for _, p := range []string{"/life-path/30/2/1990", "/life-path/29/2/2100", "/life-path/1/1/2101", "/life-path/0/1/1990",
		"/life-path/x/1/1990", "/life-path/1/%31/1990"} {
		add("400 "+p, http.MethodGet, api+p, 400, "", nil)
	}
	for _, p := range []string{"/life-path/10", "/life-path/0", "/life-path/34", "/life-path/000000010",
		"/life-path/abc", "/life-path/%37", "/life-path/0000000007", "/life-path/1e1/"} {
		add("404 "+p, http.MethodGet, api+p, 404, "", nil)
	}
	// The paths no route matches have no operation; the document's description names their
	// answers.
	add("400 /matrix", http.MethodGet, api+"/matrix", 400, "InvalidDate", nil)
	add("400 /matrix/", http.MethodGet, api+"/matrix/", 400, "InvalidDate", nil)
	for _, date := range append(sampleDates(), "9/1/2100") { // 09.01.2100: W3 is −5
		add("square of "+date, http.MethodGet, api+"/square/"+date, 200, "", nil)
	}
	for _, p := range []string{"/square/30/2/1990", "/square/29/2/2100", "/square/1/1/2101", "/square/0/1/1990"} {
		add("400 "+p, http.MethodGet, api+p, 400, "", nil)
	}
	add("400 /square", http.MethodGet, api+"/square", 400, "InvalidDate", nil)
	add("400 /square/", http.MethodGet, api+"/square/", 400, "InvalidDate", nil)
	add("404 /square/meanings/1", http.MethodGet, api+"/square/meanings/1", 404, "NotFound", nil)
	add("400 /matrix/1/1", http.MethodGet, api+"/matrix/1/1", 400, "InvalidDate", nil)
	add("405 DELETE /matrix", http.MethodDelete, api+"/matrix", 405, "MethodNotAllowed", nil)
	add("OPTIONS /matrix", http.MethodOptions, api+"/matrix", 204, "Preflight", nil)
	add("404 /life-path/1/2", http.MethodGet, api+"/life-path/1/2", 404, "NumberNotFound", nil)
	add("400 /life-path/1/1/1990/1", http.MethodGet, api+"/life-path/1/1/1990/1", 400, "InvalidDate", nil)
	for _, n := range rules.ArcanaNumbers {
		add(fmt.Sprintf("arcana %d", n), http.MethodGet, api+"/arcana/"+strconv.Itoa(n), 200, "", nil)
	}
	for _, p := range []string{"/arcana/0", "/arcana/23", "/arcana/033", "/arcana/fool", "/arcana/%37"} {
		add("404 "+p, http.MethodGet, api+p, 404, "", nil)
	}
	add("404 /arcana/1/2", http.MethodGet, api+"/arcana/1/2", 404, "ArcanaNotFound", nil)
	for i, a := range rules.LifePathNumbers {
		for _, b := range rules.LifePathNumbers[i:] {
			add(fmt.Sprintf("compatibility %d %d", b, a), http.MethodGet, fmt.Sprintf("%s/compatibility/%d/%d", api, b, a), 200, "", nil)
		}
	}
	for _, p := range []string{"/compatibility/3/10", "/compatibility/0/1", "/compatibility/34/33", "/compatibility/x/1"} {
		add("404 "+p, http.MethodGet, api+p, 404, "", nil)
	}
	for _, p := range []string{"/compatibility", "/compatibility/", "/compatibility/3", "/compatibility/1/2/3"} {
		add("404 "+p, http.MethodGet, api+p, 404, "NumberNotFound", nil)
	}
	for _, p := range []string{"/nope", "/nope/", "/edge.json", "/matrixx", "/life-pat", "/positions.json", "/positions/1"} {
		add("404 "+p, http.MethodGet, api+p, 404, "NotFound", nil)
	}
	add("HEAD 404 /nope", http.MethodHead, api+"/nope", 404, "NotFound", nil)
	add("405 PUT /nope", http.MethodPut, api+"/nope", 405, "MethodNotAllowed", nil)
	add("404 /a/b", http.MethodGet, api+"/a/b", 404, "NotFound", nil)
	d, m, y := missingDate[0], missingDate[1], missingDate[2]
	add("500 missing file", http.MethodGet, fmt.Sprintf("%s/matrix/%d/%d/%d", api, d, m, y), 500, "", nil)

	limited := servertest.ServeTree(t, tree, 1)
	fetch(t, http.MethodGet, limited.URL+manifest.APIPrefix+"/matrix/1/1/1990", nil)
	for _, p := range []string{"/matrix/1/1/1990", "/matrix", "/matrix/30/2/1990/", "/life-path/1/1/1990", "/life-path/30/2/1990", "/square/1/1/1990", "/square/30/2/1990", "/square"} {
		fixture := ""
		if p == "/matrix" || p == "/square" {
			fixture = "TooManyRequests"
		}
		x := add("429 "+p, http.MethodGet, limited.URL+manifest.APIPrefix+p, 429, fixture, nil)
		x.req.URL.Host = strings.TrimPrefix(srv.URL, "http://") // the document's server
	}
	x := add("429 POST", http.MethodPost, limited.URL+manifest.APIPrefix+"/matrix/1/1/1990", 429, "TooManyRequests", nil)
	x.req.URL.Host = strings.TrimPrefix(srv.URL, "http://")

	for _, x := range xs {
		t.Run(x.name, func(t *testing.T) {
			if x.status != x.wantSC {
				t.Fatalf("%s %s: status %d, want %d: %s", x.req.Method, x.req.URL.Path, x.status, x.wantSC, x.body)
			}
			if err := validate(doc, router, x); err != nil {
				t.Error(err)
			}
			if err := validateRequest(router, x); err != nil {
				t.Error(err)
			}
		})
	}

	// The validation is not vacuous: broken answers must fail it.
	broken := []struct {
		name   string
		from   string // name of the exchange to break
		change func(x *exchange)
	}{
		{"trailing slash, wrong cache-control", "GET /life-path/7/", func(x *exchange) { x.header.Set("Cache-Control", "no-store") }},
		{"405 to PUT without allow", "405 PUT /life-path", func(x *exchange) { x.header.Del("Allow") }},
		{"405 with a 404 body", "405 DELETE /matrix/15/5/1990", func(x *exchange) {
			x.body = []byte(`{"error":"Not found","status":404,"message":"x"}` + "\n")
		}},
		{"matrix scope with a record", "400 /matrix", func(x *exchange) { x.status = 200 }},
		{"catch-all with the wrong text", "404 /nope", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`Not found`), []byte(`Number not found`), 1)
		}},
		{"not found with valid_numbers", "404 /edge.json", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"status":404`), []byte(`"status":404,"valid_numbers":[1]`), 1)
		}},
		{"bad parameter answered 200", "404 /life-path/abc", func(x *exchange) { x.status = 200 }},
		{"bad parameter answered as an unknown path", "404 /life-path/abc", func(x *exchange) {
			x.body = []byte(`{"error":"Not found","status":404,"message":"x"}` + "\n")
		}},
		{"HEAD of a record without etag", "HEAD /life-path/7/", func(x *exchange) { x.header.Del("ETag") }},
		{"non-digit date answered 404", "400 /matrix/x/1/1990", func(x *exchange) { x.status = 404 }},
		{"arcana out of range", "GET /matrix/15/5/1990", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"arcana":15`), []byte(`"arcana":23`), 1)
		}},
		{"life path of a date: a number that is none", "GET /life-path/15/5/1990", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"number":3,`), []byte(`"number":10,`), 1)
		}},
		{"life path of a date without its item", "GET /life-path/15/5/1990", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"life_path":`), []byte(`"lifepath":`), 1)
		}},
		{"arcanum out of range", "GET /arcana/7", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`{"number":7,`), []byte(`{"number":23,`), 1)
		}},
		{"arcana not found with another error's numbers", "404 /arcana/23", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"valid_numbers":[1,2,3,4,5,6,7,8,9,10,`), []byte(`"valid_numbers":[1,2,3,4,5,6,7,8,9,`), 1)
		}},
		{"arcana list without one", "GET /arcana", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`{"number":1,`), []byte(`{"numbr":1,`), 1)
		}},
		{"positions: an unknown key", "GET /positions", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"key":"soul"`), []byte(`"key":"mind"`), 1)
		}},
		{"compatibility as a percentage", "GET /compatibility/3/11", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"level":"`), []byte(`"level":"87% `), 1)
		}},
		{"compatibility of a pair not in order", "GET /compatibility/11/3", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"numbers":[3,11]`), []byte(`"numbers":[3,10]`), 1)
		}},
		{"square: a count below zero", "GET /square/15/5/1990", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"count":0,`), []byte(`"count":-1,`), 1)
		}},
		{"square: five working numbers", "GET /square/15/5/1990", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"working_numbers":[30,`), []byte(`"working_numbers":[1,30,`), 1)
		}},
		{"square: digits of another cell", "GET /square/15/5/1990", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"digits":"111"`), []byte(`"digits":"121"`), 1)
		}},
		{"square: a line missing", "GET /square/15/5/1990", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"purpose":`), []byte(`"aim":`), 1)
		}},
		{"square meanings: a tenth cell", "GET /square/meanings", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"cell":9,`), []byte(`"cell":10,`), 1)
		}},
		{"extra field", "GET /life-path/7", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`{"number"`), []byte(`{"extra":1,"number"`), 1)
		}},
		{"missing field", "life path 1", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"tagline"`), []byte(`"tag_line"`), 1)
		}},
		{"wrong error text", "400 /matrix/30/2/1990", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`Invalid date`), []byte(`Bad date`), 1)
		}},
		{"no valid_numbers", "404 /life-path/10", func(x *exchange) {
			x.body = bytes.Replace(x.body, []byte(`"valid_numbers"`), []byte(`"numbers"`), 1)
		}},
		{"wrong cache-control", "GET /life-path", func(x *exchange) { x.header.Set("Cache-Control", "no-cache") }},
		{"304 without etag", "304 /life-path", func(x *exchange) { x.header.Del("ETag") }},
		{"HEAD without licence", "HEAD /matrix/15/5/1990", func(x *exchange) { x.header.Del("X-API-License") }},
		{"429 without retry-after", "429 /matrix/1/1/1990", func(x *exchange) { x.header.Del("Retry-After") }},
		{"preflight without max-age", "OPTIONS /life-path", func(x *exchange) { x.header.Del("Access-Control-Max-Age") }},
		{"405 without allow", "405 POST /life-path", func(x *exchange) { x.header.Del("Allow") }},
	}
	for _, b := range broken {
		t.Run("broken/"+b.name, func(t *testing.T) {
			i := slices.IndexFunc(xs, func(x exchange) bool { return x.name == b.from })
			if i < 0 {
				t.Fatalf("no exchange %q", b.from)
			}
			x := xs[i]
			x.header = x.header.Clone()
			x.body = bytes.Clone(x.body)
			b.change(&x)
			if err := validate(doc, router, x); err == nil {
				t.Errorf("a broken answer (%s) passed validation", b.name)
			}
		})
	}
}

// canonical is the request as the document's paths name it: one trailing slash dropped, as
// its description says every route tolerates.
func canonical(r *http.Request) *http.Request {
	req := r.Clone(context.Background())
	if p := req.URL.EscapedPath(); len(p) > 1 && strings.HasSuffix(p, "/") {
		u, err := url.Parse(strings.TrimSuffix(p, "/"))
		if err != nil {
			panic(err)
		}
		req.URL.Path, req.URL.RawPath = u.Path, u.RawPath
	}
	return req
}

// findOperation finds the operation of an exchange's request in the document, as a
// validating proxy would after dropping the trailing slash; a HEAD that has no operation of
// its own is the GET's (the description says HEAD answers as GET, without the body).
func findOperation(router routers.Router, x exchange) (*routers.Route, map[string]string, *http.Request, error) {
	req := canonical(x.req)
	route, params, err := router.FindRoute(req)
	if err != nil && req.Method == http.MethodHead {
		get := req.Clone(context.Background())
		get.Method = http.MethodGet
		if route, params, err = router.FindRoute(get); err == nil {
			req = get
		}
	}
	return route, params, req, err
}

// validateRequest checks a request as a validating proxy would before forwarding it: a
// request with an operation must pass its validation — whatever its path segments, since
// the edge, not the proxy, answers a segment the route does not admit; a request the
// document answers in its description (a fixture) must have no operation, so that no
// generated client has a function for it.
func validateRequest(router routers.Router, x exchange) error {
	route, params, req, err := findOperation(router, x)
	if x.fixture != "" {
		if err == nil {
			return fmt.Errorf("%s %s has the operation %s, but its answer is described only in the document's description", x.req.Method, x.req.URL.Path, route.Operation.OperationID)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("a validating proxy rejects %s %s as unknown: %w", x.req.Method, x.req.URL.Path, err)
	}
	err = openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{MultiError: true},
	})
	if err != nil {
		return fmt.Errorf("a validating proxy rejects %s %s: %w", x.req.Method, x.req.URL.Path, err)
	}
	return nil
}

// validate checks one exchange against the document: with openapi3filter.ValidateResponse
// (status, headers, body), and header by header for the answers it passes over (HEAD, 304).
func validate(doc *openapi3.T, router routers.Router, x exchange) error {
	var route *routers.Route
	var params map[string]string
	if x.fixture == "" {
		var err error
		if route, params, _, err = findOperation(router, x); err != nil {
			return fmt.Errorf("no operation in the document for %s %s: %w", x.req.Method, x.req.URL.Path, err)
		}
	} else {
		// Answers to paths or methods the document has no operation for are documented as
		// shared responses; validate against that response alone.
		ref := doc.Components.Responses[x.fixture]
		if ref == nil {
			return fmt.Errorf("the document has no components/responses/%s", x.fixture)
		}
		route = &routers.Route{
			Spec: doc, Method: x.req.Method, Path: x.req.URL.Path,
			Operation: &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(x.wantSC, ref))},
		}
	}
	resp := route.Operation.Responses.Status(x.status)
	if resp == nil || resp.Value == nil {
		return fmt.Errorf("%s %s: the document has no %d response", x.req.Method, route.Path, x.status)
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: x.req, PathParams: params, Route: route},
		Status:                 x.status,
		Header:                 x.header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	input.SetBodyBytes(x.body)
	var errs []error
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		errs = append(errs, fmt.Errorf("%s %s → %d does not match the document: %w", x.req.Method, x.req.URL.Path, x.status, err))
	}
	errs = append(errs, checkHeaders(x, resp.Value)...)
	if x.req.Method == http.MethodHead || x.status == http.StatusNotModified || x.status == http.StatusNoContent {
		if len(x.body) != 0 {
			errs = append(errs, fmt.Errorf("%d answer to %s has a body of %d bytes", x.status, x.req.Method, len(x.body)))
		}
		if x.req.Method != http.MethodHead && resp.Value.Content != nil {
			errs = append(errs, fmt.Errorf("the document gives the %d response a body", x.status))
		}
	}
	return errors.Join(errs...)
}

// checkHeaders validates every header the document declares for a response, also where
// ValidateResponse does not look (HEAD and 304).
func checkHeaders(x exchange, r *openapi3.Response) []error {
	var errs []error
	if len(r.Headers) == 0 {
		errs = append(errs, fmt.Errorf("the document declares no headers for %s %s → %d", x.req.Method, x.req.URL.Path, x.status))
	}
	for name, h := range r.Headers {
		v := x.header.Get(name)
		if v == "" {
			if h.Value.Required {
				errs = append(errs, fmt.Errorf("%s %s → %d: required header %s is missing", x.req.Method, x.req.URL.Path, x.status, name))
			}
			continue
		}
		var value any = v
		if s := h.Value.Schema.Value; s.Type.Is("integer") {
			n, err := strconv.Atoi(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("header %s: %q is not an integer", name, v))
				continue
			}
			value = n
		}
		if err := h.Value.Schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020()); err != nil {
			errs = append(errs, fmt.Errorf("%s %s → %d: header %s: %w", x.req.Method, x.req.URL.Path, x.status, name, err))
		}
	}
	return errs
}

// sampleDates returns canonical and zero-padded dates of the tree: the ends of the range,
// 28 February of the non-leap 1900 and 2100, and every 9th day of 1990.
func sampleDates() []string {
	out := []string{"1/1/1900", "31/12/2100", "28/2/1900", "28/2/2100", "15/05/1990", "01/01/1990", "000015/5/1990"}
	start := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	for t := start; t.Year() == 1990; t = t.AddDate(0, 0, 9) {
		if t.Day() == missingDate[0] && int(t.Month()) == missingDate[1] {
			continue
		}
		out = append(out, fmt.Sprintf("%d/%d/%d", t.Day(), t.Month(), t.Year()))
	}
	return out
}

func fetch(t *testing.T, method, url string, header http.Header) exchange {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	// A fresh request for the validator: the one sent has been consumed.
	vreq, _ := http.NewRequest(method, url, nil)
	return exchange{req: vreq, status: resp.StatusCode, header: resp.Header, body: bytes.Clone(body)}
}

func generateTree(t *testing.T) string {
	t.Helper()
	out := generatortest.Tree(t, treeYears...)
	missing := generatortest.File(generator.RouteMatrix, missingDate[0], missingDate[1], missingDate[2])
	if err := os.Remove(filepath.Join(out, filepath.FromSlash(missing))); err != nil {
		t.Fatalf("delete %s: %v", missing, err)
	}
	return out
}

// TestDocumentForClients checks the shape that makes the document good for client
// generators: one path per route, with no trailing-slash twin; only the operations clients
// call (GET, HEAD where useful, the preflight), each with the operationId and tag of its
// route row; no per-path 405; every const with its type; and servers.
func TestDocumentForClients(t *testing.T) {
	s := generatortest.Site(t)
	raw, err := s.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	b, err := generator.Encode(raw)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Info struct {
			Description string `json:"description"`
		} `json:"info"`
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Tags []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tags"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != s.SiteURL {
		t.Errorf("servers = %+v, want the site URL %s", doc.Servers, s.SiteURL)
	}
	for _, want := range []string{"405", "Allow", "слеш"} {
		if !strings.Contains(doc.Info.Description, want) {
			t.Errorf("info.description does not mention %q: %s", want, doc.Info.Description)
		}
	}
	tags := map[string]bool{}
	for _, tag := range doc.Tags {
		if tag.Description == "" {
			t.Errorf("tag %s has no description", tag.Name)
		}
		tags[tag.Name] = true
	}

	routes := generator.Routes()
	if len(doc.Paths) != len(routes) {
		t.Errorf("the document has %d paths, want one per route (%d)", len(doc.Paths), len(routes))
	}
	ids := map[string]string{}
	for path, item := range doc.Paths {
		if strings.HasSuffix(path, "/") {
			t.Errorf("path %s: trailing-slash tolerance belongs in the description, not in a path", path)
		}
		for key, v := range item {
			switch key {
			case "summary", "description", "parameters":
				continue
			case "get", "head", "options":
			default:
				t.Errorf("%s has a %s operation: clients call only GET, HEAD and OPTIONS", path, key)
				continue
			}
			var op struct {
				OperationID string                     `json:"operationId"`
				Tags        []string                   `json:"tags"`
				Description string                     `json:"description"`
				Responses   map[string]json.RawMessage `json:"responses"`
			}
			if err := json.Unmarshal(v, &op); err != nil {
				t.Fatal(err)
			}
			if op.OperationID == "" || op.Description == "" || len(op.Tags) != 1 || !tags[op.Tags[0]] {
				t.Errorf("%s %s: operationId %q, tags %v, description %q: want all three, with a tag of the document", key, path, op.OperationID, op.Tags, op.Description)
			}
			if other, dup := ids[op.OperationID]; dup {
				t.Errorf("operationId %s is used by %s and %s %s", op.OperationID, other, key, path)
			}
			ids[op.OperationID] = key + " " + path
			if _, ok := op.Responses["405"]; ok {
				t.Errorf("%s %s documents 405: the description says it once for every path", key, path)
			}
		}
	}
	for _, r := range routes {
		item, ok := doc.Paths[r.Pattern]
		if !ok {
			t.Errorf("route %s: no path %s", r.Name, r.Pattern)
			continue
		}
		var get struct {
			OperationID string   `json:"operationId"`
			Tags        []string `json:"tags"`
		}
		if err := json.Unmarshal(item["get"], &get); err != nil {
			t.Fatal(err)
		}
		if get.OperationID != r.OperationID || !slices.Equal(get.Tags, []string{r.Tag}) {
			t.Errorf("route %s: GET is %s %v, want the row's %s [%s]", r.Name, get.OperationID, get.Tags, r.OperationID, r.Tag)
		}
	}

	var untyped []string
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["const"]; ok && v["type"] == nil {
				untyped = append(untyped, where)
			}
			for k, sub := range v {
				if k != "examples" && k != "const" && k != "enum" {
					walk(where+"/"+k, sub)
				}
			}
		case []any:
			for i, sub := range v {
				walk(where+"/"+strconv.Itoa(i), sub)
			}
		}
	}
	walk("#/components/schemas", doc.Components.Schemas)
	if len(untyped) > 0 {
		t.Errorf("consts without a type: %v", untyped)
	}
}
