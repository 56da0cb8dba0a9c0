package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

func testRouter(t testing.TB) *router {
	t.Helper()
	cfg, err := generatortest.Site(t).EdgeConfig()
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRouter(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRoute(t *testing.T) {
	r := testRouter(t)
	tests := []struct {
		name string
		path string
		kind routeKind
		file string // the body's tree path, or the error key
	}{
		{"index", "/api/public", routeFile, generatortest.File(generator.RouteIndex)},
		{"index slash", "/api/public/", routeFile, generatortest.File(generator.RouteIndex)},
		{"index two slashes", "/api/public//", routeError, manifest.ErrNotFound},
		{"openapi", "/api/public/openapi.json", routeFile, generatortest.File(generator.RouteOpenAPI)},
		{"list", "/api/public/life-path", routeFile, generatortest.File(generator.RouteLifePathList)},
		{"list slash", "/api/public/life-path/", routeFile, generatortest.File(generator.RouteLifePathList)},
		{"life path", "/api/public/life-path/22", routeFile, "api/public/life-path/22.json"},
		{"life path zeros", "/api/public/life-path/000000009/", routeFile, "api/public/life-path/9.json"},
		{"life path ten digits", "/api/public/life-path/0000000009", routeError, manifest.ErrNumberNotFound},
		{"life path 10", "/api/public/life-path/10", routeError, manifest.ErrNumberNotFound},
		{"life path encoded", "/api/public/life-path/%31", routeError, manifest.ErrNumberNotFound},
		{"life path extra", "/api/public/life-path/1/1", routeError, manifest.ErrNumberNotFound},
		{"matrix", "/api/public/matrix/05/01/2000", routeFile, "api/public/matrix/5/1/2000.json"},
		{"matrix slash", "/api/public/matrix/31/12/2100/", routeFile, "api/public/matrix/31/12/2100.json"},
		{"matrix leap", "/api/public/matrix/29/2/2000", routeFile, "api/public/matrix/29/2/2000.json"},
		{"matrix 1900 not leap", "/api/public/matrix/29/2/1900", routeError, manifest.ErrInvalidDate},
		{"matrix 30.02", "/api/public/matrix/30/2/2004", routeError, manifest.ErrInvalidDate},
		{"matrix 1899", "/api/public/matrix/31/12/1899", routeError, manifest.ErrInvalidDate},
		{"matrix 2101", "/api/public/matrix/1/1/2101", routeError, manifest.ErrInvalidDate},
		{"matrix itself", "/api/public/matrix", routeError, manifest.ErrInvalidDate},
		{"matrix two segments", "/api/public/matrix/1/1", routeError, manifest.ErrInvalidDate},
		{"matrix four segments", "/api/public/matrix/1/1/2000/1", routeError, manifest.ErrInvalidDate},
		{"matrix two trailing slashes", "/api/public/matrix/1/1/2000//", routeError, manifest.ErrInvalidDate},
		{"matrix encoded", "/api/public/matrix/1/1/%32000", routeError, manifest.ErrInvalidDate},
		{"matrix dot-dot", "/api/public/matrix/../life-path", routeError, manifest.ErrInvalidDate},
		{"matrix huge", "/api/public/matrix/999999999/999999999/999999999", routeError, manifest.ErrInvalidDate},
		{"unknown", "/api/public/x", routeError, manifest.ErrNotFound},
		{"edge.json", "/api/public/edge.json", routeError, manifest.ErrNotFound},
		{"matrixx", "/api/public/matrixx", routeError, manifest.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !r.isAPI(tt.path) {
				t.Fatalf("isAPI(%q) = false", tt.path)
			}
			got := r.match(tt.path)
			file := got.err
			if got.kind == routeFile {
				file = r.treeFile(got.key)
				if key, ok := r.fileKeyOf(file); !ok || key != got.key {
					t.Errorf("fileKeyOf(%q) = %v %v, want %v", file, key, ok, got.key)
				}
			}
			if got.kind != tt.kind || file != tt.file {
				t.Errorf("match(%q) = kind %d file %q, want kind %d file %q", tt.path, got.kind, file, tt.kind, tt.file)
			}
		})
	}
}

func TestIsAPIAndRateLimited(t *testing.T) {
	r := testRouter(t)
	tests := []struct {
		name         string
		path         string
		api, limited bool
	}{
		{"prefix", "/api/public", true, false},
		{"prefix word", "/api/publicx", false, false},
		{"root", "/", false, false},
		{"human matrix page", "/matrix/details", false, false},
		{"matrix", "/api/public/matrix", true, true},
		{"matrix date", "/api/public/matrix/1/1/2000", true, true},
		{"matrix word", "/api/public/matrixx", true, false},
		{"life path", "/api/public/life-path/1", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.isAPI(tt.path); got != tt.api {
				t.Errorf("isAPI(%q) = %v, want %v", tt.path, got, tt.api)
			}
			if got := r.isRateLimited(tt.path); got != tt.limited {
				t.Errorf("isRateLimited(%q) = %v, want %v", tt.path, got, tt.limited)
			}
		})
	}
}

