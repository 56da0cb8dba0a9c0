package pack

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	kflate "github.com/klauspost/compress/flate"
	"github.com/klauspost/pgzip"
)

// gzipLevel is the level of the JSON Lines' gzip: klauspost's level 6, its fast matcher,
// rather than 7, its lazy one: far less CPU for the largest step of pack, and files of
// about the same size in all (the runs: issue 31's report).
const gzipLevel = 6

// gzipBlock is the block size of the parallel gzip writer. Each block is compressed on its
// own goroutine, primed with the 32 KiB before it; the boundaries depend on the input only,
// so a download is the same bytes whatever the number of cores.
const gzipBlock = 1 << 20

// gzipBlocks is the most blocks compressed at once, two a core up to it: each holds its
// input, its output and a compressor, and pack's memory is not to grow with the cores.
const gzipBlocks = 8

// newGzip is the JSON Lines' gzip writer: klauspost/pgzip with a fixed header (no name, no
// time, OS unknown).
func newGzip(out io.Writer) (*pgzip.Writer, error) {
	gz, err := pgzip.NewWriterLevel(out, gzipLevel)
	if err != nil {
		return nil, err
	}
	gz.Header.OS = 255
	if err := gz.SetConcurrency(gzipBlock, min(2*runtime.GOMAXPROCS(0), gzipBlocks)); err != nil {
		return nil, err
	}
	return gz, nil
}

// part is a file of the zip before the documents: its name, what it waits for, and the
// function that writes its bytes (the same bytes on every call).
type part struct {
	name string
	// ready, when set, returns once what the file is made of is filled.
	ready func(context.Context) error
	write func(ctx context.Context, w io.Writer) error
}

// bytesPart is a part whose bytes are body.
func bytesPart(name string, body []byte) part {
	return part{name: name, write: func(_ context.Context, w io.Writer) error {
		_, err := w.Write(body)
		return err
	}}
}

// entry is a file of the zip as it is written: deflated, or stored when deflating does not
// make it smaller (the Parquet files are compressed already), with what its header, its
// entry in SHA256SUMS and datapackage.json need.
type entry struct {
	listed
	crc      uint32
	deflated bool
	data     []byte // the deflated bytes, or the file's own when stored
}

// zipLevel is the deflate level of the zip's files.
const zipLevel = 6

// compressor deflates the parts of the zip, one at a time, reusing its deflater and its
// buffers.
type compressor struct {
	fw  *kflate.Writer
	buf *bufio.Writer
	out bytes.Buffer // the deflated bytes of the part being compressed
}

func newCompressor() *compressor {
	fw, err := kflate.NewWriter(nil, zipLevel)
	if err != nil {
		panic(err) // zipLevel is a valid level
	}
	return &compressor{fw: fw, buf: bufio.NewWriterSize(nil, 64<<10)}
}

// compress writes a part through the deflater, its CRC-32 and its SHA-256, holding only
// the deflated bytes; when they are not fewer than the file's, it writes the part again to
// store it.
func (c *compressor) compress(ctx context.Context, p part) (entry, error) {
	c.out.Reset()
	c.fw.Reset(&c.out)
	h, crc := sha256.New(), crc32.NewIEEE()
	n := &countWriter{w: io.MultiWriter(c.fw, h, crc)}
	c.buf.Reset(n)
	if err := p.write(ctx, c.buf); err != nil {
		return entry{}, err
	}
	if err := c.buf.Flush(); err != nil {
		return entry{}, err
	}
	if err := c.fw.Close(); err != nil {
		return entry{}, err
	}
	e := entry{listed: listed{name: p.name, size: n.n}, crc: crc.Sum32(), deflated: true}
	copy(e.sum[:], h.Sum(nil))
	if int64(c.out.Len()) < n.n {
		e.data = bytes.Clone(c.out.Bytes())
		return e, nil
	}
	var raw bytes.Buffer
	raw.Grow(int(n.n))
	if err := p.write(ctx, &raw); err != nil {
		return entry{}, err
	}
	if int64(raw.Len()) != n.n || sha256.Sum256(raw.Bytes()) != e.sum {
		return entry{}, fmt.Errorf("%s: its bytes changed from one writing to the next", p.name)
	}
	e.deflated, e.data = false, raw.Bytes()
	return e, nil
}

// writeZip writes the zip of the entries, in their order, under one top folder, each
// directory just before its first file, with fixed times and modes and no extra fields, so
// that the bytes depend on the files only.
func writeZip(out io.Writer, top string, modTime time.Time, entries []entry) error {
	zw := zip.NewWriter(out)
	// MS-DOS time fields set directly: FileHeader.Modified would add an extra field.
	t := modTime.UTC()
	date := uint16((t.Year()-1980)<<9 | int(t.Month())<<5 | t.Day())
	clock := uint16(t.Hour()<<11 | t.Minute()<<5 | t.Second()/2)
	header := func(name string, mode os.FileMode) *zip.FileHeader {
		//lint:ignore SA1019 the MS-DOS fields on purpose: Modified would add an extended-time field
		h := &zip.FileHeader{Name: name, ModifiedDate: date, ModifiedTime: clock}
		h.SetMode(mode)
		return h
	}
	seen := map[string]bool{}
	dir := func(name string) error {
		h := header(name, os.ModeDir|0o755)
		h.Method = zip.Store
		_, err := zw.CreateRaw(h)
		return err
	}
	if err := dir(top + "/"); err != nil {
		return err
	}
	for _, e := range entries {
		parts := strings.Split(e.name, "/")
		for j := 1; j < len(parts); j++ {
			d := strings.Join(parts[:j], "/")
			if !seen[d] {
				seen[d] = true
				if err := dir(top + "/" + d + "/"); err != nil {
					return err
				}
			}
		}
		h := header(top+"/"+e.name, 0o644)
		h.CRC32 = e.crc
		h.UncompressedSize64 = uint64(e.size)
		h.Method = zip.Store
		if e.deflated {
			h.Method = zip.Deflate
		}
		h.CompressedSize64 = uint64(len(e.data))
		w, err := zw.CreateRaw(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(e.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeArchive writes a download into a temporary file beside a.Path, which it returns
// (also on an error, for the caller to remove), and fills in its size and sha256. The
// caller renames it into place.
func writeArchive(ctx context.Context, a *Archive, write func(context.Context, *countWriter) error) (tmp string, err error) {
	f, err := os.CreateTemp(filepath.Dir(a.Path), "."+a.Name+".tmp-")
	if err != nil {
		return "", &OutputError{fmt.Errorf("create %s: %w", a.Path, unwrapPath(err))}
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	cw := &countWriter{w: bw}
	if err := write(ctx, cw); err != nil {
		return f.Name(), writeError(ctx, a.Path, err)
	}
	if err := bw.Flush(); err != nil {
		return f.Name(), &OutputError{fmt.Errorf("write %s: %w", a.Path, err)}
	}
	if err := f.Chmod(0o644); err != nil {
		return f.Name(), &OutputError{fmt.Errorf("chmod %s: %w", a.Path, err)}
	}
	if err := f.Close(); err != nil {
		return f.Name(), &OutputError{fmt.Errorf("close %s: %w", a.Path, err)}
	}
	a.Size, a.SHA256 = cw.n, hex.EncodeToString(h.Sum(nil))
	return f.Name(), nil
}

// writeError classifies an error met writing path: the context's when it is done, an
// InputError or OutputError as it is, any other an OutputError naming path.
func writeError(ctx context.Context, path string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch err.(type) {
	case *InputError, *OutputError:
		return err
	}
	return &OutputError{fmt.Errorf("write %s: %w", path, err)}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
