package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/edge/cloudflare/cftest"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/assetsignore"
	"github.com/opennumerology/numerology/internal/testsupport"
)

const deployTestToken = "cli-SECRET-token-9876543210"

func TestDeployAgainstFakeAPI(t *testing.T) {
	fake := cftest.New(deployTestToken, "acc1")
	defer fake.Close()
	dir := sharedTree(t)
	t.Setenv(envBaseURL, fake.URL)
	t.Setenv(envAccount, "acc1")

	tests := []struct {
		name       string
		token      string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		{
			name: "bad token", token: "wrong-token-0000", args: []string{"deploy", "--dir", dir},
			wantCode:   exitAuth,
			wantStderr: []string{"numerology: deploy: Cloudflare rejected the API token (HTTP 403: Authentication error): check that CLOUDFLARE_API_TOKEN"},
		},
		{
			name: "missing token", token: "", args: []string{"deploy", "--dir", dir},
			wantCode:   exitAuth,
			wantStderr: []string{"CLOUDFLARE_API_TOKEN is not set"},
		},
		{
			name: "first deploy", token: deployTestToken, args: []string{"deploy", "--dir", dir},
			wantStdout: []string{"deployed numerology-api: version fake-version-", "uploaded ",
				"  live at https://numerology-api.fake-account.workers.dev (try https://numerology-api.fake-account.workers.dev/api/public/matrix/15/5/1990)"},
			wantStderr: []string{"deploy: ", "files left out by .assetsignore", "upload: 0/", "buckets"},
		},
		{
			name: "--purge is accepted and does nothing", token: deployTestToken, args: []string{"deploy", "--dir", dir, "--purge"},
			wantStdout: []string{"deployed numerology-api", "uploaded 0 files", "Flag --purge has been deprecated, it does nothing"},
		},
		{
			name: "unchanged redeploy uploads nothing", token: deployTestToken, args: []string{"deploy", "--dir", dir, "--concurrency", "1"},
			wantStdout: []string{"deployed numerology-api", "uploaded 0 files, 0 B in 0 bucket(s); skipped "},
		},
		{
			name: "unknown plan", token: deployTestToken, args: []string{"deploy", "--dir", dir, "--plan", "pro"},
			wantCode:   exitUsage,
			wantStderr: []string{`--plan: unknown plan "pro"`},
		},
		{
			name: "route without zone", token: deployTestToken, args: []string{"deploy", "--dir", dir, "--route", "x.example.org/*"},
			wantCode:   exitUsage,
			wantStderr: []string{"--route needs --zone-id"},
		},
		{
			name: "no tree", token: deployTestToken, args: []string{"deploy", "--dir", dir + "-missing"},
			wantCode:   exitIO,
			wantStderr: []string{"run numerology generate first"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envToken, tt.token)
			code, stdout, stderr := run(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
			for _, w := range tt.wantStdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, secret := range []string{deployTestToken, "wrong-token-0000"} {
				if strings.Contains(stdout+stderr, secret) {
					t.Errorf("a token appears in the output:\n%s\n%s", stdout, stderr)
				}
			}
		})
	}
}

// TestDeployDryRunFullTreeFitsFree: the full default tree (1900–2100) plans within Workers
// Free, the per-date files left out by the tree's .assetsignore.
func TestDeployDryRunFullTreeFitsFree(t *testing.T) {
	dir := generatortest.FullTree(t)
	t.Setenv(envToken, "")
	code, stdout, stderr := run(t, "deploy", "--dry-run", "--plan", "free", "--dir", dir)
	if code != 0 {
		t.Fatalf("deploy --dry-run --plan free: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("plan of the full tree:\n%s", stdout)
	var upload, ignored int
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 2 && f[0] == "assets":
			upload = atoiCommas(t, f[1])
		case len(f) > 2 && f[0] == "ignored":
			ignored = atoiCommas(t, f[1])
		}
	}
	if upload == 0 || upload > 20_000 {
		t.Errorf("%d files to upload, want 1–20,000", upload)
	}
	if ignored < 73_414 {
		t.Errorf("%d files ignored, want at least the 73,414 per-date records", ignored)
	}
	if !strings.Contains(stdout, "dry run: within the limits; nothing was sent") {
		t.Errorf("stdout lacks the verdict:\n%s", stdout)
	}
}

func atoiCommas(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatalf("count %q: %v", s, err)
	}
	return n
}

