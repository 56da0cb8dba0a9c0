package pack

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/klauspost/pgzip"
)

// tarGzLevel is the gzip level of the .tar.gz: klauspost's level 8 makes a smaller file than
// gzip -6 (the JSON records repeat a lot across files) in less time.
const tarGzLevel = 8

// tarGzBlock is the block size of the parallel gzip writer. Each block is compressed on its
// own goroutine, primed with the 32 KiB before it; the boundaries depend on the input only,
// so the archive is the same bytes whatever the number of cores.
const tarGzBlock = 1 << 20

// newTarGz is the .tar.gz's gzip writer: klauspost/pgzip with a fixed header (no name, the
// archive's time, OS unknown). It replaced a hand-written parallel gzip of the same design,
// which was as reproducible but not faster (docs/dataset.md).
func newTarGz(out io.Writer, modTime time.Time) (*pgzip.Writer, error) {
	gz, err := pgzip.NewWriterLevel(out, tarGzLevel)
	if err != nil {
		return nil, err
	}
	gz.Header.ModTime = modTime
	gz.Header.OS = 255
	if err := gz.SetConcurrency(tarGzBlock, 2*runtime.GOMAXPROCS(0)); err != nil {
		return nil, err
	}
	return gz, nil
}

// archiveWriter writes the same sorted entries as a .tar.gz or a .zip, with fixed times,
// owners and modes, so that the bytes depend on the entries only.
type archiveWriter struct {
	top     string // top folder inside the archive
	modTime time.Time
	entries []*entry // sorted by name
	prog    *progress
}

// dirs calls fn for each directory of the archive, just before its first entry, and for
// each entry: the order of the sorted full paths.
func (w *archiveWriter) walk(ctx context.Context, dir func(name string) error, file func(e *entry) error) error {
	seen := map[string]bool{}
	if err := dir(w.top + "/"); err != nil {
		return err
	}
	for i, e := range w.entries {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		parts := strings.Split(e.name, "/")
		for j := 1; j < len(parts); j++ {
			d := strings.Join(parts[:j], "/")
			if !seen[d] {
				seen[d] = true
				if err := dir(w.top + "/" + d + "/"); err != nil {
					return err
				}
			}
		}
		if err := file(e); err != nil {
			return err
		}
		if i%256 == 255 {
			w.prog.add(256)
		}
	}
	return nil
}

func (w *archiveWriter) writeTarGz(ctx context.Context, out io.Writer) error {
	gz, err := newTarGz(out, w.modTime)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(gz, 1<<20)
	tw := tar.NewWriter(bw)
	hdr := func(name string, typ byte, mode, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Size: size, ModTime: w.modTime, Format: tar.FormatUSTAR}
	}
	err = w.walk(ctx,
		func(name string) error { return tw.WriteHeader(hdr(name, tar.TypeDir, 0o755, 0)) },
		func(e *entry) error {
			if err := tw.WriteHeader(hdr(w.top+"/"+e.name, tar.TypeReg, 0o644, int64(len(e.body)))); err != nil {
				return err
			}
			_, err := tw.Write(e.body)
			return err
		})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return gz.Close()
}

func (w *archiveWriter) writeZip(ctx context.Context, out io.Writer) error {
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
	err := w.walk(ctx,
		func(name string) error {
			h := header(name, os.ModeDir|0o755)
			h.Method = zip.Store
			_, err := zw.CreateRaw(h)
			return err
		},
		func(e *entry) error {
			h := header(w.top+"/"+e.name, 0o644)
			h.CRC32 = e.crc
			h.UncompressedSize64 = uint64(len(e.body))
			payload := e.body
			h.Method = zip.Store
			if e.deflated != nil {
				h.Method, payload = zip.Deflate, e.deflated
			}
			h.CompressedSize64 = uint64(len(payload))
			fw, err := zw.CreateRaw(h)
			if err != nil {
				return err
			}
			_, err = fw.Write(payload)
			return err
		})
	if err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// writeArchive writes an archive into a temporary file beside a.Path, which it returns, and
// fills in its size and sha256. The caller renames it into place.
func writeArchive(ctx context.Context, a *Archive, write func(context.Context, io.Writer) error) (tmp string, err error) {
	f, err := os.CreateTemp(filepath.Dir(a.Path), "."+a.Name+".tmp-")
	if err != nil {
		return "", &OutputError{fmt.Errorf("create %s: %w", a.Path, unwrapPath(err))}
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	if err := write(ctx, cw); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &OutputError{fmt.Errorf("write %s: %w", a.Path, err)}
	}
	if err := f.Chmod(0o644); err != nil {
		return "", &OutputError{fmt.Errorf("chmod %s: %w", a.Path, err)}
	}
	if err := f.Close(); err != nil {
		return "", &OutputError{fmt.Errorf("close %s: %w", a.Path, err)}
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
