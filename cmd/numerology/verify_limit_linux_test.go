package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/opennumerology/numerology/generator/pack"
	"github.com/opennumerology/numerology/internal/humanize"
	"github.com/opennumerology/numerology/internal/testsupport"
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
	return runLimitedEnv(t.Context(), t, limit, nil, args...)
}

// runLimitedEnv is runLimited with a context that kills the child when done, and env
// added to the child's environment.
func runLimitedEnv(ctx context.Context, t *testing.T, limit int64, env []string, args ...string) (int, string) {
	t.Helper()
	bin, err := exec.LookPath("numerology")
	if err != nil {
		t.Fatalf("the numerology test command is not in PATH: %v", err)
	}
	script := `ulimit -v ` + strconv.FormatInt(limit>>10, 10) + ` && exec "$0" "$@"`
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, bin}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
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

// writeZipBomb writes a .zip whose deflated entry holds bombSize zero bytes.
func writeZipBomb(file, entry string) error {
	body, crc, err := deflatedZeros(bombSize >> 20)
	if err != nil {
		return err
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

// writeTarGz writes a .tar.gz of n regular files, entry(i) giving the i-th name (below the
// dataset's top folder) and body, compressed at the fastest level.
func writeTarGz(file string, n int, entry func(i int) (string, []byte)) error {
	return writeTarGzWith(file, func(w io.Writer) error {
		tw := tar.NewWriter(w)
		for i := range n {
			name, body := entry(i)
			if err := addTarEntry(tw, name, body); err != nil {
				return err
			}
		}
		return tw.Close()
	})
}

// writeNumberedTarGz writes what writeTarGz writes for n entries when entry(0) is first's and
// entry(i), i ≥ 1, is an empty file named prefix and the eight digits of i. It asks
// archive/tar for one such entry and copies its bytes with the digits changed: tar quotes
// every long name while it chooses a header format, which made 524,288 names of 1,000 bytes
// 13 s of writing. The digits must fall outside the entry's header blocks (in its PAX
// record, as a long name's do), so that no checksum changes; TestWriteNumberedTarGz checks
// the bytes against archive/tar's own.
func writeNumberedTarGz(file string, n int, first func() (string, []byte), prefix string) error {
	const mark = "########"
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if err := tw.WriteHeader(tarHeader(prefix+mark, nil)); err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	template := b.Bytes()
	var at []int // the offsets of the digits in template
	for off := 0; ; {
		i := bytes.Index(template[off:], []byte(mark))
		if i < 0 {
			break
		}
		if off += i; off < 512 || off >= len(template)-512 {
			return fmt.Errorf("the digits of %q fall in a header block: use writeTarGz", prefix)
		}
		at = append(at, off)
		off += len(mark)
	}
	return writeTarGzWith(file, func(w io.Writer) error {
		tw := tar.NewWriter(w)
		name, body := first()
		if err := addTarEntry(tw, name, body); err != nil {
			return err
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		entry := slices.Clone(template)
		for i := 1; i < n; i++ {
			digits := fmt.Appendf(nil, "%08d", i)
			for _, o := range at {
				copy(entry[o:], digits)
			}
			if _, err := w.Write(entry); err != nil {
				return err
			}
		}
		return tw.Close() // the two zero blocks that end the archive
	})
}

// tarHeader is the header writeTarGz gives a regular file of the dataset's top folder.
func tarHeader(name string, body []byte) *tar.Header {
	return &tar.Header{Name: "numerology-dataset-1.0/" + name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}
}

// addTarEntry writes a regular file of the dataset's top folder to tw.
func addTarEntry(tw *tar.Writer, name string, body []byte) error {
	if err := tw.WriteHeader(tarHeader(name, body)); err != nil {
		return err
	}
	_, err := tw.Write(body)
	return err
}

// writeTarGzWith writes file as the gzip, at the fastest level, of what write writes.
func writeTarGzWith(file string, write func(io.Writer) error) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	gw, err := kgzip.NewWriterLevel(bw, kgzip.BestSpeed)
	if err != nil {
		return err
	}
	if err := write(gw); err != nil {
		return err
	}
	if err := gw.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// TestWriteNumberedTarGz checks that writeNumberedTarGz writes the bytes archive/tar writes
// for the same entries, for the long names of the test below and for short ones (whose digits
// fall in a header block, which it must refuse).
func TestWriteNumberedTarGz(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := func() (string, []byte) { return "SHA256SUMS", []byte("a listing\n") }
	long := strings.Repeat("x", 969)
	const n = 1203
	a, b := filepath.Join(dir, "a.tar.gz"), filepath.Join(dir, "b.tar.gz")
	if err := writeNumberedTarGz(a, n, first, long); err != nil {
		t.Fatal(err)
	}
	if err := writeTarGz(b, n, func(i int) (string, []byte) {
		if i == 0 {
			return first()
		}
		return fmt.Sprintf("%s%08d", long, i), nil
	}); err != nil {
		t.Fatal(err)
	}
	if ga, gb := gunzipFile(t, a), gunzipFile(t, b); !bytes.Equal(ga, gb) {
		t.Fatalf("writeNumberedTarGz wrote %d bytes, archive/tar %d, and they differ", len(ga), len(gb))
	}
	if err := writeNumberedTarGz(filepath.Join(dir, "c.tar.gz"), n, first, "short-"); err == nil {
		t.Error("short names, whose digits are in the header: no error")
	}
}

// gunzipFile returns the decompressed bytes of a gzip file.
func gunzipFile(t *testing.T, file string) []byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyArchiveListingsUnderMemoryLimit runs verify --archive under a 2 GB
// address-space limit on archives whose listings are within the bounds but hold what each
// line or resource used to multiply about 300 times: each must end with exit 4, the first
// problems printed and the rest counted. Before, each died with "fatal error: out of memory".
func TestVerifyArchiveListingsUnderMemoryLimit(t *testing.T) {
	t.Parallel()
	testsupport.SkipShort(t, "writes archives that expand to a GB and runs verify on each under a memory limit")
	dir := t.TempDir()
	long := strings.Repeat("x", 1000-len("numerology-dataset-1.0/")-8) // with an 8-digit number: 1,000-byte names
	listing := func() (string, []byte) { return "SHA256SUMS", []byte(strings.Repeat("0", 64) + "  datapackage.json\n") }
	tests := []struct {
		name  string
		write func(file string) error
		want  string // a problem the output starts with
	}{
		{"SHA256SUMS of 64 MiB of newlines", func(file string) error {
			return writeTarGz(file, 1, func(int) (string, []byte) {
				return "SHA256SUMS", bytes.Repeat([]byte("\n"), pack.MaxKeptEntry)
			})
		}, "invalid: SHA256SUMS: line 1: not"},
		{"datapackage.json of 5 million resources", func(file string) error {
			return writeTarGz(file, 2, func(i int) (string, []byte) {
				if i == 0 {
					return listing()
				}
				return "datapackage.json", []byte(`{"resources":[{}` + strings.Repeat(",{}", 5_000_000-1) + "]}")
			})
		}, "invalid: datapackage.json: resource \"\": hash"},
		{"524,288 entries with 1,000-byte names", func(file string) error {
			return writeNumberedTarGz(file, pack.MaxEntries, listing, long)
		}, "extra: " + long + "00000001: not listed in SHA256SUMS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".tar.gz")
			if err := tt.write(file); err != nil {
				t.Fatal(err)
			}
			code, out := runLimited(t, addressSpaceLimit, "verify", "--archive", file)
			if code != exitVerify || !strings.Contains(out, tt.want) || !moreProblems.MatchString(out) {
				t.Fatalf("exit %d, want %d with %q and the problems over 100 counted; output:\n%.3000s", code, exitVerify, tt.want, out)
			}
			if n := strings.Count(out, "\n"); n > 110 {
				t.Errorf("%d lines of output, want the first 100 problems and a count", n)
			}
		})
	}
}

// moreProblems is the line verify ends a long list of problems with.
var moreProblems = regexp.MustCompile(`(?m)^… and [0-9,]+ more problems`)

// TestVerifyArchiveZipDirectoryUnderMemoryLimit runs verify --archive under a 2 GB
// address-space limit on a 564 MB zip whose central directory lists 12 million entries, all
// pointing at one local entry: it must end with exit 4, naming the overlapping entries and
// the count over the bound. Before, archive/zip's Reader held every header (186 bytes each)
// and the run died with "fatal error: out of memory".
func TestVerifyArchiveZipDirectoryUnderMemoryLimit(t *testing.T) {
	t.Parallel()
	testsupport.SkipShort(t, "writes a 564 MB zip and runs verify on it under a memory limit")
	file := filepath.Join(t.TempDir(), "directory.zip")
	if err := writeZipDirectory(file, 12_000_000); err != nil {
		t.Fatal(err)
	}
	code, out := runLimited(t, addressSpaceLimit, "verify", "--archive", file)
	if code != exitVerify || !strings.Contains(out, "more than "+humanize.Count(pack.MaxEntries)+" entries") || !moreProblems.MatchString(out) {
		t.Fatalf("exit %d, want %d naming the entries over the bound; output:\n%.3000s", code, exitVerify, out)
	}
}

// writeZipDirectory writes a zip of one stored entry whose central directory repeats that
// entry's record n times.
func writeZipDirectory(file string, n int) error {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "numerology-dataset-1.0/a", Method: zip.Store})
	if err != nil {
		return err
	}
	w.Write([]byte("a\n"))
	if err := zw.Close(); err != nil {
		return err
	}
	raw := b.Bytes()
	cd, end := bytes.Index(raw, []byte("PK\x01\x02")), bytes.LastIndex(raw, []byte("PK\x05\x06"))
	rec := raw[cd:end]
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.Write(raw[:cd])
	for range n {
		bw.Write(rec)
	}
	eocd := slices.Clone(raw[end:])
	binary.LittleEndian.PutUint16(eocd[8:], uint16(n)) // the count modulo 65,536, as zip tools write it
	binary.LittleEndian.PutUint16(eocd[10:], uint16(n))
	binary.LittleEndian.PutUint32(eocd[12:], uint32(n*len(rec)))
	bw.Write(eocd)
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// TestVerifyArchiveExpansionBounded runs verify --archive on archives that expand far past
// any dataset: a 200 KB zip whose 1,000 central-directory entries all point at one deflated
// 100 MiB member (97 GiB if each were inflated), and a .tar.gz of three 1 GiB entries. Each
// must end with exit 4 within a minute, saying what was refused or where reading stopped.
// Before, the zip kept verify inflating for hours.
func TestVerifyArchiveExpansionBounded(t *testing.T) {
	t.Parallel()
	testsupport.SkipShort(t, "expands archives to the verify's budget under a memory limit")
	dir := t.TempDir()
	tests := []struct {
		name  string
		file  string
		write func(file string) error
		want  string
	}{
		{"zip of 1,000 entries on one member", filepath.Join(dir, "overlap.zip"), writeOverlappingZip, "overlap"},
		{"tar.gz of 3 GiB", filepath.Join(dir, "large.tar.gz"), func(file string) error {
			return writeLargeTarGz(file, 3)
		}, "expands to more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.write(tt.file); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(tt.file); err != nil || fi.Size() > 8<<20 {
				t.Fatalf("the archive: %v, %d bytes", err, fi.Size())
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			code, out := runLimitedEnv(ctx, t, addressSpaceLimit, nil, "verify", "--archive", tt.file)
			if ctx.Err() != nil {
				t.Fatalf("verify still running after a minute; output:\n%.2000s", out)
			}
			if code != exitVerify || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want %d with %q; output:\n%.3000s", code, exitVerify, tt.want, out)
			}
		})
	}
}