// TestRouteEveryDate checks the router's calendar against the rules package for every
// day of every month of the range, and a few days outside each month.
func TestRouteEveryDate(t *testing.T) {
	r := testRouter(t)
	for y := rules.FirstYear - 1; y <= rules.LastYear+1; y++ {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				valid := rules.ValidDate(d, m, y)
				got := r.match(manifest.APIPrefix + "/matrix/" + itoa(d) + "/" + itoa(m) + "/" + itoa(y))
				if (got.kind == routeFile) != valid {
					t.Fatalf("%d.%d.%d: routed %v, rules say valid=%v", d, m, y, got.kind, valid)
				}
			}
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [12]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}

func TestEtagMatch(t *testing.T) {
	const etag = `"abc"`
	tests := []struct {
		name   string
		values []string
		want   bool
	}{
		{"exact", []string{`"abc"`}, true},
		{"weak", []string{`W/"abc"`}, true},
		{"star", []string{`*`}, true},
		{"list", []string{`"x", W/"y" ,"abc"`}, true},
		{"second header", []string{`"x"`, `"abc"`}, true},
		{"other", []string{`"abcd"`}, false},
		{"unquoted", []string{`abc`}, false},
		{"unterminated", []string{`"abc`}, false},
		{"empty", []string{``}, false},
		{"prefix of list", []string{`"ab", "c"`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := etagMatch(tt.values, etag); got != tt.want {
				t.Errorf("etagMatch(%q) = %v, want %v", tt.values, got, tt.want)
			}
		})
	}
}

// TestRouteNewRow checks that a new row of the route table is routed with no change to the
// router: a literal route, a number route with a literal after it and its owner's error,
// an unordered pair, and a rate-limited date route whose file takes the date in another
// order.
func TestRouteNewRow(t *testing.T) {
	cfg, err := generatortest.Site(t).EdgeConfig()
	if err != nil {
		t.Fatal(err)
	}
	p := manifest.APIPrefix
	cfg.Routes = append(cfg.Routes,
		manifest.Route{Name: "numbers", Pattern: p + "/numbers", File: "api/public/numbers.json"},
		manifest.Route{Name: "number", Pattern: p + "/numbers/{n}/about", File: "api/public/numbers/{n}/about.json",
			Params: []manifest.ParamType{{Type: manifest.ParamNumber, Numbers: []int{2, 4, 8}}}, Error: manifest.ErrNumberNotFound},
		manifest.Route{Name: "pair", Pattern: p + "/pairs/{a}/{b}", File: "api/public/pairs/{a}-{b}.json",
			Params: []manifest.ParamType{{Type: manifest.ParamPair, Numbers: []int{1, 2, 3}}}, Error: manifest.ErrNotFound},
		manifest.Route{Name: "day", Pattern: p + "/calendar/{d}/{m}/{y}", File: "api/public/calendar/{y}-{m}-{d}.json",
			Params: []manifest.ParamType{{Type: manifest.ParamDate, FirstYear: 1990, LastYear: 1999}},
			Error:  manifest.ErrInvalidDate, RateLimited: true},
	)
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	r, err := newRouter(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"literal", p + "/numbers/", "api/public/numbers.json"},
		{"number", p + "/numbers/008/about", "api/public/numbers/8/about.json"},
		{"number, not in the set", p + "/numbers/3/about", manifest.ErrNumberNotFound},
		{"number, another literal", p + "/numbers/4/abut", manifest.ErrNumberNotFound},
		{"one segment under a literal route: its owner has no error", p + "/numbers/4", manifest.ErrNotFound},
		{"pair", p + "/pairs/1/3", "api/public/pairs/1-3.json"},
		{"pair, the other order", p + "/pairs/3/01", "api/public/pairs/1-3.json"},
		{"pair, twice one number", p + "/pairs/2/2", "api/public/pairs/2-2.json"},
		{"pair, not in the set", p + "/pairs/1/4", manifest.ErrNotFound},
		{"params reordered in the file", p + "/calendar/15/05/1990", "api/public/calendar/1990-5-15.json"},
		{"date check in the pattern's order", p + "/calendar/1990/05/15", manifest.ErrInvalidDate},
		{"date of the row's own years only", p + "/calendar/1/1/2000", manifest.ErrInvalidDate},
		{"old routes still routed", p + "/life-path/7", "api/public/life-path/7.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.match(tt.path)
			res := got.err
			if got.kind == routeFile {
				res = r.treeFile(got.key)
			}
			if res != tt.want {
				t.Errorf("match(%q) = %q, want %q", tt.path, res, tt.want)
			}
		})
	}
	if !r.isRateLimited(p+"/calendar") || r.isRateLimited(p+"/numbers/7/about") {
		t.Error("the rate-limited scope does not follow the new rows")
	}
}

