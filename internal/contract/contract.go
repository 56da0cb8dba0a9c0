// Package contract holds the facts of docs/design.md that several parts of the project share
// and no generated file carries to all of them: the content type of each kind of file, the
// size limit of one static asset, the rate limit, the dataset's name. The generator, the
// edges, deploy and pack read them from here, so each is written once. It imports nothing of
// the project and nothing that does I/O.
package contract

import (
	"path"
	"strings"
)

// The per-client rate limit of the rate-limited routes (docs/design.md §3): more than
// RateLimitRequests in any RateLimitWindowSeconds is refused; IPv6 clients are grouped by
// their first RateLimitIPv6Prefix bits. edge/worker/wrangler.json's ratelimits entry must
// agree (a test checks it).
const (
	RateLimitRequests      = 60
	RateLimitWindowSeconds = 60
	RateLimitIPv6Prefix    = 64
)

// MaxAssetSize is the largest file Cloudflare serves as a Workers static asset, on every
// plan: 25 MiB. Deploy refuses a larger file; pack publishes only archives within it.
const MaxAssetSize = 25 << 20

// MaxUploadedFile is the largest file of the tree a deploy uploads, downloads aside: 5 MiB.
// It is the project's own bound, far under MaxAssetSize: the worker reads a whole packed file
// of a date route for every request to it (docs/design.md §10), and generate refuses a route
// table whose files could pass it (docs/design.md §13, the route budget).
const MaxUploadedFile = 5 << 20

// Plan is a Workers plan's limit on the static assets of one worker version.
type Plan struct {
	Name     string // "free" or "paid", as --plan names it
	Title    string // as people name it: "Workers Free"
	MaxFiles int    // asset files a version may hold
}

// Plans are the Workers plans, Free first (the default of generate and deploy).
var Plans = []Plan{
	{Name: "free", Title: "Workers Free", MaxFiles: 20_000},
	{Name: "paid", Title: "Workers Paid", MaxFiles: 100_000},
}

// PlanNamed returns the plan of a --plan value; ok is false for an unknown name.
func PlanNamed(name string) (Plan, bool) {
	for _, p := range Plans {
		if p.Name == name {
			return p, true
		}
	}
	return Plan{}, false
}

// DatasetName is the name of the offline dataset (docs/design.md §11): its archives are
// DatasetName-<api_version>.tar.gz and .zip, and its datapackage.json name.
const DatasetName = "numerology-dataset"

// DefaultContentType is the content type of a file whose extension has none here.
const DefaultContentType = "application/octet-stream"

// contentTypes is a fixed table, so neither the local server nor a deploy depends on the
// machine's mime.types.
var contentTypes = map[string]string{
	".json":        "application/json; charset=utf-8",
	".html":        "text/html; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".txt":         "text/plain; charset=utf-8",
	".csv":         "text/csv; charset=utf-8",
	".md":          "text/markdown; charset=utf-8",
	".xml":         "application/xml; charset=utf-8",
	".yaml":        "application/yaml; charset=utf-8",
	".cff":         "text/plain; charset=utf-8",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".ico":         "image/x-icon",
	".webp":        "image/webp",
	".gz":          "application/gzip",
	".zst":         "application/zstd",
	".zip":         "application/zip",
	".tar":         "application/x-tar",
	".webmanifest": "application/manifest+json",
}

// ContentType is the content type a file is served with, from its extension (any case).
func ContentType(name string) string {
	if ct, ok := contentTypes[strings.ToLower(path.Ext(name))]; ok {
		return ct
	}
	return DefaultContentType
}
