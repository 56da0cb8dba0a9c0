package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
)

// serveStatic answers a path outside the API as Cloudflare's assets do with html_handling
// "auto-trailing-slash" and not_found_handling "404-page" (see assetIntent), then adds the
// tree's _headers rules, so that the pages behave the same on both edges. Only files the
// manifest lists (and manifest.json) are served, never .assetsignore, _headers or
// _redirects (wrangler never uploads them), and files under the API prefix only through
// the API routes. The answers without a file (405 to another method, 404 where the tree has
// no 404 page) have no body and no header but the rules', as the asset worker's.
func (h *Handler) serveStatic(w http.ResponseWriter, r *http.Request, t *tree, raw string) {
	raw = urlPathname(raw)
	hd := w.Header()
	p, ok := decodeAssetPath(raw)
	if !ok {
		t.rules.apply(hd, r.Host, raw)
		w.WriteHeader(http.StatusNotFound)
		return
	}
	in := t.assetIntent(p, false)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		// The asset worker refuses another method for a path it would answer (a file, the
		// 404 page, a redirect); a path it has nothing for stays a 404.
		t.rules.apply(hd, r.Host, raw)
		if in.file == "" && in.redirect == "" {
			w.WriteHeader(http.StatusNotFound)
		} else {
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
		return
	}
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
		w.WriteHeader(http.StatusNotFound)
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

// urlPathname is the path of a request target as the Workers runtime's URL parser gives it
// to the asset worker (the WHATWG URL rules for http): dot segments and backslashes
// resolved as for the API routes (resolvePath), and the characters the parser
// percent-encodes encoded, bytes beyond ASCII among them ("/é" is "/%C3%A9"). (workerd
// refuses a target that is not UTF-8 with a 400 of its own; serve encodes its bytes.)
func urlPathname(raw string) string {
	if raw == "" || raw[0] != '/' && raw[0] != '\\' {
		return raw
	}
	return pathEncode(resolvePath("/" + raw[1:]))
}

// pathEncode percent-encodes the characters of the URL parser's path percent-encode set
// that can reach it in a request target, and every byte beyond ASCII.
func pathEncode(seg string) string {
	if !strings.ContainsFunc(seg, func(c rune) bool { return c >= 0x80 || inPathEncodeSet(byte(c)) }) {
		return seg
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; c >= 0x80 || inPathEncodeSet(c) {
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
