// Package generator renders the whole API as static files: every record, every error body,
// the header manifests and the manifest of the tree (docs/design.md §5, §8). It is pure with
// respect to the network: it reads content and writes a directory.
package generator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/outtree"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/contract"
)

// Options configures Generate.
type Options struct {
	Site *Site
	// Out is the tree to (re)place. It is written into a temporary sibling and swapped in
	// only when complete.
	Out string
	// Years are the years whose records of every date route to write, ascending and unique, within
	// rules.FirstYear–rules.LastYear. Nil means the whole range.
	Years []int
	// Workers is how many goroutines render and write; 0 means a default for this machine.
	Workers int
	// OnProgress, when set, is called about ten times a second with the files written so
	// far and the total expected.
	OnProgress func(done, total int)
	// Plan is the Workers plan whose limits the tree must fit (the route budget,
	// docs/design.md §13); the zero value is Workers Free.
	Plan contract.Plan
	// Force replaces a tree generate made even when it holds files its manifest does not
	// list, listed files of another size, or no generator mark (a tree of an older
	// numerology); Summary.Deleted names the files that were deleted. A directory that is not
	// such a tree is refused even with Force.
	Force bool
}

// Summary describes a finished generation.
type Summary struct {
	Files    int
	Bytes    int64
	Duration time.Duration
	// Deleted lists the files of the previous tree that generate had not written (unlisted
	// in its manifest, or changed) and that Force let it delete, sorted.
	Deleted []string
}

// ErrRange reports years outside the contract's range.
var ErrRange = errors.New("years out of range")

// IOError is an error of the file system while writing the tree.
type IOError struct{ Err error }

func (e *IOError) Error() string { return e.Err.Error() }
func (e *IOError) Unwrap() error { return e.Err }

// YearRange returns the years from–to, inclusive, checked against the contract's range.
func YearRange(from, to int) ([]int, error) {
	if from == to && (from < rules.FirstYear || from > rules.LastYear) {
		return nil, fmt.Errorf("%w: %d is outside %d–%d", ErrRange, from, rules.FirstYear, rules.LastYear)
	}
	if from < rules.FirstYear || from > rules.LastYear || to < rules.FirstYear || to > rules.LastYear {
		return nil, fmt.Errorf("%w: %d–%d is outside %d–%d", ErrRange, from, to, rules.FirstYear, rules.LastYear)
	}
	if from > to {
		return nil, fmt.Errorf("%w: from %d is after to %d", ErrRange, from, to)
	}
	years := make([]int, 0, to-from+1)
	for y := from; y <= to; y++ {
		years = append(years, y)
	}
	return years, nil
}

