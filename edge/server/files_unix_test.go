//go:build unix

package server

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestCachedBodyMmapWrite changes a cached record through mmap, which no file watch
// reports: the next answer must not be the old body under the old ETag (the record no
// longer matches its manifest, so 500). Before, the cached body was answered forever.
//
// The server sees the change by the file's modification time, which a write through mmap
// moves on disk file systems but not on tmpfs (it has no page_mkwrite): so the tree is put on
// the disk (testsupport.DiskTempDir), with only the files this test reads (the handler opens
// files on demand).
func TestCachedBodyMmapWrite(t *testing.T) {
	dir := filepath.Join(testsupport.DiskTempDir(t), "out")
	for _, rel := range []string{manifest.FileName, manifest.LifePathFile(7)} {
		b, err := os.ReadFile(filepath.Join(sharedTree(t), filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := newTestHandler(t, dir, nil)
	const target = "/api/public/life-path/7"
	path := filepath.Join(dir, filepath.FromSlash(manifest.LifePathFile(7)))
	first := get(t, h, "GET", target, nil)
	if first.Code != 200 || get(t, h, "GET", target, nil).Code != 200 {
		t.Fatalf("status %d before the write", first.Code)
	}
	if h.cur.Load().files[manifest.LifePathFile(7)].slot.Load() == 0 {
		t.Fatal("the record was not cached: the test would prove nothing")
	}
	// A coarse file clock may still show the generation's time: let it move on.
	if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) < 50*time.Millisecond {
		time.Sleep(50 * time.Millisecond)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(first.Body.Len()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"number":7`))
	data[i+len(`"number":`)] = '8'
	if err := syscall.Munmap(data); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || !fi.ModTime().After(before.ModTime()) {
		t.Fatalf("the write through mmap did not move the modification time of %s (%v): its file system cannot show the change to anyone; run the test with TMPDIR on a disk file system", path, err)
	}
	w := get(t, h, "GET", target, nil)
	if w.Code == 200 && w.Header().Get("ETag") == first.Header().Get("ETag") {
		t.Fatalf("after the mmap write: 200 with the old ETag (%d bytes, old body %v)", w.Body.Len(), bytes.Equal(w.Body.Bytes(), first.Body.Bytes()))
	}
	if w.Code != 500 {
		t.Errorf("after the mmap write: status %d, want 500 (the record differs from its manifest)", w.Code)
	}
}

// TestSymlinkOutsideTree points a page and a folder of pages at files outside the tree:
// nothing of them may be answered. Before, serve followed the links.
func TestSymlinkOutsideTree(t *testing.T) {
	dir := copyTree(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "os-release")
	if err := os.WriteFile(secret, []byte("SECRET=outside the tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// llms.txt → a file outside; life-path/ → a folder outside holding the same names.
	if err := os.Remove(filepath.Join(dir, "llms.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "llms.txt")); err != nil {
		t.Fatal(err)
	}
	pages := filepath.Join(outside, "life-path")
	if err := os.Rename(filepath.Join(dir, "life-path"), pages); err != nil {
		t.Fatal(err)
	}
	for _, e := range mustReadDir(t, pages) {
		if err := os.WriteFile(filepath.Join(pages, e.Name()), []byte("SECRET page outside the tree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(pages, filepath.Join(dir, "life-path")); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Dir: dir, Manifest: m, CacheBytes: 1 << 20, NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, target := range []string{"/llms.txt", "/life-path/7"} {
		w := get(t, h, "GET", target, nil)
		if strings.Contains(w.Body.String(), "SECRET") {
			t.Errorf("%s: answered the file outside the tree (status %d)", target, w.Code)
		}
		if w.Code != 500 {
			t.Errorf("%s: status %d, want 500 (a listed file that cannot be served)", target, w.Code)
		}
	}
	// A link that stays inside the tree is followed.
	if err := os.Remove(filepath.Join(dir, "llms.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("robots.txt", filepath.Join(dir, "llms.txt")); err != nil {
		t.Fatal(err)
	}
	robots, err := os.ReadFile(filepath.Join(dir, "robots.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if w := get(t, h, "GET", "/llms.txt", nil); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), robots) {
		t.Errorf("a link inside the tree: status %d, want 200 with its target", w.Code)
	}
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return es
}
