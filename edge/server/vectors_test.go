package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
)

// vectorsFile holds what both edges compute themselves; edge/worker/test/vectors.test.mjs
// checks the worker against the same file.
const vectorsFile = "../testdata/vectors.json"

type vectors struct {
	ClientKey struct {
		IPv6Prefix int `json:"ipv6_prefix"`
		Cases      []struct {
			Name   string  `json:"name"`
			Header string  `json:"header"`
			Key    *string `json:"key"`
		} `json:"cases"`
	} `json:"client_key"`
	Date struct {
		Cases []struct {
			Name  string `json:"name"`
			Date  string `json:"date"`
			File  string `json:"file"`
			Valid *bool  `json:"valid"`
		} `json:"cases"`
	} `json:"date"`
	IfNoneMatch struct {
		Cases []struct {
			Name   string `json:"name"`
			Header string `json:"header"`
			Match  bool   `json:"match"`
		} `json:"cases"`
	} `json:"if_none_match"`
	Path struct {
		Cases []struct {
			Name string `json:"name"`
			Path string `json:"path"`
			Want string `json:"want"`
		} `json:"cases"`
	} `json:"path"`
}

func loadVectors(t *testing.T) *vectors {
	t.Helper()
	b, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", vectorsFile, err)
	}
	if len(v.ClientKey.Cases) == 0 || len(v.Date.Cases) == 0 || len(v.IfNoneMatch.Cases) == 0 || len(v.Path.Cases) == 0 {
		t.Fatalf("%s: a section has no cases", vectorsFile)
	}
	return &v
}

// TestVectors sends the shared vectors through the server of a small tree, each as a raw
// HTTP request over serve's listener, and checks what comes back: the client key (through the limiter's key of a
// trusted header), date validity, If-None-Match and the routing of raw paths.
func TestVectors(t *testing.T) {
	v := loadVectors(t)
	vs := newVectorServer(t)
	t.Run("client key", func(t *testing.T) { vs.clientKeys(t, v) })
	t.Run("date", func(t *testing.T) { vs.dates(t, v) })
	t.Run("If-None-Match", func(t *testing.T) { vs.ifNoneMatch(t, v) })
	t.Run("path", func(t *testing.T) { vs.paths(t, v) })
}

// vectorServer is the server of the small tree the vectors are sent to, trusting
// CF-Connecting-IP as the worker does.
type vectorServer struct {
	dir   string
	m     *manifest.Manifest
	files map[string]*manifest.File
	h     *Handler
	addr  string
}

