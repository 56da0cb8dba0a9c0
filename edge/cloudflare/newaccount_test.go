package cloudflare_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/edge/cloudflare/cftest"
)

// uploadsStarted counts the requests that send anything of the new version: upload
// sessions, buckets and script uploads.
func uploadsStarted(fake *cftest.Server) int {
	n := 0
	for _, r := range fake.Requests() {
		if strings.Contains(r.Path, "assets-upload-session") || strings.Contains(r.Path, "/workers/assets/upload") ||
			r.Method == "PUT" && strings.HasSuffix(r.Path, "/workers/scripts/fixture-api") {
			n++
		}
	}
	return n
}

// TestBrandNewAccount deploys to the fake as an account that never registered a
// workers.dev subdomain (the account a newcomer has): without --workers-subdomain the
// deploy stops before any upload with the dashboard's onboarding link; with it, deploy
// registers the subdomain and ends with the worker's URL; a name that is taken, and a
// 10007 that comes with a 403, are explained, never taken for a rejected token.
func TestBrandNewAccount(t *testing.T) {
	onboarding := "https://dash.cloudflare.com/" + testAccount + "/workers/onboarding"
	t.Run("no subdomain: stops before any upload", func(t *testing.T) {
		fake := cftest.New(testToken, testAccount)
		defer fake.Close()
		fake.Subdomain = ""
		_, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{}))
		var se *cloudflare.SubdomainError
		if !errors.As(err, &se) || se.Taken || se.Uploaded {
			t.Fatalf("apply: %v, want a *SubdomainError", err)
		}
		for _, want := range []string{"the account has no workers.dev subdomain yet", "--workers-subdomain NAME", onboarding, "or deploy with --route or --domain", "(nothing was uploaded)"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
		if n := uploadsStarted(fake); n != 0 {
			t.Errorf("%d upload requests sent", n)
		}
	})
	t.Run("--workers-subdomain registers one and ends with the URL", func(t *testing.T) {
		fake := cftest.New(testToken, testAccount)
		defer fake.Close()
		fake.Subdomain = ""
		var log bytes.Buffer
		res, err := newDeployer(fake, &log, nil).Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{WorkersSubdomain: "open-numerology"}))
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		if fake.Subdomain != "open-numerology" || res.Registered != "open-numerology" {
			t.Errorf("the account's subdomain is %q (result %q), want open-numerology registered", fake.Subdomain, res.Registered)
		}
		if want := "https://fixture-api.open-numerology.workers.dev"; len(res.URLs) != 1 || res.URLs[0] != want {
			t.Errorf("URLs %v, want [%s]", res.URLs, want)
		}
		want := []string{"GET /workers/subdomain", "PUT /workers/subdomain", "POST /workers/scripts/fixture-api/assets-upload-session"}
		if got := accountRequests(fake, "/workers/subdomain", "assets-upload-session"); len(got) < 3 || strings.Join(got[:3], ",") != strings.Join(want, ",") {
			t.Errorf("requests %v, want first %v", got, want)
		}
		if !strings.Contains(log.String(), "registered the account's subdomain open-numerology.workers.dev") {
			t.Errorf("log:\n%s", log.String())
		}
	})
	t.Run("a taken name", func(t *testing.T) {
		fake := cftest.New(testToken, testAccount)
		defer fake.Close()
		fake.Subdomain = ""
		fake.TakeSubdomain("numerology")
		_, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{WorkersSubdomain: "numerology"}))
		var se *cloudflare.SubdomainError
		if !errors.As(err, &se) || !se.Taken {
			t.Fatalf("apply: %v, want a *SubdomainError for a taken name", err)
		}
		want := "--workers-subdomain numerology: the workers.dev subdomain numerology is taken: choose another name, or register one at " + onboarding + " (nothing was uploaded)"
		if err.Error() != want {
			t.Errorf("error %q\nwant  %q", err, want)
		}
		if n := uploadsStarted(fake); n != 0 || fake.Subdomain != "" {
			t.Errorf("%d upload requests; subdomain %q", n, fake.Subdomain)
		}
	})
	t.Run("10007 with HTTP 403 is no rejected token", func(t *testing.T) {
		fake := cftest.New(testToken, testAccount)
		defer fake.Close()
		fake.Inject(cftest.Fault{Method: "GET", PathContains: "/workers/subdomain", Status: 403, Code: 10007, Message: "workers.api.error.not_found", Times: 5})
		_, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{}))
		var se *cloudflare.SubdomainError
		var ae *cloudflare.AuthError
		if !errors.As(err, &se) || errors.As(err, &ae) {
			t.Fatalf("apply: %v, want a *SubdomainError and no *AuthError", err)
		}
		if n := len(accountRequests(fake, "/workers/subdomain")); n != 1 {
			t.Errorf("the subdomain was read %d times: 10007 is an answer, not worth a retry", n)
		}
	})
	t.Run("10063 on the script upload", func(t *testing.T) {
		fake := cftest.New(testToken, testAccount)
		defer fake.Close()
		// The subdomain is there when checked and gone when the script arrives.
		fake.Inject(cftest.Fault{Method: "PUT", PathContains: "/workers/scripts/fixture-api", Status: 400, Code: 10063, Message: "You need a workers.dev subdomain in order to proceed.", Times: 1})
		_, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{}))
		var se *cloudflare.SubdomainError
		if !errors.As(err, &se) || !se.Uploaded {
			t.Fatalf("apply: %v, want a *SubdomainError after the upload", err)
		}
		for _, want := range []string{onboarding, "the files were uploaded and are kept, so the next run only sends the script; nothing went live"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
		if fake.Script("fixture-api") != nil {
			t.Error("a version went live")
		}
	})
	t.Run("the fake refuses a new account's script upload with 10063", func(t *testing.T) {
		fake := cftest.New(testToken, testAccount)
		defer fake.Close()
		fake.Subdomain = ""
		status, errs := putScript(t, fake, validMetadata())
		if status != 400 || len(errs) != 1 || errs[0].Code != 10063 {
			t.Errorf("status %d, errors %+v: want 400 with code 10063", status, errs)
		}
	})
}

