package pack

import (
	"archive/tar"
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path"
	"slices"
	"strings"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/opennumerology/numerology/internal/humanize"
)

// Problem is one thing wrong with a download, of the kinds verify reports of a tree;
// Path is below the zip's top folder, or a JSON Lines download's name.
type Problem struct {
	Kind   string
	Path   string
	Detail string
}

func (p Problem) String() string {
	s := p.Kind + ": " + p.Path
	if p.Detail != "" {
		s += ": " + p.Detail
	}
	return s
}

// The problem kinds, as verify names those of a tree.
const (
	ProblemMissing = "missing" // listed in SHA256SUMS or datapackage.json, or a file of the dataset, but absent
	ProblemExtra   = "extra"   // in the archive but not listed in SHA256SUMS
	ProblemCorrupt = "corrupt" // unreadable, or not what its listing or the rules and the content give
	ProblemInvalid = "invalid" // a listing or an entry that breaks the archive's rules
)

// ArchiveReport is what VerifyArchive found.
type ArchiveReport struct {
	Format   string // TarGz or Zip
	Top      string // the top folder
	Files    int    // regular files read
	Expanded int64  // bytes expanded out of the archive's compression while checking it
	// Problems are the first MaxProblems problems found, sorted by path; More counts the
	// others, which are not kept.
	Problems []Problem
	More     int
}

// ErrNotArchive is returned for a file that is neither a gzip'd tar nor a zip.
var ErrNotArchive = errors.New("not a .tar.gz or .zip archive")

// Bounds on what VerifyArchive holds in memory and expands, whatever the archive claims or
// expands to.
const (
	// MaxKeptEntry is the largest SHA256SUMS or datapackage.json read into memory; a larger
	// one is a problem of the archive. Both are read from memory line by line or resource by
	// resource, never copied into a value per line.
	MaxKeptEntry = 64 << 20
	// MaxEntries is the most entries checked, with room for more date routes than the
	// full dataset has.
	MaxEntries = 1 << 19
	// MaxEntryName is the longest entry name accepted; the dataset's are under 100 bytes.
	MaxEntryName = 1024
	// MaxExpanded is the most bytes expanded out of an archive's compression, all entries
	// together: over three times the 636 MB of the full dataset's .tar.gz. Reading stops there, so an
	// archive that expands without end (a bomb, or zip entries sharing their bytes) costs
	// seconds, not hours.
	MaxExpanded = 2 << 30
	// MaxProblems is the most problems a report lists; the others are counted.
	MaxProblems = 100
)

// maxExpanded is MaxExpanded, lowered by tests.
var maxExpanded int64 = MaxExpanded

// nameKey stands for an entry's name: the first 16 bytes of its sha256, so that what is
// kept per entry does not grow with the name.
type nameKey [16]byte

func keyOf[S string | []byte](name S) nameKey {
	s := sha256.Sum256([]byte(name))
	return nameKey(s[:16])
}

// entryRec is what is kept of a regular file of the archive: 64 bytes, whatever its name.
type entryRec struct {
	key    nameKey
	sum    [sha256.Size]byte
	size   int64
	ord    int32 // its place among the archive's entries, to find its name again
	broken bool  // unreadable or refused, and reported so: not compared
	listed bool  // SHA256SUMS lists it
}

type archiveCheck struct {
	rep      *ArchiveReport
	entries  []entryRec
	index    map[nameKey]int32 // into entries
	sums     []byte            // SHA256SUMS, when read whole
	pkg      []byte            // datapackage.json, when read whole
	stopped  bool              // reading stopped before the end of the archive
	limit    int64             // of Expanded
	progress func(done, total int)
	total    int
	// buf is the buffer every entry is copied through: io.Copy would allocate 32 KiB an
	// entry, and an archive of half a million small entries made verify clear 16 GB.
	buf []byte
}

