package server

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// Request targets with a bad percent-escape ("/api/public/%", "/api/public/x/%zz/1/2000",
// "/api/public/x/1#%zz") are refused by net/http before any handler runs: a plain-text 400
// without CORS that no limit counts. The Workers runtime hands them to the worker, which routes them
// by docs/design.md §3 like any other path. So serve reads each request head before net/http
// does (targetReader, on every connection of its listener): a target net/http would refuse
// for its escapes is handed on with each bad "%" written "%25", and the target as the client
// sent it rides along in the header RawTargetHeader, which the handler routes on instead. A
// client's own RawTargetHeader lines are dropped, so the header only ever holds what the
// reader put there; the handler trusts it only on the connections of HTTPServer.

// RawTargetHeader carries a request's target as the client sent it when targetReader had to
// rewrite it for net/http.
const RawTargetHeader = "Numerology-Raw-Target"

// maxHead bounds the request head targetReader gathers: net/http's own read limit for a
// head (MaxHeaderBytes plus 4 KiB), with room for the header it adds. A longer head is
// handed on as it is, and net/http refuses it (431).
const maxHead = MaxHeaderBytes + 4<<10 + 1<<10

// headBufs are the buffers heads are gathered in; a connection holds one only while it has
// bytes of a head not yet handed on.
var headBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// targetReader is the read side of a connection of HTTPServer: it finds each request head
// in the bytes the client sends (the head, then as many body bytes as Content-Length says)
// and hands net/http the head with its target made parseable. A request with
// Transfer-Encoding ends the reading of heads: the rest of the connection is handed on as
// it comes (the handler closes a connection after any request with a body, so no request
// after it is answered anyway).
type targetReader struct {
	buf  *[]byte // from headBufs: bytes read, not yet handed on, are (*buf)[off:]
	off  int
	out  []byte // bytes ready to hand on
	body int64  // body bytes of the current request still to pass through
	raw  bool   // hand everything on as it is from now on
	end  error  // the read error that ended the connection, returned once all was handed on
}

// read is the connection's Read. A timeout (net/http sets one to stop a read it no longer
// needs) is returned at once and keeps what was read of a head for the next read.
func (r *targetReader) read(c net.Conn, p []byte) (int, error) {
	for len(r.out) == 0 {
		pending := r.pending()
		switch {
		case len(pending) > 0 && (r.raw || r.body > 0):
			n := len(pending)
			if !r.raw && int64(n) > r.body {
				n = int(r.body)
			}
			r.hand(pending[:n])
		case len(pending) > 0:
			switch {
			case r.head(pending):
			case r.end != nil || len(pending) >= maxHead:
				r.raw = r.raw || len(pending) >= maxHead
				r.hand(pending) // the head will not be complete: net/http says why
			default:
				if err := r.fill(c); err != nil {
					return 0, err
				}
			}
		case r.end != nil:
			return 0, r.end
		case r.raw || r.body > 0:
			r.release()
			if !r.raw && int64(len(p)) > r.body {
				p = p[:r.body]
			}
			n, err := c.Read(p)
			if !r.raw {
				r.body -= int64(n)
			}
			return n, err
		default:
			r.release()
			n, err := c.Read(p)
			if err == nil && wholeHead(p[:n]) {
				return n, nil // the common case: handed on where it lies
			}
			if err := r.stash(p[:n], err); err != nil {
				return 0, err
			}
		}
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// wholeHead reports whether b is one whole request head that needs no change, and nothing
// more.
func wholeHead(b []byte) bool {
	if len(b) == 0 || b[0] == '\r' || b[0] == '\n' || headEnd(b) != len(b) {
		return false
	}
	out, body, raw := fixHead(b)
	return &out[0] == &b[0] && body == 0 && !raw
}

// stash keeps b, read from the connection with err, as the pending bytes. It returns a
// timeout; any other error ends the connection (r.end), returned once all was handed on.
func (r *targetReader) stash(b []byte, err error) error {
	if len(b) > 0 {
		if r.buf == nil {
			r.buf, r.off = headBufs.Get().(*[]byte), 0
		}
		*r.buf = append(*r.buf, b...)
	}
	var ne net.Error
	switch {
	case err == nil:
	case errors.As(err, &ne) && ne.Timeout():
		return err
	default:
		r.end = err
	}
	return nil
}

// pending returns the bytes read and not yet handed on.
func (r *targetReader) pending() []byte {
	if r.buf == nil {
		return nil
	}
	return (*r.buf)[r.off:]
}

// hand hands on b, a prefix of the pending bytes, as it is.
func (r *targetReader) hand(b []byte) {
	r.out = b
	r.off += len(b)
	if !r.raw && r.body > 0 {
		r.body -= int64(len(b))
	}
}

// fill reads more of the connection into the pending bytes (see stash).
func (r *targetReader) fill(c net.Conn) error {
	b := *r.buf
	if r.off > 0 { // only ever with nothing handed on still in b: compact
		b = b[:copy(b, b[r.off:])]
		r.off = 0
	}
	if cap(b)-len(b) < 1<<10 {
		b = append(b, make([]byte, 4<<10)...)[:len(b)]
	}
	n, err := c.Read(b[len(b):cap(b)])
	*r.buf = b[:len(b)+n]
	return r.stash(nil, err)
}

// release gives the buffer back; nothing is pending in it.
func (r *targetReader) release() {
	if r.buf != nil {
		*r.buf = (*r.buf)[:0]
		headBufs.Put(r.buf)
		r.buf, r.off = nil, 0
	}
}

// head hands on the request head at the start of b when b holds all of it, made parseable,
// and sets how many body bytes follow it; it reports false when the head is incomplete.
// Empty lines before a request line are handed on as they are.
func (r *targetReader) head(b []byte) bool {
	if n := leadingEmptyLines(b); n > 0 {
		r.hand(b[:n])
		return true
	}
	end := headEnd(b[:min(len(b), maxHead)])
	if end < 0 {
		return false
	}
	out, body, raw := fixHead(b[:end])
	r.hand(b[:end])
	r.out, r.body, r.raw = out, body, raw
	return true
}

// leadingEmptyLines is the length of the CR and LF bytes at the start of b.
func leadingEmptyLines(b []byte) int {
	n := 0
	for n < len(b) && (b[n] == '\r' || b[n] == '\n') {
		n++
	}
	return n
}

// headEnd is the length of the head at the start of b, through the empty line that ends
// it, or -1 when b does not hold all of it.
func headEnd(b []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		line := b[i : i+j]
		i += j + 1
		if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
			return i
		}
	}
}