// TestWorkersDevAsWranglerSetsIt: with routes or domains the workers.dev address is turned
// off unless --keep-workers-dev; previews_enabled is always left out; the request carries
// the Cloudflare-Workers-Script-Api-Date header wrangler sends.
func TestWorkersDevAsWranglerSetsIt(t *testing.T) {
	tests := []struct {
		name string
		opts cloudflare.Options
		on   bool
		urls []string
	}{
		{"no route", cloudflare.Options{}, true, []string{"https://fixture-api.fake-account.workers.dev"}},
		{"a route", cloudflare.Options{Routes: []string{"api.example.org/*"}, ZoneID: "zone1"}, false, []string{"https://api.example.org/"}},
		{"a domain", cloudflare.Options{Domains: []string{"api.example.org"}}, false, []string{"https://api.example.org/"}},
		{"a route, --keep-workers-dev", cloudflare.Options{Routes: []string{"api.example.org/*"}, ZoneID: "zone1", KeepWorkersDev: true}, true,
			[]string{"https://api.example.org/", "https://fixture-api.fake-account.workers.dev"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			fake.AddZone("zone1", "example.org", false)
			res, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), newPlan(t, baseTree(t), tt.opts))
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			wd := fake.WorkersDev("fixture-api")
			if wd.Enabled != tt.on || wd.PreviewsEnabled != nil || wd.APIDate != "2025-08-01" {
				t.Errorf("workers.dev set to %+v, want enabled %v, previews left out, Cloudflare-Workers-Script-Api-Date 2025-08-01", wd, tt.on)
			}
			if strings.Join(res.URLs, " ") != strings.Join(tt.urls, " ") {
				t.Errorf("URLs %v, want %v", res.URLs, tt.urls)
			}
		})
	}
}