// Generate writes the complete tree to opts.Out. On any error, or when ctx is cancelled, the
// previous tree is left as it was and no temporary directory remains.
func Generate(ctx context.Context, opts Options) (Summary, error) {
	start := time.Now()
	years := opts.Years
	if years == nil {
		years, _ = YearRange(rules.FirstYear, rules.LastYear)
	}
	if err := checkYears(years); err != nil {
		return Summary{}, err
	}
	plan := opts.Plan
	if plan.MaxFiles == 0 {
		plan = contract.Plans[0]
	}
	// Everything but the date routes' records is rendered first, and the route budget checked,
	// before anything is written.
	g := &gen{site: opts.Site, years: years, counts: map[string]*atomic.Int64{}}
	if err := g.prepare(ctx); err != nil {
		return Summary{}, err
	}
	if err := opts.Site.checkBudget(years, plan, g.pre); err != nil {
		return Summary{}, err
	}
	temp, err := outtree.Begin(opts.Out, opts.Force)
	if err != nil {
		return Summary{}, &IOError{err}
	}
	defer temp.Close()

	workers := opts.Workers
	if workers <= 0 {
		// Writing small files is syscall-bound: more goroutines than cores keep the disk busy.
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	g.w, g.workers = newTreeWriter(temp.Dir), workers
	total := extraFiles
	for _, r := range opts.Site.routes() {
		if r.Sharded() {
			for _, y := range years {
				total += len(r.YearValues(y)) + len(r.PackedFiles(y)) + 1 // and the shard
			}
		} else {
			total += len(r.Values(years))
		}
	}
	stopProgress := g.reportProgress(opts.OnProgress, total)
	err = g.run(ctx)
	stopProgress()
	if err != nil {
		return Summary{}, err
	}
	m, err := g.writeManifest()
	if err != nil {
		return Summary{}, err
	}
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	if err := temp.Commit(); err != nil {
		return Summary{}, &IOError{err}
	}
	return Summary{Files: m.Counts.Files + 1, Bytes: m.Counts.Bytes + g.manifestSize, Duration: time.Since(start), Deleted: temp.Deleted()}, nil
}

// extraFiles estimates the files besides the routes' bodies, for progress only.
const extraFiles = 40

func checkYears(years []int) error {
	if len(years) == 0 {
		return fmt.Errorf("%w: no years", ErrRange)
	}
	for i, y := range years {
		if y < rules.FirstYear || y > rules.LastYear {
			return fmt.Errorf("%w: %d is outside %d–%d", ErrRange, y, rules.FirstYear, rules.LastYear)
		}
		if i > 0 && y <= years[i-1] {
			return fmt.Errorf("%w: years must be ascending and unique", ErrRange)
		}
	}
	return nil
}

// unwrapPath drops the *PathError wrapper, whose path the caller's message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

type gen struct {
	site         *Site
	w            *treeWriter
	years        []int
	workers      int
	encs         map[string]encodeFunc    // per route
	pre          *prerendered             // every file but the date routes' records
	counts       map[string]*atomic.Int64 // per route: the files of its bodies written
	manifestSize int64
	edge         manifest.EdgeConfig
	// shards are the root's entries of the shards written, and listed counts the files
	// they list and the shards themselves; shardsMu guards both.
	shardsMu sync.Mutex
	shards   []manifest.File
	listed   struct {
		files int
		bytes int64
	}
}

func (g *gen) reportProgress(fn func(done, total int), total int) (stop func()) {
	if fn == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				fn(int(g.w.count.Load()), total)
				return
			case <-t.C:
				fn(int(g.w.count.Load()), total)
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

// prepare renders the edge config, the encoders and every file but the date routes' records.
func (g *gen) prepare(ctx context.Context) error {
	var err error
	if g.edge, err = g.site.EdgeConfig(); err != nil {
		return err
	}
	if g.encs, err = g.site.encoders(); err != nil {
		return err
	}
	for _, r := range g.edge.Routes {
		g.counts[r.Name] = &atomic.Int64{}
	}
	g.pre, err = g.site.prerender(ctx, g.years, g.encs)
	return err
}

// run writes every file of the tree but the manifest.
func (g *gen) run(ctx context.Context) error {
	steps := []func(context.Context) error{
		g.writeEdge,
		g.writePrerendered,
		g.writeDates,
		g.writeAssetsIgnore,
	}
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(ctx); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (g *gen) writeEdge(context.Context) error {
	for _, e := range g.edge.Errors {
		if err := g.w.Write(e.File, []byte(e.Body)); err != nil {
			return err
		}
	}
	if err := g.w.WriteJSON(manifest.EdgeFile, g.edge); err != nil {
		return err
	}
	return g.w.Write(manifest.HeadersFile, HeadersFile(g.edge.Headers))
}

// writePrerendered writes the files prepare rendered: the routes without packed files (and
// counts them per route) and the pages.
func (g *gen) writePrerendered(ctx context.Context) error {
	for _, f := range g.pre.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := g.w.Write(f.path, f.body); err != nil {
			return err
		}
	}
	for _, r := range g.edge.Routes {
		if r.Packed == nil {
			g.counts[r.Name].Add(int64(len(r.Values(g.years))))
		}
	}
	return nil
}

// writeDates writes the files of the packed routes: each value's file, the packed files,
// and the route's shards (docs/design.md §9). The routes' tasks share one pool of g.workers
// goroutines, with no barrier between routes: the task that finishes a route's last month (or
// year) writes its shards while the other workers go on with the next route. A route's files
// are remembered by their place (a size and a sha256 per value and packed file, no path)
// until its shards are written, and at most routesInFlight routes are begun and not yet
// sharded, so memory holds two routes of one tree whatever the number of routes.
func (g *gen) writeDates(ctx context.Context) error {
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(g.workers)
	slots := make(chan struct{}, routesInFlight)
routes:
	for _, r := range g.edge.Routes {
		if !r.Sharded() {
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ectx.Done():
			break routes
		}
		g.startPackedRoute(ectx, eg, r, func() { <-slots })
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// routesInFlight is how many packed routes writeDates has begun and not yet sharded: two
// keep every worker busy across a route's end, and bound the digests held to two routes'.
const routesInFlight = 2

// digest is what the manifest needs of a file whose path is known from its place.
type digest struct {
	size int64
	sum  [sha256.Size]byte
}

func digestOf(body []byte) digest { return digest{int64(len(body)), sha256.Sum256(body)} }

// routeYear is one year of a packed route: its values in the order of their places, and
// the digests of their files and of the year's packed files, filled by the tasks.
type routeYear struct {
	year   int
	vals   [][]int
	packed []string // Route.PackedFiles
	files  []digest // by the index in vals
	packs  []digest // by the index in packed
}

// startPackedRoute adds the tasks of one packed route to eg; the last of them to finish
// writes the route's shards and then calls done. For a route packed by month, a task is one
// month of every year: it owns the folders of that month's files when the route's file
// pattern groups them by day and month, so no two goroutines create files in one folder at
// once (parallel creates in one folder contend on its lock), and it writes each year's month
// file as soon as the month is rendered. For a route packed by year, a task is one year,
// which starts at a different day than its neighbours so that they write into different
// folders; it holds one year's records. Each record is encoded once, into its packed file's
// buffer, and written from there. A task that fails leaves done uncalled: the group's
// context is cancelled, and writeDates stops.
func (g *gen) startPackedRoute(ctx context.Context, eg *errgroup.Group, r manifest.Route, done func()) {
	years := make([]*routeYear, 0, len(g.years))
	for _, y := range g.years {
		vals := r.YearValues(y)
		if len(vals) == 0 {
			continue
		}
		packed := r.PackedFiles(y)
		years = append(years, &routeYear{year: y, vals: vals, packed: packed,
			files: make([]digest, len(vals)), packs: make([]digest, len(packed))})
	}
	var tasks []func() error
	if r.Packed.Unit == manifest.UnitYear {
		for i, ry := range years {
			tasks = append(tasks, func() error { return g.writePackedYear(ctx, r, ry, i*len(ry.vals)/max(g.workers, 1)) })
		}
	} else {
		for m := 1; m <= 12; m++ {
			tasks = append(tasks, func() error { return g.writePackedMonth(ctx, r, years, m) })
		}
	}
	if len(tasks) == 0 {
		tasks = append(tasks, func() error { return nil }) // no value in the years: it still finishes
	}
	var left atomic.Int64
	left.Store(int64(len(tasks)))
	finish := func() error {
		if left.Add(-1) > 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := g.writeShards(r, years); err != nil {
			return err
		}
		done()
		return nil
	}
	for _, task := range tasks {
		if ctx.Err() != nil {
			return
		}
		eg.Go(func() error {
			if err := task(); err != nil {
				return err
			}
			return finish()
		})
	}
}

// writePackedMonth writes the records of one month of a route packed by month, year after
// year: each value's file and the year's month file.
func (g *gen) writePackedMonth(ctx context.Context, r manifest.Route, years []*routeYear, month int) error {
	dw := &dirWriters{w: g.w}
	defer dw.close()
	enc := g.encs[r.Name]
	file := manifest.NewTemplate(r.File, r.ParamNames())
	buf := make([]byte, 0, 96<<10) // about a month of records; append grows it if not
	var files int64
	for _, ry := range years {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf = buf[:0]
		packed := ""
		for i, vals := range ry.vals {
			if r.Place(vals).Month != month {
				continue
			}
			start := len(buf)
			var err error
			if buf, err = enc(buf, vals); err != nil {
				return fmt.Errorf("render %s %s: %w", r.Name, valuesLabel(vals), err)
			}
			if err := dw.create(file.Fill(vals), buf[start:]); err != nil {
				return err
			}
			ry.files[i] = digestOf(buf[start:])
			files++
			packed, _ = r.PackedPath(vals)
		}
		if packed == "" {
			continue
		}
		if err := g.w.writeFile(packed, buf); err != nil {
			return err
		}
		ry.packs[slices.Index(ry.packed, packed)] = digestOf(buf)
	}
	g.counts[r.Name].Add(files)
	return nil
}

// writePackedYear writes the records of one year of a route packed by year: renders them in
// the order of their places into one buffer, which is the year file, creates each value's
// file from it starting at the value of index start, and writes the year file.
func (g *gen) writePackedYear(ctx context.Context, r manifest.Route, ry *routeYear, start int) error {
	dw := &dirWriters{w: g.w}
	defer dw.close()
	enc := g.encs[r.Name]
	file := manifest.NewTemplate(r.File, r.ParamNames())
	n := len(ry.vals)
	bp := yearBufs.Get().(*[]byte)
	defer yearBufs.Put(bp)
	buf := (*bp)[:0]
	ends := make([]int, n) // where each value's record ends in buf
	for i, vals := range ry.vals {
		var err error
		if buf, err = enc(buf, vals); err != nil {
			return fmt.Errorf("render %s %s: %w", r.Name, valuesLabel(vals), err)
		}
		ends[i] = len(buf)
	}
	*bp = buf
	for k := range n {
		if k%32 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		i := (start + k) % n
		begin := 0
		if i > 0 {
			begin = ends[i-1]
		}
		if err := dw.create(file.Fill(ry.vals[i]), buf[begin:ends[i]]); err != nil {
			return err
		}
		ry.files[i] = digestOf(buf[begin:ends[i]])
	}
	if err := g.w.writeFile(ry.packed[0], buf); err != nil {
		return err
	}
	ry.packs[0] = digestOf(buf)
	g.counts[r.Name].Add(int64(n))
	return nil
}

// yearBufs hold the year files being written: a year of records of a date route is about
// 800 KB, and reusing the buffers keeps that off the collector's back.
var yearBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1<<20); return &b }}

// writeShards writes the shards of a route, one per year, and keeps their entries and the
// files they list for the root. Two routes' shards may be written at once.
func (g *gen) writeShards(r manifest.Route, years []*routeYear) error {
	file := manifest.NewTemplate(r.File, r.ParamNames())
	for _, ry := range years {
		s := manifest.Shard{Route: r.Name, Year: ry.year, Files: make([]manifest.File, 0, len(ry.vals)+len(ry.packed))}
		var files int
		var bytes int64
		add := func(p string, d digest) {
			s.Files = append(s.Files, manifest.File{Path: p, Size: d.size, SHA256: hex.EncodeToString(d.sum[:])})
			files++
			bytes += d.size
		}
		for i, vals := range ry.vals {
			add(file.Fill(vals), ry.files[i])
		}
		for i, p := range ry.packed {
			add(p, ry.packs[i])
		}
		slices.SortFunc(s.Files, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) })
		b, err := s.Encode()
		if err != nil {
			return err
		}
		p := manifest.ShardPath(r.Name, ry.year)
		if err := g.w.writeFile(p, b); err != nil {
			return err
		}
		d := digestOf(b)
		g.shardsMu.Lock()
		g.shards = append(g.shards, manifest.File{Path: p, Size: d.size, SHA256: hex.EncodeToString(d.sum[:])})
		g.listed.files += files + 1
		g.listed.bytes += bytes + d.size
		g.shardsMu.Unlock()
	}
	return nil
}

