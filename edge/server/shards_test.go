package server

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
)

// TestShardNotTheRoots: a shard whose bytes are not the ones its root lists is not trusted:
// the dates of its route and year answer 500, never a body or an ETag of it, and the other
// shards still answer.
func TestShardNotTheRoots(t *testing.T) {
	dir := copyTree(t)
	shard := filepath.Join(dir, manifest.ShardPath(generator.RouteMatrix, 2000))
	b, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	// Another size for 15.05.2000: the shard still parses, and is no longer the root's.
	entry := []byte(`"` + generatortest.File(generator.RouteMatrix, 15, 5, 2000) + `",`)
	i := bytes.Index(b, entry) + len(entry)
	b[i] = '9'
	if err := os.WriteFile(shard, b, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newTestHandler(t, dir, nil)
	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/api/public/matrix/15/5/2000", http.StatusInternalServerError},
		{"/api/public/matrix/1/1/2000", http.StatusInternalServerError},
		{"/api/public/matrix/15/5/1900", http.StatusOK},
		{"/api/public/square/15/5/2000", http.StatusOK},
	} {
		w := get(t, h, "GET", tt.path, map[string]string{"X-Test-Client": "192.0.2.7"})
		if w.Code != tt.status {
			t.Errorf("GET %s: %d, want %d", tt.path, w.Code, tt.status)
		}
		if w.Code == http.StatusInternalServerError && w.Header().Get("ETag") != "" {
			t.Errorf("GET %s: a 500 with an ETag", tt.path)
		}
	}
}

// TestShardsKeptBounded: at most the bound of shards is kept read, whatever the years asked
// for; every answer is still its file's, and a body the cache keeps outlives its shard.
func TestShardsKeptBounded(t *testing.T) {
	dir := sharedTree(t)
	h := newTestHandler(t, dir, nil)
	tr := h.cur.Load()
	tr.shards.max = 2
	kept := func() int {
		n := 0
		for i := range tr.shards.loaded {
			if tr.shards.loaded[i].Load() != nil {
				n++
			}
		}
		return n
	}
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	client := 0
	for round := range 2 {
		for _, route := range []string{"matrix", "square", "life-path"} {
			for _, y := range m.Years {
				client++
				p := "/api/public/" + route + "/15/5/" + strconv.Itoa(y)
				w := get(t, h, "GET", p, map[string]string{"X-Test-Client": "192.0.2." + strconv.Itoa(client)})
				want, err := os.ReadFile(filepath.Join(dir, "api/public", route, "15/5", strconv.Itoa(y)+".json"))
				if err != nil {
					t.Fatal(err)
				}
				if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), want) {
					t.Fatalf("round %d, GET %s: %d, %d bytes, want the file's %d", round, p, w.Code, w.Body.Len(), len(want))
				}
				if n := kept(); n > 2 {
					t.Fatalf("%d shards kept, the bound is 2", n)
				}
			}
		}
	}
	// The body of 15.05 of the first year was cached in the first round, its shard dropped
	// since: its entry, from the shard read again, finds it in the cache.
	key, ok := tr.router.fileKeyOf(generatortest.File(generator.RouteMatrix, 15, 5, m.Years[0]))
	if !ok {
		t.Fatal("no key for the matrix record")
	}
	e, err := h.routeEntry(tr, key, new(entry))
	if e == nil || err != nil {
		t.Fatalf("routeEntry: %v, %v", e, err)
	}
	if _, ok := tr.cache.get(e); !ok {
		t.Error("the cached body of a dropped shard's file is lost")
	}
}