// add records a problem, or only counts it once MaxProblems are kept.
func (c *archiveCheck) add(kind, p, format string, args ...any) {
	if len(c.rep.Problems) >= MaxProblems {
		c.rep.More++
		return
	}
	c.rep.Problems = append(c.rep.Problems, Problem{Kind: kind, Path: p, Detail: fmt.Sprintf(format, args...)})
}

// full reports whether a new problem would only be counted.
func (c *archiveCheck) full() bool { return len(c.rep.Problems) >= MaxProblems }

// VerifyOptions configures VerifyArchive.
type VerifyOptions struct {
	// Content returns the content a download is checked against, for the site URL it
	// states ("" for the content's own: a JSON Lines download states none). Nil checks a
	// zip against its own listings only.
	Content func(siteURL string) (*Content, error)
	// OnProgress, when set, is called with the work done so far out of the total.
	OnProgress func(done, total int)
}

// VerifyArchive checks a download of the dataset, told apart by its content. A zip (or an
// older .tar.gz): every file against SHA256SUMS (missing, extra or different files), every
// resource of datapackage.json against its bytes and hash, and every file against what
// pack makes of the rules and the content for the site URL, years and date
// datapackage.json states: each table's rows, the database, the JSON of the routes, the
// documents. A JSON Lines download (<route>.jsonl.gz): every record against what its
// route renders for its date, in date order, whole years. The error is for a file that
// cannot be read as a download at all, or content that cannot be loaded.
func VerifyArchive(ctx context.Context, file string, opts VerifyOptions) (*ArchiveReport, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return nil, fmt.Errorf("%s: %w", file, ErrNotArchive)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	onProgress := opts.OnProgress
	c := &archiveCheck{rep: &ArchiveReport{}, index: map[nameKey]int32{}, limit: maxExpanded, progress: onProgress}
	var names func(ctx context.Context, ords []int32) (map[int32]string, error)
	var member func(ctx context.Context, ord int32) (io.ReadCloser, error)
	switch {
	case magic[0] == 0x1f && magic[1] == 0x8b && isJSONLines(f):
		c.rep.Format = JSONLGz
		if err := c.checkJSONL(ctx, f, opts.Content); err != nil {
			return nil, err
		}
		c.sortProblems()
		return c.rep, nil
	case magic[0] == 0x1f && magic[1] == 0x8b:
		c.rep.Format = TarGz
		err = c.readTarGz(ctx, f)
		names = func(ctx context.Context, ords []int32) (map[int32]string, error) { return c.tarNames(ctx, f, ords) }
	case string(magic[:]) == "PK\x03\x04":
		c.rep.Format = Zip
		var d *zipDir
		d, err = c.readZip(ctx, f)
		names = func(_ context.Context, ords []int32) (map[int32]string, error) { return zipNames(d, ords) }
		member = func(_ context.Context, ord int32) (io.ReadCloser, error) { return c.zipMember(d, ord) }
	default:
		return nil, fmt.Errorf("%s: %w", file, ErrNotArchive)
	}
	if err != nil {
		return nil, err
	}
	if onProgress != nil {
		onProgress(c.rep.Files, max(c.total, c.rep.Files))
	}
	if err := c.checkSums(ctx, names); err != nil {
		return nil, err
	}
	pkg := c.checkDataPackage()
	if opts.Content != nil {
		if err := c.checkContent(ctx, pkg, opts.Content, names, member); err != nil {
			return nil, err
		}
	}
	c.sortProblems()
	return c.rep, nil
}

// sortProblems puts the problems in path order, then kind.
func (c *archiveCheck) sortProblems() {
	slices.SortStableFunc(c.rep.Problems, func(a, b Problem) int {
		if x := strings.Compare(a.Path, b.Path); x != 0 {
			return x
		}
		return strings.Compare(a.Kind, b.Kind)
	})
}

