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
	"golang.org/x/sync/errgroup"
)

// gzipLevel is the level of the JSON Lines' gzip: klauspost's level 7 makes smaller files
// than gzip -6 on these records in less time.
const gzipLevel = 7

// gzipBlock is the block size of the parallel gzip writer. Each block is compressed on its
// own goroutine, primed with the 32 KiB before it; the boundaries depend on the input only,
// so a download is the same bytes whatever the number of cores.
const gzipBlock = 1 << 20

// newGzip is the JSON Lines' gzip writer: klauspost/pgzip with a fixed header (no name, no
// time, OS unknown).
func newGzip(out io.Writer) (*pgzip.Writer, error) {
	gz, err := pgzip.NewWriterLevel(out, gzipLevel)
	if err != nil {
		return nil, err
	}
	gz.Header.OS = 255
	if err := gz.SetConcurrency(gzipBlock, 2*runtime.GOMAXPROCS(0)); err != nil {
		return nil, err
	}
	return gz, nil
}

// zipWriter writes the files of the zip as they come, under one top folder, each
// directory just before its first file, with fixed times and modes and no extra fields, so
// that the bytes depend on the files only. Each file is deflated alone, or stored when that
// is not smaller (the Parquet files are compressed already). Files are deflated on a
// goroutine of their own while the next is rendered, a bounded number ahead, and written
// in the order given.
type zipWriter struct {
	top     string
	modTime time.Time
}

// zipAhead is how many files are deflated ahead of the one being written.
const zipAhead = 2

// write writes the files emit gives, in its order, to out.
func (w *zipWriter) write(ctx context.Context, out *countWriter, emit func(put func(name string, body []byte) error) error) error {
	bw := bufio.NewWriterSize(out, 1<<20)
	zw := zip.NewWriter(bw)
	// MS-DOS time fields set directly: FileHeader.Modified would add an extra field.
	t := w.modTime
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
	if err := dir(w.top + "/"); err != nil {
		return err
	}
	type deflated struct {
		name          string
		body, payload []byte // payload nil: stored
		err           error
	}
	queue := make(chan chan deflated, zipAhead)
	eg, ectx := errgroup.WithContext(ctx)
	eg.Go(func() error {
		defer close(queue)
		return emit(func(name string, body []byte) error {
			ch := make(chan deflated, 1)
			select {
			case queue <- ch:
			case <-ectx.Done():
				return ectx.Err()
			}
			go func() {
				p, err := deflate(body)
				ch <- deflated{name, body, p, err}
			}()
			return nil
		})
	})
	eg.Go(func() error {
		for ch := range queue {
			f := <-ch
			if f.err != nil {
				return f.err
			}
			parts := strings.Split(f.name, "/")
			for j := 1; j < len(parts); j++ {
				d := strings.Join(parts[:j], "/")
				if !seen[d] {
					seen[d] = true
					if err := dir(w.top + "/" + d + "/"); err != nil {
						return err
					}
				}
			}
			h := header(w.top+"/"+f.name, 0o644)
			h.CRC32 = crc32.ChecksumIEEE(f.body)
			h.UncompressedSize64 = uint64(len(f.body))
			payload := f.body
			h.Method = zip.Store
			if f.payload != nil {
				h.Method, payload = zip.Deflate, f.payload
			}
			h.CompressedSize64 = uint64(len(payload))
			pw, err := zw.CreateRaw(h)
			if err != nil {
				return err
			}
			if _, err := pw.Write(payload); err != nil {
				return err
			}
		}
		return nil
	})
	if err := eg.Wait(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// zipLevel is the deflate level of the zip's files.
const zipLevel = 6

// deflate deflates a file, or returns nil when that does not make it smaller.
func deflate(body []byte) ([]byte, error) {
	var b bytes.Buffer
	fw, err := kflate.NewWriter(&b, zipLevel)
	if err != nil {
		return nil, err
	}
	fw.Write(body) // a bytes.Buffer does not fail
	fw.Close()
	if b.Len() < len(body) {
		return b.Bytes(), nil
	}
	return nil, nil
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
		if ctx.Err() != nil {
			return f.Name(), ctx.Err()
		}
		if _, ok := err.(*InputError); ok {
			return f.Name(), err
		}
		if _, ok := err.(*OutputError); ok {
			return f.Name(), err
		}
		return f.Name(), &OutputError{fmt.Errorf("write %s: %w", a.Path, err)}
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

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
