package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/opennumerology/numerology/internal/contract"
)

// maxHashedStatic is the size up to which a static file is read whole, kept in memory and
// answered from there (the pages, llms.txt); larger files (manifest.json, the downloads) are
// streamed in chunks (see chunkReader). Either way the ETag is taken from the bytes
// answered, when the file was read, and valid while its identity is unchanged.
const maxHashedStatic = 1 << 20

// staticBudget bounds the bytes of small static files kept in memory; beyond it they are
// read on each request.
const staticBudget = 16 << 20

// staticRecheck is how long a static file's body kept in memory is answered without its
// file being read again. A write through a memory mapping to a page that is already dirty
// changes no identity (nor does any such write on tmpfs), so a body asked for is read again
// and compared at least this often: such a change is answered within staticRecheck.
const staticRecheck = time.Second

// assetCache is the Cache-Control Cloudflare's assets answer with (the asset worker's
// CACHE_CONTROL_BROWSER) unless _headers sets another; none when the request has a Range
// or Authorization header.
const assetCache = "public, max-age=0, must-revalidate"

// staticFiles is what was read of a tree's static files, each with the identity of the file
// it was read from: the bytes and ETag of the small ones, the ETag of the large ones.
type staticFiles struct {
	mu    sync.Mutex
	files map[string]*staticFile
	bytes int64 // of bodies kept
	// reads makes the requests that find a file unread or changed wait for one read of it:
	// hundreds asking for an 8 MB manifest at once would otherwise each hash it.
	reads singleflight.Group
}

type staticFile struct {
	id   fileID
	body []byte // nil for a file streamed from the tree
	etag []string
	read atomic.Int64 // Unix nanoseconds of the read body comes from
	// gzipped is body gzipped, made when an answer first sends it (see compressible).
	gzipped struct {
		once sync.Once
		body []byte
	}
}

// gzip returns the body gzipped, at the best level: it is made once per read of the file.
func (sf *staticFile) gzip() []byte {
	sf.gzipped.once.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(sf.body) // a bytes.Buffer takes every write
		zw.Close()
		sf.gzipped.body = b.Bytes()
	})
	return sf.gzipped.body
}

// staticFile returns a static file as it is now: what was read of it when the file is
// unchanged since (and, for a body kept in memory, was read less than staticRecheck ago),
// else what is read of it again.
func (h *Handler) staticFile(t *tree, name string) (*staticFile, error) {
	if id, err := t.statFile(name); err == nil {
		t.static.mu.Lock()
		sf := t.static.files[name]
		t.static.mu.Unlock()
		if sf != nil && sf.id == id && sf.fresh() {
			return sf, nil
		}
	}
	v, err, _ := t.static.reads.Do(name, func() (any, error) { return h.readStatic(t, name) })
	if err != nil {
		return nil, err
	}
	return v.(*staticFile), nil
}

// readStatic reads a static file (a large one in chunks, for its ETag alone) and keeps
// what was read.
func (h *Handler) readStatic(t *tree, name string) (*staticFile, error) {
	b, id, err := h.readWhole(t, name, maxHashedStatic)
	var sf *staticFile
	switch {
	case errors.Is(err, errTooLarge):
		sum := sha256.New()
		if _, err := io.Copy(sum, &chunkReader{h: h, t: t, name: name, id: id}); err != nil {
			return nil, err
		}
		sf = &staticFile{id: id, etag: assetETag(sum.Sum(nil), name)}
	case err != nil:
		return nil, err
	default:
		sum := sha256.Sum256(b)
		sf = &staticFile{id: id, body: b, etag: assetETag(sum[:], name)}
		sf.read.Store(time.Now().UnixNano())
	}
	h.keepStatic(t, name, sf)
	return sf, nil
}

// fresh reports whether a static file whose identity is unchanged may be answered as it was
// read: a streamed one always (its bytes are read for each answer), one kept in memory when
// it was read less than staticRecheck ago. Of the requests that find it older, the first
// reads it again while the others still answer it.
func (sf *staticFile) fresh() bool {
	if sf.body == nil {
		return true
	}
	last, now := sf.read.Load(), time.Now().UnixNano()
	if now-last < int64(staticRecheck) {
		return true
	}
	return !sf.read.CompareAndSwap(last, now)
}

// keepStatic keeps what was read of a static file, within staticBudget.
func (h *Handler) keepStatic(t *tree, name string, sf *staticFile) {
	t.static.mu.Lock()
	defer t.static.mu.Unlock()
	if t.static.files == nil {
		t.static.files = map[string]*staticFile{}
	}
	old := t.static.files[name]
	grow := int64(len(sf.body))
	if old != nil {
		grow -= int64(len(old.body))
	}
	if t.static.bytes+grow <= staticBudget {
		t.static.files[name] = sf
		t.static.bytes += grow
	}
}