// fixHead returns the head net/http is to read for head, the body bytes that follow it
// and whether the reading of heads ends with it (Transfer-Encoding, or a Content-Length
// net/http refuses). head is returned itself, with nothing allocated, when it needs no
// change.
func fixHead(head []byte) (out []byte, body int64, raw bool) {
	nl := bytes.IndexByte(head, '\n') + 1
	target, fixed := fixTarget(head[:nl])
	var clen []byte
	lengths, dropped := 0, false
	for rest := head[nl:]; len(rest) > 0; {
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		name, value, ok := bytes.Cut(bytes.TrimRight(l, "\r\n"), []byte(":"))
		switch {
		case !ok:
		case bytes.EqualFold(name, []byte(RawTargetHeader)):
			dropped = true
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			raw = true
		case bytes.EqualFold(name, []byte("Content-Length")):
			clen, lengths = bytes.Trim(value, " \t"), lengths+1
		}
	}
	switch {
	case raw:
	case lengths == 1 && len(clen) > 0 && len(clen) <= 18 && allDigits(clen):
		body, _ = strconv.ParseInt(string(clen), 10, 64)
	case lengths > 0:
		raw = true
	}
	if fixed == nil && !dropped {
		return head, body, raw
	}
	return rewriteHead(head, nl, target, fixed), body, raw
}

// rewriteHead is head (whose request line is head[:nl]) with the fixed request line and
// RawTargetHeader holding target when fixed is not nil, and without a client's own
// RawTargetHeader lines.
func rewriteHead(head []byte, nl int, target, fixed []byte) []byte {
	out := make([]byte, 0, len(head)+len(target)+len(RawTargetHeader)+8)
	if fixed != nil {
		out = append(out, fixed...)
		out = append(out, RawTargetHeader+": "...)
		out = append(out, target...)
		out = append(out, "\r\n"...)
	} else {
		out = append(out, head[:nl]...)
	}
	for _, l := range bytes.SplitAfter(head[nl:], []byte("\n")) {
		if name, _, ok := bytes.Cut(l, []byte(":")); !ok || !bytes.EqualFold(name, []byte(RawTargetHeader)) {
			out = append(out, l...)
		}
	}
	return out
}

// fixTarget returns the target of a request line and, when net/http would refuse the
// target for a bad percent-escape in its path (before the first "?"), the request line with
// each such "%" written "%25" (nil otherwise). The line is split as net/http splits it.
func fixTarget(line []byte) (target, fixed []byte) {
	method, rest, ok1 := bytes.Cut(line, []byte(" "))
	target, proto, ok2 := bytes.Cut(rest, []byte(" "))
	if !ok1 || !ok2 {
		return nil, nil
	}
	path := target
	if i := bytes.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	bad := 0
	for i := range path {
		if path[i] == '%' && !goodEscape(path[i:]) {
			bad++
		}
	}
	if bad == 0 {
		return target, nil
	}
	fixed = make([]byte, 0, len(line)+2*bad+2)
	fixed = append(append(fixed, method...), ' ')
	for i := range path {
		fixed = append(fixed, path[i])
		if path[i] == '%' && !goodEscape(path[i:]) {
			fixed = append(fixed, '2', '5')
		}
	}
	fixed = append(append(append(fixed, target[len(path):]...), ' '), bytes.TrimRight(proto, "\r\n")...)
	return target, append(fixed, '\r', '\n')
}

// goodEscape reports whether s starts with "%" and two hex digits.
func goodEscape(s []byte) bool {
	return len(s) >= 3 && isHex(s[1]) && isHex(s[2])
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// rawTarget is the request's target as the client sent it: RawTargetHeader when the
// connection is one of HTTPServer's (whose reader alone sets it), else RequestURI.
func rawTarget(r *http.Request) string {
	if v := r.Header[RawTargetHeader]; len(v) == 1 && r.Context().Value(targetsReadKey{}) != nil {
		return v[0]
	}
	return r.RequestURI
}

// targetsReadKey marks the context of a connection whose heads a targetReader read.
type targetsReadKey struct{}
