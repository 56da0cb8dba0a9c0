package cloudflare_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/edge/cloudflare/cftest"
	"github.com/opennumerology/numerology/edge/worker"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/assetsignore"
	"github.com/opennumerology/numerology/internal/humanize"
	"github.com/opennumerology/numerology/internal/testsupport"
)

const (
	testToken   = "tok-SECRET-0123456789abcdef"
	testAccount = "acc0123456789"
)

// shared is a small tree (the year 2000) generated once per test binary, which tests must
// not change; copyTree gives a test its own.
var shared = generatortest.NewShared(2000)

// baseTree returns the shared tree.
func baseTree(t testing.TB) string {
	t.Helper()
	return shared.Dir(t)
}

// TestMain runs the tests, then fails the run if one of them changed the base tree, and
// removes it.
func TestMain(m *testing.M) {
	os.Exit(testsupport.RunTests(m, shared.Close))
}

// copyTree gives a test its own copy of the base tree. Its folders are new and its files are
// hard links to the base tree's, so a test changes a file only through writeFile, which
// replaces it, and never writes into one; TestMain catches a slip.
func copyTree(t *testing.T) string {
	t.Helper()
	return shared.Link(t, nil)
}

// writeFile replaces the file at path with b (generatortest.ReplaceFile): in a copyTree that
// file is the base tree's too.
func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	generatortest.ReplaceFile(t, path, b)
}

func fixtureWorker(t *testing.T) *cloudflare.Worker {
	t.Helper()
	w, err := cloudflare.LoadWorker(os.DirFS("testdata/worker"), "wrangler.json")
	if err != nil {
		t.Fatalf("load fixture worker: %v", err)
	}
	return w
}

func newPlan(t *testing.T, dir string, opts cloudflare.Options) *cloudflare.Plan {
	t.Helper()
	if opts.Limits.Plan == "" {
		opts.Limits = freeLimits()
	}
	p, err := cloudflare.NewPlan(dir, loadManifest(t, dir), fixtureWorker(t), opts)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return p
}

func loadManifest(t *testing.T, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatalf("load manifest: %v", err)
	}
	return m
}

func freeLimits() cloudflare.Limits {
	l, _ := cloudflare.PlanLimits("free")
	return l
}

// waits records the retry waits instead of sleeping them.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

func newDeployer(fake *cftest.Server, log *bytes.Buffer, w *waits) *cloudflare.Deployer {
	if w == nil {
		w = &waits{}
	}
	d := &cloudflare.Deployer{
		AccountID: testAccount, Token: testToken, BaseURL: fake.URL, Concurrency: 3,
		Retry: cloudflare.Retry{Attempts: 5, Base: 10 * time.Millisecond, Max: time.Minute, Sleep: w.sleep},
	}
	if log != nil {
		d.Log = log
	}
	return d
}

func distinctHashes(p *cloudflare.Plan) map[string]bool {
	h := map[string]bool{}
	for _, a := range p.Assets {
		h[a.Hash] = true
	}
	return h
}

// notUploaded reports whether a tree file stays out of the live version: _headers (sent as
// header rules), .assetsignore itself and what the generated .assetsignore lists (the
// per-date files of every date route, the error bodies).
func notUploaded(rel string) bool {
	ignored, err := generatedIgnore.Ignored(rel)
	if err != nil {
		panic(err)
	}
	return rel == manifest.HeadersFile || rel == manifest.AssetsIgnoreFile || ignored
}

// generatedIgnore is the .assetsignore numerology generate writes.
var generatedIgnore = func() *assetsignore.Matcher {
	ig, err := assetsignore.Parse(generator.AssetsIgnore(generator.Routes()))
	if err != nil {
		panic(err)
	}
	return ig
}()

