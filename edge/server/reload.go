package server

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/opennumerology/numerology/generator/manifest"
)

// How serve follows its tree (docs/serve.md, "Regenerating a served tree"):
//
//   - Every body is answered with the ETag computed from the bytes answered (see body), so
//     no answer ever carries another body's ETag, whatever happens to the files.
//   - A watch on the tree's API directories drops a cached body on any event for its file
//     (write, same-size rewrite, delete, rename): the next request reads the file again.
//   - A watch on the tree's parent and on the tree itself notices a regenerated tree
//     swapped in (generate exchanges the directories) or a rewritten manifest (pack).
//     The handler then loads the new manifest and stores the new tree in one atomic step;
//     requests already running finish on the tree they started with.

// reloadDelay lets a burst of events (a swap, a manifest written in several writes) settle
// before the manifest is read.
const reloadDelay = 50 * time.Millisecond

// watchTree starts the watch that keeps t's body cache in step with its files: on every
// folder of the API files the root lists, and on the folder of each file of a shard when
// its body is first read (t.watch), so that the folders watched grow with what is cached,
// not with the tree.
func (h *Handler) watchTree(t *tree, files []manifest.File) {
	if t.cache == nil {
		return
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		h.log.Warn("cannot watch the tree's files: cached bodies may outlive a change", "err", err)
		return
	}
	var watched sync.Map
	t.watch = func(d string) {
		if _, seen := watched.LoadOrStore(d, struct{}{}); !seen {
			// A folder the tree lacks holds files that answer 500 anyway.
			w.Add(filepath.Join(h.dir, filepath.FromSlash(d)))
		}
	}
	for _, f := range files {
		if strings.HasPrefix(f.Path, "api/") {
			t.watch(path.Dir(f.Path))
		}
	}
	root := filepath.Clean(h.dir) + string(filepath.Separator)
	done := drain(w, func(ev fsnotify.Event) {
		if rel, ok := strings.CutPrefix(ev.Name, root); ok {
			t.uncache(filepath.ToSlash(rel))
		}
	}, t.uncacheAll) // an error means events were lost (queue overflow)
	t.stopWatch = func() { w.Close(); <-done }
}

// pathDir is the folder of a tree path, "." at the root.
func pathDir(p string) string { return path.Dir(p) }

// drain calls onEvent for each event of w and onError for each error, on a goroutine that
// ends when w is closed; the returned channel is closed then.
func drain(w *fsnotify.Watcher, onEvent func(fsnotify.Event), onError func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				onEvent(ev)
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				onError()
			}
		}
	}()
	return done
}

// watchForReload starts the watch for a regenerated tree or a rewritten manifest.
func (h *Handler) watchForReload() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	dir := filepath.Clean(h.dir)
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := w.Add(d); err != nil {
			w.Close()
			return err
		}
	}
	manifestPath := filepath.Join(dir, manifest.FileName)
	var mu sync.Mutex
	var timer *time.Timer
	schedule := func() {
		mu.Lock()
		defer mu.Unlock()
		if timer == nil {
			timer = time.AfterFunc(reloadDelay, h.reload)
		} else {
			timer.Reset(reloadDelay)
		}
	}
	done := drain(w, func(ev fsnotify.Event) {
		if ev.Name != dir && ev.Name != manifestPath {
			return
		}
		if ev.Name == dir && ev.Has(fsnotify.Create|fsnotify.Rename) {
			// The tree directory itself was replaced: watch the new one for its manifest
			// (the old watch went with the old directory).
			w.Remove(dir)
			w.Add(dir)
		}
		schedule()
	}, schedule)
	h.stopWatch = func() {
		w.Close()
		<-done
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
	}
	return nil
}

// reload loads the tree's manifest again and switches to it.
func (h *Handler) reload() {
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	h.reloadLocked()
}

// refresh is called when a file of t does not match t's manifest: when the tree was
// reloaded meanwhile, or its manifest changed (a regenerated tree not yet reloaded), it
// returns the new tree; otherwise t, whose file is then truly damaged.
func (h *Handler) refresh(t *tree) *tree {
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	if cur := h.cur.Load(); cur != t {
		return cur
	}
	if fi, err := os.Stat(filepath.Join(h.dir, manifest.FileName)); err == nil && sameFile(fi, t.manifest) {
		return t
	}
	h.reloadLocked()
	return h.cur.Load()
}

// sameFile reports whether a and b describe the same unchanged file.
func sameFile(a, b os.FileInfo) bool {
	return b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// reloadLocked loads the manifest and stores its tree. A tree that cannot be loaded (a
// manifest being written, or a broken one) leaves the current tree in place; the next event
// tries again.
func (h *Handler) reloadLocked() {
	fi, err := os.Stat(filepath.Join(h.dir, manifest.FileName))
	var m *manifest.Manifest
	if err == nil {
		m, err = manifest.Load(h.dir)
	}
	if err == nil {
		err = CheckTree(h.dir, m)
	}
	var t *tree
	if err == nil {
		t, err = newTree(m, h.cacheBytes)
	}
	if err != nil {
		if !errors.Is(err, manifest.ErrNoManifest) && !errors.Is(err, fs.ErrNotExist) {
			h.log.Warn("tree changed but cannot be loaded: still serving the previous one", "dir", h.dir, "err", err)
		}
		return
	}
	t.manifest = fi
	t.open(h.dir, h.log)
	h.watchTree(t, m.Files)
	old := h.cur.Swap(t)
	old.stopWatch()
	h.reloads.Add(1)
	h.log.Info("tree reloaded", "dir", h.dir, "files", m.Counts.Files, "years", len(m.Years))
}