// maxDirWriters bounds the folders a task keeps open: a month's (31) fit.
const maxDirWriters = 64

// dirWriters creates the files of one task through an outtree.DirWriter of each of their
// folders, kept open for the task (up to maxDirWriters at once).
type dirWriters struct {
	w    *treeWriter
	open map[string]*outtree.DirWriter
}

func (d *dirWriters) create(rel string, body []byte) error {
	dir, name := pathDir(rel), rel[strings.LastIndexByte(rel, '/')+1:]
	cur := d.open[dir]
	if cur == nil {
		if len(d.open) >= maxDirWriters {
			d.close()
		}
		if err := d.w.Mkdir(dir); err != nil {
			return err
		}
		var err error
		if cur, err = outtree.OpenDir(d.w.root, dir); err != nil {
			return &IOError{err}
		}
		if d.open == nil {
			d.open = map[string]*outtree.DirWriter{}
		}
		d.open[dir] = cur
	}
	if err := cur.Create(name, body); err != nil {
		return &IOError{err}
	}
	d.w.count.Add(1)
	return nil
}

func (d *dirWriters) close() {
	for dir, cur := range d.open {
		cur.Close()
		delete(d.open, dir)
	}
}

// AssetsIgnore is the content of .assetsignore: in gitignore syntax, the files of the tree
// that the worker never reads, so Workers static assets need not hold them. wrangler (and
// numerology deploy) always leave out .assetsignore, _headers and _redirects themselves.
// The per-date files of every packed route go: the worker answers those routes from the
// packed files; so do the manifest's shards, which only verify and serve read.
func AssetsIgnore(routes []manifest.Route) []byte {
	var b strings.Builder
	b.WriteString(`# Generated by numerology generate: files Workers static assets need not hold
# (gitignore syntax; wrangler deploy and numerology deploy both read this file).
# The worker answers the date routes from their packed files, so the per-date files
# stay out of the upload; they are still in the tree for numerology serve and plain static
# hosts.
`)
	for _, r := range routes {
		if r.Packed == nil {
			continue
		}
		glob := r.File
		for _, n := range r.ParamNames() {
			glob = strings.ReplaceAll(glob, "{"+n+"}", "*")
		}
		b.WriteString("# " + r.Pattern + ": from /" + r.Packed.File + "\n/" + glob + "\n")
	}
	b.WriteString("# Error bodies: the worker takes them from /" + manifest.EdgeFile + ".\n/" + manifest.ErrorsDir + "/\n")
	b.WriteString("# The manifest's shards: the files of every date route, year by year, for verify and serve.\n/" + manifest.ShardsDir + "/\n")
	return []byte(b.String())
}

