// Package pack builds the offline dataset from a generated tree: a .tar.gz and a .zip that
// each hold the API's JSON files (the bytes the API serves), CSV tables of the matrix, the
// arcana and the life path numbers, a Frictionless Data Package descriptor, CITATION.cff,
// LICENSE, README.md and SHA256SUMS. Two packs of the same tree are byte-identical. It also
// checks such an archive (VerifyArchive). It never touches the network.
package pack

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	kflate "github.com/klauspost/compress/flate"
	"golang.org/x/sync/errgroup"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
)

// MaxPublishSize is the largest archive placed in the tree's downloads/: a Workers static
// asset may be at most 25 MiB, and deploy refuses a tree with a larger file.
const MaxPublishSize = contract.MaxAssetSize

// DefaultModTime is the time stamped on every archive entry when Options.ModTime is zero.
var DefaultModTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// BaseName is the archives' file name without extension, and the top folder inside them:
// numerology-dataset-<api_version>.
func BaseName(apiVersion string) string { return contract.DatasetName + "-" + apiVersion }

// Archive formats, as file name extensions.
const (
	TarGz = ".tar.gz"
	Zip   = ".zip"
)

// Options configures Pack.
type Options struct {
	// Dir is the generated tree to pack (it must hold manifest.json).
	Dir string
	// To is the directory the archives are written to; it is created if needed.
	To string
	// Publish also places every archive of at most MaxPublishSize bytes in Dir/downloads/
	// and rewrites Dir/manifest.json to list them.
	Publish bool
	// ModTime is stamped on every entry; zero means DefaultModTime.
	ModTime time.Time
	// Publisher, Title and LicenseName name the dataset's author, the site and the licence
	// (its official Russian name) in the dataset's documents (content/site.yaml: publisher,
	// title, license_name).
	Publisher   string
	Title       string
	LicenseName string
	// Disclaimer and DisclaimerEN say what numerology is, in Russian and in English, in the
	// README (content/site.yaml: disclaimer, disclaimer_en).
	Disclaimer   string
	DisclaimerEN string
	// OnProgress, when set, is called with the work done so far out of the total.
	OnProgress func(done, total int)
}

// Archive is one archive written by Pack.
type Archive struct {
	Name      string // file name: numerology-dataset-1.0.tar.gz
	Path      string // where it was written, in Options.To
	Size      int64
	SHA256    string // lowercase hex
	Published bool   // placed in downloads/ and listed in the manifest
}

// Result describes a finished pack.
type Result struct {
	Archives   []Archive
	Entries    int // files in each archive
	MatrixRows int // rows of matrix.csv
	Duration   time.Duration
}

// InputError reports a tree that cannot be read or does not match its manifest.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// OutputError reports archives or downloads that cannot be written.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// entry is one file of the archives.
type entry struct {
	name     string // path below the top folder
	body     []byte
	sum      [32]byte
	crc      uint32
	deflated []byte // the zip payload; nil means stored
}

// Pack builds the archives of the tree in opts.Dir into opts.To and, with opts.Publish,
// publishes them in the tree.
func Pack(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	if opts.ModTime.IsZero() {
		opts.ModTime = DefaultModTime
	}
	m, src, err := packedFiles(opts.Dir)
	if err != nil {
		return nil, err
	}
	prog := newProgress(opts.OnProgress, 3*len(src))
	defer prog.stop()
	entries, tab, err := collectEntries(ctx, opts, m, src, prog)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.To, 0o755); err != nil {
		return nil, &OutputError{fmt.Errorf("create %s: %w", opts.To, err)}
	}
	base := BaseName(m.APIVersion)
	w := &archiveWriter{top: base, modTime: opts.ModTime.UTC(), entries: entries, prog: prog}
	archives, err := writeArchives(ctx, opts.To, base, w)
	if err != nil {
		return nil, err
	}
	if opts.Publish {
		if err := publish(opts.Dir, m, archives); err != nil {
			return nil, &OutputError{err}
		}
	}
	return &Result{Archives: archives, Entries: len(entries), MatrixRows: tab.rowsOf(MatrixCSV), Duration: time.Since(start)}, nil
}

