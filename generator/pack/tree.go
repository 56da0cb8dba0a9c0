package pack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/opennumerology/numerology/generator/manifest"
)

// tree is a generated tree as pack reads it: its manifest, and its files, each checked
// against the manifest's entry (file). Pack reads nothing else of the tree: the date
// routes' records from their packed files, the other routes' from their files, all found
// through the edge config's route table.
type tree struct {
	dir   string
	m     *manifest.Manifest
	index map[string]*manifest.File
}

func openTree(dir string) (*tree, error) {
	m, err := manifest.Load(dir)
	if err != nil {
		return nil, err
	}
	return &tree{dir: dir, m: m, index: m.Index()}, nil
}

// file returns the bytes of a file of the tree, checked against its manifest entry: its
// size and sha256. It reads into buf when buf has room.
func (t *tree) file(p string, buf []byte) ([]byte, error) {
	f, ok := t.index[p]
	if !ok {
		return nil, manifest.Mismatch(fmt.Errorf("%s does not list %s (run numerology verify --dir %s)", filepath.Join(t.dir, manifest.FileName), p, t.dir))
	}
	if !fs.ValidPath(p) || strings.Contains(p, `\`) {
		return nil, manifest.Mismatch(fmt.Errorf("%s lists %q, which is not a path inside the tree", filepath.Join(t.dir, manifest.FileName), p))
	}
	body, err := readFile(filepath.Join(t.dir, filepath.FromSlash(p)), f.Size, buf)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, unwrapPath(err))
	}
	sum := sha256.Sum256(body)
	if int64(len(body)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
		return nil, manifest.Mismatch(fmt.Errorf("%s does not match the manifest (run numerology verify --dir %s)", p, t.dir))
	}
	return body, nil
}

// packedFile is one packed file of a date route and the values its lines hold, in order.
type packedFile struct {
	path string
	vals [][]int
}

// packedFiles lists a date route's packed files in the order of its values, each with the
// values of its lines, one a line from the first: the route's records in date order are
// these files joined.
func packedFiles(r manifest.Route, years []int) ([]packedFile, error) {
	line := slices.Index(r.ParamNames(), r.Packed.Line)
	var out []packedFile
	var prev []int
	for _, vals := range r.Values(years) {
		// The values of one file differ only in the line's parameter; its path is filled in
		// once.
		if len(out) == 0 || !sameBut(vals, prev, line) {
			p, _ := r.PackedPath(vals)
			out = append(out, packedFile{path: p})
		}
		f := &out[len(out)-1]
		if vals[line] != len(f.vals)+1 {
			return nil, fmt.Errorf("route %s: %s would hold %v on line %d, after %d lines", r.Name, f.path, vals, vals[line], len(f.vals))
		}
		f.vals = append(f.vals, vals)
		prev = vals
	}
	return out, nil
}

// sameBut reports whether a and b are equal but for their values at i.
func sameBut(a, b []int, i int) bool {
	for j := range a {
		if j != i && a[j] != b[j] {
			return false
		}
	}
	return len(a) == len(b)
}

// readAhead is how many packed files are read ahead of the one being compressed.
const readAhead = 32

// writeJSONL writes a date route's records, its packed files joined in date order, to w
// through a reproducible parallel gzip, and hands every record to fill (nil: no tables).
// The files are read and checked on several goroutines, a bounded number ahead.
func (t *tree) writeJSONL(ctx context.Context, w io.Writer, files []packedFile, fill func([]int, []byte) error, prog *progress) error {
	gz, err := newGzip(w)
	if err != nil {
		return err
	}
	results := make([]chan []byte, len(files))
	for i := range results {
		results[i] = make(chan []byte, 1)
	}
	eg, ectx := errgroup.WithContext(ctx)
	// Each slot is a buffer a file is read into, given back once it is compressed: the
	// files read ahead are at most readAhead, and their buffers are reused.
	slots := make(chan []byte, readAhead)
	for range readAhead {
		slots <- nil
	}
	type job struct {
		i   int
		buf []byte
	}
	next := make(chan job)
	eg.Go(func() error {
		defer close(next)
		for i := range files {
			var buf []byte
			select {
			case buf = <-slots:
			case <-ectx.Done():
				return nil
			}
			select {
			case next <- job{i, buf}:
			case <-ectx.Done():
				return nil
			}
		}
		return nil
	})
	for range max(2, runtime.GOMAXPROCS(0)) {
		eg.Go(func() error {
			for j := range next {
				body, err := t.file(files[j.i].path, j.buf)
				if err != nil {
					return &InputError{err}
				}
				results[j.i] <- body
			}
			return nil
		})
	}
	eg.Go(func() error {
		for i, f := range files {
			var body []byte
			select {
			case body = <-results[i]:
			case <-ectx.Done():
				return nil
			}
			if err := splitLines(f, body, fill); err != nil {
				return &InputError{err}
			}
			if _, err := gz.Write(body); err != nil {
				return &OutputError{err}
			}
			slots <- body // pgzip has copied it
			prog.add(1)
		}
		return nil
	})
	if err := eg.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return gz.Close()
}

// splitLines checks that a packed file holds one record a line, a line for each of its
// values, and hands each to fill.
func splitLines(f packedFile, body []byte, fill func([]int, []byte) error) error {
	rest := body
	for i, vals := range f.vals {
		n := bytes.IndexByte(rest, '\n')
		if n < 0 {
			return fmt.Errorf("%s: %d lines, want %d (run numerology verify)", f.path, i, len(f.vals))
		}
		if fill != nil {
			if err := fill(vals, rest[:n+1]); err != nil {
				return fmt.Errorf("%s: line %d: %w", f.path, i+1, err)
			}
		}
		rest = rest[n+1:]
	}
	if len(rest) > 0 {
		return fmt.Errorf("%s: more than %d lines (run numerology verify)", f.path, len(f.vals))
	}
	return nil
}