// deflatedZeros returns a raw deflate stream of mib MiB of zeros and their CRC-32: a
// flushed deflate block of one zero MiB refers only to itself, so it is repeated, then
// ended by an empty final block.
func deflatedZeros(mib int) ([]byte, uint32, error) {
	var chunk bytes.Buffer
	fw, err := flate.NewWriter(&chunk, flate.BestCompression)
	if err != nil {
		return nil, 0, err
	}
	fw.Write(zeroChunk)
	if err := fw.Flush(); err != nil {
		return nil, 0, err
	}
	body := bytes.Repeat(chunk.Bytes(), mib)
	body = append(body, 0x03, 0x00)
	crc := uint32(0)
	for range mib {
		crc = crc32.Update(crc, crc32.IEEETable, zeroChunk)
	}
	return body, crc, nil
}

// writeOverlappingZip writes a zip of one deflated member of 100 MiB of zeros whose central
// directory lists it 1,000 times, under 1,000 names.
func writeOverlappingZip(file string) error {
	body, crc, err := deflatedZeros(100)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "numerology-dataset-1.0/0000", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(body)), UncompressedSize64: 100 << 20})
	if err != nil {
		return err
	}
	w.Write(body)
	if err := zw.Close(); err != nil {
		return err
	}
	raw := b.Bytes()
	cd, end := bytes.Index(raw, []byte("PK\x01\x02")), bytes.LastIndex(raw, []byte("PK\x05\x06"))
	rec := raw[cd:end]
	out := bytes.NewBuffer(slices.Clone(raw[:cd]))
	for i := range 1000 {
		r := slices.Clone(rec)
		copy(r[46+len("numerology-dataset-1.0/"):], fmt.Sprintf("%04d", i)) // the name, same length
		out.Write(r)
	}
	eocd := slices.Clone(raw[end:])
	binary.LittleEndian.PutUint16(eocd[8:], 1000)
	binary.LittleEndian.PutUint16(eocd[10:], 1000)
	binary.LittleEndian.PutUint32(eocd[12:], uint32(1000*len(rec)))
	out.Write(eocd)
	return os.WriteFile(file, out.Bytes(), 0o644)
}

// writeLargeTarGz writes a .tar.gz of n entries of 1 GiB of zeros each, as concatenated gzip
// members of a compressed zero MiB.
func writeLargeTarGz(file string, n int) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk, err := gzipMember(zeroChunk)
	if err != nil {
		return err
	}
	for i := range n {
		var head bytes.Buffer
		tw := tar.NewWriter(&head)
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("numerology-dataset-1.0/%d.json", i), Typeflag: tar.TypeReg, Mode: 0o644, Size: 1 << 30}); err != nil {
			return err
		}
		tw.Flush()
		member, err := gzipMember(head.Bytes())
		if err != nil {
			return err
		}
		f.Write(member)
		for range 1 << 10 {
			if _, err := f.Write(chunk); err != nil {
				return err
			}
		}
	}
	last, err := gzipMember(make([]byte, 1024))
	if err != nil {
		return err
	}
	f.Write(last)
	return f.Close()
}
