package server

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
)

func TestBodyCacheBudget(t *testing.T) {
	record := recordHeader
	tests := []struct {
		name   string
		budget int64
		bodies int
		size   int
		kept   int
	}{
		{"fits", 4 << 20, 100, 1000, 100},
		{"full", slabSize, 10_000, 2000, slabSize / (record + 2000)},
		{"budget below one slab", 1000, 10, 400, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newBodyCache(tt.budget)
			entries := make([]*entry, tt.bodies)
			for i := range entries {
				entries[i] = testEntry("api/public/matrix/" + strconv.Itoa(i) + ".json")
				body := bytes.Repeat([]byte{byte(i)}, tt.size)
				c.put(entries[i], fileID{ino: uint64(i)}, body, c.gen.Load(), nil)
				if got := c.size(); got > tt.budget {
					t.Fatalf("after %d bodies the cache holds %d bytes, budget %d", i+1, got, tt.budget)
				}
			}
			kept := 0
			for i, e := range entries {
				b, ok := c.get(e)
				if !ok {
					continue
				}
				kept++
				if got := b.body(nil); b.id.ino != uint64(i) || !bytes.Equal(got, bytes.Repeat([]byte{byte(i)}, tt.size)) {
					t.Fatalf("body %d comes back as %d bytes of %q, file %d", i, len(got), got[:1], b.id.ino)
				}
			}
			if kept != tt.kept {
				t.Errorf("%d bodies kept, want %d", kept, tt.kept)
			}
			for _, e := range entries {
				c.remove(e.slot)
				if _, ok := c.get(e); ok {
					t.Fatal("a removed body is still found")
				}
			}
		})
	}
	if newBodyCache(0) != nil {
		t.Error("a zero budget should turn the cache off")
	}
}

func TestBodyCacheStaleRead(t *testing.T) {
	c := newBodyCache(1 << 20)
	e := testEntry("a")
	gen := c.gen.Load()
	c.remove(testEntry("b").slot) // a file changes while e's body is being read
	c.put(e, fileID{}, []byte("old"), gen, nil)
	if _, ok := c.get(e); ok {
		t.Error("a body read before an invalidation was kept")
	}
}

// testEntry is the entry of a file of the root at path, with no size or sum.
func testEntry(path string) *entry {
	e := &entry{path: path}
	e.slot = &e.own
	return e
}

// TestBodyCacheCompact fills the cache with every API body of the test tree, the files of
// the root and of the shards: each must come back byte for byte, and the matrix records,
// stored against their shape's dictionary, must take a small fraction of their size (on the
// full tree, about 15 MB for 150 MB).
func TestBodyCacheCompact(t *testing.T) {
	dir := sharedTree(t)
	h := newTestHandler(t, dir, nil)
	tr := h.cur.Load()
	full, err := manifest.LoadFull(dir)
	if err != nil {
		t.Fatal(err)
	}
	var keys []fileKey
	for _, f := range full.Files {
		if key, ok := tr.router.fileKeyOf(f.Path); ok {
			keys = append(keys, key)
		}
	}
	entryOf := func(key fileKey) *entry {
		t.Helper()
		e, err := h.routeEntry(tr, key, new(entry))
		if e == nil || err != nil {
			t.Fatalf("%s: no entry (%v)", tr.router.treeFile(key), err)
		}
		return e
	}
	var raw, matrix int
	for _, key := range keys {
		e := entryOf(key)
		b, err := h.body(tr, e, nil)
		if err != nil {
			t.Fatalf("%s: %v", tr.pathOf(e), err)
		}
		raw += len(b)
		if strings.HasPrefix(tr.pathOf(e), "api/public/matrix/") {
			matrix++
		}
	}
	stored := 0
	for _, key := range keys {
		e := entryOf(key)
		c, ok := tr.cache.get(e)
		if !ok {
			t.Fatalf("%s was not kept", tr.pathOf(e))
		}
		b, err := h.body(tr, e, nil)
		if err != nil {
			t.Fatalf("%s from the cache: %v", tr.pathOf(e), err)
		}
		if want := mustRead(t, dir, tr.pathOf(e)); !bytes.Equal(b, want) {
			t.Fatalf("%s: the cache gives %d bytes that differ from the file's %d", tr.pathOf(e), len(b), len(want))
		}
		stored += recordHeader + len(c.stored)
		if strings.HasPrefix(tr.pathOf(e), "api/public/matrix/") && c.dict == nil {
			t.Errorf("%s is stored as it is, not against its shape's dictionary", tr.pathOf(e))
		}
	}
	if matrix < dictShapeFiles {
		t.Fatalf("only %d matrix records in the test tree", matrix)
	}
	t.Logf("%d bodies, %d bytes, stored in %d (%.1f%%)", len(keys), raw, stored, 100*float64(stored)/float64(raw))
	if stored*4 > raw {
		t.Errorf("%d bytes of bodies take %d in the cache, want under a quarter", raw, stored)
	}
}

func mustRead(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBodyDict checks that bodies come back byte for byte through a dictionary, whatever
// they share with it.
func TestBodyDict(t *testing.T) {
	dir := sharedTree(t)
	m, err := manifest.LoadFull(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sample []byte
	for _, p := range []string{generatortest.File(generator.RouteMatrix, 1, 1, 2000), generatortest.File(generator.RouteMatrix, 17, 9, 1900)} {
		sample = append(sample, mustRead(t, dir, p)...)
	}
	d := newBodyDict(sample)
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs [][]byte
	for i, f := range m.Files {
		if i%7 == 0 {
			inputs = append(inputs, mustRead(t, dir, f.Path))
		}
	}
	for range 200 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.IntN(4)) + 'a'
		}
		inputs = append(inputs, b, append(append(sample[100:150:150], b...), sample[:40]...))
	}
	inputs = append(inputs, nil, sample, sample[:dictMatch-1])
	for i, in := range inputs {
		enc := d.encode(nil, in)
		if got := d.decode(nil, enc); !bytes.Equal(got, in) {
			t.Fatalf("input %d (%d bytes) comes back as %d bytes", i, len(in), len(got))
		}
	}
}

// FuzzBodyDict checks the round trip of any input through any dictionary, and that decoding
// any bytes never reads outside the dictionary.
func FuzzBodyDict(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":"xxxxxxxxxxxx"}`), []byte(`{"a":2,"b":"xxxxxxxxxxxx"}`))
	f.Add([]byte("0123456789abcdef"), []byte{3, 1, 5, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, dict, src []byte) {
		d := newBodyDict(dict)
		if got := d.decode(nil, d.encode(nil, src)); !bytes.Equal(got, src) {
			t.Fatalf("%q comes back as %q", src, got)
		}
		d.decode(nil, src) // as stored bytes: must not panic
	})
}

func TestShapeOf(t *testing.T) {
	for in, want := range map[string]string{
		"api/public/matrix/15/5/2000.json": "api/public/matrix/#/#/#.json",
		"api/public/life-path/11.json":     "api/public/life-path/#.json",
		"api/public/index.json":            "api/public/index.json",
		"7":                                "#",
	} {
		if got := shapeOf(in); got != want {
			t.Errorf("shapeOf(%q) = %q, want %q", in, got, want)
		}
	}
}
