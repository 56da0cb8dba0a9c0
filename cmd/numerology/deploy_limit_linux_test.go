package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/cloudflare/cftest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestDeployEndlessAnswerUnderMemoryLimit runs deploy against the fake Cloudflare API under
// a 2 GB address-space limit, with one of the calls answered by a body that never ends: the
// deploy must read no more than 16 MiB of it, retry, then end with exit 1 saying so, with
// nothing live. Before, cloudflare-go read the whole answer and the run died with "fatal
// error: out of memory".
func TestDeployEndlessAnswerUnderMemoryLimit(t *testing.T) {
	t.Parallel()
	testsupport.SkipShort(t, "deploys four times under a memory limit, each waiting out the retries")
	dir := sharedTree(t)
	for _, tt := range []struct {
		name  string
		fault cftest.Fault
	}{
		{"the upload session", cftest.Fault{PathContains: "assets-upload-session"}},
		{"a bucket", cftest.Fault{PathContains: "/workers/assets/upload"}},
		{"the script upload", cftest.Fault{Method: "PUT", PathContains: "/workers/scripts/"}},
		{"the workers.dev address", cftest.Fault{Method: "POST", PathContains: "/subdomain"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := cftest.New(deployTestToken, "acc1")
			defer fake.Close()
			tt.fault.Status, tt.fault.Endless, tt.fault.Times = 200, true, 1000
			fake.Inject(tt.fault)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			env := []string{envBaseURL + "=" + fake.URL, envAccount + "=acc1", envToken + "=" + deployTestToken}
			code, out := runLimitedEnv(ctx, t, addressSpaceLimit, env, "deploy", "--dir", dir, "--concurrency", "1")
			if code != exitError || !strings.Contains(out, "giving up after 5 attempts") || !strings.Contains(out, "longer than 16 MiB") {
				t.Fatalf("exit %d, want %d after 5 attempts at an answer over 16 MiB; output:\n%.3000s", code, exitError, out)
			}
			if tt.name != "the workers.dev address" && fake.Script("numerology-api") != nil {
				t.Error("a version went live")
			}
		})
	}
}