func newVectorServer(t *testing.T) *vectorServer {
	t.Helper()
	dir := sharedTree(t)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Dir: dir, Manifest: m, TrustHeader: "CF-Connecting-IP", NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	full, err := manifest.LoadFull(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &vectorServer{dir: dir, m: m, files: full.Index(), h: h, addr: strings.TrimPrefix(startServer(t, h), "http://")}
}

func (vs *vectorServer) send(t *testing.T, target string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	return sendRaw(t, vs.addr, target, header)
}

// expectFile checks a 200 with the body of a tree file, or a 500 when the tree lacks it.
func (vs *vectorServer) expectFile(t *testing.T, w *httptest.ResponseRecorder, file string) {
	t.Helper()
	if vs.files[file] == nil {
		if e := vs.m.Edge.Errors[manifest.ErrInternal]; w.Code != e.Status || w.Body.String() != e.Body {
			t.Fatalf("status %d %.120q, want %d %s (%s is not in the tree)", w.Code, w.Body, e.Status, manifest.ErrInternal, file)
		}
		return
	}
	want, err := os.ReadFile(filepath.Join(vs.dir, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusOK || w.Body.String() != string(want) {
		t.Fatalf("status %d %.120q, want 200 %s", w.Code, w.Body, file)
	}
}

// expectError checks a prebuilt error answer of the edge config.
func (vs *vectorServer) expectError(t *testing.T, w *httptest.ResponseRecorder, key string) {
	t.Helper()
	e, ok := vs.m.Edge.Errors[key]
	if !ok {
		t.Fatalf("no error %s in the edge config", key)
	}
	if w.Code != e.Status || w.Body.String() != e.Body {
		t.Fatalf("status %d %.120q, want %d %s", w.Code, w.Body, e.Status, key)
	}
}

// clientKeys checks the limiter's key of each trusted header value.
func (vs *vectorServer) clientKeys(t *testing.T, v *vectors) {
	bits := v.ClientKey.IPv6Prefix
	if bits != vs.m.Edge.RateLimit.IPv6Prefix {
		t.Fatalf("the vectors' IPv6 prefix is /%d, the edge config's /%d", bits, vs.m.Edge.RateLimit.IPv6Prefix)
	}
	for _, c := range v.ClientKey.Cases {
		t.Run(c.Name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.RemoteAddr = "203.0.113.9:40000"
			req.Header.Set("CF-Connecting-IP", c.Header)
			got := vs.h.client(req)
			want := ClientKey(netip.MustParseAddr("203.0.113.9"), bits) // the peer: no key in the header
			if c.Key != nil {
				want = keyOf(t, *c.Key, bits)
			}
			if got != want {
				t.Errorf("CF-Connecting-IP %q: key %s, want %s", c.Header, got, want)
			}
		})
	}
}

// dates checks the matrix route's answer to each date.
func (vs *vectorServer) dates(t *testing.T, v *vectors) {
	for _, c := range v.Date.Cases {
		t.Run(c.Name, func(t *testing.T) {
			w := vs.send(t, vs.m.Edge.Prefix+"/matrix/"+c.Date, nil)
			if c.Valid != nil && !*c.Valid {
				vs.expectError(t, w, manifest.ErrInvalidDate)
			} else {
				vs.expectFile(t, w, c.File)
			}
		})
	}
}

// ifNoneMatch checks 304 or 200 for each If-None-Match value.
func (vs *vectorServer) ifNoneMatch(t *testing.T, v *vectors) {
	target := vs.m.Edge.Prefix + "/life-path/7"
	etag := vs.send(t, target, nil).Header().Get("ETag")
	if len(etag) != 66 {
		t.Fatalf("ETag %q, want a quoted sha256", etag)
	}
	r := strings.NewReplacer("{etag}", etag, "{other}", `"`+strings.Repeat("0", 64)+`"`,
		"{etag-unquoted}", strings.Trim(etag, `"`), "{etag-upper}", strings.ToUpper(etag))
	for _, c := range v.IfNoneMatch.Cases {
		t.Run(c.Name, func(t *testing.T) {
			header := r.Replace(c.Header)
			w := vs.send(t, target, map[string]string{"If-None-Match": header})
			want := http.StatusOK
			if c.Match {
				want = http.StatusNotModified
			}
			if w.Code != want || w.Header().Get("ETag") != etag {
				t.Errorf("If-None-Match %q: status %d, ETag %s; want %d, %s", header, w.Code, w.Header().Get("ETag"), want, etag)
			}
		})
	}
}

// paths checks what answers each raw target.
func (vs *vectorServer) paths(t *testing.T, v *vectors) {
	for _, c := range v.Path.Cases {
		t.Run(c.Name, func(t *testing.T) {
			w := vs.send(t, c.Path, nil)
			_, isError := vs.m.Edge.Errors[c.Want]
			switch {
			case c.Want == "assets":
				if w.Header().Get("X-API-License") != "" {
					t.Fatalf("%s: an API answer (%d %.120q), want a static one", c.Path, w.Code, w.Body)
				}
			case isError:
				vs.expectError(t, w, c.Want)
			default:
				vs.expectFile(t, w, c.Want)
			}
		})
	}
}

// keyOf parses a vector's key: an IPv4 address, an IPv6 prefix of bits, or a whole address
// (/128) of the local-use translation prefix.
func keyOf(t *testing.T, s string, bits int) netip.Addr {
	t.Helper()
	if !strings.Contains(s, "/") {
		return netip.MustParseAddr(s)
	}
	p := netip.MustParsePrefix(s)
	whole := p.Bits() == 128 && netip.MustParsePrefix("64:ff9b:1::/48").Contains(p.Addr())
	if p.Bits() != bits && !whole || p.Masked() != p || p.String() != s {
		t.Fatalf("vector key %s: want a canonical /%d prefix", s, bits)
	}
	return p.Addr()
}

// sendRaw sends a GET of a raw target to serve's real listener at addr (bad percent-escapes
// reach the handler only through it) and reads the answer into a recorder.
func sendRaw(t *testing.T, addr, target string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	raw := "GET " + target + " HTTP/1.1\r\nHost: numerology.example\r\nConnection: close\r\n"
	for k, v := range header {
		raw += k + ": " + v + "\r\n"
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %q: %v", target, err)
	}
	defer resp.Body.Close()
	w := httptest.NewRecorder()
	w.Code = resp.StatusCode
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	if _, err := io.Copy(w.Body, resp.Body); err != nil {
		t.Fatalf("GET %q: %v", target, err)
	}
	return w
}
