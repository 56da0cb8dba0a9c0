package cloudflare_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/edge/cloudflare/cftest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/assetsignore"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// clock is a fake clock shared by a deployer and the fake API.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestUploadTokenExpires: the upload session's token lives an hour; a bucket sent later
// is refused (401, 10000), the deploy stops saying so with nothing live, and a re-run
// uploads only the rest.
func TestUploadTokenExpires(t *testing.T) {
	fixedNow(t)
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	c := newClock()
	fake.Now, fake.BucketSize = c.Now, 10
	p := newPlan(t, baseTree(t), cloudflare.Options{})
	d := newDeployer(fake, &bytes.Buffer{}, nil)
	d.Now, d.Concurrency = c.Now, 1
	d.OnProgress = func(pr cloudflare.Progress) {
		if pr.Buckets == 1 {
			c.advance(61 * time.Minute)
		}
	}
	_, err := d.Apply(context.Background(), p)
	var ee *cloudflare.ExpiredError
	if !errors.As(err, &ee) {
		t.Fatalf("apply: %v, want an *ExpiredError", err)
	}
	want := "upload bucket 2 of "
	for _, w := range []string{want, "Cloudflare refused the upload session's token, which is valid for one hour, after 1h1m0s: run deploy again; the files already uploaded are kept"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if fake.Script(p.ScriptName) != nil {
		t.Fatal("a version went live")
	}
	before, _ := fake.Uploads()
	d.OnProgress = nil
	res, err := d.Apply(context.Background(), p)
	if err != nil {
		t.Fatalf("re-run: %v", err)
	}
	if res.UploadedFiles != len(distinctHashes(p))-before || before != 10 {
		t.Errorf("uploaded %d before the expiry and %d on the re-run", before, res.UploadedFiles)
	}
}

// TestCompletionTokenRenewed: a completion token near the end of its hour (a long upload)
// is renewed by opening the session again before the script upload.
func TestCompletionTokenRenewed(t *testing.T) {
	fixedNow(t)
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	c := newClock()
	fake.Now = c.Now
	var log bytes.Buffer
	d := newDeployer(fake, &log, nil)
	d.Now = c.Now
	d.OnProgress = func(pr cloudflare.Progress) {
		if pr.Buckets == pr.TotalBuckets && pr.TotalBuckets > 0 {
			c.advance(55 * time.Minute)
		}
	}
	if _, err := d.Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{})); err != nil {
		t.Fatalf("apply: %v", err)
	}
	if n := len(accountRequests(fake, "assets-upload-session")); n != 2 {
		t.Errorf("%d upload sessions, want the first and its renewal", n)
	}
	if !strings.Contains(log.String(), "the completion token was 55m0s old; renewed") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestFakeRefusesExpiredCompletionToken: the fake refuses a completion token older than an
// hour at the script upload, so a deploy whose clock lags cannot go live with it.
func TestFakeRefusesExpiredCompletionToken(t *testing.T) {
	fixedNow(t)
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	c := newClock()
	fake.Now = c.Now
	d := newDeployer(fake, &bytes.Buffer{}, nil)
	frozen := c.Now()
	d.Now = func() time.Time { return frozen }
	d.OnProgress = func(pr cloudflare.Progress) {
		if pr.Buckets == pr.TotalBuckets && pr.TotalBuckets > 0 {
			c.advance(2 * time.Hour)
		}
	}
	_, err := d.Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{}))
	if err == nil || !strings.Contains(err.Error(), "Expired JWT") {
		t.Fatalf("apply: %v, want the fake's refusal of the expired token", err)
	}
	if fake.Script("fixture-api") != nil {
		t.Error("a version went live")
	}
}

// TestSessionFileCap: an upload session over the account plan's files is refused; with
// --plan paid on an account that is not, the refusal says what to do.
func TestSessionFileCap(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	p := newPlan(t, baseTree(t), cloudflare.Options{})
	p.Limits, _ = cloudflare.PlanLimits("paid")
	p.Assets = nil
	for i := range 20_001 {
		p.Assets = append(p.Assets, cloudflare.Asset{Path: fmt.Sprintf("/f/%d.txt", i), File: fmt.Sprintf("f/%d.txt", i), Size: 1, Hash: fmt.Sprintf("%032x", i)})
	}
	_, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), p)
	var le *cloudflare.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("apply: %v, want a *LimitError", err)
	}
	for _, w := range []string{"Cloudflare refused the upload session of 20,001 files", "more than the 20000 a version of this account's plan holds", "an account on Workers Free holds 20,000 files per version"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if total, _ := fake.Uploads(); total != 0 {
		t.Errorf("%d files uploaded", total)
	}
}

// TestEmptyCompletionToken: a session answer without a token stops the deploy before the
// script upload, which could not attach the assets.
func TestEmptyCompletionToken(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	fake.Inject(cftest.Fault{PathContains: "assets-upload-session", Status: 200, Result: map[string]any{"jwt": "", "buckets": [][]string{}}, Times: 1})
	_, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), newPlan(t, baseTree(t), cloudflare.Options{}))
	if err == nil || !strings.Contains(err.Error(), "Cloudflare answered the upload session without a token") {
		t.Fatalf("apply: %v", err)
	}
	if fake.Script("fixture-api") != nil {
		t.Error("a version went live")
	}
}