func (g *gen) writeAssetsIgnore(context.Context) error {
	return g.w.Write(manifest.AssetsIgnoreFile, AssetsIgnore(g.edge.Routes))
}

// writeManifest writes manifest.json, the root of the manifest: it lists every other file
// but those of the shards, and the shards.
func (g *gen) writeManifest() (*manifest.Manifest, error) {
	files := g.w.Files()
	slices.SortFunc(g.shards, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) })
	m := &manifest.Manifest{
		Format:     manifest.FormatVersion,
		APIVersion: manifest.APIVersion,
		Generator:  manifest.Generator,
		SiteURL:    g.site.SiteURL,
		APIBase:    g.site.APIBase,
		Years:      g.years,
		Edge:       g.edge,
		Files:      files,
		Shards:     g.shards,
	}
	m.Counts.Files = len(files) + g.listed.files
	m.Counts.Bytes = g.listed.bytes
	for _, f := range files {
		m.Counts.Bytes += f.Size
	}
	m.Counts.Routes = map[string]int{}
	for name, n := range g.counts {
		m.Counts.Routes[name] = int(n.Load())
	}
	b, err := Encode(m)
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	g.manifestSize = int64(len(b))
	// Written whole or not at all: a killed run leaves a temporary tree with no manifest or a
	// complete one, which is what recovery recognises (outtree).
	part := "." + manifest.FileName + ".tmp-0"
	if err := g.w.writeRaw(part, b); err != nil {
		return nil, err
	}
	if err := os.Rename(filepath.Join(g.w.root, part), filepath.Join(g.w.root, manifest.FileName)); err != nil {
		return nil, &IOError{fmt.Errorf("write %s: %w", manifest.FileName, err)}
	}
	return m, nil
}

