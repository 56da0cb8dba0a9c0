package pack

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readZipDir lists a zip's entries with zipDir, reading each entry's bytes.
func readZipDir(t *testing.T, b []byte) []zipEntry {
	t.Helper()
	d, err := openZipDir(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []zipEntry
	more, err := d.each(MaxEntries, func(_ int, e *zipEntry) bool {
		out = append(out, *e)
		return true
	})
	if err != nil || more {
		t.Fatalf("more %v, err %v", more, err)
	}
	return out
}

// TestZipDirMatchesArchiveZip checks that zipDir reads the same entries as archive/zip: the
// fixture's zip, and one of 70,000 entries, whose end record is zip64.
func TestZipDirMatchesArchiveZip(t *testing.T) {
	fixtureZip, err := os.ReadFile(archivePath(Zip))
	if err != nil {
		t.Fatal(err)
	}
	var many bytes.Buffer
	zw := zip.NewWriter(&many)
	for i := range 70_000 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("top/%d.json", i), Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "{\"n\":%d}\n", i)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(many.Bytes()[many.Len()-100:], []byte("PK\x06\x06")) {
		t.Fatal("the 70,000-entry zip has no zip64 end record")
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{{"fixture", fixtureZip}, {"zip64 end", many.Bytes()}} {
		t.Run(tc.name, func(t *testing.T) {
			zr, err := zip.NewReader(bytes.NewReader(tc.b), int64(len(tc.b)))
			if err != nil {
				t.Fatal(err)
			}
			got := readZipDir(t, tc.b)
			if len(got) != len(zr.File) {
				t.Fatalf("%d entries, archive/zip reads %d", len(got), len(zr.File))
			}
			d, _ := openZipDir(bytes.NewReader(tc.b), int64(len(tc.b)))
			for i, zf := range zr.File {
				e := got[i]
				off, err := zf.DataOffset()
				if err != nil {
					t.Fatal(err)
				}
				_, data, end, err := d.span(&e)
				if e.name != zf.Name || e.mode != zf.Mode() || e.method != zf.Method || e.crc != zf.CRC32 ||
					e.csize != zf.CompressedSize64 || e.usize != zf.UncompressedSize64 || err != nil || data != off || end != off+int64(zf.CompressedSize64) {
					t.Fatalf("entry %d: %+v (data %d, end %d, %v), archive/zip: %s %v method %d crc %x sizes %d %d data %d",
						i, e, data, end, err, zf.Name, zf.Mode(), zf.Method, zf.CRC32, zf.CompressedSize64, zf.UncompressedSize64, off)
				}
				if i%97 != 0 || e.mode.IsDir() {
					continue
				}
				rc, err := d.open(&e, data)
				if err != nil {
					t.Fatal(err)
				}
				mine, err := io.ReadAll(rc)
				if err != nil {
					t.Fatalf("%s: %v", e.name, err)
				}
				theirs, _ := zf.Open()
				want, _ := io.ReadAll(theirs)
				if !bytes.Equal(mine, want) {
					t.Fatalf("%s: bytes differ from archive/zip's", e.name)
				}
			}
		})
	}
}

// TestZipDirZip64Extra checks the zip64 extra field: an entry declared over 4 GiB has its
// sizes there, and reading it stops at what it really holds.
func TestZipDirZip64Extra(t *testing.T) {
	body, crc, err := deflatedZerosMiB(1)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "top/large", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(body)), UncompressedSize64: 5 << 30})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	got := readZipDir(t, b.Bytes())
	if len(got) != 1 || got[0].usize != 5<<30 || got[0].csize != uint64(len(body)) {
		t.Fatalf("entries %+v, want one of 5 GiB from %d bytes", got, len(body))
	}
	d, _ := openZipDir(bytes.NewReader(b.Bytes()), int64(b.Len()))
	_, data, _, err := d.span(&got[0])
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := d.open(&got[0], data)
	if n, err := io.Copy(io.Discard, rc); err != io.ErrUnexpectedEOF || n != 1<<20 {
		t.Errorf("read %d bytes, %v; want 1 MiB and %v", n, err, io.ErrUnexpectedEOF)
	}
}

// deflatedZerosMiB returns a raw deflate stream of mib MiB of zeros, and their CRC-32.
func deflatedZerosMiB(mib int) ([]byte, uint32, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "z", Method: zip.Deflate})
	if err != nil {
		return nil, 0, err
	}
	zero := make([]byte, 1<<20)
	for range mib {
		w.Write(zero)
	}
	if err := zw.Close(); err != nil {
		return nil, 0, err
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, 0, err
	}
	off, err := zr.File[0].DataOffset()
	if err != nil {
		return nil, 0, err
	}
	return slices.Clone(buf.Bytes()[off : off+int64(zr.File[0].CompressedSize64)]), zr.File[0].CRC32, nil
}

// overlappingZip writes a zip of one deflated member of mib MiB of zeros, listed n times
// in the central directory under the names top/0 … top/n-1 (all of one length).
func overlappingZip(t *testing.T, mib, n int) string {
	t.Helper()
	body, crc, err := deflatedZerosMiB(mib)
	if err != nil {
		t.Fatal(err)
	}
	width := len(fmt.Sprint(n - 1))
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("top/%0*d", width, 0), Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(mib) << 20})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	raw := b.Bytes()
	cd, end := bytes.Index(raw, []byte("PK\x01\x02")), bytes.LastIndex(raw, []byte("PK\x05\x06"))
	rec := raw[cd:end]
	out := bytes.NewBuffer(slices.Clone(raw[:cd]))
	for i := range n {
		r := slices.Clone(rec)
		copy(r[zipDirRecLen+len("top/"):], fmt.Sprintf("%0*d", width, i))
		out.Write(r)
	}
	eocd := slices.Clone(raw[end:])
	binary.LittleEndian.PutUint16(eocd[8:], uint16(n))
	binary.LittleEndian.PutUint16(eocd[10:], uint16(n))
	binary.LittleEndian.PutUint32(eocd[12:], uint32(n*len(rec)))
	out.Write(eocd)
	file := filepath.Join(t.TempDir(), "overlap.zip")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestVerifyArchiveOverlappingZip checks that zip entries sharing their bytes are refused
// unread, each named, and that nothing is expanded. Before, each was inflated in full.
func TestVerifyArchiveOverlappingZip(t *testing.T) {
	file := overlappingZip(t, 16, 50)
	rep, err := VerifyArchive(t.Context(), file, nil)
	if err != nil {
		t.Fatal(err)
	}
	var overlaps int
	for _, p := range rep.Problems {
		if p.Kind == ProblemInvalid && strings.Contains(p.Detail, "overlap another entry's; not read") {
			overlaps++
		}
	}
	if overlaps != 50 || rep.Expanded != 0 || rep.Files != 0 {
		t.Errorf("%d entries refused as overlapping, %d bytes expanded, %d files read; want 50, 0, 0:\n%v", overlaps, rep.Expanded, rep.Files, rep.Problems)
	}
}