// TestRoutesCheckedBeforeUpload: a zone the token cannot see, a zone that does not exist,
// a route whose host is not in the zone and a route that already runs another Worker (or
// none) each stop the deploy before anything is uploaded, with the API's refusal explained.
func TestRoutesCheckedBeforeUpload(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*cftest.Server)
		route string
		check func(err error) bool
		want  string
	}{
		{"a zone the token cannot see", func(f *cftest.Server) { f.AddZone("zone1", "example.org", true) }, "api.example.org/*",
			func(err error) bool { var e *cloudflare.ZoneAccessError; return errors.As(err, &e) && e.Status == 403 },
			"--zone-id zone1: Cloudflare refused the API token access to the zone (HTTP 403: Unauthorized to access requested resource): give the token Zone > Zone > Read and Zone > Workers Routes > Edit on that zone"},
		{"an unknown zone", func(*cftest.Server) {}, "api.example.org/*",
			func(err error) bool { var e *cloudflare.ZoneAccessError; return errors.As(err, &e) && e.Status == 404 },
			"--zone-id zone1: Cloudflare refused the API token access to the zone (HTTP 404"},
		{"a host outside the zone", func(f *cftest.Server) { f.AddZone("zone1", "example.org", false) }, "api.example.net/*",
			func(err error) bool { var e *cloudflare.UsageError; return errors.As(err, &e) },
			`--route "api.example.net/*": its host is not in the zone example.org (--zone-id zone1)`},
		{"another Worker's route", func(f *cftest.Server) {
			f.AddZone("zone1", "example.org", false)
			f.AddRoute("zone1", "api.example.org/*", "other-api")
		}, "api.example.org/*",
			func(err error) bool {
				var e *cloudflare.RouteConflictError
				return errors.As(err, &e) && e.Other == "other-api"
			},
			"--route api.example.org/*: the zone example.org already has this route, and it runs the Worker other-api: remove it there"},
		{"a route that runs no Worker", func(f *cftest.Server) {
			f.AddZone("zone1", "example.org", false)
			f.AddRoute("zone1", "api.example.org/*", "")
		}, "api.example.org/*",
			func(err error) bool { var e *cloudflare.RouteConflictError; return errors.As(err, &e) && e.Other == "" },
			"it runs no Worker (it turns Workers off on its paths)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			tt.setup(fake)
			p := newPlan(t, baseTree(t), cloudflare.Options{Routes: []string{tt.route}, ZoneID: "zone1"})
			_, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), p)
			if err == nil || !tt.check(err) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "nothing was uploaded") {
				t.Fatalf("apply: %v\nwant %q", err, tt.want)
			}
			if n := uploadsStarted(fake); n != 0 {
				t.Errorf("%d upload requests sent", n)
			}
		})
	}
}

