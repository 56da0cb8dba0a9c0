// Package cloudflare publishes a generated tree and the worker to Cloudflare: it plans the
// Workers static assets manifest from the tree's manifest, checks it against the account
// plan's limits before any network call, then applies it with cloudflare-go v6 (assets
// upload session, bucketed uploads, one script upload that makes the version live).
package cloudflare

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
	"github.com/opennumerology/numerology/internal/humanize"
)

// MaxFileSize is Cloudflare's limit on the size of one static asset: 25 MiB.
const MaxFileSize = contract.MaxAssetSize

// Limits are the static asset limits of a Workers plan.
type Limits struct {
	Plan        string // "free" or "paid"
	MaxFiles    int    // static asset files per worker version
	MaxFileSize int64  // bytes per file
}

// PlanLimits returns the limits of a Workers plan by name: free (20,000 files per
// version) or paid (100,000), both with 25 MiB per file.
func PlanLimits(plan string) (Limits, error) {
	switch plan {
	case "free":
		return Limits{Plan: plan, MaxFiles: 20_000, MaxFileSize: MaxFileSize}, nil
	case "paid":
		return Limits{Plan: plan, MaxFiles: 100_000, MaxFileSize: MaxFileSize}, nil
	}
	return Limits{}, fmt.Errorf("unknown plan %q (want free or paid)", plan)
}

// Asset is one file of the Workers static assets manifest.
type Asset struct {
	Path        string // URL path with a leading slash: "/api/public/life-path.json"
	File        string // the file's path in the tree, forward slashes
	Size        int64
	SHA256      string // hex sha256 of the content, from the tree's manifest
	Hash        string // the 32-hex-digit asset hash sent to Cloudflare (see AssetHash)
	ContentType string // sent with the upload; Cloudflare serves the asset with it
}

// AssetHash is the hash deploy registers for a file with content digest sha256Hex at
// urlPath: the first 32 hex digits of sha256(sha256Hex + "." + extension).
//
// Cloudflare only asks for 32 hex digits that identify the content. Like wrangler (which
// hashes the content together with the extension), the extension is part of the input so
// two files with equal bytes but different content types stay two assets; deriving it from
// the manifest's sha256 means planning reads no file.
func AssetHash(sha256Hex, urlPath string) string {
	sum := sha256.Sum256([]byte(sha256Hex + "." + strings.TrimPrefix(path.Ext(urlPath), ".")))
	return hex.EncodeToString(sum[:])[:32]
}

// Options are the choices of one deploy besides the tree and the worker.
type Options struct {
	ScriptName string   // overrides the worker config's name when set
	Routes     []string // zone route patterns ("api.example.org/*"); need ZoneID
	Domains    []string // custom domains bound to the worker
	ZoneID     string   // the zone of Routes (and, optionally, Domains)
	Limits     Limits
}

// Plan is everything a deploy will do, computed from the tree without network access.
type Plan struct {
	Dir        string
	Worker     *Worker
	ScriptName string
	Assets     []Asset // sorted by Path
	Bytes      int64   // the sum of Assets' sizes
	Largest    Asset
	// Headers is the content of the tree's _headers file: Cloudflare takes it as the
	// assets' header rules (assets.config._headers), not as a file to serve.
	Headers string
	// Ignored and IgnoredBytes count the tree's files left out by .assetsignore (and
	// wrangler's defaults: the ignore file itself, _redirects); IgnoreFile says whether the
	// tree has one.
	Ignored      int
	IgnoredBytes int64
	IgnoreFile   bool
	Routes       []string
	Domains      []string
	ZoneID       string
	Limits       Limits
	SiteURL      string
}