// checkLive asserts that the fake's live version serves exactly the tree but the files
// its .assetsignore leaves out.
func checkLive(t *testing.T, fake *cftest.Server, p *cloudflare.Plan) {
	t.Helper()
	site := fake.Site(p.ScriptName)
	want := map[string]string{}
	err := filepath.WalkDir(p.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(p.Dir, path)
		rel = filepath.ToSlash(rel)
		if notUploaded(rel) {
			return nil
		}
		want["/"+rel] = path
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(site) != len(want) {
		t.Errorf("live version has %d files, the tree %d (without _headers and what .assetsignore lists)", len(site), len(want))
	}
	for urlPath, file := range want {
		b, _ := os.ReadFile(file)
		got, ok := site[urlPath]
		switch {
		case !ok:
			t.Errorf("%s: not in the live version", urlPath)
		case !bytes.Equal(got.Content, b):
			t.Errorf("%s: live content differs from the tree", urlPath)
		case got.ContentType != cloudflare.ContentType(urlPath):
			t.Errorf("%s: content type %q, want %q", urlPath, got.ContentType, cloudflare.ContentType(urlPath))
		}
	}
}

func TestFirstDeployUploadsEveryFileOnce(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	dir := baseTree(t)
	p := newPlan(t, dir, cloudflare.Options{})
	var log bytes.Buffer
	var progress []cloudflare.Progress
	d := newDeployer(fake, &log, nil)
	d.OnProgress = func(pr cloudflare.Progress) { progress = append(progress, pr) }

	res, err := d.Apply(context.Background(), p)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	total, byHash := fake.Uploads()
	hashes := distinctHashes(p)
	if total != len(hashes) || len(byHash) != len(hashes) {
		t.Errorf("uploaded %d parts of %d hashes, want each of the %d hashes once", total, len(byHash), len(hashes))
	}
	for h, n := range byHash {
		if n != 1 {
			t.Errorf("hash %s uploaded %d times", h, n)
		}
	}
	if res.UploadedFiles != len(hashes) || res.SkippedFiles != len(p.Assets)-len(hashes) || res.Files != len(p.Assets) {
		t.Errorf("result %+v: want %d uploaded of %d", res, len(hashes), len(p.Assets))
	}
	if res.VersionID == "" {
		t.Error("no version id")
	}
	checkLive(t, fake, p)

	sc := fake.Script(p.ScriptName)
	meta := sc.Metadata
	if meta["main_module"] != "index.js" || meta["compatibility_date"] != "2026-01-15" {
		t.Errorf("metadata main_module %v, compatibility_date %v", meta["main_module"], meta["compatibility_date"])
	}
	if got, want := string(sc.Modules["index.js"].Content), string(fixtureWorker(t).Script); got != want {
		t.Errorf("module uploaded as %q", got)
	}
	bindings, _ := json.Marshal(meta["bindings"])
	for _, want := range []string{`{"name":"ASSETS","type":"assets"}`, `"name":"RATE_LIMITER"`, `"namespace_id":"679126959"`, `"simple":{"limit":60,"period":60}`, `"type":"ratelimit"`, `{"name":"GREETING","text":"привет","type":"plain_text"}`} {
		if !strings.Contains(string(bindings), want) {
			t.Errorf("bindings %s lack %s", bindings, want)
		}
	}
	assets, _ := meta["assets"].(map[string]any)
	cfg, _ := assets["config"].(map[string]any)
	headers, _ := os.ReadFile(filepath.Join(dir, manifest.HeadersFile))
	if cfg["_headers"] != string(headers) || cfg["html_handling"] != "auto-trailing-slash" || cfg["not_found_handling"] != "404-page" {
		t.Errorf("assets config %v", cfg)
	}
	if rwf, _ := json.Marshal(cfg["run_worker_first"]); string(rwf) != `["/api/*"]` {
		t.Errorf("run_worker_first %s", rwf)
	}
	if last := progress[len(progress)-1]; last.Files != last.TotalFiles || last.Buckets != last.TotalBuckets || last.TotalFiles != len(hashes) {
		t.Errorf("last progress %+v", last)
	}
}

func TestRedeploy(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string) []string // returns the URL paths expected to upload
	}{
		{name: "unchanged tree uploads nothing", change: func(*testing.T, string) []string { return nil }},
		{name: "one changed file uploads it and the manifest", change: func(t *testing.T, dir string) []string {
			rewrite(t, dir, generatortest.PackedFile(generator.RouteMatrix, 1, 5, 2000), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"api_version"`), []byte(`"api_version_changed"`), 1)
			})
			return []string{"/" + generatortest.PackedFile(generator.RouteMatrix, 1, 5, 2000), "/" + manifest.FileName}
		}},
		{name: "a changed ignored file uploads only the manifest", change: func(t *testing.T, dir string) []string {
			rewrite(t, dir, generatortest.File(generator.RouteMatrix, 15, 5, 2000), func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"api_version"`), []byte(`"api_version_changed"`), 1)
			})
			return []string{"/" + manifest.FileName}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			dir := copyTree(t)
			d := newDeployer(fake, &bytes.Buffer{}, nil)
			first, err := d.Apply(context.Background(), newPlan(t, dir, cloudflare.Options{}))
			if err != nil {
				t.Fatalf("first apply: %v", err)
			}
			fake.ResetUploads()
			paths := tt.change(t, dir)
			p := newPlan(t, dir, cloudflare.Options{})
			res, err := d.Apply(context.Background(), p)
			if err != nil {
				t.Fatalf("second apply: %v", err)
			}
			_, byHash := fake.Uploads()
			want := map[string]bool{}
			for _, a := range p.Assets {
				for _, path := range paths {
					if a.Path == path {
						want[a.Hash] = true
					}
				}
			}
			if len(byHash) != len(want) || res.UploadedFiles != len(want) {
				t.Errorf("uploaded %v (result %d), want the hashes of %v", byHash, res.UploadedFiles, paths)
			}
			for h := range want {
				if byHash[h] != 1 {
					t.Errorf("hash %s uploaded %d times, want once", h, byHash[h])
				}
			}
			if res.VersionID == first.VersionID {
				t.Errorf("the second deploy did not make a new version (%s)", res.VersionID)
			}
			checkLive(t, fake, p)
		})
	}
}

