package server

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// How serve reads its tree's files (docs/serve.md, "Server hygiene"):
//
//   - Every file is opened through an os.Root of the tree, so nothing that resolves outside
//     the tree (a symlink to /etc/os-release, a symlinked folder) is ever read.
//   - At most FileSlots files are open at once, whatever the number of connections, and a
//     file is never open while an answer waits for a slow client: small files are read
//     whole, large ones are streamed in chunks, each read opening and closing the file. So
//     the descriptors serve needs beyond its connections are bounded (see ReservedFiles).
//   - A file's identity (inode, size, modification and change times) is taken when it is
//     read and checked again before anything kept from that read is answered, so a file
//     rewritten in place (also through mmap, which no file watch reports) is read again.

// FileSlots is the most tree files serve holds open at once.
const FileSlots = 64

// ReservedFiles is how many descriptors a server must keep free of connections: the tree's
// files (FileSlots, plus the folders os.Root opens while it resolves a path), the
// listener, the file watches and the standard streams.
const ReservedFiles = 256

// fileID is what tells one state of a file from another without reading it.
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
}

// errNoFolder reports a tree whose folder could not be opened.
var errNoFolder = errors.New("the tree's folder could not be opened")

// openFile opens a file of the tree for reading; the caller holds a slot (see slot). A
// path that leaves the tree, through ".." or a symlink, fails ("path escapes from parent").
func (t *tree) openFile(name string) (*os.File, error) {
	if t.root == nil {
		return nil, fmt.Errorf("open %s: %w", name, errNoFolder)
	}
	return t.root.Open(name)
}

// slot waits for one of the FileSlots; the returned func gives it back.
func (h *Handler) slot() func() {
	h.slots <- struct{}{}
	return func() { <-h.slots }
}

// treeFile is an open file of the tree as the handler reads it: an *os.File, which tests
// wrap.
type treeFile interface {
	io.Reader
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// readTries is how many times readWhole reads a file whose identity moved while it was
// read. Its change time moves with its metadata as with its bytes: a hard link made or
// removed (a publisher's tree snapshotted with cp -al or rsync --link-dest while serve
// reads it), a chmod. Each read is still kept only when the identity held from before it
// to after it; a file rewritten all the time fails as changed.
const readTries = 3

// readWhole reads a tree file of at most limit bytes into memory, with its identity. It
// fails with errTooLarge when the file is larger, and with errChanged when the file
// changed while it was read, readTries times in a row. Nothing is allocated from a size
// the file does not have.
func (h *Handler) readWhole(t *tree, name string, limit int64) ([]byte, fileID, error) {
	for try := 1; ; try++ {
		b, id, err := h.readOnce(t, name, limit)
		if try == readTries || !errors.Is(err, errChanged) {
			return b, id, err
		}
	}
}

// readOnce is one read of readWhole.
func (h *Handler) readOnce(t *tree, name string, limit int64) ([]byte, fileID, error) {
	defer h.slot()()
	f, err := h.open(t, name)
	if err != nil {
		return nil, fileID{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileID{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fileID{}, fmt.Errorf("%s: not a regular file", name)
	}
	id := fileIDOf(fi)
	if id.size > limit {
		return nil, id, errTooLarge
	}
	b := make([]byte, id.size+1)
	n, err := io.ReadFull(f, b)
	if err != io.ErrUnexpectedEOF && err != io.EOF {
		if err == nil {
			err = fmt.Errorf("%s: %w", name, errChanged) // it grew
		}
		return nil, id, err
	}
	if fi, err := f.Stat(); err != nil || fileIDOf(fi) != id || int64(n) != id.size {
		return nil, id, fmt.Errorf("%s: %w", name, errChanged)
	}
	return b[:n:n], id, nil
}

// errTooLarge reports a file larger than what is read whole.
var errTooLarge = errors.New("too large to read whole")

// chunkReader streams a large tree file without holding it open: each Read opens the file,
// checks that it is still the one whose identity the answer was built for, reads, and
// closes it. A file that changed fails the read, so an answer never mixes two versions.
type chunkReader struct {
	h    *Handler
	t    *tree
	name string
	id   fileID
	off  int64
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.off >= c.id.size {
		return 0, io.EOF
	}
	if rest := c.id.size - c.off; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.readAt(p, c.off)
	c.off += int64(n)
	if err == io.EOF && c.off < c.id.size {
		err = fmt.Errorf("%s: %w", c.name, errChanged)
	}
	return n, err
}

func (c *chunkReader) readAt(p []byte, off int64) (int, error) {
	defer c.h.slot()()
	f, err := c.h.open(c.t, c.name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fileIDOf(fi) != c.id {
		return 0, fmt.Errorf("%s: %w", c.name, errChanged)
	}
	return f.ReadAt(p, off)
}

func (c *chunkReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += c.off
	case io.SeekEnd:
		offset += c.id.size
	default:
		return 0, errors.New("seek: bad whence")
	}
	if offset < 0 {
		return 0, errors.New("seek: negative position")
	}
	c.off = offset
	return offset, nil
}