// NewPlan computes the plan of deploying the tree in dir, described by m, with the worker w.
// Every file of the manifest becomes an asset except _headers and what the tree's
// .assetsignore leaves out, with wrangler's semantics, so that numerology deploy and
// wrangler deploy upload the same set; manifest.json itself is published too (the
// dataset's public file list).
func NewPlan(dir string, m *manifest.Manifest, w *Worker, opts Options) (*Plan, error) {
	p := &Plan{
		Dir: dir, Worker: w, ScriptName: w.Name, Routes: opts.Routes, Domains: opts.Domains,
		ZoneID: opts.ZoneID, Limits: opts.Limits, SiteURL: m.SiteURL,
	}
	if opts.ScriptName != "" {
		p.ScriptName = opts.ScriptName
	}
	if len(opts.Routes) > 0 && opts.ZoneID == "" {
		return nil, &UsageError{Msg: "--route needs --zone-id"}
	}
	ig, err := p.readIgnore()
	if err != nil {
		return nil, err
	}
	mf, err := fileOf(dir, manifest.FileName)
	if err != nil {
		return nil, &TreeError{Err: err}
	}
	for _, f := range append(m.Files, mf) {
		switch {
		case f.Path == manifest.HeadersFile:
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
			if err != nil {
				return nil, &TreeError{Err: fmt.Errorf("read %s: %w", f.Path, err)}
			}
			p.Headers = string(b)
		case ig.Ignored(f.Path):
			p.Ignored++
			p.IgnoredBytes += f.Size
		default:
			p.add(f)
		}
	}
	sort.Slice(p.Assets, func(i, j int) bool { return p.Assets[i].Path < p.Assets[j].Path })
	return p, nil
}

// readIgnore reads the tree's .assetsignore; without one only wrangler's defaults apply.
func (p *Plan) readIgnore() (*Ignore, error) {
	b, err := os.ReadFile(filepath.Join(p.Dir, AssetsIgnoreFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &TreeError{Err: fmt.Errorf("read %s: %w", AssetsIgnoreFile, err)}
	}
	p.IgnoreFile = err == nil
	ig, err := ParseIgnore(b)
	if err != nil {
		return nil, &TreeError{Err: fmt.Errorf("%s: %w", filepath.Join(p.Dir, AssetsIgnoreFile), err)}
	}
	return ig, nil
}

func (p *Plan) add(f manifest.File) {
	urlPath := "/" + f.Path
	a := Asset{
		Path: urlPath, File: f.Path, Size: f.Size, SHA256: f.SHA256,
		Hash: AssetHash(f.SHA256, urlPath), ContentType: ContentType(urlPath),
	}
	p.Assets = append(p.Assets, a)
	p.Bytes += a.Size
	if a.Size > p.Largest.Size || p.Largest.Path == "" {
		p.Largest = a
	}
}

// fileOf hashes one file of the tree that the manifest does not list.
func fileOf(dir, rel string) (manifest.File, error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return manifest.File{}, fmt.Errorf("read %s: %w", rel, err)
	}
	sum := sha256.Sum256(b)
	return manifest.File{Path: rel, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}, nil
}

// Preflight checks the plan against its limits; it returns a *LimitError naming every
// problem and what to do, or nil.
func (p *Plan) Preflight() error {
	var problems []string
	if n := len(p.Assets); n > p.Limits.MaxFiles {
		var what []string
		if !p.IgnoreFile {
			what = append(what, "generate the tree again with this version (its .assetsignore leaves the per-date matrix files out)")
		}
		if p.Limits.Plan == "free" {
			what = append(what, "use --plan paid (Workers Paid allows 100,000 files per version)")
		}
		what = append(what, "generate fewer years (numerology generate --from/--to)")
		problems = append(problems, fmt.Sprintf("the tree has %s files to upload, over the %s of Workers %s per version: %s",
			humanize.Count(int64(n)), humanize.Count(int64(p.Limits.MaxFiles)), p.Limits.Plan, strings.Join(what, ", or ")))
	}
	var big []string
	for _, a := range p.Assets {
		if a.Size > p.Limits.MaxFileSize {
			big = append(big, fmt.Sprintf("%s (%s)", a.File, humanize.Bytes(a.Size)))
		}
	}
	if len(big) > 0 {
		problems = append(problems, fmt.Sprintf("%d file(s) over Cloudflare's 25 MiB per file: %s: split them or leave them out of the tree (archives belong on a download host)",
			len(big), strings.Join(big, ", ")))
	}
	if len(problems) == 0 {
		return nil
	}
	return &LimitError{Problems: problems}
}