// rewrite changes one file of the tree and updates the manifest to match.
func rewrite(t *testing.T, dir, rel string, f func([]byte) []byte) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = f(b)
	writeFile(t, path, b)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Update(dir, manifest.File{Path: rel, Size: int64(len(b)), SHA256: testsupport.SHA256Hex(b)}); err != nil {
		t.Fatal(err)
	}
}

func TestTransientErrorsAreRetried(t *testing.T) {
	tests := []struct {
		name      string
		fault     cftest.Fault
		wantWaits []time.Duration // exact waits when Retry-After decides them; else only a count
		waits     int
	}{
		{name: "429 with Retry-After on the session", fault: cftest.Fault{Method: "POST", PathContains: "assets-upload-session", Status: 429, RetryAfter: "7", Times: 2}, wantWaits: []time.Duration{7 * time.Second, 7 * time.Second}},
		{name: "500 on bucket uploads", fault: cftest.Fault{PathContains: "/workers/assets/upload", Status: 500, Times: 3}, waits: 3},
		{name: "dropped connections on bucket uploads", fault: cftest.Fault{PathContains: "/workers/assets/upload", Drop: true, Times: 2}, waits: 2},
		{name: "503 on the script upload", fault: cftest.Fault{Method: "PUT", PathContains: "/workers/scripts/", Status: 503, Times: 1}, waits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			fake.Inject(tt.fault)
			p := newPlan(t, baseTree(t), cloudflare.Options{})
			var log bytes.Buffer
			w := &waits{}
			res, err := newDeployer(fake, &log, w).Apply(context.Background(), p)
			if err != nil {
				t.Fatalf("apply: %v\n%s", err, log.String())
			}
			if tt.wantWaits != nil && fmt.Sprint(w.d) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits %v, want %v", w.d, tt.wantWaits)
			}
			if tt.wantWaits == nil && len(w.d) != tt.waits {
				t.Errorf("%d waits (%v), want %d", len(w.d), w.d, tt.waits)
			}
			for _, d := range w.d {
				if d < 0 || d > time.Minute {
					t.Errorf("wait %v out of bounds", d)
				}
			}
			if c := strings.Count(log.String(), "retry: "); c != len(w.d) {
				t.Errorf("log has %d retry lines, want %d:\n%s", c, len(w.d), log.String())
			}
			if res.UploadedFiles != len(distinctHashes(p)) {
				t.Errorf("uploaded %d files", res.UploadedFiles)
			}
			checkLive(t, fake, p)
		})
	}
}

func TestInterruptedDeployResumes(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	fake.BucketSize = 10
	p := newPlan(t, baseTree(t), cloudflare.Options{})
	// Two buckets go through, then every upload fails: the deploy gives up part-way.
	fake.Inject(cftest.Fault{PathContains: "/workers/assets/upload", Status: 500, After: 2, Times: 1000})
	d := newDeployer(fake, &bytes.Buffer{}, nil)
	d.Concurrency = 1
	_, err := d.Apply(context.Background(), p)
	if err == nil {
		t.Fatal("apply succeeded through 1000 injected 500s")
	}
	if !strings.Contains(err.Error(), "giving up after 5 attempts") {
		t.Errorf("error %q does not say it gave up", err)
	}
	if fake.Script(p.ScriptName) != nil {
		t.Fatal("a version went live although the upload failed")
	}
	before, _ := fake.Uploads()
	if before != 20 {
		t.Fatalf("%d files uploaded before the failure, want 2 buckets of 10", before)
	}

	fake.ClearFaults()
	res, err := d.Apply(context.Background(), p)
	if err != nil {
		t.Fatalf("re-run: %v", err)
	}
	hashes := distinctHashes(p)
	total, byHash := fake.Uploads()
	if res.UploadedFiles != len(hashes)-before || total != len(hashes) {
		t.Errorf("re-run uploaded %d (fake saw %d in all), want %d (the %d not yet sent)", res.UploadedFiles, total, len(hashes)-before, len(hashes)-before)
	}
	for h, n := range byHash {
		if n != 1 {
			t.Errorf("hash %s uploaded %d times over both runs", h, n)
		}
	}
	checkLive(t, fake, p)
}

