package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/internal/testsupport"
)

func TestServeErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tree := sharedTree(t)
	badManifest := filepath.Join(dir, "bad")
	os.MkdirAll(badManifest, 0o755)
	os.WriteFile(filepath.Join(badManifest, "manifest.json"), []byte("{"), 0o644)
	changed := treeCopy(t)
	writeFile(t, filepath.Join(changed, "api", "public", "life-path.json"), []byte("[]\n"))

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"no tree", []string{"serve", "--dir", filepath.Join(dir, "none")}, exitIO, "manifest.json: no manifest (run numerology generate first)"},
		{"unreadable manifest", []string{"serve", "--dir", badManifest}, exitVerify, "parse manifest"},
		{"tree does not match", []string{"serve", "--dir", changed}, exitVerify, "tree does not match its manifest"},
		{"negative limit", []string{"serve", "--dir", tree, "--rate-limit", "-1"}, exitUsage, "--rate-limit -1"},
		{"zero window", []string{"serve", "--dir", tree, "--rate-window", "0s"}, exitUsage, "--rate-window 0s"},
		{"negative connection limit", []string{"serve", "--dir", tree, "--max-conns", "-1"}, exitUsage, "--max-conns -1"},
		{"bad address", []string{"serve", "--dir", tree, "--addr", "127.0.0.1:99999"}, exitIO, "listen 127.0.0.1:99999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.wantCode, tt.wantStderr)
			}
		})
	}
}

// TestServeGracefulShutdown starts numerology serve, holds a request in its handler, cancels
// (as SIGINT does) and checks that the request still gets its answer, that serve waits for
// it and then exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	t.Parallel()
	tree := sharedTree(t)
	entered, release := make(chan struct{}), make(chan struct{})
	wrapServeHandler = func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Hold") != "" {
				close(entered)
				<-release
			}
			h.ServeHTTP(w, r)
		})
	}
	defer func() { wrapServeHandler = func(h http.Handler) http.Handler { return h } }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testsupport.SyncBuffer
	done := make(chan int, 1)
	go func() { done <- Main(ctx, []string{"serve", "--dir", tree, "--addr", "127.0.0.1:0"}, &stdout, &stderr) }()
	addrRE := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)
	var addr string
	for i := 0; i < 200 && addr == ""; i++ {
		if m := addrRE.FindStringSubmatch(stdout.String()); m != nil {
			addr = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	if addr == "" {
		t.Fatalf("serve did not report its address; stdout %q stderr %q", stdout.String(), stderr.String())
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /api/public/life-path/7 HTTP/1.1\r\nHost: x\r\nX-Hold: 1\r\n\r\n")
	<-entered
	cancel() // as SIGINT does, while the request is in the handler
	time.Sleep(200 * time.Millisecond)
	select {
	case code := <-done:
		t.Fatalf("serve exited %d with a request in flight", code)
	default:
	}
	close(release)
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
		t.Fatalf("in-flight request: %q, %v; stderr %q", status, err, stderr.String())
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d after shutdown; stderr %q", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("still accepting connections after shutdown")
	}
}
