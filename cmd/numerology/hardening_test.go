package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestGenerateRefusesForeignTree runs the case: a browser extension folder with
// its own manifest.json must not be replaced (exit 5, the reason on stderr, the files
// kept). Before, it was deleted with exit 0.
func TestGenerateRefusesForeignTree(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "webext")
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"manifest_version":3}`), 0o644)
	os.WriteFile(filepath.Join(dir, "src", "app.js"), []byte("code\n"), 0o644)
	code, _, stderr := run(t, "generate", "--out", dir, "--years", "2000")
	if code != exitIO || !strings.Contains(stderr, "refusing to replace") || !strings.Contains(stderr, "not a numerology manifest") {
		t.Fatalf("exit %d, stderr %q; want %d and a refusal saying why", code, stderr, exitIO)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "src", "app.js")); err != nil || string(b) != "code\n" {
		t.Fatalf("src/app.js: %q, %v", b, err)
	}
}

// TestSiteURLUsage checks that a bad --site-url is a usage error (exit 2) naming the
// problem, and an IDN host is written in ASCII form. Before, "?", "#", spaces and port
// 99999 were accepted and '"' and '<' gave exit 1.
func TestSiteURLUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, url, want string
	}{
		{"query", "https://a.example?x=1", "must have no query"},
		{"fragment", "https://a.example#x", "must have no fragment"},
		{"space", "https://a.example/a b", `contains " "`},
		{"port", "https://a.example:99999", "must be a number 1–65535"},
		{"quote", `https://a.example/"`, `contains "\""`},
		{"angle bracket", "https://a.example/<", `contains "<"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, "generate", "--years", "2000", "--site-url", tt.url, "--out", filepath.Join(dir, "out"))
			if code != exitUsage || !strings.Contains(stderr, "--site-url") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
	out := filepath.Join(dir, "idn")
	if code, _, stderr := run(t, "generate", "--years", "2000", "--site-url", "https://пример.испытание", "--out", out); code != 0 {
		t.Fatalf("IDN host: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "api", "public", "life-path", "7.json"))
	if err != nil || !strings.Contains(string(b), "https://xn--e1afmkfd.xn--80akhbyknj4f/life-path/7") {
		t.Errorf("record does not use the ASCII host: %v\n%s", err, b)
	}
}

func TestMaxConnsFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		flag, files, want int
	}{
		{"flag wins", 100, 1024, 100},
		{"default under a high limit", 0, 1 << 20, defaultMaxConns},
		{"default below a low limit", 0, 1024, 1024 - reservedFiles},
		{"unknown limit", 0, 0, defaultMaxConns},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maxConnsFor(tt.flag, tt.files); got != tt.want {
				t.Errorf("maxConnsFor(%d, %d) = %d, want %d", tt.flag, tt.files, got, tt.want)
			}
		})
	}
}

// TestServeFollowsGenerate runs serve and then generate into the served directory with
// another site URL, as an operator would: serve must answer the new tree's records without
// a restart, with the ETag of each body, and log the reload. Before, it kept answering the
// old manifest's ETags (and sizes) until restarted.
func TestServeFollowsGenerate(t *testing.T) {
	t.Parallel()
	tree := treeCopy(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testsupport.SyncBuffer
	done := make(chan int, 1)
	go func() { done <- Main(ctx, []string{"serve", "--dir", tree, "--addr", "127.0.0.1:0"}, &stdout, &stderr) }()
	defer func() { cancel(); <-done }()
	addrRE := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)
	var addr string
	for i := 0; i < 200 && addr == ""; i++ {
		if m := addrRE.FindStringSubmatch(stdout.String()); m != nil {
			addr = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	if addr == "" {
		t.Fatalf("serve did not report its address; stderr %q", stderr.String())
	}
	url := "http://" + addr + "/api/public/life-path/7"
	if code, _, errOut := run(t, "generate", "--years", "2000", "--site-url", "https://elsewhere.example/data", "--out", tree); code != 0 {
		t.Fatalf("regenerate: exit %d: %s", code, errOut)
	}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if etag := `"` + testsupport.SHA256Hex(body) + `"`; resp.StatusCode != 200 || resp.Header.Get("ETag") != etag {
			t.Fatalf("status %d, ETag %s, body's sha256 %s", resp.StatusCode, resp.Header.Get("ETag"), etag)
		}
		if strings.Contains(string(body), "https://elsewhere.example/data/life-path/7") {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("after 10 s serve still answers the old tree: %.200s", body)
		}
	}
	// The reload is logged just after the new tree is swapped in: give the line a moment.
	for start := time.Now(); !strings.Contains(stderr.String(), "tree reloaded"); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("stderr does not log the reload: %q", stderr.String())
		}
	}
}