func TestCancelledDeployResumes(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	fake.BucketSize = 10
	p := newPlan(t, baseTree(t), cloudflare.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newDeployer(fake, &bytes.Buffer{}, nil)
	d.Concurrency = 1
	d.OnProgress = func(pr cloudflare.Progress) { // Ctrl-C after the third bucket
		if pr.Buckets == 3 {
			cancel()
		}
	}
	if _, err := d.Apply(ctx, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if fake.Script(p.ScriptName) != nil {
		t.Fatal("a version went live although the deploy was interrupted")
	}
	before, _ := fake.Uploads()
	d.OnProgress = nil
	res, err := d.Apply(context.Background(), p)
	if err != nil {
		t.Fatalf("re-run: %v", err)
	}
	if want := len(distinctHashes(p)) - before; res.UploadedFiles != want || before < 30 {
		t.Errorf("uploaded %d before the interrupt and %d on the re-run, want the %d left", before, res.UploadedFiles, want)
	}
	checkLive(t, fake, p)
}

func TestBadToken(t *testing.T) {
	fake := cftest.New("the-right-token", testAccount)
	defer fake.Close()
	p := newPlan(t, baseTree(t), cloudflare.Options{})
	var log bytes.Buffer
	_, err := newDeployer(fake, &log, nil).Apply(context.Background(), p)
	var ae *cloudflare.AuthError
	if !errors.As(err, &ae) || ae.Status != 403 {
		t.Fatalf("error %v, want an *AuthError with HTTP 403", err)
	}
	for _, want := range []string{"Cloudflare rejected the API token", "CLOUDFLARE_API_TOKEN", "Workers Scripts > Edit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error()+log.String(), testToken) {
		t.Error("the token appears in the error or the log")
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("%d requests: a rejected token must not be retried", n)
	}
}

func TestMissingCredentials(t *testing.T) {
	p := newPlan(t, baseTree(t), cloudflare.Options{})
	tests := []struct {
		name string
		d    cloudflare.Deployer
		want error
	}{
		{name: "no token", d: cloudflare.Deployer{AccountID: testAccount}, want: cloudflare.ErrNoToken},
		{name: "no account", d: cloudflare.Deployer{Token: testToken}, want: cloudflare.ErrNoAccount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.d.Apply(context.Background(), p)
			if !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
}

func TestTokenNeverInErrors(t *testing.T) {
	// An API that echoes the token back (as a misbehaving proxy might) still does not get it
	// into deploy's errors or log.
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	fake.Inject(cftest.Fault{PathContains: "assets-upload-session", Status: 400, Message: "bad header Bearer " + testToken, Times: 1})
	var log bytes.Buffer
	_, err := newDeployer(fake, &log, nil).Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{}))
	if err == nil {
		t.Fatal("apply succeeded through an injected 400")
	}
	if strings.Contains(err.Error()+log.String(), testToken) {
		t.Errorf("the token leaked: %v", err)
	}
	if !strings.Contains(err.Error(), "[REDACTED]") {
		t.Errorf("error %q: want the echoed token redacted", err)
	}
}

func TestTreeChangedAfterGenerate(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	dir := copyTree(t)
	p := newPlan(t, dir, cloudflare.Options{})
	writeFile(t, filepath.Join(dir, filepath.FromSlash(generatortest.File(generator.RouteLifePath, 7))), []byte("{}\n"))
	_, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), p)
	var te *cloudflare.TreeError
	if !errors.As(err, &te) || !te.Mismatch {
		t.Fatalf("error %v, want a manifest mismatch", err)
	}
	if fake.Script(p.ScriptName) != nil {
		t.Error("a version went live from a tree that does not match its manifest")
	}
}

func TestRoutesAndDomains(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	fake.AddZone("zone1", "example.org", false)
	p := newPlan(t, baseTree(t), cloudflare.Options{
		Routes: []string{"api.example.org/*"}, Domains: []string{"numerology.example.org"}, ZoneID: "zone1",
	})
	d := newDeployer(fake, &bytes.Buffer{}, nil)
	for run := 1; run <= 2; run++ { // the second run finds the route and updates it
		res, err := d.Apply(context.Background(), p)
		if err != nil {
			t.Fatalf("apply %d: %v", run, err)
		}
		want := []string{"https://api.example.org/", "https://numerology.example.org/"}
		if len(res.Routes) != 1 || len(res.Domains) != 1 || fmt.Sprint(res.URLs) != fmt.Sprint(want) {
			t.Errorf("run %d: result %+v, want URLs %v", run, res, want)
		}
	}
	if rs := fake.Routes("zone1"); len(rs) != 1 || rs[0].Script != p.ScriptName || rs[0].Pattern != "api.example.org/*" {
		t.Errorf("routes %+v", rs)
	}
	if ds := fake.Domains(); ds["numerology.example.org"] != p.ScriptName {
		t.Errorf("domains %v", ds)
	}
	if wd := fake.WorkersDev(p.ScriptName); wd.Enabled || wd.PreviewsEnabled != nil || wd.APIDate != "2025-08-01" {
		t.Errorf("workers.dev set to %+v for a deploy with routes: want enabled false, previews left out, the API date header", wd)
	}
}