// name checks an entry's name and returns it below the top folder ("" for the top folder
// itself), or ok false when the entry is to be skipped.
func (c *archiveCheck) name(full string) (string, bool) {
	if len(full) > MaxEntryName {
		c.add(ProblemInvalid, full[:64]+"…", "entry name of %d bytes, longer than %d", len(full), MaxEntryName)
		return "", false
	}
	clean := strings.TrimSuffix(full, "/")
	top, rel, _ := strings.Cut(clean, "/")
	if c.rep.Top == "" {
		c.rep.Top = top
	}
	switch {
	case strings.HasPrefix(full, "/") || strings.Contains(full, "\\") || path.Clean(clean) != clean || slices.Contains(strings.Split(clean, "/"), ".."):
		c.add(ProblemInvalid, full, "unsafe entry name")
		return "", false
	case top != c.rep.Top:
		c.add(ProblemInvalid, full, "outside the top folder %s/", c.rep.Top)
		return "", false
	}
	return rel, true
}

// errBudget ends a read past the expansion budget.
var errBudget = errors.New("expansion budget spent")

// budgeted counts what r expands against the budget, and fails past it.
type budgeted struct {
	r io.Reader
	c *archiveCheck
}

func (b budgeted) Read(p []byte) (int, error) {
	left := b.c.limit - b.c.rep.Expanded
	if left < 0 {
		return 0, errBudget
	}
	if int64(len(p)) > left+1 { // one byte past the budget tells a longer stream from one that ends there
		p = p[:left+1]
	}
	n, err := b.r.Read(p)
	b.c.rep.Expanded += int64(n)
	if b.c.rep.Expanded > b.c.limit {
		return n, errBudget
	}
	return n, err
}

// stop records why reading stopped at entry p. It is listed even past MaxProblems: it says
// what the rest of the report is worth.
func (c *archiveCheck) stop(p, format string, args ...any) {
	c.stopped = true
	c.rep.Problems = append(c.rep.Problems, Problem{Kind: ProblemInvalid, Path: p, Detail: fmt.Sprintf(format, args...)})
}

// readError records an error reading entry p (or the archive after it); a spent budget
// stops reading.
func (c *archiveCheck) readError(p string, err error, what string) {
	if errors.Is(err, errBudget) {
		c.stop(p, "the archive expands to more than %s MiB, more than any dataset; reading stopped here, the rest is not checked", humanize.Count(c.limit>>20))
		return
	}
	c.add(ProblemCorrupt, p, "%s: %v", what, err)
}

// file records a regular file's size and sha256, read from r, which holds the size bytes
// the archive's header says. SHA256SUMS and datapackage.json are also kept, in a buffer of
// their size: one over MaxKeptEntry is a problem, not read. A later copy of a name already
// read is reported and not read.
func (c *archiveCheck) file(rel string, ord int, size int64, r io.Reader) error {
	key := keyOf(rel)
	if _, dup := c.index[key]; dup {
		c.add(ProblemInvalid, rel, "appears more than once in the archive; only the first copy is checked")
		return nil
	}
	rec := entryRec{key: key, ord: int32(ord)}
	defer func() {
		c.index[key] = int32(len(c.entries))
		c.entries = append(c.entries, rec)
	}()
	h := sha256.New()
	var keep *bytes.Buffer
	w := io.Writer(h)
	if rel == SumsFile || rel == DataPackageFile {
		if size > MaxKeptEntry {
			// An archive whose listing expands to gigabytes is a bomb, not a dataset.
			c.add(ProblemInvalid, rel, "larger than %d MiB (the archive says %s bytes), which no dataset's %s is; not checked", MaxKeptEntry>>20, humanize.Count(size), rel)
			rec.broken = true
			return nil
		}
		keep = bytes.NewBuffer(make([]byte, 0, size))
		w = io.MultiWriter(h, keep)
		r = io.LimitReader(r, size+1) // the archive's readers hold an entry to its size; this holds the buffer to it too
	}
	if c.buf == nil {
		c.buf = make([]byte, 32<<10)
	}
	n, err := io.CopyBuffer(w, r, c.buf)
	if err != nil {
		rec.broken = true
		return err
	}
	rec.size = n
	h.Sum(rec.sum[:0])
	switch rel {
	case SumsFile:
		c.sums = keep.Bytes()
		c.total = bytes.Count(c.sums, []byte("\n")) + 1
	case DataPackageFile:
		c.pkg = keep.Bytes()
	}
	c.rep.Files++
	if c.progress != nil && c.rep.Files%1000 == 0 {
		c.progress(c.rep.Files, max(c.total, c.rep.Files))
	}
	return nil
}

