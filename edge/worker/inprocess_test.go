package worker_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/conformance"
	"github.com/opennumerology/numerology/edge/worker/workertest"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// inProcessWindow is the rate limit's window of the in-process runs: the conformance suite
// waits one Retry-After, so a short window keeps the run to seconds. The wrangler dev test
// (edge/worker/wranglerdev) is the worker's one run that proves edge.json's own 60 s.
const inProcessWindow = conformance.ShortWindow

// workerNode returns the worker's own Node (edge/worker/node_modules/.bin/node, the
// devDependency pinned in package.json). It skips under -short; otherwise a missing Node
// fails the test.
func workerNode(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join(edgeDir, "node_modules", ".bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	testsupport.SkipShort(t, "runs the worker's Node")
	if _, err := os.Stat(bin); err != nil {
		t.Fatal("edge/worker/node_modules/.bin/node missing: run make test-tools (npm ci in edge/worker/)")
	}
	return bin
}

// TestWorkerInProcess runs the shared conformance suite against src/index.js in Node,
// served over HTTP by test/serve.mjs with the fake ASSETS (the tree's assets, .assetsignore
// honoured) and RATE_LIMITER of test/harness.mjs, with a short rate window: over the tree
// the wrangler dev test serves (edge/worker/wranglerdev: no per-date files, the record of
// workertest.MissingDate blanked), and over a tree with extra routes of every parameter
// type and a new error key that no code of the worker knows (generatortest.AddExtraRoutes),
// whose table cases the worker must serve from edge.json alone. The worker's answer to a
// tree without edge.json is checked by the node --test suite (test/worker.test.mjs, "edge
// config"), which TestNodeSuite runs.
func TestWorkerInProcess(t *testing.T) {
	t.Parallel()
	node := workerNode(t)
	t.Run("tree", func(t *testing.T) {
		t.Parallel()
		tree := sharedTree(t)
		tg := inProcessTarget(t, node, tree, workertest.WithoutPerDateFiles(t, tree, true))
		d := workertest.MissingDate
		tg.MissingMatrixFile = fmt.Sprintf("%d/%d/%d", d[0], d[1], d[2])
		conformance.Run(t, tg)
	})
	t.Run("extra routes", func(t *testing.T) {
		t.Parallel()
		tree := copyTree(t)
		generatortest.AddExtraRoutes(t, tree)
		conformance.Run(t, inProcessTarget(t, node, tree, workertest.WithoutPerDateFiles(t, tree, false)))
	})
}

// inProcessTarget starts test/serve.mjs on served and returns the suite's target of it; tree
// is the whole tree served was made from (the suite's expected bodies).
func inProcessTarget(t *testing.T, node, tree, served string) conformance.Target {
	t.Helper()
	m, err := manifest.Load(tree)
	if err != nil {
		t.Fatal(err)
	}
	return conformance.Target{
		BaseURL:      startShim(t, node, served, inProcessWindow),
		TreeDir:      tree,
		RateLimit:    m.Edge.RateLimit.Requests,
		RateWindow:   inProcessWindow,
		ClientHeader: "CF-Connecting-IP",
		// The fake binding's window starts at a client's first request, so a refused client
		// is admitted again within one window: an upper bound, as on Cloudflare.
		ExactRetryAfter: false,
		// Node's HTTP parser, like workerd's (501), refuses a method it does not know before
		// any code runs; the worker's own 405 for one is checked in test/worker.test.mjs.
		UnregisteredMethodStatus: 400,
		// Node's HTTP parser refuses a target with raw UTF-8 (workerd percent-encodes it).
		RawNonASCIIStatus: 400,
	}
}

// startShim starts test/serve.mjs on a free loopback port and returns its base URL; the
// process is killed when the test ends, and its output is logged if the test failed.
func startShim(t *testing.T, node, tree string, window time.Duration) string {
	t.Helper()
	cmd := exec.Command(node, "test/serve.mjs", tree, fmt.Sprint(int(window.Seconds())))
	cmd.Dir = edgeDir
	stderr := &testsupport.SyncBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s test/serve.mjs: %v", node, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("test/serve.mjs output:\n%s", stderr.String())
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case line, ok := <-lines:
		if base, found := strings.CutPrefix(line, "listening on "); ok && found {
			return base
		}
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("test/serve.mjs did not start (first line %q):\n%s", line, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("test/serve.mjs did not start within 30 s:\n%s", stderr.String())
	}
	return ""
}

// TestNodeSuite runs the worker's node --test suite (npm test in edge/worker/: the fakes of
// the bindings, the worker's own duties, the shared vectors of edge/testdata) on a
// generated tree, and fails with its report when any of it fails.
func TestNodeSuite(t *testing.T) {
	t.Parallel()
	workerNode(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm not found on PATH: the worker tests need Node.js and npm (install Node, then run make test-tools)")
	}
	tree := sharedTree(t)
	cmd := exec.Command("npm", "test", "--silent")
	cmd.Dir = edgeDir
	cmd.Env = append(os.Environ(), "NUMEROLOGY_TEST_TREE="+tree, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm test in edge/worker/: %v\n%s", err, out)
	}
	summary := out
	if i := strings.LastIndex(string(out), "\n# tests "); i >= 0 {
		summary = out[i+1:]
	}
	t.Logf("npm test:\n%s", summary)
}