// TestFirstDeployIsReachable: a deploy with no route or domain reads the account's
// workers.dev subdomain before anything is uploaded, turns on the worker's address and
// reports it, as wrangler does.
func TestFirstDeployIsReachable(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	fake.Subdomain = "open-data"
	p := newPlan(t, baseTree(t), cloudflare.Options{})
	res, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), p)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if want := "https://fixture-api.open-data.workers.dev"; len(res.URLs) != 1 || res.URLs[0] != want {
		t.Errorf("URLs %v, want [%s]", res.URLs, want)
	}
	if wd := fake.WorkersDev(p.ScriptName); !wd.Enabled || wd.PreviewsEnabled != nil || wd.APIDate != "2025-08-01" {
		t.Errorf("workers.dev set to %+v: want enabled, previews left out, the API date header", wd)
	}
	want := []string{"GET /workers/subdomain", "POST /workers/scripts/fixture-api/assets-upload-session", "PUT /workers/scripts/fixture-api", "POST /workers/scripts/fixture-api/subdomain"}
	if got := accountRequests(fake, "subdomain", "assets-upload-session", "PUT"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", got, want)
	}
}

// accountRequests lists the requests under the test account whose path holds one of
// parts (or whose method is one of them), as "METHOD /path-after-the-account".
func accountRequests(fake *cftest.Server, parts ...string) []string {
	var out []string
	for _, r := range fake.Requests() {
		for _, part := range parts {
			if strings.Contains(r.Path, part) || r.Method == part {
				out = append(out, r.Method+" "+strings.TrimPrefix(r.Path, "/client/v4/accounts/"+testAccount))
				break
			}
		}
	}
	return out
}

// TestDomainConflict: a --domain that is another Worker's custom domain, or one over DNS
// records of the hostname once the script exists (the changeset endpoint says so), stops
// the deploy before any upload; over DNS records on a script's very first deploy (which
// has no changeset yet) Cloudflare refuses it when attached, after the switch. Every error
// says what to do.
func TestDomainConflict(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(*cftest.Server)
		existing bool // the script was deployed before
		want     []string
		dns      bool
		live     bool // the new version went live before the refusal
	}{
		{"DNS record, the script's first deploy", func(f *cftest.Server) { f.AddDNSRecord("api.example.org") }, false, []string{
			"--domain api.example.org: the zone already has a DNS record (A, AAAA or CNAME) for api.example.org",
			"delete that record (dashboard: the zone, DNS, Records) or choose another hostname, then run deploy again",
			"the new version of fixture-api is live; only the domain is not attached",
		}, true, true},
		{"DNS record, a script deployed before", func(f *cftest.Server) { f.AddDNSRecord("api.example.org") }, true, []string{
			"--domain api.example.org: the zone already has a DNS record (A, AAAA or CNAME) for api.example.org", "(nothing was uploaded)",
		}, true, false},
		{"another Worker's domain", func(f *cftest.Server) { f.AddDomain("api.example.org", "someone-else") }, false, []string{
			"--domain api.example.org is already the custom domain of the Worker someone-else: detach it there (dashboard: Workers & Pages, someone-else, Settings, Domains & Routes)",
			"(nothing was uploaded)",
		}, false, false},
		{"another Worker's domain, a script deployed before", func(f *cftest.Server) { f.AddDomain("api.example.org", "someone-else") }, true, []string{
			"--domain api.example.org is already the custom domain of the Worker someone-else", "(nothing was uploaded)",
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			d := newDeployer(fake, &bytes.Buffer{}, nil)
			var before string
			if tt.existing {
				if _, err := d.Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{})); err != nil {
					t.Fatal(err)
				}
				before = fake.Script("fixture-api").Version
				fake.ResetUploads()
			}
			tt.setup(fake)
			p := newPlan(t, baseTree(t), cloudflare.Options{Domains: []string{"api.example.org"}})
			_, err := d.Apply(context.Background(), p)
			var de *cloudflare.DomainConflictError
			if !errors.As(err, &de) || de.DNS != tt.dns || de.Live != tt.live {
				t.Fatalf("apply: %v, want a *DomainConflictError (DNS %v, live %v)", err, tt.dns, tt.live)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if fake.Domains()["api.example.org"] == p.ScriptName {
				t.Error("the domain was attached anyway")
			}
			sc := fake.Script(p.ScriptName)
			if live := sc != nil && sc.Version != before; live != tt.live {
				t.Errorf("a new version live: %v, want %v", live, tt.live)
			}
			if total, _ := fake.Uploads(); (total > 0) != (tt.live && !tt.existing) {
				t.Errorf("%d files uploaded", total)
			}
		})
	}
}

