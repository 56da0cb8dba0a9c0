package mcptest_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/worker/workertest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// workerDir is the worker's folder (package.json, wrangler.json, src/).
const workerDir = "../worker"

// startWrangler starts the worker in `wrangler dev` (workerd, through npm run dev in
// edge/worker/) serving tree on a free loopback port, waits until it answers and returns
// its base URL; the whole process group is killed when the test ends.
func startWrangler(t *testing.T, tree string) string {
	t.Helper()
	workertest.RequireTools(t, workerDir)
	port, inspector := testsupport.FreePort(t), testsupport.FreePort(t)
	cmd := exec.Command("npm", "run", "--silent", "dev", "--",
		"--ip", "127.0.0.1", "--port", strconv.Itoa(port), "--inspector-port", strconv.Itoa(inspector),
		"--assets", tree, "--persist-to", filepath.Join(t.TempDir(), "state"),
		"--show-interactive-dev-session=false", "--log-level", "warn")
	cmd.Dir = workerDir
	// No telemetry, no fetch of the request.cf object from the network.
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "CLOUDFLARE_CF_FETCH_ENABLED=false", "NO_COLOR=1", "CI=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log := &testsupport.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start wrangler dev (npm run dev in edge/worker/): %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // workerd may outlive npm
	})
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	client := &http.Client{Timeout: 2 * time.Second}
	// Four minutes: at load 25 on 2 cores (make test beside another suite) wrangler dev
	// printed nothing in 90 s; it answers in seconds on a quiet machine.
	for deadline := time.Now().Add(4 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("wrangler dev exited: %v\n%s", err, log.String())
		default:
		}
		if resp, err := client.Get(base + "/api/public/life-path"); err == nil {
			resp.Body.Close()
			return base
		}
	}
	t.Fatalf("wrangler dev did not answer within 4 minutes:\n%s", log.String())
	return ""
}
