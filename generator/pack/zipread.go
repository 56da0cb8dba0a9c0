package pack

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"

	"github.com/klauspost/compress/flate"
)

// zipDir reads a zip's central directory one record at a time. archive/zip's Reader keeps
// every header in memory (about 186 bytes and the name each, whatever the count), so a
// directory of millions of records exhausted memory before verify could refuse it.
type zipDir struct {
	r       io.ReaderAt
	size    int64 // of the file
	off     int64 // of the central directory
	len     int64 // of the central directory
	records uint64
}

// zipEntry is one record of the central directory.
type zipEntry struct {
	name   string
	mode   fs.FileMode
	method uint16
	crc    uint32
	csize  uint64 // compressed
	usize  uint64 // uncompressed
	offset int64  // of the local header
}

const (
	zipEndLen      = 22 // end of central directory record, without its comment
	zip64LocLen    = 20
	zip64EndLen    = 56
	zipDirRecLen   = 46
	zipLocalLen    = 30
	zipMaxComment  = 1<<16 - 1
	zip64ExtraID   = 0x0001
	zipStoreMethod = 0
	zipDeflate     = 8
)

var errZipFormat = errors.New("not a valid zip file")

// openZipDir finds the end of the central directory (zip64 too) and checks that the
// directory lies inside the file.
func openZipDir(r io.ReaderAt, size int64) (*zipDir, error) {
	n := min(size, zipEndLen+zipMaxComment)
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return nil, err
	}
	i := len(buf) - zipEndLen
	for ; i >= 0; i-- {
		if string(buf[i:i+4]) == "PK\x05\x06" && i+zipEndLen+int(binary.LittleEndian.Uint16(buf[i+20:])) <= len(buf) {
			break
		}
	}
	if i < 0 {
		return nil, fmt.Errorf("%w: no end of central directory", errZipFormat)
	}
	end := buf[i:]
	d := &zipDir{r: r, size: size,
		records: uint64(binary.LittleEndian.Uint16(end[10:])),
		len:     int64(binary.LittleEndian.Uint32(end[12:])),
		off:     int64(binary.LittleEndian.Uint32(end[16:])),
	}
	if d.records == 0xffff || d.len == 0xffffffff || d.off == 0xffffffff {
		if err := d.readZip64End(size - n + int64(i)); err != nil {
			return nil, err
		}
	}
	if d.off < 0 || d.len < 0 || d.off > size || d.len > size-d.off {
		return nil, fmt.Errorf("%w: the central directory lies outside the file", errZipFormat)
	}
	return d, nil
}

// readZip64End reads the zip64 end of central directory that the locator before the end
// record at endAt points to.
func (d *zipDir) readZip64End(endAt int64) error {
	var loc [zip64LocLen]byte
	if endAt < zip64LocLen {
		return fmt.Errorf("%w: no zip64 locator", errZipFormat)
	}
	if _, err := d.r.ReadAt(loc[:], endAt-zip64LocLen); err != nil || string(loc[:4]) != "PK\x06\x07" {
		return fmt.Errorf("%w: no zip64 locator", errZipFormat)
	}
	at := binary.LittleEndian.Uint64(loc[8:])
	var end [zip64EndLen]byte
	if at > uint64(d.size) {
		return fmt.Errorf("%w: zip64 end outside the file", errZipFormat)
	}
	if _, err := d.r.ReadAt(end[:], int64(at)); err != nil || string(end[:4]) != "PK\x06\x06" {
		return fmt.Errorf("%w: no zip64 end of central directory", errZipFormat)
	}
	d.records = binary.LittleEndian.Uint64(end[32:])
	d.len = int64(binary.LittleEndian.Uint64(end[40:]))
	d.off = int64(binary.LittleEndian.Uint64(end[48:]))
	return nil
}

// each calls fn for the directory's records in order, at most limit of them, and returns
// true when the directory holds more. fn returning false stops the walk.
func (d *zipDir) each(limit int, fn func(ord int, e *zipEntry) bool) (more bool, err error) {
	br := bufio.NewReaderSize(io.NewSectionReader(d.r, d.off, d.len), 1<<16)
	var (
		fixed [zipDirRecLen]byte
		name  []byte
	)
	for ord := 0; ; ord++ {
		if _, err := io.ReadFull(br, fixed[:4]); err == io.EOF {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("%w: central directory: %v", errZipFormat, err)
		}
		if string(fixed[:4]) != "PK\x01\x02" {
			return false, fmt.Errorf("%w: central directory record %d has no signature", errZipFormat, ord+1)
		}
		if ord == limit {
			return true, nil
		}
		if _, err := io.ReadFull(br, fixed[4:]); err != nil {
			return false, fmt.Errorf("%w: central directory: %v", errZipFormat, err)
		}
		le := binary.LittleEndian
		nameLen, extraLen, commentLen := int(le.Uint16(fixed[28:])), int(le.Uint16(fixed[30:])), int(le.Uint16(fixed[32:]))
		rest := nameLen + extraLen + commentLen
		if cap(name) < rest {
			name = make([]byte, rest)
		}
		name = name[:rest]
		if _, err := io.ReadFull(br, name); err != nil {
			return false, fmt.Errorf("%w: central directory: %v", errZipFormat, err)
		}
		h := zip.FileHeader{CreatorVersion: le.Uint16(fixed[4:]), ExternalAttrs: le.Uint32(fixed[38:]), Name: string(name[:nameLen])}
		e := &zipEntry{
			name:   h.Name,
			mode:   h.Mode(),
			method: le.Uint16(fixed[10:]),
			crc:    le.Uint32(fixed[16:]),
			csize:  uint64(le.Uint32(fixed[20:])),
			usize:  uint64(le.Uint32(fixed[24:])),
			offset: int64(le.Uint32(fixed[42:])),
		}
		if err := e.zip64(name[nameLen : nameLen+extraLen]); err != nil {
			return false, err
		}
		if !fn(ord, e) {
			return false, nil
		}
	}
}