// TestRetryAfterIsWaitedOut: a 429 with Retry-After up to 300 s (Cloudflare's API blocks
// for five minutes) is waited out with a line saying so; a longer one stops the deploy.
func TestRetryAfterIsWaitedOut(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter string
		wantWaits  []time.Duration
		wantErr    string
	}{
		{"300 s", "300", []time.Duration{300 * time.Second}, ""},
		{"301 s", "301", nil, "asks to wait 5m1s: run deploy again after that"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			fake.Inject(cftest.Fault{Method: "PUT", PathContains: "/workers/scripts/", Status: 429, RetryAfter: tt.retryAfter, Times: 1})
			p := newPlan(t, baseTree(t), cloudflare.Options{})
			var log bytes.Buffer
			w := &waits{}
			d := newDeployer(fake, &log, w)
			d.Retry.MaxRetryAfter = cloudflare.DefaultRetry.MaxRetryAfter
			_, err := d.Apply(context.Background(), p)
			if fmt.Sprint(w.d) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits %v (the fake clock), want %v", w.d, tt.wantWaits)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("apply: %v", err)
				}
				if want := "retry: upload the worker script: HTTP 429; waiting 5m0s as Retry-After asks (Cloudflare's API rate limit) (attempt 2 of 5)"; !strings.Contains(log.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, log.String())
				}
				return
			}
			var rae *cloudflare.RetryAfterError
			if !errors.As(err, &rae) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("apply: %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestPreflight(t *testing.T) {
	p := newPlan(t, baseTree(t), cloudflare.Options{})
	tests := []struct {
		name   string
		limits cloudflare.Limits
		want   []string
	}{
		{name: "within free", limits: cloudflare.Limits{Plan: "free", MaxFiles: 20000, MaxFileSize: cloudflare.MaxFileSize}},
		{name: "over free", limits: cloudflare.Limits{Plan: "free", MaxFiles: 10, MaxFileSize: cloudflare.MaxFileSize}, want: []string{"over the 10 of Workers free", "use --plan paid", "generate fewer years"}},
		{name: "over paid", limits: cloudflare.Limits{Plan: "paid", MaxFiles: 10, MaxFileSize: cloudflare.MaxFileSize}, want: []string{"generate fewer years"}},
		{name: "file too big", limits: cloudflare.Limits{Plan: "paid", MaxFiles: 100000, MaxFileSize: 1000}, want: []string{"over Cloudflare's 25 MiB per file", "manifest.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.Limits = tt.limits
			err := p.Preflight()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("preflight: %v", err)
				}
				return
			}
			var le *cloudflare.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("error %v, want a *LimitError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			// No network call happens: the deployer refuses before its first request.
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			if _, err := newDeployer(fake, nil, nil).Apply(context.Background(), p); !errors.As(err, &le) {
				t.Errorf("apply: %v, want the limit error", err)
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("%d requests sent for a tree over the limits", n)
			}
		})
	}
	if l, err := cloudflare.PlanLimits("paid"); err != nil || l.MaxFiles != 100000 {
		t.Errorf("paid limits %+v, %v", l, err)
	}
	if _, err := cloudflare.PlanLimits("pro"); err == nil {
		t.Error("plan pro accepted")
	}
}

func TestEmbeddedWorkerLoads(t *testing.T) {
	w, err := cloudflare.LoadWorker(worker.WorkerFS, worker.WorkerConfig)
	if err != nil {
		t.Fatalf("load the embedded worker: %v", err)
	}
	if w.MainModule != "index.js" || len(w.Script) == 0 || w.Assets.Binding == "" || len(w.RateLimits) == 0 {
		t.Errorf("embedded worker %+v", w)
	}
}

