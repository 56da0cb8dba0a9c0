package pack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	json "github.com/goccy/go-json"
	"golang.org/x/sync/errgroup"

	"github.com/opennumerology/numerology/generator/manifest"
)

// tree is what pack takes from a generated tree: its manifest's facts (API version, site
// URL, API base, years, route table), and, to publish, the whole manifest. Pack reads no
// record of the tree: it renders every record from the content (routeRecords) and checks a
// few against the tree's files (checkTree).
type tree struct {
	dir string
	m   *manifest.Manifest // Files is nil unless the tree is to be published
}

// openTree reads the tree's manifest: only its facts, not its file list, unless full.
func openTree(dir string, full bool) (*tree, error) {
	if full {
		m, err := manifest.Load(dir)
		if err != nil {
			return nil, err
		}
		return &tree{dir: dir, m: m}, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (run numerology generate first)", filepath.Join(dir, manifest.FileName), manifest.ErrNoManifest)
	}
	if err != nil {
		return nil, err
	}
	// The facts without the file list: a full tree's list is 300,000 entries, which pack
	// does not need and which would triple its memory.
	var head struct {
		manifest.Manifest
		Files skipped `json:"files"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, manifest.FileName), errors.Join(manifest.ErrInvalid, err))
	}
	head.Manifest.Files = nil
	m, err := manifest.Parse(mustEncode(head.Manifest))
	if err != nil {
		return nil, err
	}
	return &tree{dir: dir, m: m}, nil
}

// skipped decodes a JSON value into nothing.
type skipped struct{}

func (skipped) UnmarshalJSON([]byte) error { return nil }

func mustEncode(m manifest.Manifest) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // a Manifest always encodes
	}
	return b
}

// recordChunk is how many records a worker of routeRecords renders at a time.
const recordChunk = 512

// renderWorkers is the most goroutines a routeRecords renders on: each keeps two chunks'
// buffers, and pack's memory is not to grow with the cores (rendering is a small part of
// its work).
const renderWorkers = 4

// routeRecords yields a route's records for its values (r.Values of the years: date order
// for a date route, one a date), in their order, each with its canonical values and the exact bytes
// the API serves for it, rendered by the route's renderer (Content.Render). It is the one
// place pack gets the records from: whatever the tree's layout of files, the records are
// the same. The records are rendered on several goroutines, a bounded number of chunks
// ahead, and yielded in order; body is valid only during the call.
func routeRecords(ctx context.Context, c *Content, r manifest.Route, values [][]int, yield func(vals []int, body []byte) error) error {
	chunks := (len(values) + recordChunk - 1) / recordChunk
	workers := max(1, min(runtime.GOMAXPROCS(0), chunks, renderWorkers))
	type chunk struct {
		buf  []byte
		ends []int // where each record of the chunk ends in buf
	}
	results := make([]chan chunk, chunks)
	for i := range results {
		results[i] = make(chan chunk, 1)
	}
	// A chunk's buffers are given back once it is yielded: at most 2×workers chunks are
	// rendered ahead of the one being yielded.
	free := make(chan chunk, 2*workers)
	for range cap(free) {
		free <- chunk{}
	}
	eg, ectx := errgroup.WithContext(ctx)
	// The chunks are handed out in order, each with a free buffer: a chunk holds its
	// buffer before any later chunk, so the one yielded next always has one.
	type job struct {
		i  int
		ch chunk
	}
	next := make(chan job)
	eg.Go(func() error {
		defer close(next)
		for i := range chunks {
			var ch chunk
			select {
			case ch = <-free:
			case <-ectx.Done():
				return nil
			}
			select {
			case next <- job{i, ch}:
			case <-ectx.Done():
				return nil
			}
		}
		return nil
	})
	for range workers {
		render, err := c.Render(r.Name)
		if err != nil {
			return err
		}
		eg.Go(func() error {
			for j := range next {
				ch := j.ch
				ch.buf, ch.ends = ch.buf[:0], ch.ends[:0]
				for _, vals := range values[j.i*recordChunk : min(len(values), (j.i+1)*recordChunk)] {
					var err error
					if ch.buf, err = render(ch.buf, vals); err != nil {
						return fmt.Errorf("route %s, %s: %w", r.Name, r.FilePath(vals), err)
					}
					ch.ends = append(ch.ends, len(ch.buf))
				}
				results[j.i] <- ch
			}
			return nil
		})
	}
	eg.Go(func() error {
		for i := range chunks {
			var ch chunk
			select {
			case ch = <-results[i]:
			case <-ectx.Done():
				return nil
			}
			start := 0
			for k, end := range ch.ends {
				if err := yield(values[i*recordChunk+k], ch.buf[start:end]); err != nil {
					return err
				}
				start = end
			}
			free <- ch
		}
		return nil
	})
	if err := eg.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// checkFirst checks a route's first record against the tree's file (checkTree).
func (t *tree) checkFirst(c *Content, r manifest.Route, values [][]int) error {
	if len(values) == 0 {
		return nil
	}
	render, err := c.Render(r.Name)
	if err != nil {
		return err
	}
	body, err := render(nil, values[0])
	if err != nil {
		return fmt.Errorf("route %s, %s: %w", r.Name, r.FilePath(values[0]), err)
	}
	if err := t.checkTree(r, values[0], body); err != nil {
		return &InputError{err}
	}
	return nil
}

// checkTree checks that the tree was generated from the content pack renders the records
// from: a route's first record is its file in the tree, byte for byte. A tree generated
// from other content (another --content) is refused rather than packed as what it is not.
func (t *tree) checkTree(r manifest.Route, vals []int, body []byte) error {
	p := r.FilePath(vals)
	got, err := os.ReadFile(filepath.Join(t.dir, filepath.FromSlash(p)))
	if err != nil {
		return manifest.Mismatch(fmt.Errorf("read %s: %w (run numerology verify --dir %s)", p, unwrapPath(err), t.dir))
	}
	if !bytes.Equal(got, body) {
		return manifest.Mismatch(fmt.Errorf("%s is not what the content gives: the tree was generated from other content (pack --content names the tree's; run numerology verify --dir %s)", p, t.dir))
	}
	return nil
}