// packedFiles loads the tree's manifest and lists the files the archives hold, from its root
// and its shards.
func packedFiles(dir string) (*manifest.Manifest, []manifest.File, error) {
	m, err := manifest.Load(dir)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	var src []manifest.File
	// The root's files and, shard by shard, those of the date routes (each shard checked
	// against the root).
	err = m.Walk(dir, func(f manifest.File) error {
		if !fs.ValidPath(f.Path) || strings.Contains(f.Path, `\`) {
			return manifest.Mismatch(fmt.Errorf("%s lists %q, which is not a path inside the tree", filepath.Join(dir, manifest.FileName), f.Path))
		}
		if IsPacked(f.Path) {
			src = append(src, f)
		}
		return nil
	})
	if err != nil {
		return nil, nil, &InputError{err}
	}
	if len(src) == 0 {
		return nil, nil, &InputError{fmt.Errorf("%s lists no API files to pack", filepath.Join(dir, manifest.FileName))}
	}
	return m, src, nil
}

// collectEntries reads the tree's files and builds the dataset's own (CSV tables,
// datapackage.json, CITATION.cff, SHA256SUMS): every entry of the archives, sorted by name.
func collectEntries(ctx context.Context, opts Options, m *manifest.Manifest, src []manifest.File, prog *progress) ([]*entry, *tables, error) {
	entries, tab, err := readTree(ctx, opts.Dir, m.Years, src, prog)
	if err != nil {
		return nil, nil, err
	}
	meta, err := buildFiles(m, src, tab, opts)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range meta {
		entries = append(entries, newEntry(f.name, f.body, compressor(nil)))
	}
	slices.SortFunc(entries, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
	return entries, tab, nil
}

// writeArchives writes the .tar.gz and the .zip side by side into temporary files of dir
// and renames both into place, or neither: a failed or interrupted pack leaves the
// previous archives.
func writeArchives(ctx context.Context, dir, base string, w *archiveWriter) ([]Archive, error) {
	archives := []Archive{
		{Name: base + TarGz, Path: filepath.Join(dir, base+TarGz)},
		{Name: base + Zip, Path: filepath.Join(dir, base+Zip)},
	}
	writers := []func(context.Context, io.Writer) error{w.writeTarGz, w.writeZip}
	// The first failure stops the other archive.
	eg, ectx := errgroup.WithContext(ctx)
	tmps := make([]string, len(archives))
	for i := range archives {
		eg.Go(func() error {
			var err error
			tmps[i], err = writeArchive(ectx, &archives[i], writers[i])
			return err
		})
	}
	err := eg.Wait()
	for i, tmp := range tmps {
		if tmp == "" {
			continue
		}
		if err == nil {
			if err = os.Rename(tmp, archives[i].Path); err != nil {
				err = &OutputError{fmt.Errorf("rename to %s: %w", archives[i].Path, unwrapPath(err))}
			}
		}
		if err != nil {
			os.Remove(tmp)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return archives, nil
}

// IsPacked reports whether a tree file belongs in the archives: the API's public JSON,
// without the edge configuration and the date routes' packed month files (the worker's
// wiring, not data: the month files repeat the per-date records byte for byte, and neither
// is served as an API route).
func IsPacked(treePath string) bool {
	if !strings.HasPrefix(treePath, manifest.APIDir+"/") || treePath == manifest.EdgeFile {
		return false
	}
	for _, r := range packedRoutes {
		if _, ok := r.MatchPacked(treePath); ok {
			return false
		}
	}
	return true
}

// packedRoutes are the routes with packed files.
var packedRoutes = func() []manifest.Route {
	var out []manifest.Route
	for _, r := range generator.Routes() {
		if r.Packed != nil {
			out = append(out, r)
		}
	}
	return out
}()

// matrixRoute is the row of the matrix route: its records are stored in the zip, not
// deflated.
var matrixRoute = func() manifest.Route {
	rs := generator.Routes()
	return rs[slices.IndexFunc(rs, func(r manifest.Route) bool { return r.Name == manifest.RouteMatrix })]
}()

// compressor returns a zip payload compressor bound to fw (nil: a new one).
func compressor(fw *kflate.Writer) func([]byte) []byte {
	var buf bytes.Buffer
	return func(b []byte) []byte {
		buf.Reset()
		if fw == nil {
			// BestSpeed: each entry is deflated alone, so higher levels gain little for their time.
			fw, _ = kflate.NewWriter(&buf, kflate.BestSpeed)
		} else {
			fw.Reset(&buf)
		}
		fw.Write(b)
		fw.Close()
		if buf.Len() >= len(b) {
			return nil
		}
		return bytes.Clone(buf.Bytes())
	}
}

func store([]byte) []byte { return nil }

func newEntry(name string, body []byte, deflate func([]byte) []byte) *entry {
	return &entry{name: name, body: body, sum: sha256.Sum256(body), crc: crc32.ChecksumIEEE(body), deflated: deflate(body)}
}

// readTree reads, checks and compresses every packed file on several goroutines, and
// collects the table rows from the records.
func readTree(ctx context.Context, dir string, years []int, src []manifest.File, prog *progress) ([]*entry, *tables, error) {
	entries := make([]*entry, len(src))
	tb := newTables()
	// A fixed set of workers, each with its own compressor, takes chunks of files in turn;
	// the first failure stops them all.
	eg, ectx := errgroup.WithContext(ctx)
	var next atomic.Int64
	const chunk = 256
	for range 2 * runtime.GOMAXPROCS(0) {
		eg.Go(func() error {
			deflate := compressor(nil)
			for ectx.Err() == nil {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(src) {
					return nil
				}
				for i := lo; i < min(lo+chunk, len(src)); i++ {
					e, err := readEntry(dir, &src[i], deflate)
					if err == nil {
						err = tb.add(src[i].Path, e.body)
					}
					if err != nil {
						return err
					}
					entries[i] = e
				}
				prog.add(min(chunk, len(src)-lo))
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := tb.finish(years); err != nil {
		return nil, nil, &InputError{err}
	}
	return entries, tb, nil
}

func readEntry(dir string, f *manifest.File, deflate func([]byte) []byte) (*entry, error) {
	body, err := readFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Size)
	if err != nil {
		return nil, &InputError{fmt.Errorf("read %s: %w", f.Path, unwrapPath(err))}
	}
	if _, ok := matrixRoute.MatchFile(f.Path); ok {
		// Stored, not deflated, in the zip: deflating 73,414 separate 2 KB records costs more
		// than the whole .tar.gz and still leaves the zip far above the publishing limit.
		deflate = store
	}
	e := newEntry(f.Path, body, deflate)
	if int64(len(body)) != f.Size || hex.EncodeToString(e.sum[:]) != f.SHA256 {
		return nil, &InputError{manifest.Mismatch(fmt.Errorf("%s does not match the manifest (run numerology verify --dir %s)", f.Path, dir))}
	}
	return e, nil
}

// publish copies the archives that fit into dir/downloads/, removes the older downloads
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