// TestFakeRefusesZonesAndRoutes: the fake hides a zone from the token (9109 on the zone,
// 10000 on its routes) and refuses a route outside its zone (10022), as Cloudflare does.
func TestFakeRefusesZonesAndRoutes(t *testing.T) {
	fake := cftest.New(testToken, testAccount)
	defer fake.Close()
	fake.AddZone("zone1", "example.org", false)
	fake.AddZone("zone2", "example.com", true)
	tests := []struct {
		name, method, path string
		body               any
		status, code       int
	}{
		{"a visible zone", "GET", "zones/zone1", nil, 200, 0},
		{"a hidden zone", "GET", "zones/zone2", nil, 403, 9109},
		{"a hidden zone's routes", "GET", "zones/zone2/workers/routes", nil, 403, 10000},
		{"an unknown zone", "GET", "zones/zone3", nil, 404, 7003},
		{"a route outside the zone", "POST", "zones/zone1/workers/routes", map[string]string{"pattern": "api.example.net/*", "script": "x"}, 400, 10022},
		{"a route in the zone", "POST", "zones/zone1/workers/routes", map[string]string{"pattern": "api.example.org/*", "script": "x"}, 200, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if status, code := apiCall(t, fake, tt.method, tt.path, tt.body); status != tt.status || code != tt.code {
				t.Errorf("%s %s: %d with code %d, want %d with %d", tt.method, tt.path, status, code, tt.status, tt.code)
			}
		})
	}
}

// addToTree writes a file into the tree and lists it in the manifest (or updates its entry).
func addToTree(t *testing.T, dir, rel string, content []byte) {
	t.Helper()
	writeFile(t, filepath.Join(dir, filepath.FromSlash(rel)), content)
	m := loadManifest(t, dir)
	m.SetFiles(manifest.File{Path: rel, Size: int64(len(content)), SHA256: testsupport.SHA256Hex(content)})
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, manifest.FileName), b)
}

// TestRedirects: a tree's _redirects goes to Cloudflare as the assets' redirect rules, as
// wrangler sends it, never as a file and never dropped; one the manifest does not list is
// refused before any network call.
func TestRedirects(t *testing.T) {
	const rules = "/old /new 301\n"
	t.Run("listed: sent as rules", func(t *testing.T) {
		dir := copyTree(t)
		addToTree(t, dir, "_redirects", []byte(rules))
		p := newPlan(t, dir, cloudflare.Options{})
		if p.Redirects != rules {
			t.Errorf("plan redirects %q", p.Redirects)
		}
		for _, a := range p.Assets {
			if a.File == "_redirects" {
				t.Error("_redirects is uploaded as a file")
			}
		}
		fake := cftest.New(testToken, testAccount)
		defer fake.Close()
		if _, err := newDeployer(fake, &bytes.Buffer{}, nil).Apply(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		assets, _ := fake.Script(p.ScriptName).Metadata["assets"].(map[string]any)
		cfg, _ := assets["config"].(map[string]any)
		if cfg["_redirects"] != rules {
			t.Errorf("assets.config._redirects = %v, want %q", cfg["_redirects"], rules)
		}
		var out bytes.Buffer
		p.Write(&out)
		if !strings.Contains(out.String(), "_redirects sent as redirect rules, 14 bytes") {
			t.Errorf("plan output:\n%s", out.String())
		}
	})
	t.Run("unlisted: refused", func(t *testing.T) {
		dir := copyTree(t)
		writeFile(t, filepath.Join(dir, "_redirects"), []byte(rules))
		_, err := cloudflare.NewPlan(dir, loadManifest(t, dir), fixtureWorker(t), cloudflare.Options{Limits: freeLimits()})
		var te *cloudflare.TreeError
		if !errors.As(err, &te) || !te.Mismatch || !strings.Contains(err.Error(), "the tree has a _redirects file that its manifest does not list") {
			t.Fatalf("plan: %v, want a mismatch naming _redirects", err)
		}
	})
}

// TestPlanRefusesWhatTheWorkerReads (issue 21, defect 6): an .assetsignore that leaves out
// the month files, edge.json or everything makes a plan that the worker could not serve
// from; it is refused while planning, before any network call, naming the first file the
// worker reads that would be missing and the rule.
func TestPlanRefusesWhatTheWorkerReads(t *testing.T) {
	tests := []struct {
		extra string
		first string
		count int
	}{
		{"/api/public/matrix-months/\n", "api/public/matrix-months/2000/1.jsonl is left out by .assetsignore", 12},
		{"edge.json\n", `api/public/edge.json is left out by .assetsignore`, 1},
		{"*\n", `api/public/edge.json is left out by .assetsignore`, -1}, // -1: every file the worker reads
	}
	for _, tt := range tests {
		t.Run(strings.TrimSpace(tt.extra), func(t *testing.T) {
			dir := copyTree(t)
			b, err := os.ReadFile(filepath.Join(dir, assetsignore.FileName))
			if err != nil {
				t.Fatal(err)
			}
			addToTree(t, dir, assetsignore.FileName, append(b, tt.extra...))
			_, err = cloudflare.NewPlan(dir, loadManifest(t, dir), fixtureWorker(t), cloudflare.Options{Limits: freeLimits()})
			if tt.count < 0 {
				files, _ := loadManifest(t, dir).WorkerFiles()
				tt.count = len(files)
			}
			var we *cloudflare.WorkerFilesError
			if !errors.As(err, &we) || len(we.Missing) != tt.count {
				t.Fatalf("plan: %v, want a *WorkerFilesError of %d files", err, tt.count)
			}
			for _, w := range []string{"the upload would lack what the worker reads: " + tt.first, strings.TrimSpace(tt.extra), "remove that rule from .assetsignore", "(nothing was sent)"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
