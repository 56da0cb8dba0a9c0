// Package pack builds the offline dataset from a generated tree (docs/design.md §11): one
// zip of the tables (each as CSV and Parquet), a SQLite database of them all, the JSON of
// the routes without a date, a Frictionless data package, CITATION.cff, LICENSE, README.md
// and SHA256SUMS; and, per date route, its records as JSON Lines, <route>.jsonl.gz. Every
// download is byte-identical from one pack of a tree to the next, and fits the 25 MiB of a
// Workers static asset. It also checks a download (VerifyArchive). It knows no route by
// name: the tables and their filling come from the caller (generator.DatasetSources), the
// routes from the tree's edge config. It never touches the network.
package pack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/internal/contract"
)

// MaxPublishSize is the largest download placed in the tree's downloads/: a Workers static
// asset may be at most 25 MiB, and deploy refuses a tree with a larger file.
const MaxPublishSize = contract.MaxAssetSize

// DefaultModTime is the time stamped on every zip entry when Options.ModTime is zero.
var DefaultModTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// BaseName is the tables' zip's file name without extension, and the top folder inside it:
// numerology-dataset-<api_version>.
func BaseName(apiVersion string) string { return contract.DatasetName + "-" + apiVersion }

// Download extensions.
const (
	Zip     = ".zip"
	JSONLGz = ".jsonl.gz"
	// TarGz is the extension of the dataset archives before version 1.0's split; verify
	// still reads them.
	TarGz = ".tar.gz"
)

// JSONLName is the file name of a date route's JSON Lines download.
func JSONLName(route string) string { return route + JSONLGz }

// Content is what a dataset is built from besides the tree, for one site URL: the facts its
// documents state, the tables and how a route's files fill them, and, for verify, the route
// table and each route's renderer.
type Content struct {
	// Publisher, Title and LicenseName name the dataset's author, the site and the licence
	// (its official Russian name); Disclaimer and DisclaimerEN say what numerology is, in
	// Russian and in English (content/site.yaml).
	Publisher, Title, LicenseName string
	Disclaimer, DisclaimerEN      string
	// Attribution and AttributionHTML are the wording the records carry.
	Attribution, AttributionHTML string
	// Sources returns the dataset's tables, empty, with the functions that fill them from
	// their routes' files (generator.DatasetSources): a new set on every call.
	Sources func() []table.Source
	// Routes is the route table, and Render the renderer of a route: the body of a canonical
	// value, as generate writes it. verify --archive derives what a download must hold from
	// them.
	Routes []manifest.Route
	Render func(route string) (func(dst []byte, vals []int) ([]byte, error), error)
	// Diff, when set, names the first field at which a JSON body differs from what it should
	// be (generator.JSONDiff).
	Diff func(got, want []byte) string
}

// Options configures Pack.
type Options struct {
	// Dir is the generated tree to pack (it must hold manifest.json).
	Dir string
	// To is the directory the downloads are written to; it is created if needed.
	To string
	// Publish also places every download of at most MaxPublishSize bytes in Dir/downloads/
	// and rewrites Dir/manifest.json to list them.
	Publish bool
	// ModTime is stamped on every zip entry; zero means DefaultModTime.
	ModTime time.Time
	// ContentDate is the date of the content, YYYY-MM-DD (the time of the commit it comes
	// from: SOURCE_DATE_EPOCH), or "" when it is not known. It is stated by the database's
	// meta table and datapackage.json, so it is the only date a download holds.
	ContentDate string
	// Content returns the content for the tree's site URL.
	Content func(siteURL string) (*Content, error)
	// OnProgress, when set, is called with the work done so far out of the total.
	OnProgress func(done, total int)
}

// Archive is one download written by Pack.
type Archive struct {
	Name      string // file name: numerology-dataset-1.0.zip, matrix.jsonl.gz
	Path      string // where it was written, in Options.To
	Size      int64
	SHA256    string // lowercase hex
	Published bool   // placed in downloads/ and listed in the manifest
}

// Result describes a finished pack.
type Result struct {
	Archives []Archive // the zip first, then each date route's JSON Lines
	Entries  int       // files in the zip
	Tables   []TableRows
	Duration time.Duration
}

// TableRows is how many rows a table of the dataset has.
type TableRows struct {
	Name string
	Rows int
}

// InputError reports a tree that cannot be read or does not match its manifest.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// OutputError reports downloads that cannot be written.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// file is a file of the zip, below its top folder.
type file struct {
	name string
	body []byte
}