// TestRouteAndDomainShapes: what Cloudflare refuses of a route pattern or a custom domain
// (and what cannot serve the API) is refused while planning, before any network call; the
// fake refuses the same payloads with the API's codes.
func TestRouteAndDomainShapes(t *testing.T) {
	tests := []struct {
		name    string
		opts    cloudflare.Options
		want    string
		fake    func(f *cftest.Server) (int, int) // the fake's status and code for the same payload
		wantAPI int
	}{
		{"route without a path", cloudflare.Options{Routes: []string{"api.example.org"}, ZoneID: "zone1"}, `--route "api.example.org": must be host/* or host/path*`,
			func(f *cftest.Server) (int, int) { return postRoute(t, f, "api.example.org") }, 10022},
		{"route without a trailing wildcard", cloudflare.Options{Routes: []string{"api.example.org/api"}, ZoneID: "zone1"}, `--route "api.example.org/api": must be host/* or host/path*`, nil, 0},
		{"route with an infix wildcard", cloudflare.Options{Routes: []string{"api.example.org/*.json*"}, ZoneID: "zone1"}, "one * ending the path, none inside it",
			func(f *cftest.Server) (int, int) { return postRoute(t, f, "api.example.org/*.json*") }, 10022},
		{"route with a scheme", cloudflare.Options{Routes: []string{"https://api.example.org/*"}, ZoneID: "zone1"}, "drop the scheme", nil, 0},
		{"route with a wildcard inside the host", cloudflare.Options{Routes: []string{"api.*.org/*"}, ZoneID: "zone1"}, "only one * may lead the host", nil, 0},
		{"route of any host", cloudflare.Options{Routes: []string{"*/*"}, ZoneID: "zone1"}, `--route "*/*": the host is not a hostname with a domain`, nil, 0},
		{"route without a zone", cloudflare.Options{Routes: []string{"api.example.org/*"}}, "--route needs --zone-id", nil, 0},
		{"domain with a wildcard", cloudflare.Options{Domains: []string{"*.example.org"}}, `--domain "*.example.org": a custom domain cannot hold a wildcard (*)`,
			func(f *cftest.Server) (int, int) { return putDomain(t, f, "*.example.org") }, 10021},
		{"domain with a path", cloudflare.Options{Domains: []string{"example.org/api"}}, `--domain "example.org/api": a custom domain cannot hold a path or a scheme`,
			func(f *cftest.Server) (int, int) { return putDomain(t, f, "example.org/api") }, 10021},
		{"domain with a port", cloudflare.Options{Domains: []string{"example.org:8443"}}, "a custom domain cannot hold a port",
			func(f *cftest.Server) (int, int) { return putDomain(t, f, "example.org:8443") }, 10021},
		{"domain without a dot", cloudflare.Options{Domains: []string{"localhost"}}, `--domain "localhost": is not a hostname with a domain`,
			func(f *cftest.Server) (int, int) { return putDomain(t, f, "localhost") }, 10021},
		{"--workers-subdomain with a route", cloudflare.Options{Routes: []string{"api.example.org/*"}, ZoneID: "zone1", WorkersSubdomain: "x"}, "add --keep-workers-dev", nil, 0},
		{"--workers-subdomain not a name", cloudflare.Options{WorkersSubdomain: "Open_Data"}, `--workers-subdomain "Open_Data": a workers.dev subdomain is 1 to 63 lowercase letters`,
			func(f *cftest.Server) (int, int) { return putSubdomain(t, f, "Open_Data") }, 10021},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Limits = freeLimits()
			_, err := cloudflare.NewPlan(baseTree(t), loadManifest(t, baseTree(t)), fixtureWorker(t), tt.opts)
			var ue *cloudflare.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("plan: %v, want a *UsageError with %q", err, tt.want)
			}
			if tt.fake == nil {
				return
			}
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			fake.AddZone("zone1", "example.org", false)
			if status, code := tt.fake(fake); status != 400 || code != tt.wantAPI {
				t.Errorf("the fake answered %d with code %d, want 400 with %d", status, code, tt.wantAPI)
			}
		})
	}
}

// validMetadata is script upload metadata that Cloudflare's checks accept (its assets.jwt
// is no completion token).
func validMetadata() map[string]any {
	return map[string]any{
		"main_module": "index.js", "compatibility_date": "2026-01-15",
		"assets": map[string]any{"jwt": "x", "config": map[string]any{"run_worker_first": []string{"/api/*"}}},
		"bindings": []any{
			map[string]any{"name": "ASSETS", "type": "assets"},
			map[string]any{"name": "RATE_LIMITER", "type": "ratelimit", "namespace_id": "854791229", "simple": map[string]any{"limit": 60, "period": 60}},
		},
	}
}

// apiCall sends one JSON request to the fake with the API token and returns the status
// and the first error's code (0 on success).
func apiCall(t *testing.T, fake *cftest.Server, method, path string, body any) (int, int) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(method, fake.URL+strings.TrimPrefix(path, "/"), bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Success bool     `json:"success"`
		Errors  []apiErr `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatalf("%s %s: not an envelope: %v", method, path, err)
	}
	if env.Success {
		return resp.StatusCode, 0
	}
	if len(env.Errors) == 0 {
		t.Fatalf("%s %s: a refusal without errors", method, path)
	}
	return resp.StatusCode, env.Errors[0].Code
}

func postRoute(t *testing.T, fake *cftest.Server, pattern string) (int, int) {
	return apiCall(t, fake, "POST", "zones/zone1/workers/routes", map[string]string{"pattern": pattern, "script": "fixture-api"})
}

func putDomain(t *testing.T, fake *cftest.Server, host string) (int, int) {
	return apiCall(t, fake, "PUT", "accounts/"+testAccount+"/workers/domains", map[string]string{"hostname": host, "service": "fixture-api", "environment": "production"})
}

func putSubdomain(t *testing.T, fake *cftest.Server, name string) (int, int) {
	return apiCall(t, fake, "PUT", "accounts/"+testAccount+"/workers/subdomain", map[string]string{"subdomain": name})
}
