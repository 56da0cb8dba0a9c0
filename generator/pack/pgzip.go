package pack

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"runtime"
	"time"

	kflate "github.com/klauspost/compress/flate"
)

// parallelGzip is a gzip writer that compresses fixed-size blocks of its input on several
// goroutines, each block primed with the 32 KiB before it, and joins them into one deflate
// stream (as pigz does). The block boundaries depend on the input only, so the output is
// the same bytes whatever the number of goroutines.
type parallelGzip struct {
	out     io.Writer
	level   int
	crc     uint32
	size    uint32
	buf     []byte // the block being filled
	prev    []byte // the last block handed out, for the next block's dictionary
	pending chan chan result
	done    chan error
	sem     chan struct{}
	err     error
}

type result struct {
	b   []byte
	err error
}

const pgzipBlock = 1 << 20

func newParallelGzip(out io.Writer, level int, modTime time.Time) (*parallelGzip, error) {
	// The gzip header: no name, no comment, a fixed time, OS unknown.
	hdr := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}
	binary.LittleEndian.PutUint32(hdr[4:8], uint32(modTime.Unix()))
	if level == kflate.BestCompression {
		hdr[8] = 2
	}
	if _, err := out.Write(hdr); err != nil {
		return nil, err
	}
	z := &parallelGzip{
		out: out, level: level, buf: make([]byte, 0, pgzipBlock),
		pending: make(chan chan result, 2*runtime.GOMAXPROCS(0)),
		done:    make(chan error, 1),
		sem:     make(chan struct{}, runtime.GOMAXPROCS(0)),
	}
	go z.drain()
	return z, nil
}

// drain writes the compressed blocks in order.
func (z *parallelGzip) drain() {
	var err error
	for ch := range z.pending {
		r := <-ch
		if err == nil {
			err = r.err
		}
		if err == nil {
			_, err = z.out.Write(r.b)
		}
	}
	z.done <- err
}

func (z *parallelGzip) Write(p []byte) (int, error) {
	n := len(p)
	z.crc = crc32.Update(z.crc, crc32.IEEETable, p)
	z.size += uint32(len(p))
	for len(p) > 0 {
		k := min(len(p), pgzipBlock-len(z.buf))
		z.buf = append(z.buf, p[:k]...)
		p = p[k:]
		if len(z.buf) == pgzipBlock {
			z.flushBlock(false)
		}
	}
	return n, nil
}

func (z *parallelGzip) flushBlock(last bool) {
	block := z.buf
	var dict []byte
	if len(z.prev) > 0 {
		dict = z.prev[max(0, len(z.prev)-32<<10):]
	}
	z.prev = block
	z.buf = make([]byte, 0, pgzipBlock)
	ch := make(chan result, 1)
	z.pending <- ch
	z.sem <- struct{}{}
	go func() {
		defer func() { <-z.sem }()
		var out bytes.Buffer
		out.Grow(len(block) / 4)
		w, err := kflate.NewWriterDict(&out, z.level, dict)
		if err == nil {
			_, err = w.Write(block)
		}
		if err == nil {
			if last {
				err = w.Close()
			} else {
				err = w.Flush() // ends on a byte boundary so the next block can follow
			}
		}
		ch <- result{out.Bytes(), err}
	}()
}

// Close compresses what remains and writes the gzip trailer.
func (z *parallelGzip) Close() error {
	if z.err != nil {
		return z.err
	}
	z.flushBlock(true)
	close(z.pending)
	if z.err = <-z.done; z.err != nil {
		return z.err
	}
	var tr [8]byte
	binary.LittleEndian.PutUint32(tr[0:4], z.crc)
	binary.LittleEndian.PutUint32(tr[4:8], z.size)
	_, z.err = z.out.Write(tr[:])
	if z.err == nil {
		z.err = io.ErrClosedPipe // a closed writer takes no more
		return nil
	}
	return z.err
}
