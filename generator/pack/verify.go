package pack

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	kgzip "github.com/klauspost/compress/gzip"

	"github.com/opennumerology/numerology/generator"
)

// Problem is one thing wrong with an archive, of the kinds generator.Verify reports
// (generator.ProblemMissing, …); Path is below the top folder.
type Problem = generator.VerifyProblem

// The problem kinds, as in generator.Verify.
const (
	ProblemMissing = generator.ProblemMissing // listed in SHA256SUMS or datapackage.json but absent
	ProblemExtra   = generator.ProblemExtra   // in the archive but not listed in SHA256SUMS
	ProblemCorrupt = generator.ProblemCorrupt // unreadable, or its sha256 or size differ from the listing
	ProblemInvalid = generator.ProblemInvalid // a listing or an entry that breaks the archive's rules
)

// ArchiveReport is what VerifyArchive found.
type ArchiveReport struct {
	Format   string // TarGz or Zip
	Top      string // the top folder
	Files    int    // regular files read
	Problems []Problem
}

// ErrNotArchive is returned for a file that is neither a gzip'd tar nor a zip.
var ErrNotArchive = errors.New("not a .tar.gz or .zip archive")

type archFile struct {
	size int64
	sum  string
}

type archiveCheck struct {
	rep      *ArchiveReport
	files    map[string]archFile
	keep     map[string][]byte // SHA256SUMS and datapackage.json
	broken   map[string]bool   // files already reported as unreadable
	progress func(done, total int)
	total    int
}

func (c *archiveCheck) add(kind, p, format string, args ...any) {
	c.rep.Problems = append(c.rep.Problems, Problem{Kind: kind, Path: p, Detail: fmt.Sprintf(format, args...)})
}

// VerifyArchive checks a dataset archive (.tar.gz or .zip, told apart by content): every
// file against SHA256SUMS (missing, extra or different files), and every resource of
// datapackage.json against its bytes and hash. The error is for a file that cannot be
// read as an archive at all.
func VerifyArchive(ctx context.Context, file string, onProgress func(done, total int)) (*ArchiveReport, error) {
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
	c := &archiveCheck{rep: &ArchiveReport{}, files: map[string]archFile{}, keep: map[string][]byte{}, broken: map[string]bool{}, progress: onProgress}
	switch {
	case magic[0] == 0x1f && magic[1] == 0x8b:
		c.rep.Format = TarGz
		err = c.readTarGz(ctx, f)
	case string(magic[:]) == "PK\x03\x04":
		c.rep.Format = Zip
		err = c.readZip(ctx, f)
	default:
		return nil, fmt.Errorf("%s: %w", file, ErrNotArchive)
	}
	if err != nil {
		return nil, err
	}
	if onProgress != nil {
		onProgress(c.rep.Files, max(c.total, c.rep.Files))
	}
	c.checkSums()
	c.checkDataPackage()
	slices.SortFunc(c.rep.Problems, func(a, b Problem) int {
		if x := strings.Compare(a.Path, b.Path); x != 0 {
			return x
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return c.rep, nil
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

// Bounds on what VerifyArchive holds in memory, whatever the archive claims or expands to.
const (
	// MaxKeptEntry is the largest SHA256SUMS or datapackage.json read into memory; a larger
	// one is a problem of the archive; it holds the SHA256SUMS lines of MaxEntries files.
	MaxKeptEntry = 64 << 20
	// MaxEntries is the most entries checked, with room for more date routes than the
	// full dataset has.
	MaxEntries = 1 << 19
	// MaxEntryName is the longest entry name accepted; the dataset's are under 100 bytes.
	MaxEntryName = 1024
)

// file records a regular file's size and sha256, read from r. SHA256SUMS and
// datapackage.json are also kept, up to MaxKeptEntry bytes.
func (c *archiveCheck) file(rel string, r io.Reader) error {
	h := sha256.New()
	var keep *bytes.Buffer
	w := io.Writer(h)
	if rel == SumsFile || rel == DataPackageFile {
		keep = &bytes.Buffer{}
		w = io.MultiWriter(h, keep)
		r = io.LimitReader(r, MaxKeptEntry+1)
	}
	n, err := io.Copy(w, r)
	if err != nil {
		return err
	}
	if n > MaxKeptEntry {
		// Not read further: an archive whose listing expands to gigabytes is a bomb, not a dataset.
		c.add(ProblemInvalid, rel, "larger than %d MiB, which no dataset's %s is; not read", MaxKeptEntry>>20, rel)
		c.broken[rel] = true
		return nil
	}
	if _, dup := c.files[rel]; dup {
		c.add(ProblemInvalid, rel, "appears more than once in the archive")
	}
	c.files[rel] = archFile{n, hex.EncodeToString(h.Sum(nil))}
	if keep != nil {
		c.keep[rel] = keep.Bytes()
		if rel == SumsFile {
			c.total = bytes.Count(keep.Bytes(), []byte("\n")) + 1
		}
	}
	c.rep.Files++
	if c.progress != nil && c.rep.Files%1000 == 0 {
		c.progress(c.rep.Files, max(c.total, c.rep.Files))
	}
	return nil
}

func (c *archiveCheck) readTarGz(ctx context.Context, f *os.File) error {
	gz, err := kgzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name(), ErrNotArchive)
	}
	tr := tar.NewReader(gz)
	last := "(start of the archive)"
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil && n == MaxEntries {
			c.add(ProblemInvalid, last, "the archive has more than %d entries; the rest is not checked", MaxEntries)
			return nil
		}
		if err != nil {
			// The stream is broken: nothing after this point can be read.
			c.add(ProblemCorrupt, last, "the archive cannot be read after this entry: %v", err)
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
		if err := c.file(rel, tr); err != nil {
			c.add(ProblemCorrupt, rel, "cannot be read: %v", err)
			c.broken[rel] = true
			return nil
		}
	}
}

func (c *archiveCheck) readZip(ctx context.Context, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return fmt.Errorf("%s: %w: %v", f.Name(), ErrNotArchive, err)
	}
	files := zr.File
	if len(files) > MaxEntries {
		c.add(ProblemInvalid, "(the archive)", "%d entries, more than %d; only the first %d are checked", len(files), MaxEntries, MaxEntries)
		files = files[:MaxEntries]
	}
	c.total = len(files)
	for i, zf := range files {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rel, ok := c.name(zf.Name)
		if !ok {
			continue
		}
		switch {
		case zf.Mode().IsDir():
			continue
		case !zf.Mode().IsRegular():
			c.add(ProblemInvalid, rel, "not a regular file or directory")
			continue
		}
		err := func() error {
			r, err := zf.Open()
			if err != nil {
				return err
			}
			defer r.Close()
			return c.file(rel, r)
		}()
		if err != nil {
			c.add(ProblemCorrupt, rel, "cannot be read: %v", err)
			c.broken[rel] = true
		}
	}
	return nil
}

// ParseSums parses SHA256SUMS: lines "<64 hex>  <path>". It returns the sums by path and a
// description of each malformed line.
func ParseSums(b []byte) (map[string]string, []string) {
	sums := map[string]string{}
	var bad []string
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || !isHex64(sum) || name == "" {
			bad = append(bad, "line "+strconv.Itoa(i+1)+": not \"<sha256 hex>  <path>\"")
			continue
		}
		sums[name] = sum
	}
	return sums, bad
}

