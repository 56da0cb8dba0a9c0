package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/edge/cloudflare/cftest"
)

const deployTestToken = "cli-SECRET-token-9876543210"

// smallTree generates the year 2000 for a deploy test.
func smallTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir() + "/out"
	if code, _, stderr := run(t, "generate", "--years", "2000", "--out", dir); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	return dir
}

func TestDeployAgainstFakeAPI(t *testing.T) {
	fake := cftest.New(deployTestToken, "acc1")
	defer fake.Close()
	dir := smallTree(t)
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
	dir := t.TempDir() + "/out"
	if code, _, stderr := run(t, "generate", "--out", dir); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
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