func TestPlanAssets(t *testing.T) {
	dir := baseTree(t)
	m, err := manifest.LoadFull(dir) // every file, the shards' too
	if err != nil {
		t.Fatal(err)
	}
	p := newPlan(t, dir, cloudflare.Options{})
	ignored := 0
	for _, f := range m.Files {
		if notUploaded(f.Path) && f.Path != manifest.HeadersFile {
			ignored++
		}
	}
	if len(p.Assets)+p.Ignored != len(m.Files) || p.Ignored != ignored || !p.IgnoreFile { // minus _headers, plus manifest.json
		t.Errorf("%d assets and %d ignored (file %v) for %d manifest files, want %d ignored", len(p.Assets), p.Ignored, p.IgnoreFile, len(m.Files), ignored)
	}
	for _, a := range p.Assets {
		if !strings.HasPrefix(a.Path, "/") || len(a.Hash) != 32 || notUploaded(a.File) {
			t.Errorf("asset %+v", a)
		}
	}
	var out bytes.Buffer
	p.Write(&out)
	if want := "  ignored    " + humanize.Count(int64(ignored)) + " files, "; !strings.Contains(out.String(), want) {
		t.Errorf("plan output lacks %q:\n%s", want, out.String())
	}
	if a, b := cloudflare.AssetHash(strings.Repeat("ab", 32), "/x.json"), cloudflare.AssetHash(strings.Repeat("ab", 32), "/x.html"); a == b {
		t.Error("the same content under two extensions shares a hash")
	}
}