// openTarGz reads the .tar.gz f from its start, counting what it expands against the
// budget.
func (c *archiveCheck) openTarGz(f *os.File) (*tar.Reader, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	gz, err := kgzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), ErrNotArchive)
	}
	return tar.NewReader(budgeted{gz, c}), nil
}

func (c *archiveCheck) readTarGz(ctx context.Context, f *os.File) error {
	tr, err := c.openTarGz(f)
	if err != nil {
		return err
	}
	last := "(start of the archive)"
	for ord := 0; ; ord++ {
		if ord%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil && ord == MaxEntries {
			c.stop(last, "the archive has more than %s entries; the rest is not checked", humanize.Count(MaxEntries))
			return nil
		}
		if err != nil {
			// The stream is broken: nothing after this point can be read.
			c.stopped = true
			c.readError(last, err, "the archive cannot be read after this entry")
			return nil
		}
		rel, ok := c.name(h.Name)
		if !ok {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg:
		default:
			c.add(ProblemInvalid, rel, "not a regular file or directory")
			continue
		}
		last = rel
		if err := c.file(rel, ord, h.Size, tr); err != nil {
			c.stopped = true
			c.readError(rel, err, "cannot be read")
			return nil
		}
	}
}

// tarNames reads the .tar.gz again for the names of the entries at ords (sorted), which
// were not kept; it expands no more than the first reading did.
func (c *archiveCheck) tarNames(ctx context.Context, f *os.File, ords []int32) (map[int32]string, error) {
	names := make(map[int32]string, len(ords))
	if len(ords) == 0 {
		return names, nil
	}
	pass := &archiveCheck{rep: &ArchiveReport{}, limit: c.rep.Expanded}
	tr, err := pass.openTarGz(f)
	if err != nil {
		return nil, err
	}
	for ord := int32(0); ord <= ords[len(ords)-1]; ord++ {
		if ord%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		h, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("%s: read again for names: %w", f.Name(), err)
		}
		if _, ok := slices.BinarySearch(ords, ord); ok {
			_, rel, _ := strings.Cut(strings.TrimSuffix(h.Name, "/"), "/")
			names[ord] = rel
		}
	}
	return names, nil
}

// readZip checks the entries of a zip, reading its central directory one record at a time.
// Entries whose bytes overlap another's or the central directory are refused unread.
func (c *archiveCheck) readZip(ctx context.Context, f *os.File) (*zipDir, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	d, err := openZipDir(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", f.Name(), ErrNotArchive, err)
	}
	overlaps, more, err := c.zipOverlaps(ctx, d)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", f.Name(), ErrNotArchive, err)
	}
	c.total = len(overlaps)
	_, err = d.each(MaxEntries, func(ord int, e *zipEntry) bool {
		if ord%1024 == 0 && ctx.Err() != nil {
			return false
		}
		rel, ok := c.name(e.name)
		switch {
		case !ok || e.mode.IsDir():
			return true
		case !e.mode.IsRegular():
			c.add(ProblemInvalid, rel, "not a regular file or directory")
			return true
		}
		_, data, end, err := d.span(e)
		if err == nil && overlaps[ord] != noOverlap {
			c.refuseOverlap(rel, ord, e, end, overlaps[ord])
			return true
		}
		if err == nil {
			var rc io.ReadCloser
			if rc, err = d.open(e, data); err == nil {
				err = c.file(rel, ord, int64(min(e.usize, math.MaxInt64)), budgeted{rc, c})
				rc.Close()
			}
		}
		if err != nil {
			c.brokenEntry(rel, ord)
			c.readError(rel, err, "cannot be read")
			return !c.stopped
		}
		return true
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", f.Name(), ErrNotArchive, err)
	}
	if more {
		c.stop("(the archive)", "more than %s entries; only the first %[1]s are checked", humanize.Count(MaxEntries))
	}
	return d, nil
}

