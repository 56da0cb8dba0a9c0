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
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/assetsignore"
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

// freeMaxFiles is the static asset files of a Workers Free version.
const freeMaxFiles = 20_000

// PlanLimits returns the limits of a Workers plan by name: free (20,000 files per
// version) or paid (100,000), both with 25 MiB per file.
func PlanLimits(plan string) (Limits, error) {
	switch plan {
	case "free":
		return Limits{Plan: plan, MaxFiles: freeMaxFiles, MaxFileSize: MaxFileSize}, nil
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
	// WorkersSubdomain is the workers.dev subdomain to register when the account has none
	// (--workers-subdomain); empty: an account without one stops the deploy.
	WorkersSubdomain string
	// KeepWorkersDev keeps the workers.dev address on for a deploy with routes or domains
	// (--keep-workers-dev); by default it is turned off then, as wrangler does.
	KeepWorkersDev bool
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
	// Redirects is the content of the tree's _redirects file, if it has one: Cloudflare
	// takes it as the assets' redirect rules (assets.config._redirects), as wrangler sends it.
	Redirects string
	// WorkerFiles counts the files the worker reads, each proven to be among Assets.
	WorkerFiles int
	// Ignored and IgnoredBytes count the tree's files left out by .assetsignore (and
	// wrangler's defaults: the ignore file itself, _redirects); IgnoreFile says whether the
	// tree has one.
	Ignored          int
	IgnoredBytes     int64
	IgnoreFile       bool
	Routes           []string
	Domains          []string
	ZoneID           string
	Limits           Limits
	SiteURL          string
	WorkersSubdomain string
	KeepWorkersDev   bool
}

// WantsWorkersDev reports whether the deploy answers on the worker's workers.dev address:
// with no route or domain, or with --keep-workers-dev (wrangler's workers_dev default).
func (p *Plan) WantsWorkersDev() bool {
	return len(p.Routes) == 0 && len(p.Domains) == 0 || p.KeepWorkersDev
}

// Load loads the manifest of the tree in dir and plans its deploy with the worker w; a
// manifest that cannot be read is a *TreeError.
func Load(dir string, w *Worker, opts Options) (*Plan, error) {
	m, err := manifest.Load(dir)
	if err != nil {
		return nil, &TreeError{Err: err}
	}
	return NewPlan(dir, m, w, opts)
}

// NewPlan computes the plan of deploying the tree in dir, described by the root of its
// manifest m, with the worker w. Every file the manifest lists, in its root and its shards
// (each read and checked against the root), becomes an asset except _headers and
// _redirects (sent as the assets' rules, as wrangler sends them) and what the tree's
// .assetsignore leaves out, read as wrangler reads it (the shards themselves and the files
// of the date routes among them), so that numerology deploy and wrangler deploy upload the
// same set; manifest.json itself is published too (the dataset's public file list). It refuses,
// before any network call, options Cloudflare would refuse and a plan that leaves out
// something the worker reads.
func NewPlan(dir string, m *manifest.Manifest, w *Worker, opts Options) (*Plan, error) {
	p := &Plan{
		Dir: dir, Worker: w, ScriptName: w.Name, Routes: opts.Routes, Domains: opts.Domains,
		ZoneID: opts.ZoneID, Limits: opts.Limits, SiteURL: m.SiteURL,
		WorkersSubdomain: opts.WorkersSubdomain, KeepWorkersDev: opts.KeepWorkersDev,
	}
	if opts.ScriptName != "" && opts.ScriptName != w.Name {
		p.ScriptName = opts.ScriptName
		p.Worker = w.renamed(opts.ScriptName)
	}
	if err := p.checkOptions(); err != nil {
		return nil, err
	}
	ig, err := p.readIgnore()
	if err != nil {
		return nil, err
	}
	mf, err := fileOf(dir, manifest.FileName)
	if err != nil {
		return nil, &TreeError{Err: err}
	}
	// The worker's files the manifest lists, found while its files are enumerated, shard by
	// shard: the shards are read once, and nothing of them is kept.
	workerFiles, edgeProblems := m.WorkerFiles()
	problems := make([]assetsignore.Missing, len(edgeProblems))
	for i, d := range edgeProblems {
		problems[i] = assetsignore.Missing{Kind: assetsignore.MissingEdge, File: manifest.EdgeFile, Detail: d}
	}
	reads := make(map[string]bool, len(workerFiles))
	for _, f := range workerFiles {
		reads[f] = false
	}
	hasRedirects := false
	visit := func(f manifest.File) error {
		if _, ok := reads[f.Path]; ok {
			reads[f.Path] = true
		}
		var err error
		switch f.Path {
		case manifest.HeadersFile:
			p.Headers, err = p.readRules(f)
			return err
		case redirectsFile:
			hasRedirects = true
			p.Redirects, err = p.readRules(f)
			return err
		}
		ignored, err := ig.Ignored(f.Path)
		if err != nil {
			return &TreeError{Err: err}
		}
		if ignored {
			p.Ignored++
			p.IgnoredBytes += f.Size
			return nil
		}
		p.add(f)
		return nil
	}
	if err := m.Walk(dir, visit); err != nil {
		var te *TreeError
		if errors.As(err, &te) {
			return nil, err
		}
		return nil, &TreeError{Mismatch: errors.Is(err, manifest.ErrMismatch), Err: err}
	}
	if err := visit(mf); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(filepath.Join(dir, redirectsFile)); !hasRedirects && err == nil {
		return nil, &TreeError{Mismatch: true, Err: fmt.Errorf("the tree has a %s file that its manifest does not list: Cloudflare would take it as redirect rules "+
			"(wrangler sends it so), and numerology generate never writes one: remove it, or list it in the manifest, then run numerology verify", redirectsFile)}
	}
	sort.Slice(p.Assets, func(i, j int) bool { return p.Assets[i].Path < p.Assets[j].Path })
	if err := p.proveWorkerFiles(workerFiles, problems, reads, ig); err != nil {
		return nil, err
	}
	return p, nil
}

// redirectsFile is the file of an assets directory whose rules Cloudflare applies as
// redirects; wrangler sends it as assets.config._redirects.
const redirectsFile = "_redirects"

// readRules reads _headers or _redirects, which are sent as configuration, and checks it
// against its manifest entry like every uploaded file.
func (p *Plan) readRules(f manifest.File) (string, error) {
	b, err := os.ReadFile(filepath.Join(p.Dir, filepath.FromSlash(f.Path)))
	if err != nil {
		return "", &TreeError{Err: fmt.Errorf("read %s: %w", f.Path, err)}
	}
	sum := sha256.Sum256(b)
	if int64(len(b)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
		return "", &TreeError{Mismatch: true, Err: fmt.Errorf("%s does not match the manifest: the tree changed after generate (run numerology verify, or generate again)", f.Path)}
	}
	return string(b), nil
}

// proveWorkerFiles checks that every file the worker reads, as the manifest's edge config
// says (files, in order, with the config's problems), is among the assets to upload, and
// that edge.json holds every error body the worker answers; otherwise the worker would
// answer 500 where it reads what is missing. listed says which of the files the manifest
// lists.
func (p *Plan) proveWorkerFiles(files []string, problems []assetsignore.Missing, listed map[string]bool, ig *assetsignore.Matcher) error {
	uploaded := make(map[string]bool, len(p.Assets))
	for _, a := range p.Assets {
		uploaded[a.File] = true
	}
	var missing []assetsignore.Missing
	for _, f := range files {
		switch {
		case uploaded[f]:
			continue
		case !listed[f]:
			missing = append(missing, assetsignore.Missing{Kind: assetsignore.MissingUnlisted, File: f})
		default:
			r, err := ig.Why(f)
			if err != nil {
				return &TreeError{Err: err}
			}
			if r == nil { // listed, kept by .assetsignore, and still not uploaded: a file sent as rules
				missing = append(missing, assetsignore.Missing{Kind: assetsignore.MissingEdge, File: f, Detail: "is sent as configuration, not as a file"})
				continue
			}
			missing = append(missing, assetsignore.Missing{Kind: assetsignore.MissingIgnored, File: f, Rule: r})
		}
	}
	missing = append(missing, problems...)
	if len(missing) > 0 {
		return &WorkerFilesError{Missing: missing}
	}
	p.WorkerFiles = len(files)
	return nil
}

// checkOptions refuses, before any network call, routes, domains and a workers.dev
// subdomain that Cloudflare would refuse or that cannot serve the API.
func (p *Plan) checkOptions() error {
	if len(p.Routes) > 0 && p.ZoneID == "" {
		return &UsageError{Msg: "--route needs --zone-id"}
	}
	var problems []string
	for _, r := range p.Routes {
		if err := checkRoute(r); err != nil {
			problems = append(problems, err.Error())
		}
	}
	for _, d := range p.Domains {
		if err := checkDomain(d); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if n := p.WorkersSubdomain; n != "" {
		if !subdomainName.MatchString(n) {
			problems = append(problems, fmt.Sprintf("--workers-subdomain %q: a workers.dev subdomain is 1 to 63 lowercase letters, digits and hyphens, not starting or ending with a hyphen", n))
		}
		if !p.WantsWorkersDev() {
			problems = append(problems, "--workers-subdomain: with --route or --domain the deploy does not answer on workers.dev; add --keep-workers-dev to answer there too")
		}
	}
	if len(problems) > 0 {
		return &UsageError{Msg: strings.Join(problems, "; ")}
	}
	return nil
}

// subdomainName is what wrangler accepts as a workers.dev subdomain.
var subdomainName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// hostLabel is one label of a hostname.
var hostLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// checkHost checks a hostname: dot-separated labels of letters, digits and hyphens, at
// least two, at most 253 characters.
func checkHost(h string) error {
	labels := strings.Split(strings.ToLower(h), ".")
	if len(h) > 253 || len(labels) < 2 {
		return errors.New("is not a hostname with a domain")
	}
	for _, l := range labels {
		if !hostLabel.MatchString(l) {
			return fmt.Errorf("has the label %q, which is not 1–63 letters, digits and hyphens", l)
		}
	}
	return nil
}

// checkRoute checks a --route pattern: "host/*" or "host/path*", the host in the zone's
// DNS (a leading "*." or "*" matches its subdomains), the one wildcard at the end of the
// path, as Cloudflare's route patterns allow (no infix wildcard, no query) and as the
// worker needs (every path below the prefix, /api/public/… included).
func checkRoute(pattern string) error {
	bad := func(why string) error { return fmt.Errorf("--route %q: %s", pattern, why) }
	if strings.Contains(pattern, "://") {
		return bad("drop the scheme: a route matches http and https alike")
	}
	host, path, ok := strings.Cut(pattern, "/")
	if !ok {
		return bad("must be host/* or host/path*")
	}
	h := strings.TrimPrefix(strings.TrimPrefix(host, "*"), ".")
	if strings.Contains(h, "*") {
		return bad("only one * may lead the host (*.example.org)")
	}
	if err := checkHost(h); err != nil {
		return bad("the host " + err.Error())
	}
	if !strings.HasSuffix(path, "*") || strings.Count(path, "*") != 1 {
		return bad("must be host/* or host/path*: one * ending the path, none inside it")
	}
	if strings.ContainsAny(path, "?# \t") {
		return bad("a route cannot hold a query, a fragment or whitespace")
	}
	return nil
}

// checkDomain checks a --domain: a hostname without a wildcard, a path, a scheme or a port
// (wrangler's messages: "Wildcard operators (*) are not allowed in Custom Domains", "Paths
// are not allowed in Custom Domains").
func checkDomain(host string) error {
	switch {
	case strings.Contains(host, "*"):
		return fmt.Errorf("--domain %q: a custom domain cannot hold a wildcard (*): it is one hostname", host)
	case strings.Contains(host, "/"):
		return fmt.Errorf("--domain %q: a custom domain cannot hold a path or a scheme: give the hostname alone (a route takes a path: --route)", host)
	case strings.Contains(host, ":"):
		return fmt.Errorf("--domain %q: a custom domain cannot hold a port", host)
	}
	if err := checkHost(host); err != nil {
		return fmt.Errorf("--domain %q: %v", host, err)
	}
	return nil
}

// readIgnore reads the tree's .assetsignore; without one only wrangler's defaults apply.
func (p *Plan) readIgnore() (*assetsignore.Matcher, error) {
	b, err := os.ReadFile(filepath.Join(p.Dir, AssetsIgnoreFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &TreeError{Err: fmt.Errorf("read %s: %w", AssetsIgnoreFile, err)}
	}
	p.IgnoreFile = err == nil
	ig, err := assetsignore.Parse(b)
	if err != nil {
		return nil, &TreeError{Err: fmt.Errorf("%s: %w", p.Dir, err)}
	}
	return ig, nil
}

// AssetsIgnoreFile is the file of the assets directory, in gitignore syntax, that lists
// what not to upload: wrangler's convention, read exactly as wrangler reads it
// (internal/assetsignore).
const AssetsIgnoreFile = assetsignore.FileName

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
	rules := fmt.Sprintf("_headers sent as header rules, %d bytes", len(p.Headers))
	if p.Redirects != "" {
		rules += fmt.Sprintf("; _redirects sent as redirect rules, %d bytes", len(p.Redirects))
	}
	fmt.Fprintf(w, "  assets     %s files to upload, %s (manifest.json included; %s)\n",
		humanize.Count(int64(len(p.Assets))), humanize.Bytes(p.Bytes), rules)
	ignoreFile := AssetsIgnoreFile
	if !p.IgnoreFile {
		ignoreFile = "wrangler's defaults (the tree has no " + AssetsIgnoreFile + ")"
	}
	fmt.Fprintf(w, "  ignored    %s files, %s, by %s\n", humanize.Count(int64(p.Ignored)), humanize.Bytes(p.IgnoredBytes), ignoreFile)
	fmt.Fprintf(w, "  reads      the worker reads %s files of the tree (edge.json, route files, packed files): every one is uploaded\n", humanize.Count(int64(p.WorkerFiles)))
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
	for _, r := range p.Routes {
		fmt.Fprintf(w, "  route      %s (zone %s)\n", r, p.ZoneID)
	}
	for _, d := range p.Domains {
		fmt.Fprintf(w, "  domain     %s\n", d)
	}
	switch {
	case p.WantsWorkersDev() && p.WorkersSubdomain != "":
		fmt.Fprintf(w, "  address    https://%s.<account subdomain>.workers.dev (turned on; an account without a subdomain registers %s)\n", p.ScriptName, p.WorkersSubdomain)
	case p.WantsWorkersDev():
		fmt.Fprintf(w, "  address    https://%s.<account subdomain>.workers.dev (turned on; an account without a subdomain stops the deploy before any upload)\n", p.ScriptName)
	default:
		fmt.Fprintln(w, "  address    workers.dev turned off, as wrangler does for a worker with routes (--keep-workers-dev keeps it)")
	}
	fmt.Fprintln(w, "  steps      0. check the routes' zone, the domains and the workers.dev subdomain; nothing is sent before")
	fmt.Fprintln(w, "             1. upload session with the assets manifest; 2. upload the files Cloudflare lacks;")
	fmt.Fprintln(w, "             3. upload the script with the completion token: the new version goes live in one step;")
	fmt.Fprintln(w, "             4. bind the routes and domains, and set the workers.dev address")
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