// BenchmarkApply deploys the one-year tree to the fake: a first deploy (every file) against
// an unchanged re-deploy (nothing to upload).
func BenchmarkApply(b *testing.B) {
	dir := baseTree(b)
	m, err := manifest.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	w, err := cloudflare.LoadWorker(os.DirFS("testdata/worker"), "wrangler.json")
	if err != nil {
		b.Fatal(err)
	}
	limits, _ := cloudflare.PlanLimits("free")
	p, err := cloudflare.NewPlan(dir, m, w, cloudflare.Options{Limits: limits})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			fake := cftest.New(testToken, testAccount)
			if _, err := newDeployer(fake, nil, nil).Apply(context.Background(), p); err != nil {
				b.Fatal(err)
			}
			fake.Close()
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		fake := cftest.New(testToken, testAccount)
		defer fake.Close()
		d := newDeployer(fake, nil, nil)
		if _, err := d.Apply(context.Background(), p); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := d.Apply(context.Background(), p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPlanWithoutIgnoreFile: a tree generated before .assetsignore existed uploads every
// file but wrangler's defaults, and a refusal says to generate it again.
func TestPlanWithoutIgnoreFile(t *testing.T) {
	dir := copyTree(t)
	if err := os.Remove(filepath.Join(dir, manifest.AssetsIgnoreFile)); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.LoadFull(dir) // every file, the shards' too
	if err != nil {
		t.Fatal(err)
	}
	p := newPlan(t, dir, cloudflare.Options{})
	// Every manifest file but _headers and the (listed, absent) .assetsignore, plus manifest.json.
	if p.IgnoreFile || p.Ignored != 1 || len(p.Assets) != len(m.Files)-1 {
		t.Errorf("ignore file %v, %d ignored, %d assets for %d manifest files", p.IgnoreFile, p.Ignored, len(p.Assets), len(m.Files))
	}
	var out bytes.Buffer
	p.Write(&out)
	if !strings.Contains(out.String(), "by wrangler's defaults (the tree has no .assetsignore)") {
		t.Errorf("plan output:\n%s", out.String())
	}
	p.Limits.MaxFiles = 10
	if err := p.Preflight(); err == nil || !strings.Contains(err.Error(), "over the 10 of Workers free per version: generate the tree again with this version") {
		t.Errorf("preflight: %v", err)
	}
}

// TestPlanReadsTheShards: the plan enumerates the files of every shard, each checked against
// the root, uploads none of the shards themselves (.assetsignore), and stops, as a tree that
// differs from its manifest, at a shard whose bytes are not the root's.
func TestPlanReadsTheShards(t *testing.T) {
	dir := copyTree(t)
	m := loadManifest(t, dir)
	if len(m.Shards) == 0 {
		t.Fatal("the test tree has no shards")
	}
	p := newPlan(t, dir, cloudflare.Options{})
	uploaded := map[string]bool{}
	for _, a := range p.Assets {
		uploaded[a.File] = true
		if strings.HasPrefix(a.File, manifest.ShardsDir+"/") {
			t.Errorf("the shard %s is uploaded", a.File)
		}
	}
	for _, r := range m.Edge.Routes {
		for _, y := range m.Years {
			for _, f := range r.PackedFiles(y) {
				if !uploaded[f] {
					t.Errorf("the packed file %s, listed by a shard, is not uploaded", f)
				}
			}
		}
	}
	shard := m.Shards[len(m.Shards)/2]
	path := filepath.Join(dir, filepath.FromSlash(shard.Path))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, bytes.Replace(b, []byte(`"api/public/`), []byte(`"api/public/x`), 1))
	_, err = cloudflare.NewPlan(dir, m, fixtureWorker(t), cloudflare.Options{Limits: freeLimits()})
	var te *cloudflare.TreeError
	if !errors.As(err, &te) || !te.Mismatch || !strings.Contains(err.Error(), shard.Path) {
		t.Errorf("a shard that is not the root's: %v, want a mismatch naming %s", err, shard.Path)
	}
}

// TestAnswerTooLarge checks that an answer of Cloudflare's API that does not end is read no
// further than MaxAnswer, on every kind of call (the SDK's and rawCall's), and retried like
// a broken connection before the deploy fails with nothing live. Before, the SDK read it
// all (13.5 GB of memory, or a crash).
func TestAnswerTooLarge(t *testing.T) {
	tests := []struct {
		name  string
		fault cftest.Fault
	}{
		{"the account's subdomain", cftest.Fault{Method: "GET", PathContains: "/workers/subdomain"}},
		{"the upload session", cftest.Fault{PathContains: "assets-upload-session"}},
		{"a bucket", cftest.Fault{PathContains: "/workers/assets/upload"}},
		{"the script upload", cftest.Fault{Method: "PUT", PathContains: "/workers/scripts/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			tt.fault.Status, tt.fault.Endless, tt.fault.Times = 200, true, 1000
			fake.Inject(tt.fault)
			w := &waits{}
			res, err := newDeployer(fake, &bytes.Buffer{}, w).Apply(t.Context(), newPlan(t, baseTree(t), cloudflare.Options{}))
			var tooLarge *cloudflare.AnswerTooLargeError
			if !errors.As(err, &tooLarge) || !strings.Contains(err.Error(), "giving up after 5 attempts") || !strings.Contains(err.Error(), "longer than 16 MiB") {
				t.Fatalf("error %v, want an *AnswerTooLargeError after 5 attempts", err)
			}
			if len(w.d) < 4 || res != nil && res.VersionID != "" || fake.Script("numerology-api") != nil {
				t.Errorf("%d waits, result %+v; want 4 retries (of each bucket in flight) and nothing live", len(w.d), res)
			}
		})
	}
}

// TestScriptAnswerWithoutVersion checks that a script upload answered 2xx without success
// or without a version fails the deploy instead of printing an empty version as live.
func TestScriptAnswerWithoutVersion(t *testing.T) {
	for _, body := range []string{
		`{"success":false,"errors":[],"messages":[],"result":{"id":"numerology-api","etag":"e1"}}`,
		`{"success":true,"errors":[],"messages":[],"result":null}`,
		`{"success":true,"errors":[],"messages":[],"result":{"id":"numerology-api"}}`,
	} {
		t.Run(body, func(t *testing.T) {
			fake := cftest.New(testToken, testAccount)
			defer fake.Close()
			fake.Inject(cftest.Fault{Method: "PUT", PathContains: "/workers/scripts/", Status: 200, Body: body, Times: 1})
			res, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(t.Context(), newPlan(t, baseTree(t), cloudflare.Options{}))
			if err == nil || !strings.Contains(err.Error(), "whether the new version is live is unknown; run deploy again") {
				t.Fatalf("result %+v, error %v; want the deploy to fail saying so", res, err)
			}
		})
	}
}

// TestRepeatedHashesUploadedOnce checks that a session answer listing a hash many times
// (2,000 times here) sends it once and counts it once. Before, it was uploaded 2,000
// times and the skipped count went negative.
func TestRepeatedHashesUploadedOnce(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	fake.EditBuckets = func(b [][]string) [][]string {
		first := b[0][0]
		repeated := make([]string, 2000)
		for i := range repeated {
			repeated[i] = first
		}
		return append([][]string{repeated[:1000], repeated[1000:]}, b...)
	}
	p := newPlan(t, baseTree(t), cloudflare.Options{})
	var log bytes.Buffer
	res, err := newDeployer(fake, &log, nil).Apply(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	total, byHash := fake.Uploads()
	hashes := distinctHashes(p)
	if total != len(hashes) || res.UploadedFiles != len(hashes) || res.SkippedFiles != len(p.Assets)-len(hashes) || res.SkippedBytes < 0 {
		t.Errorf("the fake got %d parts, uploaded %d, skipped %d files (%d bytes); want %d, %d, %d", total, res.UploadedFiles, res.SkippedFiles, res.SkippedBytes, len(hashes), len(hashes), len(p.Assets)-len(hashes))
	}
	for h, n := range byHash {
		if n != 1 {
			t.Errorf("hash %s uploaded %d times", h, n)
		}
	}
	if !strings.Contains(log.String(), "Cloudflare listed 2,000 hash(es) more than once; each file is sent once") {
		t.Errorf("log:\n%s\nwant the repeated hashes noted", log.String())
	}
	checkLive(t, fake, p)
}