// noOverlap marks an entry that overlaps nothing; centralDirectory stands for the central
// directory as what an entry overlaps.
const (
	noOverlap        = -2
	centralDirectory = -1
)

// zipOverlaps finds, for each of the first MaxEntries records, another entry or the
// central directory that its bytes (local header to the end of its data) overlap, and
// whether the directory holds more records. Only regular files with a name within bounds
// are placed: nothing else is read.
func (c *archiveCheck) zipOverlaps(ctx context.Context, d *zipDir) ([]int32, bool, error) {
	type span struct {
		start, end int64
		ord        int32
	}
	spans := []span{{d.off, d.off + d.len, centralDirectory}}
	var overlaps []int32
	more, err := d.each(MaxEntries, func(ord int, e *zipEntry) bool {
		if ord%1024 == 0 && ctx.Err() != nil {
			return false
		}
		overlaps = append(overlaps, noOverlap)
		if !e.mode.IsRegular() || len(e.name) > MaxEntryName {
			return true
		}
		if start, _, end, err := d.span(e); err == nil {
			spans = append(spans, span{start, end, int32(ord)})
		}
		return true
	})
	if err != nil {
		return nil, false, err
	}
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.ord, b.ord))
	})
	reach := spans[0]
	for _, s := range spans[1:] {
		if s.start < reach.end {
			if s.ord >= 0 && overlaps[s.ord] == noOverlap {
				overlaps[s.ord] = reach.ord
			}
			if reach.ord >= 0 && overlaps[reach.ord] == noOverlap {
				overlaps[reach.ord] = s.ord
			}
		}
		if s.end > reach.end {
			reach = s
		}
	}
	return overlaps, more, nil
}

// refuseOverlap reports an entry whose bytes another entry or the central directory also
// claims. It is not read: entries sharing one deflated member are how a small zip expands
// without end.
func (c *archiveCheck) refuseOverlap(rel string, ord int, e *zipEntry, end int64, other int32) {
	what := "another entry's"
	if other == centralDirectory {
		what = "the central directory's"
	}
	c.add(ProblemInvalid, rel, "its bytes %d to %d overlap %s; not read (overlapping entries make a small zip expand without end)", e.offset, end, what)
	c.brokenEntry(rel, ord)
}

// brokenEntry records a file that was reported unreadable or refused, unless a copy of its
// name was read already.
func (c *archiveCheck) brokenEntry(rel string, ord int) {
	key := keyOf(rel)
	if _, seen := c.index[key]; !seen {
		c.index[key] = int32(len(c.entries))
		c.entries = append(c.entries, entryRec{key: key, ord: int32(ord), broken: true})
	}
}

// zipNames reads the central directory again for the names of the entries at ords
// (sorted), which were not kept.
func zipNames(d *zipDir, ords []int32) (map[int32]string, error) {
	names := make(map[int32]string, len(ords))
	if len(ords) == 0 {
		return names, nil
	}
	_, err := d.each(MaxEntries, func(ord int, e *zipEntry) bool {
		if _, ok := slices.BinarySearch(ords, int32(ord)); ok {
			_, rel, _ := strings.Cut(strings.TrimSuffix(e.name, "/"), "/")
			names[int32(ord)] = rel
		}
		return int32(ord) < ords[len(ords)-1]
	})
	return names, err
}

// SumsLine is one line of a SHA256SUMS, pointing into its bytes.
type SumsLine struct {
	N    int    // its number, from 1
	Sum  []byte // 64 lowercase hex digits; nil when the line is not "<sha256 hex>  <path>"
	Name []byte
}