// zip64 takes the sizes and offset that do not fit 32 bits from the zip64 extra field.
func (e *zipEntry) zip64(extra []byte) error {
	needU, needC, needO := e.usize == 0xffffffff, e.csize == 0xffffffff, e.offset == 0xffffffff
	if !needU && !needC && !needO {
		return nil
	}
	le := binary.LittleEndian
	for len(extra) >= 4 {
		id, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
		if 4+n > len(extra) {
			break
		}
		field := extra[4 : 4+n]
		extra = extra[4+n:]
		if id != zip64ExtraID {
			continue
		}
		for _, p := range []struct {
			need bool
			set  func(uint64)
		}{
			{needU, func(v uint64) { e.usize = v }},
			{needC, func(v uint64) { e.csize = v }},
			{needO, func(v uint64) { e.offset = int64(v) }},
		} {
			if !p.need {
				continue
			}
			if len(field) < 8 {
				return fmt.Errorf("%w: %s: short zip64 field", errZipFormat, e.name)
			}
			p.set(le.Uint64(field))
			field = field[8:]
		}
		return nil
	}
	return fmt.Errorf("%w: %s: no zip64 field for its sizes", errZipFormat, e.name)
}

// span returns where the entry lies in the file: from its local header to the end of its
// compressed bytes.
func (d *zipDir) span(e *zipEntry) (start, data, end int64, err error) {
	var local [zipLocalLen]byte
	if e.offset < 0 || e.offset > d.size-zipLocalLen {
		return 0, 0, 0, fmt.Errorf("%w: local header outside the file", errZipFormat)
	}
	if _, err := d.r.ReadAt(local[:], e.offset); err != nil {
		return 0, 0, 0, err
	}
	if string(local[:4]) != "PK\x03\x04" {
		return 0, 0, 0, fmt.Errorf("%w: no local header at byte %d", errZipFormat, e.offset)
	}
	data = e.offset + zipLocalLen + int64(binary.LittleEndian.Uint16(local[26:])) + int64(binary.LittleEndian.Uint16(local[28:]))
	if e.csize > uint64(d.size-data) || data > d.size {
		return 0, 0, 0, fmt.Errorf("%w: %d compressed bytes past the end of the file", errZipFormat, e.csize)
	}
	return e.offset, data, data + int64(e.csize), nil
}

// open returns a reader of the entry's uncompressed bytes, whose last Read fails unless
// their size and CRC-32 are the directory's.
func (d *zipDir) open(e *zipEntry, data int64) (io.ReadCloser, error) {
	raw := io.NewSectionReader(d.r, data, int64(e.csize))
	var rc io.ReadCloser
	switch e.method {
	case zipStoreMethod:
		rc = io.NopCloser(raw)
	case zipDeflate:
		rc = flate.NewReader(bufio.NewReaderSize(raw, 1<<15))
	default:
		return nil, fmt.Errorf("compression method %d, not stored or deflated", e.method)
	}
	return &zipChecked{rc: rc, e: e, h: crc32.NewIEEE()}, nil
}

// zipChecked checks an entry's size and CRC-32 as it is read.
type zipChecked struct {
	rc io.ReadCloser
	e  *zipEntry
	h  hash.Hash32
	n  uint64
}

var errZipChecksum = errors.New("zip: checksum error")

func (z *zipChecked) Read(p []byte) (int, error) {
	n, err := z.rc.Read(p)
	z.h.Write(p[:n])
	z.n += uint64(n)
	if z.n > z.e.usize {
		return n, fmt.Errorf("zip: more than the %d bytes its header says", z.e.usize)
	}
	if err == io.EOF {
		if z.n != z.e.usize {
			return n, io.ErrUnexpectedEOF
		}
		if z.h.Sum32() != z.e.crc {
			return n, errZipChecksum
		}
	}
	return n, err
}

func (z *zipChecked) Close() error { return z.rc.Close() }
