package wranglerdev_test

import (
	"fmt"
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

// startTimeout bounds wrangler dev's start, asset upload included.
const startTimeout = 90 * time.Second

// edgeDir is the worker's folder (package.json, wrangler.json, src/), relative to this
// package's folder, where go test runs.
const edgeDir = ".."

// wrangler is a running `wrangler dev`.
type wrangler struct {
	BaseURL string
	cmd     *exec.Cmd
	log     *testsupport.SyncBuffer
	done    chan struct{}
	waitErr error
}

// startWrangler starts `npm run dev` in edge/worker/ serving tree on a free loopback port,
// and waits until it answers. The whole process group is killed when the test ends.
func startWrangler(t *testing.T, tree string) *wrangler {
	t.Helper()
	workertest.RequireTools(t, edgeDir)
	port, inspector := testsupport.FreePort(t), testsupport.FreePort(t)
	args := []string{"run", "--silent", "dev", "--",
		"--ip", "127.0.0.1", "--port", strconv.Itoa(port), "--inspector-port", strconv.Itoa(inspector),
		"--assets", tree, "--persist-to", filepath.Join(t.TempDir(), "state"),
		"--show-interactive-dev-session=false", "--log-level", "warn",
	}
	cmd := exec.Command("npm", args...)
	cmd.Dir = edgeDir
	// No telemetry, no fetch of the request.cf object from the network.
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "CLOUDFLARE_CF_FETCH_ENABLED=false", "NO_COLOR=1", "CI=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w := &wrangler{BaseURL: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd, log: &testsupport.SyncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = w.log, w.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start wrangler dev (npm run dev in edge/worker/): %v", err)
	}
	go func() { w.waitErr = cmd.Wait(); close(w.done) }()
	t.Cleanup(w.stop)
	if err := w.waitReady(); err != nil {
		t.Fatalf("wrangler dev did not start: %v\n--- wrangler output ---\n%s", err, w.log.String())
	}
	return w
}

// waitReady polls until the worker answers (wrangler listens once the assets are loaded).
func (w *wrangler) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-w.done:
			return fmt.Errorf("exited: %v", w.waitErr)
		default:
		}
		resp, err := client.Get(w.BaseURL + "/api/public/life-path")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("no answer on %s within %v", w.BaseURL, startTimeout)
}

// stop ends wrangler, workerd and npm: the whole process group.
func (w *wrangler) stop() {
	pgid := w.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-w.done:
	case <-time.After(5 * time.Second):
	}
	// workerd may outlive its parent: make sure nothing of the group is left.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-w.done
}
