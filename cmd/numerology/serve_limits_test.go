//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// limitedServe is `numerology serve` running as a child process under shell limits.
type limitedServe struct {
	base   string
	stderr *testsupport.SyncBuffer
	exited chan struct{}
}

// startLimitedServe runs `numerology serve --dir tree --addr 127.0.0.1:0` in a child
// process after the shell's `ulimit` arguments (for example "-n 1024"), and waits until it
// listens. The child is stopped when the test ends.
func startLimitedServe(t *testing.T, ulimit, tree string) *limitedServe {
	t.Helper()
	exe, err := exec.LookPath("numerology") // the test binary as the command (TestMain)
	if err != nil {
		t.Fatalf("numerology is not on PATH: %v", err)
	}
	cmd := exec.Command("/bin/sh", "-c", `ulimit `+ulimit+` && exec "$0" "$@"`,
		exe, "serve", "--dir", tree, "--addr", "127.0.0.1:0")
	var stdout testsupport.SyncBuffer
	s := &limitedServe{stderr: &testsupport.SyncBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &stdout, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-s.exited
		}
	})
	addrRE := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := addrRE.FindStringSubmatch(stdout.String()); m != nil {
			s.base = "http://" + m[1]
			return s
		}
		select {
		case <-s.exited:
			t.Fatalf("serve exited at start: %s", s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not report its address; stderr %q", s.stderr.String())
	return nil
}

// get sends one GET on a new connection with a deadline.
func (s *limitedServe) get(path string, timeout time.Duration) (int, []byte, error) {
	c := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(s.base + path)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// TestServeDescriptorBudget is the case: under a limit of 1024 descriptors (so at
// most 768 connections), 800 clients, each from an address of its own, ask for
// /manifest.json (8 MB, as the full tree's) and never read the answer. A new client must
// still be answered, and serve must never run out of descriptors. Before, every stalled
// answer held its file open: 760 connections and 760 files exhausted the limit, accept4
// failed with "too many open files" and new clients timed out; and then, with 800 such
// clients, the stalled answers filled the connection limit, which never closed one, and a
// new client waited for WriteTimeout (30 s).
func TestServeDescriptorBudget(t *testing.T) {
	t.Parallel()
	testsupport.SkipShort(t, "holds 760 connections to a serve under a descriptor limit")
	tree := treeCopy(t)
	// Trailing whitespace (which JSON ignores) brings the manifest to the full tree's size,
	// far more than the socket buffers of a client that does not read can take.
	mpath := filepath.Join(tree, manifest.FileName)
	b, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, bytes.Repeat([]byte("\n"), 8<<20-len(b))...)
	writeFile(t, mpath, b)
	s := startLimitedServe(t, "-n 1024", tree)

	dialer := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		// A small receive buffer: the server's writes stall after a few KB.
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	const stalled = 800
	for i := range stalled {
		// Each from a loopback address of its own (Linux answers on all of 127.0.0.0/8), as
		// over a network: serve bounds the connections of one address on its own.
		dialer.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 1, byte(i/250), byte(i%250+1))}
		c, err := dialer.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
		if err != nil {
			t.Fatalf("connection %d: %v; serve's log: %s", i, err, s.stderr.String())
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET /manifest.json HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
	}
	time.Sleep(time.Second) // every answer has started and stalled
	// Answered before WriteTimeout (30 s) frees a connection: 25 s, since on a machine
	// with several test suites at once (load 30 on 2 cores) 10 s was once not enough.
	for _, p := range []string{"/api/public/life-path/7", "/", "/manifest.json"} {
		code, body, err := s.get(p, 25*time.Second)
		if err != nil || code != 200 {
			t.Errorf("a new client, GET %s: status %d, %v", p, code, err)
		}
		if p == "/manifest.json" && len(body) != len(b) {
			t.Errorf("GET /manifest.json: %d bytes, want %d", len(body), len(b))
		}
	}
	if log := s.stderr.String(); strings.Contains(log, "too many open files") {
		lines := strings.SplitAfter(log, "\n")
		t.Errorf("serve ran out of descriptors (%d log lines, the first):\n%s", len(lines), strings.Join(lines[:min(len(lines), 5)], ""))
	}
}

// TestServeHugeManifestSize gives a record that the start-up check does not sample a
// manifest size of 10^12 bytes and runs serve under a 2 GB address-space limit: the
// record answers 500 and serve keeps answering. Before, the first request for it tried
// to allocate 10^12 bytes and killed serve ("fatal error: out of memory").
func TestServeHugeManifestSize(t *testing.T) {
	t.Parallel()
	tree := treeCopy(t)
	m, err := manifest.Load(tree)
	if err != nil {
		t.Fatal(err)
	}
	// A matrix record of the first year's shard, which CheckTree reads: it stats every
	// (n/8)th file of it, so pick a record between two of those.
	entry, ok := m.Shard(manifest.ShardPath(generator.RouteMatrix, m.Years[0]))
	if !ok {
		t.Fatal("no matrix shard in the tree")
	}
	shard, err := manifest.ReadShard(tree, entry)
	if err != nil {
		t.Fatal(err)
	}
	step := max(len(shard.Files)/8, 1)
	var target string
	var file manifest.File
	for i, f := range shard.Files {
		var d, mo, y int
		if i%step != 0 && strings.HasPrefix(f.Path, "api/public/matrix/") {
			if _, err := fmt.Sscanf(f.Path, "api/public/matrix/%d/%d/%d.json", &d, &mo, &y); err == nil {
				target, file = fmt.Sprintf("/api/public/matrix/%d/%d/%d", d, mo, y), f
				break
			}
		}
	}
	if target == "" {
		t.Fatal("no unsampled matrix record in the tree")
	}
	// The shard lists the size, and the root the shard's new sha256: both as generate would.
	file.Size = 1e12
	if err := m.Update(tree, file); err != nil {
		t.Fatal(err)
	}
	s := startLimitedServe(t, "-v 2097152", tree) // 2 GiB, in KiB
	code, _, err := s.get(target, 10*time.Second)
	if err != nil || code != 500 {
		t.Fatalf("GET %s: status %d, %v; serve's log:\n%s", target, code, err, s.stderr.String())
	}
	if code, _, err := s.get("/api/public/life-path/7", 10*time.Second); err != nil || code != 200 {
		t.Errorf("after it, GET /api/public/life-path/7: status %d, %v", code, err)
	}
	select {
	case <-s.exited:
		t.Errorf("serve exited:\n%s", s.stderr.String())
	default:
	}
}