func isHex64(s string) bool {
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

func (c *archiveCheck) checkSums() {
	b, ok := c.keep[SumsFile]
	if !ok {
		if !c.broken[SumsFile] {
			c.add(ProblemMissing, SumsFile, "the archive has no checksum list")
		}
		return
	}
	sums, bad := ParseSums(b)
	for _, msg := range bad {
		c.add(ProblemInvalid, SumsFile, "%s", msg)
	}
	for name, want := range sums {
		got, ok := c.files[name]
		switch {
		case c.broken[name]:
		case !ok:
			c.add(ProblemMissing, name, "listed in %s but not in the archive", SumsFile)
		case got.sum != want:
			c.add(ProblemCorrupt, name, "sha256 %.12s…, %s says %.12s…", got.sum, SumsFile, want)
		}
	}
	for name := range c.files {
		if _, ok := sums[name]; !ok && name != SumsFile {
			c.add(ProblemExtra, name, "not listed in %s", SumsFile)
		}
	}
}

func (c *archiveCheck) checkDataPackage() {
	b, ok := c.keep[DataPackageFile]
	if !ok {
		if !c.broken[DataPackageFile] {
			c.add(ProblemMissing, DataPackageFile, "the archive has no data package descriptor")
		}
		return
	}
	var pkg DataPackage
	if err := json.Unmarshal(b, &pkg); err != nil {
		c.add(ProblemInvalid, DataPackageFile, "not a data package: %v", err)
		return
	}
	if len(pkg.Resources) == 0 {
		c.add(ProblemInvalid, DataPackageFile, "no resources")
	}
	for _, r := range pkg.Resources {
		want, found := strings.CutPrefix(r.Hash, HashPrefix)
		if !found || !isHex64(want) {
			c.add(ProblemInvalid, DataPackageFile, "resource %q: hash %q is not \"sha256:<64 hex>\"", r.Name, r.Hash)
			continue
		}
		got, ok := c.files[r.Path]
		switch {
		case c.broken[r.Path]:
		case !ok:
			c.add(ProblemMissing, r.Path, "resource %q of %s is not in the archive", r.Name, DataPackageFile)
		case got.size != r.Bytes || got.sum != want:
			c.add(ProblemCorrupt, r.Path, "%d bytes sha256 %.12s…, %s says %d bytes sha256 %.12s…", got.size, got.sum, DataPackageFile, r.Bytes, want)
		}
	}
}
