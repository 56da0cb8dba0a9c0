package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// chunkConn is a net.Conn whose reads return at most n bytes of data, then io.EOF; a
// read may first return a timeout, once, where timeoutAt says.
type chunkConn struct {
	net.Conn
	data      []byte
	n         int
	timeoutAt int // offset at which one read fails with a timeout; -1 for none
}

func (c *chunkConn) Read(p []byte) (int, error) {
	if c.timeoutAt >= 0 && len(c.data) <= c.timeoutAt {
		c.timeoutAt = -1
		return 0, os.ErrDeadlineExceeded
	}
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.n, len(c.data))
	if c.timeoutAt >= 0 {
		n = min(n, len(c.data)-c.timeoutAt)
	}
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// readAllThrough reads data through a targetReader in reads of bufSize bytes from a
// connection that gives chunk bytes at a time, and returns what net/http would read.
func readAllThrough(t *testing.T, data string, chunk, bufSize, timeoutAt int) []byte {
	t.Helper()
	c := &chunkConn{data: []byte(data), n: chunk, timeoutAt: timeoutAt}
	var r targetReader
	var out []byte
	p := make([]byte, bufSize)
	timeouts := 0
	for range 100000 {
		n, err := r.read(c, p)
		out = append(out, p[:n]...)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			timeouts++
		case err == io.EOF:
			if timeoutAt >= 0 && timeouts != 1 {
				t.Fatalf("%d timeouts returned, want 1", timeouts)
			}
			return out
		case err != nil:
			t.Fatalf("read: %v", err)
		}
	}
	t.Fatal("no EOF")
	return nil
}

// TestTargetReader feeds streams of requests through a targetReader, in reads of every
// size, and checks the requests net/http then reads: targets with a bad percent-escape
// are handed on parseable with the client's own target in RawTargetHeader, a client's
// RawTargetHeader is dropped, bodies and pipelined requests keep their bounds, and what
// cannot be a request reaches net/http as it was sent.
func TestTargetReader(t *testing.T) {
	type req struct{ target, raw, body string }
	tests := []struct {
		name   string
		stream string
		want   []req // the requests net/http reads, in order; nil raw: no RawTargetHeader
		rest   string
	}{
		{"plain", "GET /api/public HTTP/1.1\r\nHost: x\r\n\r\n", []req{{"/api/public", "", ""}}, ""},
		{"bad escape", "GET /api/public/% HTTP/1.1\r\nHost: x\r\n\r\n", []req{{"/api/public/%25", "/api/public/%", ""}}, ""},
		{"bad escapes and good ones", "GET /a/%zz/%2/%41%/b?%zz HTTP/1.1\r\nHost: x\r\n\r\n",
			[]req{{"/a/%25zz/%252/%41%25/b?%zz", "/a/%zz/%2/%41%/b?%zz", ""}}, ""},
		{"bad escape in the fragment", "GET /api/public/arcana/1#%zz HTTP/1.1\r\nHost: x\r\n\r\n",
			[]req{{"/api/public/arcana/1#%25zz", "/api/public/arcana/1#%zz", ""}}, ""},
		{"bad escape only in the query", "GET /a?x=%zz#%zz HTTP/1.1\r\nHost: x\r\n\r\n", []req{{"/a?x=%zz#%zz", "", ""}}, ""},
		{"bare LF lines", "GET /% HTTP/1.1\nHost: x\n\n", []req{{"/%25", "/%", ""}}, ""},
		{"client's header dropped", "GET /a HTTP/1.1\r\nHost: x\r\nnumerology-raw-target: /evil\r\n\r\n", []req{{"/a", "", ""}}, ""},
		{"client's header dropped, bad escape", "GET /% HTTP/1.1\r\nNumerology-Raw-Target: /evil\r\nHost: x\r\n\r\n", []req{{"/%25", "/%", ""}}, ""},
		{"pipelined", "GET /% HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nHEAD /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
			[]req{{"/%25", "/%", ""}, {"/b", "", ""}, {"/%25zz", "/%zz", ""}}, ""},
		{"body, then a request", "POST /% HTTP/1.1\r\nHost: x\r\nContent-Length: 30\r\n\r\nGET /% HTTP/1.1\r\nHost: x\r\n\r\n..GET /% HTTP/1.1\r\nHost: x\r\n\r\n",
			[]req{{"/%25", "/%", "GET /% HTTP/1.1\r\nHost: x\r\n\r\n.."}, {"/%25", "/%", ""}}, ""},
		{"empty lines before a request", "\r\n\r\nGET /% HTTP/1.1\r\nHost: x\r\n\r\n", nil, "\r\n\r\nGET /%25 HTTP/1.1\r\nNumerology-Raw-Target: /%\r\nHost: x\r\n\r\n"},
		{"chunked: the rest as it is", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /% HTTP/1.1\r\nHost: x\r\n\r\n",
			[]req{{"/a", "", ""}}, "GET /% HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"two lengths: the rest as it is", "POST /% HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxxGET /% HTTP/1.1\r\n\r\n",
			nil, "POST /%25 HTTP/1.1\r\nNumerology-Raw-Target: /%\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxxGET /% HTTP/1.1\r\n\r\n"},
		{"no protocol", "GET /%\r\n\r\n", nil, "GET /%\r\n\r\n"},
		{"incomplete head", "GET /% HTTP/1.1\r\nHost: x\r\n", nil, "GET /% HTTP/1.1\r\nHost: x\r\n"},
		{"head too long", "GET /% HTTP/1.1\r\nX: " + strings.Repeat("a", maxHead) + "\r\n\r\n", nil, "GET /% HTTP/1.1\r\nX: " + strings.Repeat("a", maxHead) + "\r\n\r\n"},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 3, 17, 1 << 20} {
			for _, bufSize := range []int{1, 5, 4096} {
				for _, timeoutAt := range []int{-1, 5, len(tt.stream) / 2} {
					out := readAllThrough(t, tt.stream, chunk, bufSize, timeoutAt)
					br := bufio.NewReader(bytes.NewReader(out))
					for i, w := range tt.want {
						r, err := http.ReadRequest(br)
						if err != nil {
							t.Fatalf("%s (chunks of %d, reads of %d): request %d: %v\n%.300q", tt.name, chunk, bufSize, i, err, out)
						}
						body, _ := io.ReadAll(r.Body)
						raw := strings.Join(r.Header[RawTargetHeader], "|")
						if r.RequestURI != w.target || raw != w.raw || string(body) != w.body {
							t.Fatalf("%s (chunks of %d, reads of %d): request %d: target %q, %s %q, body %q; want %q, %q, %q",
								tt.name, chunk, bufSize, i, r.RequestURI, RawTargetHeader, raw, body, w.target, w.raw, w.body)
						}
					}
					if rest, _ := io.ReadAll(br); string(rest) != tt.rest {
						t.Fatalf("%s (chunks of %d, reads of %d): after the requests %.300q, want %.300q", tt.name, chunk, bufSize, rest, tt.rest)
					}
				}
			}
		}
	}
}