// SumsLines yields the lines of a SHA256SUMS one at a time, without copying them: a
// listing of a million lines costs no more memory than its bytes.
func SumsLines(b []byte) iter.Seq[SumsLine] {
	return func(yield func(SumsLine) bool) {
		b := bytes.TrimSuffix(b, []byte("\n"))
		for n := 1; ; n++ {
			line, rest, more := bytes.Cut(b, []byte("\n"))
			sum, name, ok := bytes.Cut(line, []byte("  "))
			l := SumsLine{N: n}
			if ok && isHex64(sum) && len(name) > 0 {
				l.Sum, l.Name = sum, name
			}
			if !yield(l) || !more {
				return
			}
			b = rest
		}
	}
}

func isHex64(s []byte) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// checkSums compares SHA256SUMS with the entries read, line by line, then reports the
// entries it does not list; names finds again the names of those to print.
func (c *archiveCheck) checkSums(ctx context.Context, names func(context.Context, []int32) (map[int32]string, error)) error {
	if c.sums == nil {
		if i, ok := c.index[keyOf(SumsFile)]; !ok || !c.entries[i].broken {
			c.add(ProblemMissing, SumsFile, "the archive has no checksum list")
		}
		return nil
	}
	for l := range SumsLines(c.sums) {
		if l.N%(1<<20) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if l.Sum == nil {
			c.add(ProblemInvalid, SumsFile, "line %d: not \"<sha256 hex>  <path>\"", l.N)
			continue
		}
		i, ok := c.index[keyOf(l.Name)]
		if !ok {
			if c.full() {
				c.rep.More++ // without the string of its name
				continue
			}
			if c.stopped {
				c.add(ProblemMissing, string(l.Name), "listed in %s, not among the entries read before reading stopped", SumsFile)
			} else {
				c.add(ProblemMissing, string(l.Name), "listed in %s but not in the archive", SumsFile)
			}
			continue
		}
		rec := &c.entries[i]
		var want [sha256.Size]byte
		hex.Decode(want[:], l.Sum)
		switch {
		case rec.listed:
			c.add(ProblemInvalid, SumsFile, "line %d: %s is listed a second time", l.N, l.Name)
		case rec.broken:
		case rec.sum != want:
			c.add(ProblemCorrupt, string(l.Name), "sha256 %.6x…, %s says %.12s…", rec.sum, SumsFile, l.Sum)
		}
		rec.listed = true
	}
	return c.addExtras(ctx, names)
}

// addExtras reports, in archive order, the entries SHA256SUMS does not list.
func (c *archiveCheck) addExtras(ctx context.Context, names func(context.Context, []int32) (map[int32]string, error)) error {
	sums := keyOf(SumsFile)
	var ords []int32
	first := len(c.rep.Problems)
	for _, rec := range c.entries {
		if rec.listed || rec.broken || rec.key == sums {
			continue
		}
		if c.full() {
			c.rep.More++
			continue
		}
		ords = append(ords, rec.ord)
		c.add(ProblemExtra, "", "not listed in %s", SumsFile)
	}
	if len(ords) == 0 {
		return nil
	}
	found, err := names(ctx, ords) // ords are in archive order, so sorted
	if err != nil {
		return err
	}
	for i, ord := range ords {
		c.rep.Problems[first+i].Path = found[ord]
	}
	return nil
}

// resourceRef is what verify reads of a resource of datapackage.json; the rest of it (its
// schema of any size) is skipped, not kept.
type resourceRef struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	Hash  string `json:"hash"`
}

// pkgFacts are what datapackage.json states that the dataset is derived from: the site URL
// (homepage), the API version, the years and the content's date (created).
type pkgFacts struct {
	Homepage string
	Version  string
	Created  string
	Years    []int
	// Problem says why the facts cannot be used, "" when they can.
	Problem string
}

