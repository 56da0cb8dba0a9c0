package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
)

// TestLargeStaticRewritten rewrites a static file of more than 1 MiB at the same size: the
// answer must carry the ETag of the bytes it sends (the asset hash of its sha256), and a
// Range with an If-Range of the old ETag must get the whole new file, not a range of the
// new bytes under the old validator. Before, the manifest's ETag was sent for any file of
// the listed size, and If-Range spliced old and new bytes.
func TestLargeStaticRewritten(t *testing.T) {
	dir := t.TempDir()
	const name = "downloads/data.bin"
	before := bytes.Repeat([]byte("a"), 3<<20)
	after := bytes.Repeat([]byte("b"), 3<<20)
	m := testManifest(t, dir, map[string]string{name: string(before), "index.html": "<p>home"})
	for i := range m.Files {
		if m.Files[i].Path == name {
			m.Files[i].SHA256 = sha256Hex(before)
		}
	}
	h, err := New(Options{Dir: dir, Manifest: m, NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	path := filepath.Join(dir, filepath.FromSlash(name))
	// An hour-old modification time, so that the rewrite below changes it whatever the
	// clock's granularity.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	first := get(t, h, "GET", "/"+name, nil)
	oldETag := first.Header().Get("ETag")
	if first.Code != 200 || oldETag != assetHashETag(before, name) || !bytes.Equal(first.Body.Bytes(), before) {
		t.Fatalf("before the rewrite: status %d, ETag %s", first.Code, oldETag)
	}
	if err := os.WriteFile(path, after, 0o644); err != nil {
		t.Fatal(err)
	}
	w := get(t, h, "GET", "/"+name, nil)
	if got, want := w.Header().Get("ETag"), assetHashETag(after, name); w.Code != 200 || got != want || !bytes.Equal(w.Body.Bytes(), after) {
		t.Errorf("after the rewrite: status %d, ETag %s, want %s with the new bytes", w.Code, got, want)
	}
	w = get(t, h, "GET", "/"+name, map[string]string{"Range": "bytes=0-9", "If-Range": oldETag})
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), after) {
		t.Errorf("If-Range with the old ETag: status %d, %d bytes; want 200 with the whole new file", w.Code, w.Body.Len())
	}
}

// TestChangedDuringStream rewrites a large static file between the answer's first and
// second chunk: the answer must stop short (the client sees a body shorter than its
// Content-Length) rather than end with bytes of the new file under the old ETag.
func TestChangedDuringStream(t *testing.T) {
	dir := t.TempDir()
	const name = "downloads/data.bin"
	before := bytes.Repeat([]byte("a"), 3<<20)
	m := testManifest(t, dir, map[string]string{name: string(before)})
	h, err := New(Options{Dir: dir, Manifest: m, NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	path := filepath.Join(dir, filepath.FromSlash(name))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	w := &rewriteOnWrite{ResponseRecorder: httptest.NewRecorder(), rewrite: func() {
		os.WriteFile(path, bytes.Repeat([]byte("b"), len(before)), 0o644)
	}}
	h.ServeHTTP(w, httptest.NewRequest("GET", "/"+name, nil))
	body := w.Body.Bytes()
	if len(body) >= len(before) || bytes.IndexByte(body, 'b') >= 0 {
		t.Errorf("answered %d bytes (%d of them from the new file); want the old bytes cut short", len(body), bytes.Count(body, []byte("b")))
	}
}

// rewriteOnWrite calls rewrite after the first write of the body.
type rewriteOnWrite struct {
	*httptest.ResponseRecorder
	rewrite func()
	done    bool
}

func (w *rewriteOnWrite) Write(p []byte) (int, error) {
	n, err := w.ResponseRecorder.Write(p)
	if !w.done {
		w.done = true
		w.rewrite()
	}
	return n, err
}

// TestManifestSizeNotAllocated gives a record a manifest size of 10^12 bytes: the route
// answers 500 without allocating it. (The command's test runs this under a 2 GB
// address-space limit: TestServeHugeManifestSize.)
func TestManifestSizeNotAllocated(t *testing.T) {
	dir := sharedTree(t)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Files {
		if m.Files[i].Path == generatortest.File(generator.RouteLifePath, 7) {
			m.Files[i].Size = 1e12
		}
	}
	h, err := New(Options{Dir: dir, Manifest: m, CacheBytes: 1 << 20, NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if w := get(t, h, "GET", "/api/public/life-path/7", nil); w.Code != 500 {
		t.Errorf("status %d, want 500", w.Code)
	}
	if w := get(t, h, "GET", "/api/public/life-path/8", nil); w.Code != 200 {
		t.Errorf("another record: status %d, want 200", w.Code)
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// assetHashETag is the ETag of a static file with content b at tree path name: the asset
// hash numerology deploy registers for it (cloudflare.AssetHash), which Cloudflare's assets
// answer as the ETag.
func assetHashETag(b []byte, name string) string {
	return `"` + cloudflare.AssetHash(sha256Hex(b), "/"+name) + `"`
}

// TestStaticETagIsAssetHash checks that a static file's ETag is the one Cloudflare's assets
// answer it with once numerology deploy uploaded it (the asset hash, 32 hex digits), for a
// page kept in memory and for a file streamed in chunks. Before, serve answered the file's
// sha256, an ETag of another form than the worker's.
func TestStaticETagIsAssetHash(t *testing.T) {
	dir := t.TempDir()
	large := bytes.Repeat([]byte("x"), maxHashedStatic+1)
	m := testManifest(t, dir, map[string]string{"index.html": "<p>home", "downloads/data.bin": string(large)})
	h, err := New(Options{Dir: dir, Manifest: m, NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for target, body := range map[string][]byte{"/": []byte("<p>home"), "/downloads/data.bin": large} {
		name := strings.TrimPrefix(target, "/")
		if name == "" {
			name = "index.html"
		}
		w := get(t, h, "GET", target, nil)
		if got, want := w.Header().Get("ETag"), assetHashETag(body, name); w.Code != 200 || got != want {
			t.Errorf("%s: status %d, ETag %s, want 200 and %s", target, w.Code, got, want)
		}
	}
}
