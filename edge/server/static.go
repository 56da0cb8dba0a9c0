package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
)

// serveStatic answers a path outside the API as Cloudflare's assets do with html_handling
// "auto-trailing-slash" and not_found_handling "404-page" (see assetIntent), then adds the
// tree's _headers rules, so that the pages behave the same on both edges. Only files the
// manifest lists (and manifest.json) are served, never .assetsignore, _headers or
// _redirects (wrangler never uploads them), and files under the API prefix only through
// the API routes.
func (h *Handler) serveStatic(w http.ResponseWriter, r *http.Request, t *tree, raw string) {
	raw = urlPathname(raw)
	hd := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd["Allow"] = []string{"GET, HEAD"}
		t.rules.apply(hd, r.Host, raw)
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p, ok := decodeAssetPath(raw)
	if !ok {
		t.rules.apply(hd, r.Host, raw)
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	in := t.assetIntent(p, false)
	switch {
	case in.redirect == "" && in.file != "" && encodeAssetPath(p) != raw:
		// Cloudflare serves a file (a page, or the 404 page for an unknown path) only at
		// its canonical (re-encoded) path, and redirects other spellings there.
		in.redirect = encodeAssetPath(p)
	case in.redirect != "":
		in.redirect = encodeAssetPath(in.redirect)
	}
	switch {
	case in.redirect != "":
		if q := rawQuery(rawTarget(r)); q != "" {
			in.redirect += "?" + q
		}
		hd["Location"] = []string{in.redirect}
		t.rules.apply(hd, r.Host, raw)
		w.WriteHeader(http.StatusTemporaryRedirect)
	case in.file == "":
		t.rules.apply(hd, r.Host, raw)
		http.Error(w, "404 page not found", http.StatusNotFound)
	default:
		h.serveFile(w, r, t, in.file, in.status, raw)
	}
}

// intent is how a static path is answered: a file with a status, or a redirect.
type intent struct {
	file     string // tree path, without the leading slash
	status   int
	redirect string // decoded path to redirect to (307)
}

// assetIntent resolves a decoded path ("/docs/") the way Cloudflare's asset worker
// does for html_handling "auto-trailing-slash": a file is served at its name without
// ".html", a folder's index.html at the folder's path with a slash, and the other
// spellings of either are redirected there; anything else gets the nearest 404.html with
// status 404. skip turns redirects off (used to check a redirect's destination).
func (t *tree) assetIntent(p string, skip bool) intent {
	exact := t.exists(p)
	redirect := func(file, dest string) (intent, bool) {
		if skip || t.exists(dest) || !t.exists(file) {
			return intent{}, false
		}
		// Redirect only when the destination would serve this very file.
		if in := t.assetIntent(dest, true); in.file != "" && in.status == http.StatusOK && t.sameContent(in.file, file[1:]) {
			return intent{redirect: dest}, true
		}
		return intent{}, false
	}
	serve := func(file string) intent { return intent{file: file[1:], status: http.StatusOK} }
	var tries [][2]string // file, destination
	switch {
	case strings.HasSuffix(p, "/index"):
		if exact {
			return serve(p)
		}
		tries = [][2]string{{p + ".html", strings.TrimSuffix(p, "index")}, {strings.TrimSuffix(p, "/index") + ".html", strings.TrimSuffix(p, "/index")}}
	case strings.HasSuffix(p, "/index.html"):
		tries = [][2]string{{p, strings.TrimSuffix(p, "index.html")}, {strings.TrimSuffix(p, "/index.html") + ".html", strings.TrimSuffix(p, "/index.html")}}
	case strings.HasSuffix(p, "/"):
		if t.exists(p + "index.html") {
			return serve(p + "index.html")
		}
		tries = [][2]string{{strings.TrimSuffix(p, "/") + ".html", strings.TrimSuffix(p, "/")}}
	case strings.HasSuffix(p, ".html"):
		base := strings.TrimSuffix(p, ".html")
		tries = [][2]string{{p, base}, {base + "/index.html", base + "/"}}
	}
	for _, try := range tries {
		if in, ok := redirect(try[0], try[1]); ok {
			return in
		}
	}
	switch {
	case exact:
		return serve(p)
	case t.exists(p + ".html"):
		return serve(p + ".html")
	}
	if in, ok := redirect(p+"/index.html", p+"/"); ok {
		return in
	}
	for cwd := p; cwd != ""; {
		cwd = cwd[:strings.LastIndexByte(cwd, '/')]
		if t.exists(cwd + "/" + manifest.NotFoundPage) {
			return intent{file: strings.TrimPrefix(cwd+"/", "/") + manifest.NotFoundPage, status: http.StatusNotFound}
		}
	}
	return intent{}
}

// exists reports whether a decoded path ("/x.html") names a file served as an asset.
func (t *tree) exists(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	name := p[1:]
	return name == manifest.FileName || t.publicFile(name)
}

// sameContent reports whether two tree files have the same sha256 (Cloudflare compares
// the assets' hashes).
func (t *tree) sameContent(a, b string) bool {
	ea, eb := t.files[a], t.files[b]
	if a == b {
		return true
	}
	return ea != nil && eb != nil && ea.sum == eb.sum
}

// urlPathname is the path of a request target as the Workers runtime's URL parser gives
// it to the asset worker (the WHATWG URL rules for http): dot segments and backslashes
// resolved as for the API routes (resolvePath), and the characters the parser
// percent-encodes encoded. Bytes beyond ASCII are kept as they are, as workerd keeps them.
func urlPathname(raw string) string {
	if raw == "" || raw[0] != '/' && raw[0] != '\\' {
		return raw
	}
	return pathEncode(resolvePath("/" + raw[1:]))
}

// pathEncode percent-encodes the characters of the URL parser's path percent-encode set
// that can reach it in a request target.
func pathEncode(seg string) string {
	if !strings.ContainsFunc(seg, func(c rune) bool { return c < 0x80 && inPathEncodeSet(byte(c)) }) {
		return seg
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; c < 0x80 && inPathEncodeSet(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// rawQuery is the query of a raw target as the URL parser gives it (its search without the
// "?"): up to the fragment, with the characters of the special-query percent-encode set
// encoded.
func rawQuery(target string) string {
	q, ok := "", false
	if i := strings.IndexAny(target, "?#"); i >= 0 && target[i] == '?' {
		q, ok = target[i+1:], true
	}
	if i := strings.IndexByte(q, '#'); i >= 0 {
		q = q[:i]
	}
	if !ok || !strings.ContainsFunc(q, func(c rune) bool { return c >= 0x7f || c < 0x80 && inQueryEncodeSet(byte(c)) }) {
		return q
	}
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if c := q[i]; c >= 0x7f || inQueryEncodeSet(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func inQueryEncodeSet(c byte) bool {
	return c <= ' ' || strings.IndexByte("\"#<>'", c) >= 0
}

func inPathEncodeSet(c byte) bool {
	return c <= ' ' || c == 0x7f || strings.IndexByte("\"#<>?^`{}", c) >= 0
}

// decodeAssetPath decodes each segment of a raw path and folds repeated slashes, as the
// asset worker does; a segment that does not decode stays as it is.
func decodeAssetPath(raw string) (string, bool) {
	if raw == "" || raw[0] != '/' {
		return "", false
	}
	segs := strings.Split(raw, "/")
	for i, s := range segs {
		if d, err := url.PathUnescape(s); err == nil {
			segs[i] = d
		}
	}
	p := strings.Join(segs, "/")
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	return p, true
}

// encodeAssetPath encodes each segment as JavaScript's encodeURIComponent does: the
// canonical form Cloudflare serves an asset at.
func encodeAssetPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		var b strings.Builder
		for j := 0; j < len(s); j++ {
			c := s[j]
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
		segs[i] = b.String()
	}
	return strings.Join(segs, "/")
}

// publicFile reports whether a tree file may be served as a static file.
func (t *tree) publicFile(name string) bool {
	if _, ok := t.files[name]; !ok || !cleanTreePath(name) {
		return false
	}
	switch name {
	case manifest.HeadersFile, manifest.AssetsIgnoreFile, redirectsFile:
		return false
	}
	return !strings.HasPrefix(name, strings.TrimPrefix(t.router.prefix, "/")+"/")
}

// redirectsFile is Cloudflare's redirect rules, which wrangler, like .assetsignore and
// _headers, never uploads as an asset.
const redirectsFile = "_redirects"

// maxHashedStatic is the size up to which a static file is read whole, kept in memory and
// answered from there (the pages, llms.txt); larger files (manifest.json, the downloads) are
// streamed in chunks (see chunkReader). Either way the ETag is the sha256 of the bytes
// answered, taken when the file was read and valid while its identity is unchanged.
const maxHashedStatic = 1 << 20

// staticBudget bounds the bytes of small static files kept in memory; beyond it they are
// read on each request.
const staticBudget = 16 << 20

// maxRanges is the most byte ranges a request may ask of one static file; a request for
// more is answered with the whole file, as RFC 9110 §14.2 allows (nginx's max_ranges).
const maxRanges = 1

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
}

type staticFile struct {
	id   fileID
	body []byte // nil for a file streamed from the tree
	etag []string
}

// staticFile returns a static file as it is now: what was read of it when the file is
// unchanged since, else what is read of it again.
func (h *Handler) staticFile(t *tree, name string) (*staticFile, error) {
	if id, err := t.statFile(name); err == nil {
		t.static.mu.Lock()
		sf := t.static.files[name]
		t.static.mu.Unlock()
		if sf != nil && sf.id == id {
			return sf, nil
		}
	}
	b, id, err := h.readWhole(t, name, maxHashedStatic)
	var sf *staticFile
	switch {
	case errors.Is(err, errTooLarge):
		sum := sha256.New()
		if _, err := io.Copy(sum, &chunkReader{h: h, t: t, name: name, id: id}); err != nil {
			return nil, err
		}
		sf = &staticFile{id: id, etag: []string{manifest.ETag(hex.EncodeToString(sum.Sum(nil)))}}
	case err != nil:
		return nil, err
	default:
		sf = &staticFile{id: id, body: b, etag: etagOf(b)}
	}
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
	return sf, nil
}

// serveFile writes a tree file with the given status (200, or 404 for the 404 page), as
// Cloudflare's assets do: the ETag of the bytes, their Cache-Control, If-None-Match as one
// exact ETag, then the _headers rules.
func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, t *tree, name string, status int, raw string) {
	hd := w.Header()
	sf, err := h.staticFile(t, name)
	if err != nil {
		h.log.Error("read static file", "file", name, "err", err)
		t.rules.apply(hd, r.Host, raw)
		http.Error(w, "500 internal error", http.StatusInternalServerError)
		return
	}
	hd["Content-Type"] = []string{contract.ContentType(name)}
	hd["X-Content-Type-Options"] = []string{"nosniff"}
	hd["Etag"] = sf.etag
	if r.Header["Authorization"] == nil && r.Header["Range"] == nil {
		hd["Cache-Control"] = []string{assetCache}
	}
	t.rules.apply(hd, r.Host, raw)
	if inm := r.Header["If-None-Match"]; inm != nil && assetETagMatch(inm, sf.etag[0]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	var content io.ReadSeeker
	size := sf.id.size
	if sf.body != nil {
		content, size = bytes.NewReader(sf.body), int64(len(sf.body))
	} else {
		content = &chunkReader{h: h, t: t, name: name, id: sf.id}
	}
	if status != http.StatusOK {
		hd["Content-Length"] = []string{strconv.FormatInt(size, 10)}
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			if _, err := io.Copy(w, content); err != nil {
				h.log.Error("write static file", "file", name, "err", err)
			}
		}
		return
	}
	// ServeContent answers Range and If-Range against the ETag set above; If-None-Match
	// was answered above as Cloudflare does, so it must not see it again.
	r2 := *r
	r2.Header = r.Header.Clone()
	delete(r2.Header, "If-None-Match")
	if rg := r2.Header.Get("Range"); rg != "" && strings.Count(rg, ",") >= maxRanges {
		delete(r2.Header, "Range")
	}
	http.ServeContent(w, &r2, name, time.Time{}, content)
}

// assetETagMatch reports whether If-None-Match matches etag as Cloudflare's asset worker
// compares them: the header (its lines joined with ", ") must be the ETag itself or its
// weak form; a list or "*" does not match.
func assetETagMatch(values []string, etag string) bool {
	v := strings.Join(values, ", ")
	return v == etag || v == "W/"+etag
}
