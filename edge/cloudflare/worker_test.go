package cloudflare_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/edge/cloudflare/cftest"
	"github.com/opennumerology/numerology/edge/worker"
)

// invalidConfigs are worker configs Cloudflare refuses: each changes one field of the
// fixture's wrangler.json and names the problem deploy reports, and (api) the message of
// the fake API's refusal of the same upload.
var invalidConfigs = []struct {
	name   string
	change func(c map[string]any)
	want   string
	api    string
}{
	{"ratelimit period 30", func(c map[string]any) { rateLimit(c)["simple"] = map[string]any{"limit": 60, "period": 30} },
		"ratelimits[0].simple.period 30 must be 10 or 60 (seconds)", "bindings[1].simple.period: must be 10 or 60"},
	{"namespace_id not digits", func(c map[string]any) { rateLimit(c)["namespace_id"] = "ns-1" },
		`ratelimits[0].namespace_id "ns-1" must be a positive integer written as a string, such as "679126959"`, "bindings[1].namespace_id: must be a positive integer"},
	{"namespace_id zero", func(c map[string]any) { rateLimit(c)["namespace_id"] = "0" },
		`ratelimits[0].namespace_id "0" must be a positive integer written as a string, such as "679126959"`, "bindings[1].namespace_id: must be a positive integer"},
	{"namespace_id a number", func(c map[string]any) { rateLimit(c)["namespace_id"] = 1001 },
		`ratelimits[0].namespace_id 1001 (not a JSON string) must be a positive integer written as a string, such as "679126959"`, "bindings[1].namespace_id: must be a positive integer"},
	{"run_worker_first rule without a slash", func(c map[string]any) { assetsOf(c)["run_worker_first"] = []string{"/api/*", "api/*"} },
		`assets.run_worker_first[1] "api/*" must start with / or !/`, "assets.config.run_worker_first: 'api/*': rules must start with '/' or '!/'"},
	{"run_worker_first negative rule without !/", func(c map[string]any) { assetsOf(c)["run_worker_first"] = []string{"/api/*", "!api"} },
		`assets.run_worker_first[1] "!api": negative rules must start with !/`, "assets.config.run_worker_first: '!api': negative rules must start with '!/'"},
	{"run_worker_first rule too long", func(c map[string]any) { assetsOf(c)["run_worker_first"] = []string{"/" + strings.Repeat("a", 100)} },
		`assets.run_worker_first rule "/` + strings.Repeat("a", 100) + `" is 101 characters long, Cloudflare allows 100`,
		"assets.config.run_worker_first: '/" + strings.Repeat("a", 100) + "': all rules must be less than 100 characters in length"},
	{"run_worker_first too many rules", func(c map[string]any) {
		rules := make([]string, 101)
		for i := range rules {
			rules[i] = fmt.Sprintf("/r%d", i)
		}
		assetsOf(c)["run_worker_first"] = rules
	}, "assets.run_worker_first has 101 rules, Cloudflare allows 100", "assets.config.run_worker_first: 101 rules provided exceeds max of 100"},
	{"run_worker_first no rules", func(c map[string]any) { assetsOf(c)["run_worker_first"] = []string{} },
		"assets.run_worker_first is an empty list: Cloudflare wants at least 1 rule (or true, or false)", "assets.config.run_worker_first: no rules were provided; must provide at least 1 rule"},
	{"run_worker_first only negative rules", func(c map[string]any) { assetsOf(c)["run_worker_first"] = []string{"!/api/*"} },
		"assets.run_worker_first has only negative (!/) rules: Cloudflare wants at least 1 rule starting with /",
		"assets.config.run_worker_first: only negative rules were provided; must provide at least 1 non-negative rule"},
	{"run_worker_first duplicate rule", func(c map[string]any) { assetsOf(c)["run_worker_first"] = []string{"/api/*", "/x", "/x"} },
		`assets.run_worker_first rule "/x" is a duplicate; rules must be unique`, "assets.config.run_worker_first: '/x': rule is a duplicate; rules must be unique"},
	{"run_worker_first redundant rule", func(c map[string]any) { assetsOf(c)["run_worker_first"] = []string{"/api/*", "/api/public"} },
		`assets.run_worker_first rule "/api/public" is redundant: "/api/*" covers it`, "assets.config.run_worker_first: '/api/public': rule '/api/*' makes it redundant"},
	{"html_handling unknown", func(c map[string]any) { assetsOf(c)["html_handling"] = "trailing-slash" },
		`assets.html_handling "trailing-slash" is not one of auto-trailing-slash, force-trailing-slash, drop-trailing-slash, none`, "assets.config.html_handling: invalid value trailing-slash"},
	{"not_found_handling unknown", func(c map[string]any) { assetsOf(c)["not_found_handling"] = "404" },
		`assets.not_found_handling "404" is not one of single-page-application, 404-page, none`, "assets.config.not_found_handling: invalid value 404"},
	{"compatibility_date in the future", func(c map[string]any) { c["compatibility_date"] = "2099-01-01" },
		"compatibility_date 2099-01-01 is in the future (today is 2026-11-22 UTC)", "compatibility_date 2099-01-01 is in the future"},
}

