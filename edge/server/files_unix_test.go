//go:build unix

package server

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// diskDir returns a new folder on a disk file system, removed when the test ends: under the
// temporary folder the tests had before RunTests moved it to memory
// (testsupport.DiskTempDir) when that is on a disk, else under this package's own folder.
// A test of what a write through mmap shows needs a disk: tmpfs has no page_mkwrite, so such
// a write moves no modification time there.
func diskDir(t *testing.T) string {
	t.Helper()
	if dir := testsupport.DiskTempDir(t); !memoryFS(dir) {
		return dir
	}
	dir, err := os.MkdirTemp(".", ".disk-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if memoryFS(dir) {
		t.Fatalf("neither the temporary folder nor this package's folder (%s) is on a disk file system: run the test from a checkout on a disk", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestCachedBodyMmapWrite changes a cached record through mmap, which no file watch
// reports: the next answer must not be the old body under the old ETag (the record no
// longer matches its manifest, so 500). Before, the cached body was answered forever.
//
// The server sees the change by the file's modification time, which a write through mmap
// moves on disk file systems but not on tmpfs (it has no page_mkwrite): so the tree is put on
// a disk the test finds itself (diskDir: the temporary folder may be a tmpfs), with only the
// files this test reads (the handler opens files on demand).
func TestCachedBodyMmapWrite(t *testing.T) {
	dir := filepath.Join(diskDir(t), "out")
	for _, rel := range []string{manifest.FileName, generatortest.File(generator.RouteLifePath, 7)} {
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
	path := filepath.Join(dir, filepath.FromSlash(generatortest.File(generator.RouteLifePath, 7)))
	first := get(t, h, "GET", target, nil)
	if first.Code != 200 || get(t, h, "GET", target, nil).Code != 200 {
		t.Fatalf("status %d before the write", first.Code)
	}
	if h.cur.Load().files[generatortest.File(generator.RouteLifePath, 7)].slot.Load() == 0 {
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
		t.Fatalf("the write through mmap did not move the modification time of %s (%v): its file system cannot show the change to anyone", path, err)
	}
	w := get(t, h, "GET", target, nil)
	if w.Code == 200 && w.Header().Get("ETag") == first.Header().Get("ETag") {
		t.Fatalf("after the mmap write: 200 with the old ETag (%d bytes, old body %v)", w.Body.Len(), bytes.Equal(w.Body.Bytes(), first.Body.Bytes()))
	}
	if w.Code != 500 {
		t.Errorf("after the mmap write: status %d, want 500 (the record differs from its manifest)", w.Code)
	}
}

// TestStaticPageMmapWrites writes a cached page twice through one shared mapping. The first
// write moves the file's modification time (on a disk); the second, to a page still dirty,
// moves nothing, so the file's identity is unchanged: the page must still be answered with
// its new bytes and their ETag within staticRecheck. Before, serve answered the bytes of
// the first write, under their ETag, for as long as it ran (and on tmpfs, where no write
// through mmap moves anything, the original bytes).
func TestStaticPageMmapWrites(t *testing.T) {
	dir := diskDir(t)
	page := "<p>v0 " + strings.Repeat(".", 200)
	m := testManifest(t, dir, map[string]string{"index.html": page})
	path := filepath.Join(dir, "index.html")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Dir: dir, Manifest: m, NoReload: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if w := get(t, h, "GET", "/", nil); w.Code != 200 || w.Body.String() != page {
		t.Fatalf("before the writes: status %d %.20q", w.Code, w.Body)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, len(page), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(data)
	for _, v := range []byte{'1', '2'} {
		before, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		data[4] = v
		want := "<p>v" + string(v) + page[5:]
		after, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("write %c: modification time moved: %v", v, !after.ModTime().Equal(before.ModTime()))
		time.Sleep(staticRecheck + 100*time.Millisecond)
		w := get(t, h, "GET", "/", nil)
		if w.Code != 200 || w.Body.String() != want || w.Header().Get("ETag") != assetHashETag([]byte(want), "index.html") {
			t.Fatalf("after write %c: status %d, %.8q, ETag %s; want %.8q under its own ETag", v, w.Code, w.Body, w.Header().Get("ETag"), want)
		}
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

// TestReadWhileLinked answers a record and a page whose file gets a hard link while it is
// read: its change time moves, its bytes do not. Before, serve took that for a rewrite
// during the read and answered 500; it happened in make test, where the conformance suite's
// servers read the package's shared tree while other tests linked its files into trees of
// their own, and it would as often where a publisher snapshots the tree with hard links
// (cp -al, rsync --link-dest) while serve runs. The read is tried again, and answered once
// the identity held through a whole read.
func TestReadWhileLinked(t *testing.T) {
	record := generatortest.File(generator.RouteMatrix, 2, 1, 2000)
	page := "index.html"
	dir := copyTree(t, record) // the record copied, not linked to the shared tree
	h := newTestHandler(t, dir, nil)
	var linked atomic.Int32
	var mu sync.Mutex
	unread := map[string]bool{record: true, page: true} // linked on their first read only
	open := h.open
	h.open = func(tr *tree, name string) (treeFile, error) {
		f, err := open(tr, name)
		mu.Lock()
		first := unread[name]
		delete(unread, name)
		mu.Unlock()
		if err != nil || !first {
			return f, err
		}
		return &linkOnRead{treeFile: f, t: t, path: filepath.Join(dir, filepath.FromSlash(name)), linked: &linked}, nil
	}
	for _, tt := range []struct{ target, file string }{
		{manifest.APIPrefix + "/matrix/2/1/2000", record},
		{"/", page},
	} {
		before := linked.Load()
		want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(tt.file)))
		if err != nil {
			t.Fatal(err)
		}
		w := get(t, h, http.MethodGet, tt.target, nil)
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("GET %s while its file was linked: %d, body %q; want 200 and %s", tt.target, w.Code, w.Body.Bytes(), tt.file)
		}
		if linked.Load() == before {
			t.Errorf("GET %s: the file was not linked during a read, so the test proves nothing", tt.target)
		}
	}
}

// linkOnRead is a tree file that, on its first Read, gives the file one more hard link
// and waits until that has moved the file's change time (which the kernel keeps to its
// clock's tick), then reads.
type linkOnRead struct {
	treeFile
	t      *testing.T
	path   string
	linked *atomic.Int32
	done   bool
}

func (f *linkOnRead) Read(p []byte) (int, error) {
	if !f.done {
		f.done = true
		fi, err := os.Stat(f.path)
		if err != nil {
			return 0, err
		}
		was := fi.Sys().(*syscall.Stat_t).Ctim
		link := fmt.Sprintf("%s.link%d", f.path, f.linked.Load())
		for deadline := time.Now().Add(5 * time.Second); ; {
			if err := os.Link(f.path, link); err != nil {
				return 0, err
			}
			fi, err := os.Stat(f.path)
			if err != nil {
				return 0, err
			}
			if fi.Sys().(*syscall.Stat_t).Ctim != was {
				break
			}
			if time.Now().After(deadline) {
				f.t.Error("linking the file did not move its change time in 5 s")
				break
			}
			os.Remove(link)
			time.Sleep(time.Millisecond)
		}
		f.linked.Add(1)
	}
	return f.treeFile.Read(p)
}