// Pack builds the downloads of the tree in opts.Dir into opts.To and, with opts.Publish,
// publishes them in the tree. Every download is written under a temporary name and renamed
// into place once all are written: a failed or interrupted pack leaves the previous ones.
//
// The work runs concurrently, and each download's bytes are the same whatever the order it
// is done in: the date routes' tables are filled first, a few routes at once (each fills
// its own tables only); the database is built, and the tables' files are written and
// deflated, each as soon as its tables are filled, while the JSON Lines are compressed,
// which render the date routes' records a second time; the zip is written in its order once
// its files are deflated.
func Pack(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	if opts.ModTime.IsZero() {
		opts.ModTime = DefaultModTime
	}
	t, err := openTree(opts.Dir, opts.Publish)
	if err != nil {
		return nil, &InputError{err}
	}
	c, err := opts.Content(t.m.SiteURL)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.To, 0o755); err != nil {
		return nil, &OutputError{fmt.Errorf("create %s: %w", opts.To, err)}
	}
	b, err := newBuild(t.m.Edge.Routes, c.Sources())
	if err != nil {
		return nil, err
	}
	// Each route's values, kept for its two passes; routes with the same values (the date
	// routes: every date of the years) share one copy.
	values := map[string][][]int{}
	var distinct [][][]int
	work := 0
	for _, r := range t.m.Edge.Routes {
		v := r.Values(t.m.Years)
		if i := slices.IndexFunc(distinct, func(d [][]int) bool { return slices.EqualFunc(d, v, slices.Equal) }); i >= 0 {
			v = distinct[i]
		} else {
			distinct = append(distinct, v)
		}
		values[r.Name] = v
		work += len(v)
		if r.Packed != nil && b.fill[r.Name] != nil {
			work += len(v) // rendered twice: for the tables, then the JSON Lines
		}
	}
	prog := newProgress(opts.OnProgress, work)
	defer prog.stop()
	// The routes without a date: their files go into the zip as they are, and fill their
	// tables; each route's first record is checked against the tree's file (the tree is the
	// content's).
	for _, r := range b.otherRoutes {
		first, fill := true, b.fill[r.Name]
		if err := routeRecords(ctx, c, r, values[r.Name], func(vals []int, body []byte) error {
			if first {
				first = false
				if err := t.checkTree(r, vals, body); err != nil {
					return &InputError{err}
				}
			}
			if fill != nil {
				if err := fill(vals, body); err != nil {
					return &InputError{fmt.Errorf("%s: %w", r.FilePath(vals), err)}
				}
			}
			b.api = append(b.api, file{r.FilePath(vals), bytes.Clone(body)})
			prog.add(1)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	// The date routes' first records, checked before any other work starts.
	for _, r := range b.dateRoutes {
		if err := t.checkFirst(c, r, values[r.Name]); err != nil {
			return nil, err
		}
	}
	b.filled = map[string]chan struct{}{}
	for _, r := range b.dateRoutes {
		if b.fill[r.Name] != nil {
			b.filled[r.Name] = make(chan struct{})
		}
	}
	d := &dataset{m: datasetMeta(t.m, opts.ContentDate), c: c, build: b}
	parts, remove := d.parts(opts.To)
	defer remove()
	base := BaseName(t.m.APIVersion)
	archives := []Archive{{Name: base + Zip, Path: filepath.Join(opts.To, base+Zip)}}
	for _, r := range b.dateRoutes {
		name := JSONLName(r.Name)
		archives = append(archives, Archive{Name: name, Path: filepath.Join(opts.To, name)})
	}
	tmps := make([]string, len(archives)) // written, not yet renamed: removed on any failure
	defer func() {
		for _, p := range tmps {
			if p != "" {
				os.Remove(p)
			}
		}
	}()
	var entries int
	eg, ectx := errgroup.WithContext(ctx)
	// The date routes' tables, filled a few routes at once.
	eg.Go(func() error {
		fg, fctx := errgroup.WithContext(ectx)
		fg.SetLimit(fillRoutes)
		for _, r := range b.dateRoutes {
			fill := b.fill[r.Name]
			if fill == nil {
				continue
			}
			fg.Go(func() error {
				if err := routeRecords(fctx, c, r, values[r.Name], func(vals []int, body []byte) error {
					if err := fill(vals, body); err != nil {
						return &InputError{fmt.Errorf("%s: %w", r.FilePath(vals), err)}
					}
					prog.add(1)
					return nil
				}); err != nil {
					return err
				}
				close(b.filled[r.Name])
				return nil
			})
		}
		return fg.Wait()
	})
	// The JSON Lines, once every table is filled, so that the database and the tables'
	// files start first.
	eg.Go(func() error {
		for _, ch := range b.filled {
			select {
			case <-ch:
			case <-ectx.Done():
				return ectx.Err()
			}
		}
		for i, r := range b.dateRoutes {
			var err error
			tmps[1+i], err = writeArchive(ectx, &archives[1+i], func(ctx context.Context, w *countWriter) error {
				return writeJSONL(ctx, w, c, r, values[r.Name], prog)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	// The zip.
	eg.Go(func() error {
		done, err := compressParts(ectx, parts)
		if err != nil {
			return writeError(ectx, archives[0].Path, err)
		}
		if done, err = d.finish(ectx, done); err != nil {
			return err
		}
		entries = len(done)
		tmps[0], err = writeArchive(ectx, &archives[0], func(_ context.Context, w *countWriter) error {
			return writeZip(w, base, opts.ModTime, done)
		})
		return err
	})
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	// All written: rename them into place, the JSON Lines in route order, the zip last.
	for i := range archives {
		j := (i + 1) % len(archives)
		if err := os.Rename(tmps[j], archives[j].Path); err != nil {
			return nil, &OutputError{fmt.Errorf("rename to %s: %w", archives[j].Path, unwrapPath(err))}
		}
		tmps[j] = ""
	}
	if opts.Publish {
		if err := publish(opts.Dir, t.m, archives); err != nil {
			return nil, &OutputError{err}
		}
	}
	res := &Result{Archives: archives, Entries: entries, Duration: time.Since(start)}
	for _, tb := range b.tables {
		res.Tables = append(res.Tables, TableRows{tb.Name, tb.Len()})
	}
	return res, nil
}

// fillRoutes is how many date routes fill their tables at once.
const fillRoutes = 2

// writeJSONL writes a date route's records to w as JSON Lines, gzip'ed, in date order.
func writeJSONL(ctx context.Context, w io.Writer, c *Content, r manifest.Route, values [][]int, prog *progress) error {
	gz, err := newGzip(w)
	if err != nil {
		return err
	}
	if err := routeRecords(ctx, c, r, values, func(_ []int, body []byte) error {
		prog.add(1)
		_, err := gz.Write(body)
		return err
	}); err != nil {
		return err
	}
	return gz.Close()
}

// partWorkers is how many files of the zip are written and deflated at once: the
// database, built while the others are, takes one for most of the time.
const partWorkers = 3

// compressParts deflates the parts, a few at a time, each once what it is made of is
// filled, and returns their entries in the parts' order. An error names the part.
func compressParts(ctx context.Context, parts []part) ([]entry, error) {
	done := make([]entry, len(parts))
	var next atomic.Int64
	eg, ectx := errgroup.WithContext(ctx)
	for range min(partWorkers, len(parts)) {
		eg.Go(func() error {
			z := newCompressor()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(parts) {
					return nil
				}
				if parts[i].ready != nil {
					if err := parts[i].ready(ectx); err != nil {
						return err
					}
				}
				e, err := z.compress(ectx, parts[i])
				if err != nil {
					if _, ok := err.(*OutputError); ok || ectx.Err() != nil {
						return err
					}
					return fmt.Errorf("%s: %w", parts[i].name, err)
				}
				done[i] = e
			}
		})
	}
	return done, eg.Wait()
}

// build collects what the zip holds from the routes' files: the tables, filled in route
// order, and the files of the routes without a date.
type build struct {
	dateRoutes, otherRoutes []manifest.Route
	tables                  []*table.Table
	fill                    map[string]func(vals []int, body []byte) error // by route
	api                     []file                                         // the routes' files without a date, by route and value
	route                   map[*table.Table]string                        // the route that fills a table
	// filled holds, for the routes whose tables are being filled while other work reads
	// the tables filled already, a channel closed once the route's tables are filled. A
	// route without one has its tables filled.
	filled map[string]chan struct{}
}

// wait returns once t is filled, or ctx is done.
func (b *build) wait(ctx context.Context, t *table.Table) error {
	ch := b.filled[b.route[t]]
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newBuild pairs the sources with the routes of the route table, and checks the tables.
func newBuild(routes []manifest.Route, sources []table.Source) (*build, error) {
	b := &build{fill: map[string]func([]int, []byte) error{}, route: map[*table.Table]string{}}
	names := map[string]bool{}
	for _, src := range sources {
		if !slices.ContainsFunc(routes, func(r manifest.Route) bool { return r.Name == src.Route }) {
			return nil, fmt.Errorf("the tables of route %s: the tree's route table has no such route", src.Route)
		}
		if b.fill[src.Route] != nil {
			return nil, fmt.Errorf("route %s has two sources of tables", src.Route)
		}
		b.fill[src.Route] = src.Fill
		for _, t := range src.Tables {
			if err := t.Check(); err != nil {
				return nil, err
			}
			if names[t.Name] {
				return nil, fmt.Errorf("two tables named %s", t.Name)
			}
			names[t.Name] = true
			b.tables = append(b.tables, t)
			b.route[t] = src.Route
		}
	}
	for _, r := range routes {
		if r.Packed != nil {
			b.dateRoutes = append(b.dateRoutes, r)
		} else {
			b.otherRoutes = append(b.otherRoutes, r)
		}
	}
	return b, nil
}

// publish copies the downloads that fit into dir/downloads/, removes the older downloads
// that pack itself published (those the manifest lists under downloads/, and the temporary
// files of an interrupted publish) and rewrites the manifest to list exactly what it
// published. Anything else in downloads/ is the user's and stays. downloads/ must be a
// real directory of the tree: pack never writes or deletes through a link out of it.
func publish(dir string, m *manifest.Manifest, archives []Archive) error {
	downloads := filepath.Join(dir, manifest.DownloadsDir)
	fi, err := os.Lstat(downloads)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(downloads, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", downloads, err)
		}
	case err != nil:
		return fmt.Errorf("publish into %s: %w", downloads, err)
	case !fi.IsDir():
		// A link is refused even to a folder: pack writes and deletes only inside the tree.
		return fmt.Errorf("publish into %s: it is not a folder of the tree (%s); pack writes only into a real %s/ folder", downloads, fileKind(fi), manifest.DownloadsDir)
	}
	var files []manifest.File
	keep := map[string]bool{}
	for i := range archives {
		a := &archives[i]
		if a.Size > MaxPublishSize {
			continue
		}
		b, err := os.ReadFile(a.Path)
		if err != nil {
			return fmt.Errorf("read %s: %w", a.Path, err)
		}
		if err := manifest.WriteFileAtomic(filepath.Join(downloads, a.Name), b, 0o644); err != nil {
			return err
		}
		a.Published = true
		keep[a.Name] = true
		files = append(files, manifest.File{Path: manifest.DownloadsDir + "/" + a.Name, Size: a.Size, SHA256: a.SHA256})
	}
	ours := map[string]bool{} // the names pack published before, or publishes now
	for _, p := range m.RemoveUnder(manifest.DownloadsDir) {
		name := strings.TrimPrefix(p, manifest.DownloadsDir+"/")
		if !strings.Contains(name, "/") && fs.ValidPath(name) {
			ours[name] = true
		}
	}
	for name := range keep {
		ours[name] = true
	}
	entries, err := os.ReadDir(downloads)
	if err != nil {
		return fmt.Errorf("list %s: %w", downloads, err)
	}
	for _, e := range entries {
		if keep[e.Name()] || !e.Type().IsRegular() || !ours[e.Name()] && !ours[tempOf(e.Name())] {
			continue
		}
		if err := os.Remove(filepath.Join(downloads, e.Name())); err != nil {
			return fmt.Errorf("remove stale download: %w", err)
		}
	}
	if left, err := os.ReadDir(downloads); err == nil && len(left) == 0 {
		if err := os.Remove(downloads); err != nil {
			return fmt.Errorf("remove empty %s: %w", downloads, err)
		}
	}
	m.SetFiles(files...)
	return m.Write(dir)
}

// tempOf returns the name whose temporary file manifest.WriteFileAtomic names name
// (".<name>.tmp-<digits>"), or "".
func tempOf(name string) string {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return ""
	}
	i := strings.LastIndex(rest, ".tmp-")
	if i <= 0 {
		return ""
	}
	digits := rest[i+len(".tmp-"):]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return ""
	}
	return rest[:i]
}

func fileKind(fi fs.FileInfo) string {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "a link"
	}
	return "a file"
}

// unwrapPath drops the *PathError wrapper, whose path the caller's message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// progress counts work done for Options.OnProgress, reporting about ten times a second.
type progress struct {
	fn    func(done, total int)
	total int
	done  atomic.Int64
	quit  chan struct{}
	wg    sync.WaitGroup
}

func newProgress(fn func(done, total int), total int) *progress {
	p := &progress{fn: fn, total: total, quit: make(chan struct{})}
	if fn == nil {
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				fn(min(int(p.done.Load()), total), total)
				return
			case <-t.C:
				fn(min(int(p.done.Load()), total), total)
			}
		}
	}()
	return p
}

func (p *progress) add(n int) { p.done.Add(int64(n)) }

func (p *progress) stop() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	p.wg.Wait()
}