// TestNewRefusesABadConfig: a config an edge cannot follow is refused when the handler is
// built, never met by a request: an error key with no body (the nil-pointer panic of
// issue 16), an unknown parameter type, a file naming another parameter, an error status
// without headers.
func TestNewRefusesABadConfig(t *testing.T) {
	dir := sharedTree(t)
	tests := []struct {
		name   string
		change func(c *manifest.EdgeConfig)
	}{
		{"unknown route error", func(c *manifest.EdgeConfig) { c.Routes[3].Error = "no_such_error" }},
		{"unknown edge error", func(c *manifest.EdgeConfig) { c.EdgeErrors.NotFound = "no_such_error" }},
		{"unknown parameter type", func(c *manifest.EdgeConfig) { c.Routes[3].Params[0].Type = "colour" }},
		{"types and pattern disagree", func(c *manifest.EdgeConfig) { c.Routes[3].Params[0].Type = manifest.ParamPair }},
		{"file names another parameter", func(c *manifest.EdgeConfig) { c.Routes[3].File = "api/public/{n}.json" }},
		{"status without headers", func(c *manifest.EdgeConfig) {
			e := c.Errors[manifest.ErrNotFound]
			e.Status = 418
			c.Errors[manifest.ErrNotFound] = e
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := manifest.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			tt.change(&m.Edge)
			if _, err := New(Options{Dir: dir, Manifest: m, NoReload: true}); err == nil {
				t.Fatal("New accepted the config")
			}
		})
	}
}

// TestServeExtraRoutes: routes of every parameter type and a new error key with a status of
// its own, added to a generated tree's config with no change to the server, are served:
// a pair in either order gives the same bytes and ETag, a date its file, an invalid value
// the new error with its own status and headers, and the date route shares the one budget
// of the rate-limited routes.
func TestServeExtraRoutes(t *testing.T) {
	dir := copyTree(t)
	generatortest.AddExtraRoutes(t, dir)
	h := newTestHandler(t, dir, nil)
	get := func(path, client string) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("X-Test-Client", client)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	p := manifest.APIPrefix
	a, b := get(p+"/extra/pair/8/2", "192.0.2.1"), get(p+"/extra/pair/2/08", "192.0.2.1")
	if a.Code != 200 || b.Code != 200 || a.Body.String() != b.Body.String() || a.Header().Get("ETag") != b.Header().Get("ETag") {
		t.Errorf("pair 8/2 = %d %q %s, 2/08 = %d %q %s: want the same 200", a.Code, a.Body, a.Header().Get("ETag"), b.Code, b.Body, b.Header().Get("ETag"))
	}
	if got := a.Body.String(); got != `{"route":"extra-pair","values":[2,8]}`+"\n" {
		t.Errorf("pair body = %q", got)
	}
	if w := get(p+"/extra/date/29/2/2000", "192.0.2.2"); w.Code != 200 || w.Body.String() != `{"route":"extra-date","values":[29,2,2000]}`+"\n" {
		t.Errorf("date = %d %q", w.Code, w.Body)
	}
	for _, path := range []string{p + "/extra/number/3", p + "/extra/pair/2/3", p + "/extra/date/30/2/2000", p + "/extra/date"} {
		w := get(path, "192.0.2.3")
		if w.Code != 422 || !strings.Contains(w.Body.String(), `"error":"Extra not found"`) || w.Header().Get("Cache-Control") != generator.CacheError {
			t.Errorf("GET %s = %d %q (Cache-Control %q), want the new 422 error", path, w.Code, w.Body, w.Header().Get("Cache-Control"))
		}
	}
	// One budget: 30 matrix and 30 extra-date requests, then both are refused.
	for i := range 60 {
		path := p + "/matrix/1/1/2000"
		if i%2 == 1 {
			path = p + "/extra/date/1/1/2000"
		}
		if w := get(path, "192.0.2.4"); w.Code != 200 {
			t.Fatalf("request %d: %d, want 200", i+1, w.Code)
		}
	}
	for _, path := range []string{p + "/matrix/1/1/2000", p + "/extra/date/1/1/2000"} {
		if w := get(path, "192.0.2.4"); w.Code != 429 {
			t.Errorf("GET %s after 60 = %d, want 429", path, w.Code)
		}
	}
	if w := get(p+"/extra/number/4", "192.0.2.4"); w.Code != 200 {
		t.Errorf("a route not limited after the budget = %d, want 200", w.Code)
	}
}