// treeWriter writes files below a root, hashing each, and remembers them for the manifest.
// It is safe for concurrent use.
type treeWriter struct {
	root  string
	count atomic.Int64
	dirs  sync.Map // created directories
	mu    sync.Mutex
	files []manifest.File
}

func newTreeWriter(root string) *treeWriter { return &treeWriter{root: root} }

// Mkdir creates a directory of the tree and its parents.
func (w *treeWriter) Mkdir(rel string) error {
	if _, ok := w.dirs.Load(rel); ok {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(w.root, filepath.FromSlash(rel)), 0o755); err != nil {
		return &IOError{fmt.Errorf("create directory: %w", err)}
	}
	w.dirs.Store(rel, struct{}{})
	return nil
}

// WriteJSON encodes v as the API does and writes it.
func (w *treeWriter) WriteJSON(rel string, v any) error {
	b, err := Encode(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", rel, err)
	}
	return w.Write(rel, b)
}

// Write writes one file of the tree and records it for the root of the manifest.
func (w *treeWriter) Write(rel string, body []byte) error {
	if err := w.writeFile(rel, body); err != nil {
		return err
	}
	w.record(rel, body)
	return nil
}

// writeFile writes one file of the tree that a shard lists (or that is a shard): the
// caller keeps its digest.
func (w *treeWriter) writeFile(rel string, body []byte) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	if dir := pathDir(rel); dir != "" {
		if err := w.Mkdir(dir); err != nil {
			return err
		}
	}
	if err := w.writeRaw(rel, body); err != nil {
		return err
	}
	w.count.Add(1)
	return nil
}

// record adds a written file to the manifest.
func (w *treeWriter) record(rel string, body []byte) {
	sum := sha256.Sum256(body)
	f := manifest.File{Path: rel, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}
	w.mu.Lock()
	w.files = append(w.files, f)
	w.mu.Unlock()
	w.count.Add(1)
}

func (w *treeWriter) writeRaw(rel string, body []byte) error {
	if err := os.WriteFile(filepath.Join(w.root, filepath.FromSlash(rel)), body, 0o644); err != nil {
		return &IOError{fmt.Errorf("write %s: %w", rel, unwrapPath(err))}
	}
	return nil
}

// Files returns the files written, sorted by path; it fails on none.
func (w *treeWriter) Files() []manifest.File {
	w.mu.Lock()
	defer w.mu.Unlock()
	slices.SortFunc(w.files, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) })
	return w.files
}

func pathDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// checkRel rejects paths that would escape the tree or collide with the manifest.
func checkRel(rel string) error {
	if rel == "" || rel == manifest.FileName || strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") ||
		slices.Contains(strings.Split(rel, "/"), "..") || !fs.ValidPath(rel) {
		return fmt.Errorf("generator bug: invalid tree path %q", rel)
	}
	return nil
}
