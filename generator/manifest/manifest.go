// Package manifest describes the generated out/ tree: where every response lives, the header
// sets of docs/design.md §4, the error bodies and the sha256 and size of every file. The generator
// writes it; the local server, the worker, verify, deploy and pack read it.
package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/internal/assetsignore"
)

// File names and paths inside the tree, relative to its root, with forward slashes.
const (
	FileName = "manifest.json" // this manifest; it does not list itself
	// APIDir holds the API's files: every route's File and packed files are under it.
	APIDir       = "api/public"
	EdgeFile     = APIDir + "/edge.json" // the EdgeConfig alone, for the worker
	HeadersFile  = "_headers"            // Cloudflare/Netlify header rules for static hosts
	ErrorsDir    = APIDir + "/errors"
	DownloadsDir = "downloads"
	NotFoundPage = "404.html" // served with status 404 for unknown non-API paths, when present
	// ShardsDir holds the manifest's shards (ShardPath), which .assetsignore keeps out of
	// Workers assets.
	ShardsDir = "manifest.d"
	// AssetsIgnoreFile lists, in gitignore syntax, the files Workers static assets need not
	// hold (wrangler's convention; numerology deploy reads it too): the name
	// internal/assetsignore reads, given once there.
	AssetsIgnoreFile = assetsignore.FileName
)

// APIPrefix is the URL path prefix of every API route.
const APIPrefix = "/api/public"

// APIVersion is the version of the API contract the tree implements.
const APIVersion = "1.0"

// FormatVersion is the version of the manifest's own format (Manifest.Format): 2 lists the
// files of the packed routes in shards (docs/design.md §9); the manifests before it, which
// listed every file in the root, had no format field.
const FormatVersion = 2

// Generator is Manifest.Generator in every tree numerology generate writes: the mark by which
// generate recognises a tree as its own before it replaces it (docs/design.md §8).
const Generator = "numerology generate"

// Error keys, as used in EdgeConfig.Errors.
const (
	ErrInvalidDate      = "invalid_date"       // 400
	ErrNumberNotFound   = "number_not_found"   // 404 under /life-path/
	ErrArcanaNotFound   = "arcana_not_found"   // 404 under /arcana/
	ErrNotFound         = "not_found"          // 404 elsewhere under the prefix
	ErrMethodNotAllowed = "method_not_allowed" // 405
	ErrTooManyRequests  = "too_many_requests"  // 429
	ErrInternal         = "internal_error"     // 500
)

// Manifest is the content of out/manifest.json, the root of the manifest: everything but
// the files of the packed routes, which its shards list, one shard per route and year
// (docs/design.md §9), so that the root does not grow with the dates.
type Manifest struct {
	// Format is FormatVersion.
	Format     int    `json:"format"`
	APIVersion string `json:"api_version"`
	// Generator is Generator in a tree that generate wrote; pack keeps it when it rewrites
	// the manifest.
	Generator string `json:"generator"`
	SiteURL   string `json:"site_url"`
	APIBase   string `json:"api_base"`
	// Years lists the years whose records of every date route this tree holds, ascending.
	// A full tree holds 1900–2100; a test tree may hold fewer. A valid date of another year
	// is still a valid route (§3): its file is missing and the edge answers 500.
	Years  []int      `json:"years"`
	Counts Counts     `json:"counts"`
	Edge   EdgeConfig `json:"edge"`
	// Files lists every file of the tree that no shard lists, except manifest.json itself
	// and the shards, sorted by Path, each as [path, size, sha256].
	Files []File `json:"files"`
	// Shards lists the shards, sorted by Path, as [path, size, sha256]: for each packed
	// route (Route.Sharded) and year of Years, ShardPath, which lists the route's files of
	// that year (see Shard).
	Shards []File `json:"shards"`

	// full is set by LoadFull, whose Files hold the shards' files too: such a manifest is
	// not written back.
	full bool
}

// Counts summarises the tree.
type Counts struct {
	// Files is how many files the manifest lists: Files, Shards and the files of every
	// shard.
	Files int `json:"files"`
	// Bytes is the sum of their sizes.
	Bytes int64 `json:"bytes"`
	// Routes is, per route name, how many files hold that route's 200 bodies (Route.File).
	Routes map[string]int `json:"routes"`
}

// File is one file of the tree. In JSON it is the array [path, size, sha256], which keeps
// the manifest, the tree's largest file, smaller than objects with keys would.
type File struct {
	Path   string // relative, forward slashes, no leading slash
	Size   int64  // bytes
	SHA256 string // lowercase hex of the content's sha256
}

// MarshalJSON encodes f as [path, size, sha256].
func (f File) MarshalJSON() ([]byte, error) { return f.appendJSON(nil) }

