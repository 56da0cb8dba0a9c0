package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
)

// staticCache is the Cache-Control of the human pages and downloads.
const staticCache = "public, max-age=3600"

// serveStatic answers a path outside the API as Cloudflare's assets do with html_handling
// "auto-trailing-slash" and not_found_handling "404-page" (see assetIntent), so that the
// pages behave the same on both edges. Only files the manifest lists (and manifest.json)
// are served; files under the API prefix only through the API routes.
func (h *Handler) serveStatic(w http.ResponseWriter, r *http.Request, t *tree, raw string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header()["Allow"] = []string{"GET, HEAD"}
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p, ok := decodeAssetPath(raw)
	if !ok {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	in := t.assetIntent(p, false)
	switch {
	case in.redirect == "" && in.status == http.StatusOK && encodeAssetPath(p) != raw:
		// Cloudflare serves an asset only at its canonical (re-encoded) path. (It does
		// so for the 404 page too; here an unknown path just answers 404.)
		in.redirect = encodeAssetPath(p)
	case in.redirect != "":
		in.redirect = encodeAssetPath(in.redirect)
	}
	switch {
	case in.redirect != "":
		if q := r.URL.RawQuery; q != "" {
			in.redirect += "?" + q
		}
		w.Header()["Location"] = []string{in.redirect}
		w.WriteHeader(http.StatusTemporaryRedirect)
	case in.file == "":
		http.Error(w, "404 page not found", http.StatusNotFound)
	default:
		h.serveFile(w, r, t, in.file, in.status)
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
	return name != manifest.HeadersFile && !strings.HasPrefix(name, strings.TrimPrefix(t.router.prefix, "/")+"/")
}

// maxHashedStatic is the size up to which a static file is read whole and answered with the
// ETag of the bytes read (the pages); larger files (the downloads) are streamed with the
// manifest's ETag when their size is the manifest's, and without one otherwise.
const maxHashedStatic = 1 << 20

// maxRanges is the most byte ranges a request may ask of one static file; a request for
// more is answered with the whole file, as RFC 9110 §14.2 allows (nginx's max_ranges).
const maxRanges = 1

// serveFile writes a tree file with the given status.
func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, t *tree, name string, status int) {
	f, err := h.open(name)
	var fi os.FileInfo
	if err == nil {
		defer f.Close()
		fi, err = f.Stat()
	}
	if err != nil {
		h.log.Error("open static file", "file", name, "err", err)
		http.Error(w, "500 internal error", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd["Content-Type"] = []string{contract.ContentType(name)}
	hd["X-Content-Type-Options"] = []string{"nosniff"}
	var content io.ReadSeeker = f
	if fi.Size() <= maxHashedStatic {
		b, err := io.ReadAll(io.LimitReader(f, maxHashedStatic+1))
		if err != nil {
			h.log.Error("read static file", "file", name, "err", err)
			http.Error(w, "500 internal error", http.StatusInternalServerError)
			return
		}
		if status != http.StatusOK {
			// Only the small 404 page takes this path.
			hd["Cache-Control"] = []string{"no-store"}
			hd["Content-Length"] = []string{strconv.Itoa(len(b))}
			w.WriteHeader(status)
			if r.Method != http.MethodHead {
				w.Write(b)
			}
			return
		}
		hd["Etag"] = etagOf(b)
		content = bytes.NewReader(b)
	} else if e := t.files[name]; e != nil && e.size == fi.Size() {
		if mf, ok := t.sums[name]; ok {
			hd["Etag"] = []string{manifest.ETag(mf)}
		}
	}
	hd["Cache-Control"] = []string{staticCache}
	if rg := r.Header.Get("Range"); rg != "" && strings.Count(rg, ",") >= maxRanges {
		r.Header.Del("Range")
	}
	http.ServeContent(w, r, name, time.Time{}, content)
}