// Write prints the plan for --dry-run.
func (p *Plan) Write(w io.Writer) {
	wk := p.Worker
	fmt.Fprintf(w, "deploy plan for %s (dry run: nothing is sent)\n", p.Dir)
	fmt.Fprintf(w, "  assets     %s files to upload, %s (manifest.json included; _headers sent as header rules, %d bytes)\n",
		humanize.Count(int64(len(p.Assets))), humanize.Bytes(p.Bytes), len(p.Headers))
	ignoreFile := AssetsIgnoreFile
	if !p.IgnoreFile {
		ignoreFile = "wrangler's defaults (the tree has no " + AssetsIgnoreFile + ")"
	}
	fmt.Fprintf(w, "  ignored    %s files, %s, by %s\n", humanize.Count(int64(p.Ignored)), humanize.Bytes(p.IgnoredBytes), ignoreFile)
	fmt.Fprintf(w, "  limits     Workers %s: %s of %s files; largest %s, %s of 25 MiB\n",
		p.Limits.Plan, humanize.Count(int64(len(p.Assets))), humanize.Count(int64(p.Limits.MaxFiles)), p.Largest.File, humanize.Bytes(p.Largest.Size))
	fmt.Fprintf(w, "  worker     %s: module %s (%s), compatibility date %s", p.ScriptName, wk.MainModule, humanize.Bytes(int64(len(wk.Script))), wk.CompatibilityDate)
	if len(wk.CompatibilityFlags) > 0 {
		fmt.Fprintf(w, ", flags %s", strings.Join(wk.CompatibilityFlags, ","))
	}
	if wk.Observability != nil && *wk.Observability {
		fmt.Fprint(w, ", observability on")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  config     run_worker_first %s, html_handling %s, not_found_handling %s\n",
		wk.Assets.describeRunWorkerFirst(), orDefault(wk.Assets.HTMLHandling), orDefault(wk.Assets.NotFoundHandling))
	fmt.Fprintf(w, "  bindings   %s\n", strings.Join(p.Bindings(), "; "))
	switch {
	case len(p.Routes) == 0 && len(p.Domains) == 0:
		fmt.Fprintf(w, "  address    https://%s.<account subdomain>.workers.dev (no --route or --domain: the workers.dev address is turned on)\n", p.ScriptName)
	default:
		for _, r := range p.Routes {
			fmt.Fprintf(w, "  route      %s (zone %s)\n", r, p.ZoneID)
		}
		for _, d := range p.Domains {
			fmt.Fprintf(w, "  domain     %s\n", d)
		}
	}
	fmt.Fprintln(w, "  steps      1. upload session with the assets manifest; 2. upload the files Cloudflare lacks;")
	fmt.Fprintln(w, "             3. upload the script with the completion token: the new version goes live in one step;")
	fmt.Fprintln(w, "             4. bind the routes and domains, or turn on the workers.dev address")
}

// Bindings describes the worker's bindings, in the order they are sent.
func (p *Plan) Bindings() []string {
	wk := p.Worker
	out := []string{wk.Assets.Binding + " (assets)"}
	for _, rl := range wk.RateLimits {
		out = append(out, fmt.Sprintf("%s (ratelimit, namespace %s, %d requests per %d s)", rl.Name, rl.NamespaceID, rl.Simple.Limit, rl.Simple.Period))
	}
	for _, k := range slices.Sorted(maps.Keys(wk.Vars)) {
		out = append(out, fmt.Sprintf("%s (plain text, %d bytes)", k, len(wk.Vars[k])))
	}
	return out
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

// ContentType is the content type an asset is uploaded with, from its extension.
func ContentType(urlPath string) string {
	return contract.ContentType(urlPath)
}