// maxYears is the most years a datapackage.json may state: more than any calendar's range.
const maxYears = 1000

// eachResource decodes datapackage.json's resources one at a time, keeping none, and
// returns how many there are, and the package's facts. Its other members are skipped.
func eachResource(b []byte, facts *pkgFacts, fn func(*resourceRef)) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	delim := func(want json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok != want {
			return fmt.Errorf("%v where %v was expected", tok, want)
		}
		return nil
	}
	if err := delim('{'); err != nil {
		return 0, err
	}
	n := 0
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return n, err
		}
		if key != "resources" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return n, err
			}
			facts.take(key, raw)
			continue
		}
		if err := delim('['); err != nil {
			return n, fmt.Errorf("resources: %w", err)
		}
		for dec.More() {
			var r resourceRef
			if err := dec.Decode(&r); err != nil {
				return n, fmt.Errorf("resource %d: %w", n+1, err)
			}
			n++
			fn(&r)
		}
		if err := delim(']'); err != nil {
			return n, err
		}
	}
	if err := delim('}'); err != nil {
		return n, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return n, errors.New("more after the package's object")
	}
	return n, nil
}

// take keeps a member of the package that is one of its facts.
func (f *pkgFacts) take(key any, raw json.RawMessage) {
	var err error
	switch key {
	case "homepage":
		err = json.Unmarshal(raw, &f.Homepage)
	case "version":
		err = json.Unmarshal(raw, &f.Version)
	case "created":
		err = json.Unmarshal(raw, &f.Created)
	case "years":
		if bytes.Count(raw, []byte(",")) >= maxYears {
			err = fmt.Errorf("more than %d", maxYears)
		} else {
			err = json.Unmarshal(raw, &f.Years)
		}
	default:
		return
	}
	if err != nil && f.Problem == "" {
		f.Problem = fmt.Sprintf("%v: %v", key, err)
	}
}

// checkDataPackage checks every resource of datapackage.json that is a file of the archive
// against its bytes and hash, and returns the package's facts (nil when it has none). A
// resource whose path is a URL is a download of its own, not checked here.
func (c *archiveCheck) checkDataPackage() *pkgFacts {
	if c.pkg == nil {
		if i, ok := c.index[keyOf(DataPackageFile)]; !ok || !c.entries[i].broken {
			c.add(ProblemMissing, DataPackageFile, "the archive has no data package descriptor")
		}
		return nil
	}
	facts := &pkgFacts{}
	n, err := eachResource(c.pkg, facts, func(r *resourceRef) {
		if strings.Contains(r.Path, "://") {
			return
		}
		hexSum, found := strings.CutPrefix(r.Hash, HashPrefix)
		if !found || !isHex64([]byte(hexSum)) {
			c.add(ProblemInvalid, DataPackageFile, "resource %q: hash %q is not \"sha256:<64 hex>\"", r.Name, r.Hash)
			return
		}
		i, ok := c.index[keyOf(r.Path)]
		switch {
		case !ok && c.stopped:
			c.add(ProblemMissing, r.Path, "resource %q of %s, not among the entries read before reading stopped", r.Name, DataPackageFile)
			return
		case !ok:
			c.add(ProblemMissing, r.Path, "resource %q of %s is not in the archive", r.Name, DataPackageFile)
			return
		}
		got := &c.entries[i]
		var want [sha256.Size]byte
		hex.Decode(want[:], []byte(hexSum))
		if !got.broken && (got.size != r.Bytes || got.sum != want) {
			c.add(ProblemCorrupt, r.Path, "%d bytes sha256 %.6x…, %s says %d bytes sha256 %.12s…", got.size, got.sum, DataPackageFile, r.Bytes, hexSum)
		}
	})
	switch {
	case err != nil:
		c.add(ProblemInvalid, DataPackageFile, "not a data package: %v", err)
		return nil
	case n == 0:
		c.add(ProblemInvalid, DataPackageFile, "no resources")
	}
	return facts
}