// TestRawTargetOverListener sends raw requests to HTTPServer: a bad percent-escape is
// answered by the routes (before, net/http's plain-text 400), a client cannot choose the
// target the handler routes on by sending RawTargetHeader itself, and a target net/http
// refuses for other reasons (a control character) is still refused, as workerd does.
func TestRawTargetOverListener(t *testing.T) {
	base := startServer(t, newTestHandler(t, sharedTree(t), nil))
	tests := []struct {
		name, request string
		status        int
		api           bool
	}{
		{"bad escape", "GET /api/public/% HTTP/1.1\r\nHost: x\r\n\r\n", 404, true},
		{"bad escape in a date", "GET /api/public/matrix/%zz/1/2000 HTTP/1.1\r\nHost: x\r\n\r\n", 400, true},
		{"preflight", "OPTIONS /api/public/arcana/% HTTP/1.1\r\nHost: x\r\n\r\n", 204, true},
		{"bad escape in the fragment", "GET /api/public/arcana/1#%zz HTTP/1.1\r\nHost: x\r\n\r\n", 200, true},
		{"the client's header", "GET /api/public/arcana/1 HTTP/1.1\r\nHost: x\r\n" + RawTargetHeader + ": /api/public/nope\r\n\r\n", 200, true},
		{"control character", "GET /api/public/\x01 HTTP/1.1\r\nHost: x\r\n\r\n", 400, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(c, tt.request)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status || (resp.Header.Get("X-API-License") != "") != tt.api {
				t.Errorf("%q: status %d, API headers %v; want %d, %v", tt.request, resp.StatusCode, resp.Header.Get("X-API-License") != "", tt.status, tt.api)
			}
		})
	}
}

// repeatConn is a net.Conn whose every read returns the same request head.
type repeatConn struct {
	net.Conn
	head []byte
}

func (c *repeatConn) Read(p []byte) (int, error) { return copy(p, c.head), nil }

// BenchmarkTargetReader reads request heads through a targetReader, as every request to
// serve is read: a head that needs no change is handed on where net/http's read put it,
// without a copy or an allocation; one with a bad escape is rewritten.
func BenchmarkTargetReader(b *testing.B) {
	for _, tt := range []struct{ name, head string }{
		{"plain", "GET /api/public/matrix/15/5/2000 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: wrk\r\nX-Forwarded-For: 10.0.0.1\r\n\r\n"},
		{"bad escape", "GET /api/public/matrix/%zz/5/2000 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: wrk\r\nX-Forwarded-For: 10.0.0.1\r\n\r\n"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			c := &repeatConn{head: []byte(tt.head)}
			var r targetReader
			p := make([]byte, 4096)
			b.ReportAllocs()
			for b.Loop() {
				for n := 0; n < len(tt.head); {
					k, err := r.read(c, p)
					if err != nil {
						b.Fatal(err)
					}
					n += k
				}
			}
		})
	}
}
