package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/pack"
)

// addressSpaceLimit is the RLIMIT_AS the memory tests run the command under: 2 GB.
const addressSpaceLimit = 2 << 30

// bombSize is what the bombs' SHA256SUMS or datapackage.json expands to: 3 GiB from ~3 MB.
const bombSize = 3 << 30

// runLimited runs the real numerology binary (the copy of the test binary testscript puts
// in PATH) as a child process under an address-space limit, and returns its exit code and
// combined output.
func runLimited(t *testing.T, limit int64, args ...string) (int, string) {
	t.Helper()
	bin, err := exec.LookPath("numerology")
	if err != nil {
		t.Fatalf("the numerology test command is not in PATH: %v", err)
	}
	script := `ulimit -v ` + strconv.FormatInt(limit>>10, 10) + ` && exec "$0" "$@"`
	out, err := exec.Command("/bin/sh", append([]string{"-c", script, bin}, args...)...).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("run %s: %v", bin, err)
	}
	return 0, string(out)
}

// TestVerifyArchiveBombUnderMemoryLimit runs verify --archive on archives of ~3 MB whose
// SHA256SUMS (.tar.gz) or datapackage.json (.zip) expands to 3 GiB, under a 2 GB
// address-space limit: each must end with exit 4, naming the entry as a problem of the
// archive. Before, the entry was buffered whole and the run died with "fatal error: out of
// memory".
func TestVerifyArchiveBombUnderMemoryLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, file, entry string
		write             func(file, entry string) error
	}{
		{"tar.gz with a 3 GiB SHA256SUMS", filepath.Join(dir, "bomb.tar.gz"), "SHA256SUMS", writeTarGzBomb},
		{"zip with a 3 GiB datapackage.json", filepath.Join(dir, "bomb.zip"), "datapackage.json", writeZipBomb},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.write(tt.file, "numerology-dataset-1.0/"+tt.entry); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(tt.file); err != nil || fi.Size() > 8<<20 {
				t.Fatalf("the bomb: %v, %d bytes", err, fi.Size())
			}
			code, out := runLimited(t, addressSpaceLimit, "verify", "--archive", tt.file)
			if code != exitVerify || !strings.Contains(out, "invalid: "+tt.entry+": larger than "+strconv.Itoa(pack.MaxKeptEntry>>20)+" MiB") {
				t.Fatalf("exit %d, want %d naming %s as too large; output:\n%.2000s", code, exitVerify, tt.entry, out)
			}
		})
	}
}

// zeroChunk is 1 MiB of zeros, the unit the bombs repeat.
var zeroChunk = make([]byte, 1<<20)

// writeTarGzBomb writes a .tar.gz whose entry holds bombSize zero bytes: gzip members may be
// concatenated, so one member of a compressed zero MiB is written bombSize>>20 times.
func writeTarGzBomb(file, entry string) error {
	var head bytes.Buffer
	tw := tar.NewWriter(&head)
	if err := tw.WriteHeader(&tar.Header{Name: entry, Typeflag: tar.TypeReg, Mode: 0o644, Size: bombSize}); err != nil {
		return err
	}
	tw.Flush() // the header only; the body follows as raw members
	var tail bytes.Buffer
	tail.Write(make([]byte, 1024)) // the end-of-archive blocks (the body is 512-aligned)
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk, err := gzipMember(zeroChunk)
	if err != nil {
		return err
	}
	first, err := gzipMember(head.Bytes())
	if err != nil {
		return err
	}
	last, err := gzipMember(tail.Bytes())
	if err != nil {
		return err
	}
	f.Write(first)
	for range bombSize >> 20 {
		if _, err := f.Write(chunk); err != nil {
			return err
		}
	}
	f.Write(last)
	return f.Close()
}

func gzipMember(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeZipBomb writes a .zip whose deflated entry holds bombSize zero bytes: a flushed
// deflate stream of one zero MiB refers only to itself, so it is repeated, then ended by an
// empty final block.
func writeZipBomb(file, entry string) error {
	var chunk bytes.Buffer
	fw, err := flate.NewWriter(&chunk, flate.BestCompression)
	if err != nil {
		return err
	}
	fw.Write(zeroChunk)
	if err := fw.Flush(); err != nil {
		return err
	}
	n := bombSize >> 20
	body := bytes.Repeat(chunk.Bytes(), n)
	body = append(body, 0x03, 0x00) // an empty final block with fixed codes
	crc := uint32(0)
	for range n {
		crc = crc32.Update(crc, crc32.IEEETable, zeroChunk)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	w, err := zw.CreateRaw(&zip.FileHeader{
		Name: entry, Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(body)), UncompressedSize64: bombSize,
	})
	if err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