// appendJSON appends f as MarshalJSON encodes it: the bytes goccy/go-json's Marshal gives
// [3]any{f.Path, f.Size, f.SHA256} (HTML-escaping strings), without its reflection.
func (f File) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '[')
	b, err := appendJSONString(b, f.Path, true)
	if err != nil {
		return nil, err
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, f.Size, 10)
	b = append(b, ',')
	if b, err = appendJSONString(b, f.SHA256, true); err != nil {
		return nil, err
	}
	return append(b, ']'), nil
}

// appendJSONString appends s as a JSON string, as goccy/go-json encodes it (with or without
// HTML escaping): directly when s is printable ASCII that needs no escape, which every tree
// path and digest is, and through the library otherwise.
func appendJSONString(b []byte, s string, escapeHTML bool) ([]byte, error) {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && !(escapeHTML && (c == '<' || c == '>' || c == '&'))
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"'), nil
	}
	var q []byte
	var err error
	if escapeHTML {
		q, err = json.Marshal(s)
	} else {
		q, err = json.MarshalWithOption(s, json.DisableHTMLEscape())
	}
	if err != nil {
		return nil, err
	}
	return append(b, q...), nil
}

// UnmarshalJSON decodes [path, size, sha256].
func (f *File) UnmarshalJSON(b []byte) error {
	var t [3]json.RawMessage
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("file entry: %w", err)
	}
	if err := json.Unmarshal(t[0], &f.Path); err != nil {
		return fmt.Errorf("file entry path: %w", err)
	}
	if err := json.Unmarshal(t[1], &f.Size); err != nil {
		return fmt.Errorf("file entry %s size: %w", f.Path, err)
	}
	if err := json.Unmarshal(t[2], &f.SHA256); err != nil {
		return fmt.Errorf("file entry %s sha256: %w", f.Path, err)
	}
	return nil
}

// ETag returns the strong ETag of a file: its sha256 in hex, quoted.
func (f File) ETag() string { return ETag(f.SHA256) }

// ETag returns the strong ETag for a body whose sha256 is hexSum: "<hexSum>".
func ETag(hexSum string) string { return `"` + hexSum + `"` }

// EdgeConfig is everything an edge (the Go server or the worker) needs besides the files:
// routes, header sets, error bodies and the rate limit. It is stored in the manifest and,
// alone, in EdgeFile so the worker can load it without the file list. Check says whether an
// edge can use it.
type EdgeConfig struct {
	APIVersion string    `json:"api_version"`
	Prefix     string    `json:"prefix"` // APIPrefix
	Routes     []Route   `json:"routes"`
	RateLimit  RateLimit `json:"rate_limit"`
	Headers    Headers   `json:"headers"`
	// Errors maps an error key (ErrInvalidDate, …) to its prebuilt response: the keys the
	// routes name and those of EdgeErrors.
	Errors map[string]ErrorResponse `json:"errors"`
	// EdgeErrors names the errors of the answers no route owns.
	EdgeErrors EdgeErrors `json:"edge_errors"`
}

// EdgeErrors names, by their keys in EdgeConfig.Errors, the errors an edge answers itself.
type EdgeErrors struct {
	NotFound         string `json:"not_found"`          // a path under the prefix whose owner has no error
	MethodNotAllowed string `json:"method_not_allowed"` // a method other than GET, HEAD, OPTIONS
	TooManyRequests  string `json:"too_many_requests"`  // over the rate limit
	Internal         string `json:"internal"`           // a valid route whose body cannot be read
}

// Route is one row of the route table of docs/design.md §3, as the generator emits it. The
// edges match paths, check parameters, find bodies and choose errors and limits from
// these rows alone. A pattern is the prefix followed by literal segments and {param}s,
// each param a numeric segment (1–9 ASCII digits, leading zeros allowed); Params type
// them, and File receives them in canonical form.
type Route struct {
	Name    string `json:"name"`    // "matrix", …: its family names it (generator.RouteMatrix)
	Pattern string `json:"pattern"` // "/api/public/matrix/{day}/{month}/{year}"
	// Params are the types of the pattern's parameters, in order; each takes as many
	// parameters as its Arity. Empty for a route without parameters.
	Params []ParamType `json:"params,omitempty"`
	// File is where the 200 body lives, with the pattern's parameters in canonical form
	// (no leading zeros, a pair in ascending order): "api/public/matrix/{day}/{month}/{year}.json".
	File string `json:"file"`
	// Packed, when set, says where the same bodies are also kept many to a file: the worker
	// reads only these (docs/design.md §10).
	Packed *Packed `json:"packed,omitempty"`
	// Error is the error key of a path the route owns (EdgeConfig.Owner) that no route
	// matches: a malformed or invalid parameter, a missing or extra segment.
	Error string `json:"error,omitempty"`
	// RateLimited routes count every request of a path they own against the per-client
	// limit, before validation. All of them share one budget per client.
	RateLimited bool `json:"rate_limited,omitempty"`
	// Summary is a short Russian label (the OpenAPI operation's summary), Description the
	// Russian sentence of the index and the home page, English the line of llms.txt.
	Summary     string `json:"summary"`
	Description string `json:"description"`
	English     string `json:"description_en"`
	// Example is a path the route answers with 200.
	Example string `json:"example"`
	// OperationID names the route's GET operation in the OpenAPI document ("getMatrix") and
	// Tag the group it is listed under ("matrix"): generated clients name their functions and
	// files after them.
	OperationID string `json:"operation_id"`
	Tag         string `json:"tag"`
}