// assetETag is the ETag Cloudflare's assets answer a file with when numerology deploy
// uploaded it: its asset hash (edge/cloudflare.AssetHash: the first 32 hex digits of the
// sha256 of the content's sha256 in hex, ".", and the extension), quoted.
func assetETag(sum []byte, name string) []string {
	h := sha256.Sum256([]byte(hex.EncodeToString(sum) + "." + strings.TrimPrefix(path.Ext(name), ".")))
	return []string{`"` + hex.EncodeToString(h[:])[:32] + `"`}
}

// serveFile writes a tree file with the given status (200, or 404 for the 404 page), as
// Cloudflare's asset worker does: the file's content type, its ETag and Cache-Control, the
// _headers rules, If-None-Match as one exact ETag, and the whole file whatever the Range.
func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, t *tree, name string, status int, raw string) {
	hd := w.Header()
	sf, err := h.staticFile(t, name)
	if err != nil {
		h.log.Error("read static file", "file", name, "err", err)
		t.rules.apply(hd, r.Host, raw)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	hd["Content-Type"] = []string{contract.ContentType(name)}
	hd["Etag"] = sf.etag
	if r.Header["Authorization"] == nil && r.Header["Range"] == nil {
		hd["Cache-Control"] = []string{assetCache}
	}
	t.rules.apply(hd, r.Host, raw)
	// Cloudflare's edge compresses what the asset worker answers when the client accepts it,
	// weakening the ETag; serve does as it for the files it keeps in memory (all but the
	// downloads and a manifest over 1 MB, which it sends as they are).
	gzipped := sf.body != nil && compressible(hd, status) && acceptsGzip(r.Header["Accept-Encoding"])
	if gzipped {
		hd["Etag"] = []string{"W/" + sf.etag[0]}
		hd["Vary"] = append(hd["Vary"], "Accept-Encoding")
	}
	if inm := r.Header["If-None-Match"]; inm != nil && assetETagMatch(inm, sf.etag[0]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	var content io.Reader
	size := sf.id.size
	switch {
	case gzipped:
		hd["Content-Encoding"] = []string{"gzip"}
		gz := sf.gzip()
		content, size = bytes.NewReader(gz), int64(len(gz))
	case sf.body != nil:
		content, size = bytes.NewReader(sf.body), int64(len(sf.body))
	default:
		content = &chunkReader{h: h, t: t, name: name, id: sf.id}
	}
	hd["Content-Length"] = []string{strconv.FormatInt(size, 10)}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		if _, err := io.Copy(w, content); err != nil {
			h.log.Error("write static file", "file", name, "err", err)
		}
	}
}

// compressedTypes are the media types Cloudflare's edge compresses for a client that accepts
// it (its documentation, "Content compression"), of those a tree holds.
var compressedTypes = map[string]bool{
	"text/html": true, "text/plain": true, "text/css": true, "text/javascript": true,
	"application/javascript": true, "application/json": true, "application/xml": true,
	"text/xml": true, "image/svg+xml": true, "image/x-icon": true,
	"application/manifest+json": true, "text/x-markdown": true,
}

// compressible reports whether Cloudflare's edge would compress an asset's answer with
// these headers and status: a type it compresses, a 200 or a 404 (of errors it compresses
// only 403 and 404), and no Cache-Control no-transform (a _headers rule may set one).
func compressible(hd http.Header, status int) bool {
	if status != http.StatusOK && status != http.StatusNotFound {
		return false
	}
	for _, cc := range hd["Cache-Control"] {
		for d := range strings.SplitSeq(cc, ",") {
			if strings.EqualFold(strings.TrimSpace(d), "no-transform") {
				return false
			}
		}
	}
	ct := hd.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return compressedTypes[strings.ToLower(strings.TrimSpace(ct))]
}

// acceptsGzip reports whether an Accept-Encoding list (RFC 9110 §12.5.3) accepts gzip: it
// names gzip (or x-gzip), or "*" without naming it, with a weight above 0.
func acceptsGzip(values []string) bool {
	gzipQ, anyQ := -1.0, -1.0
	for _, v := range values {
		for el := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(el, ";")
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
					if err != nil || f < 0 || f > 1 {
						f = 0
					}
					q = f
				}
			}
			switch coding = strings.ToLower(strings.TrimSpace(coding)); coding {
			case "gzip", "x-gzip":
				gzipQ = max(gzipQ, q)
			case "*":
				anyQ = max(anyQ, q)
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return anyQ > 0
}

// assetETagMatch reports whether If-None-Match matches etag as Cloudflare's asset worker
// compares them: the header (its lines joined with ", ") must be the ETag itself or its
// weak form; a list or "*" does not match.
func assetETagMatch(values []string, etag string) bool {
	v := strings.Join(values, ", ")
	return v == etag || v == "W/"+etag
}