func rateLimit(c map[string]any) map[string]any { return c["ratelimits"].([]any)[0].(map[string]any) }
func assetsOf(c map[string]any) map[string]any  { return c["assets"].(map[string]any) }

// fixedNow pins deploy's clock (and the fake's) to a day for the compatibility date.
func fixedNow(t *testing.T) func() time.Time {
	t.Helper()
	now := func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
	saved := cloudflare.Now
	cloudflare.Now = now
	t.Cleanup(func() { cloudflare.Now = saved })
	return now
}

// TestInvalidConfigRefusedBeforeAnyRequest: each field Cloudflare would refuse is named by
// LoadWorker, and Apply of such a worker sends no request at all.
func TestInvalidConfigRefusedBeforeAnyRequest(t *testing.T) {
	fixedNow(t)
	base, err := os.ReadFile("testdata/worker/wrangler.json")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/worker/src/index.js")
	if err != nil {
		t.Fatal(err)
	}
	good := fixtureWorker(t)
	for _, tt := range invalidConfigs {
		t.Run(tt.name, func(t *testing.T) {
			var c map[string]any
			if err := json.Unmarshal(base, &c); err != nil {
				t.Fatal(err)
			}
			tt.change(c)
			b, _ := json.Marshal(c)
			fsys := fstest.MapFS{"wrangler.json": {Data: b}, "src/index.js": {Data: script}}
			_, err := cloudflare.LoadWorker(fsys, "wrangler.json")
			var ce *cloudflare.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadWorker: %v, want a *ConfigError with %q", err, tt.want)
			}
			// The same problem in a worker built otherwise: Apply refuses before any request.
			bad := *good
			badConfig(t, &bad, c)
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			p := newPlan(t, baseTree(t), cloudflare.Options{})
			p.Worker = &bad
			if _, err := newDeployer(fake, nil, nil).Apply(context.Background(), p); !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Apply: %v, want a *ConfigError with %q", err, tt.want)
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("%d requests sent for an invalid config", n)
			}
		})
	}
}