// RateLimit is the per-client limit of the rate-limited routes (Route.RateLimited).
type RateLimit struct {
	Requests      int `json:"requests"`       // 60
	WindowSeconds int `json:"window_seconds"` // 60
	IPv6Prefix    int `json:"ipv6_prefix"`    // 64: IPv6 clients are grouped by this prefix length
}

// Headers holds the header sets of §4. ETag, Retry-After and Content-Length are not here:
// the edge adds those per response.
type Headers struct {
	// Common goes on every API response with a body.
	Common map[string]string `json:"common"`
	// ByStatus adds the headers of one status ("200", "400", "404", "405", "429", "500");
	// every status of an error has a set.
	ByStatus map[string]map[string]string `json:"by_status"`
	// NotModified is the whole header set of a 304 answer (without its ETag).
	NotModified map[string]string `json:"not_modified"`
	// Preflight is the whole header set of the 204 answer to OPTIONS.
	Preflight map[string]string `json:"preflight"`
}

// ErrorResponse is a prebuilt error answer.
type ErrorResponse struct {
	Status int    `json:"status"`
	File   string `json:"file"` // where the body lives in the tree
	Body   string `json:"body"` // the exact bytes of that file
}

// ErrNoManifest is returned by Load when the directory holds no manifest.
var ErrNoManifest = errors.New("no manifest")

// ErrMismatch is wrapped by the errors of a tree whose files differ from its manifest.
var ErrMismatch = errors.New("tree does not match its manifest")

// ErrInvalid is wrapped by the errors of a manifest that exists but cannot be used: it does
// not parse, is for another API version or lacks the edge config.
var ErrInvalid = errors.New("invalid manifest")

// Load reads dir/manifest.json.
func Load(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (run numerology generate first)", filepath.Join(dir, FileName), ErrNoManifest)
	}
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Mismatch marks err as ErrMismatch and keeps its message.
func Mismatch(err error) error { return mismatch{err} }

type mismatch struct{ error }

func (e mismatch) Is(target error) bool { return target == ErrMismatch }
func (e mismatch) Unwrap() error        { return e.error }

// invalid marks an error as ErrInvalid and keeps its message.
type invalid struct{ error }

func (e invalid) Is(target error) bool { return target == ErrInvalid }
func (e invalid) Unwrap() error        { return e.error }

// Parse decodes and checks a manifest's root.
func Parse(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, invalid{fmt.Errorf("parse manifest: %w", err)}
	}
	if m.APIVersion != APIVersion {
		return nil, invalid{fmt.Errorf("manifest is for API version %q, this build serves %q (regenerate the tree)", m.APIVersion, APIVersion)}
	}
	if m.Format != FormatVersion {
		return nil, invalid{fmt.Errorf("manifest format %d, this build reads format %d (regenerate the tree)", m.Format, FormatVersion)}
	}
	if len(m.Edge.Errors) == 0 || len(m.Edge.Headers.Common) == 0 {
		return nil, invalid{errors.New("manifest has no edge config (regenerate the tree)")}
	}
	if err := m.Edge.Check(); err != nil {
		return nil, invalid{fmt.Errorf("edge config: %w", err)}
	}
	for i, f := range m.Shards {
		if i > 0 && f.Path <= m.Shards[i-1].Path {
			return nil, invalid{fmt.Errorf("shards: %q is not sorted after %q", f.Path, m.Shards[i-1].Path)}
		}
	}
	return &m, nil
}

// Index maps each file's path to its entry: the root's files (with LoadFull, every file).
func (m *Manifest) Index() map[string]*File {
	idx := make(map[string]*File, len(m.Files))
	for i := range m.Files {
		idx[m.Files[i].Path] = &m.Files[i]
	}
	return idx
}
