package server

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/opennumerology/numerology/generator/manifest"
)

// staticCache is the Cache-Control of the human pages and downloads.
const staticCache = "public, max-age=3600"

// contentTypes maps a file extension to the Content-Type of static files.
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".json":        "application/json; charset=utf-8",
	".txt":         "text/plain; charset=utf-8",
	".md":          "text/markdown; charset=utf-8",
	".csv":         "text/csv; charset=utf-8",
	".cff":         "text/plain; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".ico":         "image/x-icon",
	".xml":         "application/xml; charset=utf-8",
	".gz":          "application/gzip",
	".zip":         "application/zip",
	".webmanifest": "application/manifest+json",
}

// serveStatic answers a path outside the API: a file of the tree, resolved like Cloudflare's
// assets with html_handling "auto-trailing-slash" (exact file, then path.html, then
// path/index.html), or 404. Only files the manifest lists (and manifest.json) are served;
// files under the API prefix only through the API routes.
func (h *Handler) serveStatic(w http.ResponseWriter, r *http.Request, t *tree, raw string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header()["Allow"] = []string{"GET, HEAD"}
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, ok := t.resolveStatic(raw)
	if !ok {
		h.notFound(w, r, t)
		return
	}
	h.serveFile(w, r, t, name, http.StatusOK)
}

// resolveStatic maps a raw non-API path to a tree file.
func (t *tree) resolveStatic(raw string) (string, bool) {
	if raw == "" || raw[0] != '/' {
		return "", false
	}
	p, err := url.PathUnescape(raw)
	if err != nil || strings.ContainsAny(p, "\\\x00") {
		return "", false
	}
	p = p[1:]
	if p == manifest.FileName {
		return p, true
	}
	var candidates []string
	switch {
	case p == "":
		candidates = []string{"index.html"}
	case strings.HasSuffix(p, "/"):
		candidates = []string{p + "index.html"}
	default:
		candidates = []string{p, p + ".html", p + "/index.html"}
	}
	for _, c := range candidates {
		if t.publicFile(c) {
			return c, true
		}
	}
	return "", false
}

// publicFile reports whether a tree file may be served as a static file.
func (t *tree) publicFile(name string) bool {
	if _, ok := t.files[name]; !ok || !cleanTreePath(name) {
		return false
	}
	return name != manifest.HeadersFile && !strings.HasPrefix(name, strings.TrimPrefix(t.router.prefix, "/")+"/")
}

// notFound answers an unknown static path with the tree's 404 page, or plain text.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request, t *tree) {
	if _, ok := t.files[manifest.NotFoundPage]; ok {
		h.serveFile(w, r, t, manifest.NotFoundPage, http.StatusNotFound)
		return
	}
	http.Error(w, "404 page not found", http.StatusNotFound)
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
	ct, ok := contentTypes[path.Ext(name)]
	if !ok {
		ct = "application/octet-stream"
	}
	hd["Content-Type"] = []string{ct}
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
