package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestTrustHeaderLastLine sends the trusted header as two lines, the first chosen by the
// client and the second appended by the proxy: the limit must key on the proxy's line
// (and its last element), so a client rotating its own line is still limited. Before,
// the first line was used and every request got a fresh bucket.
func TestTrustHeaderLastLine(t *testing.T) {
	dir := sharedTree(t)
	h, err := New(Options{Dir: dir, RateLimit: 3, RateWindow: time.Minute, TrustHeader: "X-Forwarded-For", NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int]int{}
	for i := range 10 {
		req := httptest.NewRequest("GET", "/api/public/matrix/1/1/2000", nil)
		req.Header.Add("X-Forwarded-For", fmt.Sprintf("203.0.113.%d, 198.51.100.%d", i, i))
		req.Header.Add("X-Forwarded-For", fmt.Sprintf("198.51.100.%d, 192.0.2.1", i))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		codes[w.Code]++
	}
	if codes[200] != 3 || codes[429] != 7 {
		t.Errorf("answers %v, want 3×200 and 7×429 (one client: the last line's last element)", codes)
	}
}

// TestRangeIgnored checks that a static file answers any Range with the whole file, as
// Cloudflare's asset worker does (no 206, no Accept-Ranges, and no Cache-Control for a
// request with a Range), so that many ranges cannot make a multipart answer many times the
// file's size either. Before, serve answered 206 where the worker answered 200.
func TestRangeIgnored(t *testing.T) {
	h := newTestHandler(t, sharedTree(t), nil)
	page := get(t, h, "GET", "/", nil)
	if page.Code != 200 {
		t.Fatalf("/: status %d", page.Code)
	}
	many := make([]string, 500)
	for i := range many {
		many[i] = fmt.Sprintf("%d-%d", i, i)
	}
	for _, rng := range []string{"bytes=0-9", "bytes=0-0,5-5", "bytes=" + strings.Join(many, ","), "bytes=-1"} {
		w := get(t, h, "GET", "/", map[string]string{"Range": rng})
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), page.Body.Bytes()) {
			t.Errorf("Range %.40s: status %d, %d bytes; want 200 and the whole %d", rng, w.Code, w.Body.Len(), page.Body.Len())
		}
		for _, k := range []string{"Accept-Ranges", "Content-Range", "Cache-Control"} {
			if v := w.Header().Get(k); v != "" {
				t.Errorf("Range %.40s: %s %q, want none", rng, k, v)
			}
		}
	}
}

// TestBodyNeverArrives sends GETs announcing a chunked body (or a Content-Length) that
// never comes: the API reads no body, so the answer must come at once, not after the
// server's read timeout (10 s before).
func TestBodyNeverArrives(t *testing.T) {
	h := newTestHandler(t, sharedTree(t), nil)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadTimeout = 10 * time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	for _, framing := range []string{"Transfer-Encoding: chunked", "Content-Length: 100"} {
		for _, p := range []string{"/api/public/life-path/7", "/"} {
			t.Run(framing+" "+p, func(t *testing.T) {
				c, err := net.Dial("tcp", srv.Listener.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n\r\n", p, framing)
				// The read deadline is the test's limit, far below the server's timeout.
				c.SetReadDeadline(time.Now().Add(3 * time.Second))
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Fatalf("no answer within 3 s: %v", err)
				}
				io.Copy(io.Discard, resp.Body)
				if resp.StatusCode != 200 {
					t.Errorf("status %d", resp.StatusCode)
				}
			})
		}
	}
}

// Test304Headers checks the 304 answer: the 200's ETag and Cache-Control and the common
// CORS headers, and no representation metadata (Content-Type, Content-Length), as the
// worker answers too (RFC 9110 §15.4.5).
func Test304Headers(t *testing.T) {
	h := newTestHandler(t, sharedTree(t), nil)
	ok := get(t, h, "GET", "/api/public/life-path/7", nil)
	w := get(t, h, "GET", "/api/public/life-path/7", map[string]string{"If-None-Match": ok.Header().Get("ETag")})
	if w.Code != 304 {
		t.Fatalf("status %d, want 304", w.Code)
	}
	for _, k := range []string{"ETag", "Cache-Control", "Access-Control-Allow-Origin", "X-Api-License"} {
		if w.Header().Get(k) != ok.Header().Get(k) {
			t.Errorf("%s = %q, the 200 has %q", k, w.Header().Get(k), ok.Header().Get(k))
		}
	}
	for _, k := range []string{"Content-Type", "Content-Length"} {
		if v := w.Header().Get(k); v != "" {
			t.Errorf("304 has %s: %s", k, v)
		}
	}
}