// TestDeployNewAccount runs deploy against the fake as an account that never registered a
// workers.dev subdomain: exit 8 before any upload with the onboarding link; with
// --workers-subdomain it registers one and prints the URL; a taken name is exit 8 too.
func TestDeployNewAccount(t *testing.T) {
	dir := sharedTree(t)
	t.Setenv(envToken, deployTestToken)
	t.Setenv(envAccount, "acc1")
	tests := []struct {
		name       string
		taken      string
		args       []string
		wantCode   int
		wantStdout []string
		wantStderr []string
	}{
		{name: "no subdomain", args: []string{"deploy", "--dir", dir}, wantCode: exitSubdomain,
			wantStderr: []string{"numerology: deploy: the account has no workers.dev subdomain yet", "https://dash.cloudflare.com/acc1/workers/onboarding", "(nothing was uploaded)"}},
		{name: "--workers-subdomain", args: []string{"deploy", "--dir", dir, "--workers-subdomain", "open-numerology"},
			wantStdout: []string{"registered the account's workers.dev subdomain open-numerology.workers.dev",
				"live at https://numerology-api.open-numerology.workers.dev (try https://numerology-api.open-numerology.workers.dev/api/public/matrix/15/5/1990)"}},
		{name: "a taken name", taken: "numerology", args: []string{"deploy", "--dir", dir, "--workers-subdomain", "numerology"}, wantCode: exitSubdomain,
			wantStderr: []string{"--workers-subdomain numerology: the workers.dev subdomain numerology is taken: choose another name"}},
		{name: "a name that is none", args: []string{"deploy", "--dir", dir, "--workers-subdomain", "-x-"}, wantCode: exitUsage,
			wantStderr: []string{`--workers-subdomain "-x-": a workers.dev subdomain is 1 to 63 lowercase letters`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(deployTestToken, "acc1")
			defer fake.Close()
			fake.Subdomain = ""
			if tt.taken != "" {
				fake.TakeSubdomain(tt.taken)
			}
			t.Setenv(envBaseURL, fake.URL)
			code, stdout, stderr := run(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, stdout, stderr)
			}
			for _, w := range tt.wantStdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if total, _ := fake.Uploads(); tt.wantCode != 0 && total != 0 {
				t.Errorf("%d files uploaded", total)
			}
		})
	}
}

// TestDeployRefusesAnAssetsIgnoreThatHidesTheWorkersFiles (issue 21, defect 6): appending a
// rule that leaves out the month files (and updating the manifest's hash of .assetsignore)
// makes deploy --dry-run and deploy exit 4 before any network call, naming the first file.
// A file of 2,000 "**" rules is answered at once (they are one rule, which leaves out
// edge.json); one of 2,000 distinct rules is refused.
func TestDeployRefusesAnAssetsIgnoreThatHidesTheWorkersFiles(t *testing.T) {
	var distinct strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&distinct, "**/x%d/**\n", i)
	}
	rules := 2000 + len(assetsignore.Defaults) // and those of the generated file
	for _, line := range strings.Split(string(generator.AssetsIgnore(generator.Routes())), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			rules++
		}
	}
	tests := []struct {
		name     string
		extra    string
		wantCode int
		want     string
	}{
		{"the month files", "/api/public/matrix-months/\n", exitVerify,
			"the upload would lack what the worker reads: api/public/matrix-months/2000/1.jsonl is left out by .assetsignore:"},
		{"2,000 copies of **", strings.Repeat("**\n", 2000), exitVerify,
			"the upload would lack what the worker reads: api/public/edge.json is left out by .assetsignore:"},
		{"2,000 distinct ** rules", distinct.String(), exitIO, fmt.Sprintf(".assetsignore has %d distinct rules, more than the 500 deploy applies",
			// 2,000 + the generated rules + the three wrangler always adds
			2000+strings.Count("\n"+string(generator.AssetsIgnore(generator.Routes())), "\n/")+3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := treeCopy(t)
			appendToListed(t, dir, manifest.AssetsIgnoreFile, tt.extra)
			fake := cftest.New(deployTestToken, "acc1")
			defer fake.Close()
			t.Setenv(envBaseURL, fake.URL)
			t.Setenv(envAccount, "acc1")
			t.Setenv(envToken, deployTestToken)
			for _, args := range [][]string{{"deploy", "--dry-run", "--dir", dir}, {"deploy", "--dir", dir}} {
				code, stdout, stderr := run(t, args...)
				if code != tt.wantCode || !strings.Contains(stderr, tt.want) {
					t.Errorf("%v: exit %d, want %d with %q\nstdout: %s\nstderr: %s", args, code, tt.wantCode, tt.want, stdout, stderr)
				}
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}

// appendToListed appends text to a file of the tree and updates its manifest entry.
func appendToListed(t *testing.T, dir, rel, text string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, text...)
	writeFile(t, path, b)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Files {
		if m.Files[i].Path == rel {
			m.Files[i].Size, m.Files[i].SHA256 = int64(len(b)), testsupport.SHA256Hex(b)
		}
	}
	mb, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, manifest.FileName), mb)
}