// badConfig copies the changed fields of config c into w, bypassing LoadWorker's checks.
func badConfig(t *testing.T, w *cloudflare.Worker, c map[string]any) {
	t.Helper()
	b, _ := json.Marshal(c)
	var raw struct {
		CompatibilityDate string                  `json:"compatibility_date"`
		Assets            cloudflare.AssetsConfig `json:"assets"`
		RateLimits        []cloudflare.RateLimit  `json:"ratelimits"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	w.CompatibilityDate, w.Assets, w.RateLimits = raw.CompatibilityDate, raw.Assets, raw.RateLimits
}

// TestFakeRefusesInvalidConfig: the fake API refuses the same uploads with Cloudflare's
// error envelope, so the fake cannot accept what the real API would not.
func TestFakeRefusesInvalidConfig(t *testing.T) {
	now := fixedNow(t)
	for _, tt := range invalidConfigs {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			fake.Now = now
			meta := map[string]any{
				"main_module": "index.js", "compatibility_date": "2026-01-15",
				"assets": map[string]any{"jwt": "x", "config": map[string]any{"run_worker_first": []string{"/api/*"}, "html_handling": "none", "not_found_handling": "404-page"}},
				"bindings": []any{
					map[string]any{"name": "ASSETS", "type": "assets"},
					map[string]any{"name": "RATE_LIMITER", "type": "ratelimit", "namespace_id": "854791229", "simple": map[string]any{"limit": 60, "period": 60}},
				},
			}
			c := map[string]any{
				"compatibility_date": meta["compatibility_date"],
				"assets":             meta["assets"].(map[string]any)["config"],
				"ratelimits":         []any{meta["bindings"].([]any)[1]},
			}
			tt.change(c)
			meta["compatibility_date"] = c["compatibility_date"]
			meta["assets"].(map[string]any)["config"] = c["assets"]
			status, errs := putScript(t, fake, meta)
			if status != http.StatusBadRequest || len(errs) == 0 {
				t.Fatalf("status %d, errors %v: want 400 with errors", status, errs)
			}
			if errs[0].Code != 10021 || errs[0].Message != tt.api {
				t.Errorf("errors %+v, want code 10021 %q", errs, tt.api)
			}
		})
	}
}

type apiErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// putScript uploads a script with the given metadata straight to the fake.
func putScript(t *testing.T, fake *cftest.Server, meta map[string]any) (int, []apiErr) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mb, _ := json.Marshal(meta)
	mw.WriteField("metadata", string(mb))
	h := map[string][]string{"Content-Disposition": {`form-data; name="index.js"; filename="index.js"`}, "Content-Type": {"application/javascript+module"}}
	part, _ := mw.CreatePart(h)
	part.Write([]byte("export default {}"))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPut, fake.URL+"accounts/"+testAccount+"/workers/scripts/x", &body)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Success bool     `json:"success"`
		Errors  []apiErr `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Success {
		t.Fatalf("envelope %+v (%v)", env, err)
	}
	return resp.StatusCode, env.Errors
}

// TestNamespaceID: the shipped wrangler.json's rate-limit namespace is the one derived
// from the worker's name, not the docs' example 1001; deployed under another --name, the
// worker gets that name's namespace, so the two count their clients apart.
func TestNamespaceID(t *testing.T) {
	w, err := cloudflare.LoadWorker(worker.WorkerFS, worker.WorkerConfig)
	if err != nil {
		t.Fatal(err)
	}
	ns := string(w.RateLimits[0].NamespaceID)
	if want := cloudflare.NamespaceID(w.Name); ns != want || ns == "1001" {
		t.Errorf("wrangler.json's namespace_id is %s, want %s, derived from the name %s", ns, want, w.Name)
	}
	if a, b := cloudflare.NamespaceID("numerology-api"), cloudflare.NamespaceID("staging-api"); a == b || len(a) < 7 || len(b) < 7 {
		t.Errorf("NamespaceID gives %s and %s", a, b)
	}
	p, err := cloudflare.NewPlan(baseTree(t), loadManifest(t, baseTree(t)), w, cloudflare.Options{ScriptName: "staging-api", Limits: freeLimits()})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(p.Worker.RateLimits[0].NamespaceID); got != cloudflare.NamespaceID("staging-api") {
		t.Errorf("deployed as staging-api, the namespace is %s, want %s", got, cloudflare.NamespaceID("staging-api"))
	}
	if string(w.RateLimits[0].NamespaceID) != ns {
		t.Error("planning under another name changed the embedded worker")
	}
}
