package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/opennumerology/numerology/edge/cloudflare"
	"github.com/opennumerology/numerology/edge/worker"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/humanize"
)

// Environment variables deploy reads. The token is never taken from a flag, so it stays
// out of shell history and process listings.
const (
	envToken   = "CLOUDFLARE_API_TOKEN"
	envAccount = "CLOUDFLARE_ACCOUNT_ID"
	// envBaseURL points deploy at another API address: the fake Cloudflare API of the tests.
	envBaseURL = "CLOUDFLARE_API_BASE_URL"
)

type deployOptions struct {
	dir         string
	dryRun      bool
	plan        string
	accountID   string
	name        string
	routes      []string
	domains     []string
	zoneID      string
	subdomain   string
	keepDev     bool
	purge       bool // deprecated: accepted and ignored (docs/deploy.md)
	concurrency int
}

func newDeployCmd() *cobra.Command {
	opts := &deployOptions{}
	cmd := &cobra.Command{
		Use:   "deploy",
		Short: "Publish the tree and the worker to Cloudflare (static assets + one script upload)",
		Long: `deploy publishes a generated tree as the Worker's static assets together with the worker
(its module, compatibility date, ASSETS and rate-limit bindings, embedded in this binary).

It plans from manifest.json, its shards and the tree's .assetsignore (read exactly as wrangler
reads it: the per-date files of every date route and the shards stay out, the worker reads the
packed files), proves that every file
the worker reads is uploaded, and checks the plan against the account plan's limits (--plan
free: 20,000 files per version, paid: 100,000; 25 MiB per file), the worker config, the routes
and the domains as Cloudflare checks them, before any network call. Then, before any upload, it
checks what Cloudflare would refuse after it: the zone of --route (the token must see it, the
route must not be another Worker's), the custom domains (another Worker's, or over DNS records)
and, for a deploy that answers on workers.dev, the account's workers.dev subdomain: a brand-new
account has none; --workers-subdomain NAME registers one, as wrangler offers to. Then:
  1. opens an assets upload session with the manifest of path → hash and size;
  2. uploads only the files Cloudflare does not already hold (a re-run after an interrupted
     deploy sends only what is still missing);
  3. uploads the script with the completion token: the new version, worker and assets
     together, goes live in one step. Until then the previous version keeps serving;
  4. binds --route/--domain and sets the workers.dev address as wrangler does (on without
     routes or domains or with --keep-workers-dev, off otherwise), and prints the URLs the
     API answers on.

Credentials come from the environment only: CLOUDFLARE_API_TOKEN (Account > Workers Scripts >
Edit; Zone > Zone > Read and Zone > Workers Routes > Edit for --route; Zone > Workers Routes >
Edit for --domain) and CLOUDFLARE_ACCOUNT_ID (or --account-id). The token is never printed.
--dry-run prints the plan and needs neither credentials nor network.

Calls are retried on 429, 5xx and network errors (5 attempts, exponential backoff with full
jitter); a 429's Retry-After of up to 300 s (Cloudflare's API blocks for five minutes) is
waited out with a line saying so. Exit codes: 8 for an account without a workers.dev
subdomain (or a --workers-subdomain that is taken), 6 for missing or rejected credentials,
7 for a tree over the plan's limits, 5 for an unreadable tree, 4 for a tree that no longer
matches its manifest or whose .assetsignore leaves out a file the worker reads.`,
		Example: `  numerology deploy --dry-run
  CLOUDFLARE_API_TOKEN=… CLOUDFLARE_ACCOUNT_ID=… numerology deploy
  numerology deploy --workers-subdomain open-numerology   # a brand-new account, once
  numerology deploy --domain api.example.org`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDeploy(cmd.Context(), cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.dir, "dir", "d", "out", "the generated tree to publish")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print the plan and check the limits; send nothing, need no credentials")
	f.StringVar(&opts.plan, "plan", "free", "the account's Workers plan, for its limits: free or paid")
	f.StringVar(&opts.accountID, "account-id", "", "the Cloudflare account ID (default $"+envAccount+")")
	f.StringVar(&opts.name, "name", "", "the worker's script name (default: the name in the embedded wrangler.json)")
	f.StringArrayVar(&opts.routes, "route", nil, "bind a zone route pattern to the worker, e.g. 'api.example.org/*' (repeatable; needs --zone-id)")
	f.StringArrayVar(&opts.domains, "domain", nil, "bind a custom domain to the worker, e.g. api.example.org (repeatable)")
	f.StringVar(&opts.zoneID, "zone-id", "", "the zone of --route (and of --domain, optionally)")
	f.StringVar(&opts.subdomain, "workers-subdomain", "", "register this workers.dev subdomain if the account has none yet (a brand-new account)")
	f.BoolVar(&opts.keepDev, "keep-workers-dev", false, "keep the workers.dev address on for a deploy with --route or --domain")
	f.BoolVar(&opts.purge, "purge", false, "no longer does anything")
	// The worker runs before any cache and a new version replaces the assets, so a zone
	// purge had nothing to purge; the flag stays accepted so that scripts keep working.
	_ = f.MarkDeprecated("purge", "it does nothing: the worker answers before any cache and each deploy replaces the assets (docs/deploy.md)")
	f.IntVar(&opts.concurrency, "concurrency", 3, "upload buckets in flight (1–16)")
	return cmd
}

func runDeploy(ctx context.Context, cmd *cobra.Command, opts *deployOptions) error {
	start := time.Now()
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	plan, err := deployPlan(opts)
	if err != nil {
		return err
	}
	if opts.dryRun {
		plan.Write(stdout)
		if err := plan.Preflight(); err != nil {
			return fmt.Errorf("deploy: %w", err)
		}
		fmt.Fprintln(stdout, "dry run: within the limits; nothing was sent")
		return nil
	}
	if err := plan.Preflight(); err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	d, err := newDeployer(opts, stderr)
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	fmt.Fprintf(stderr, "deploy: %s files, %s → worker %s (Workers %s; %s files left out by %s)\n",
		humanize.Count(int64(len(plan.Assets))), humanize.Bytes(plan.Bytes), plan.ScriptName, plan.Limits.Plan,
		humanize.Count(int64(plan.Ignored)), cloudflare.AssetsIgnoreFile)
	rep := newUploadReporter(stderr)
	d.OnProgress = rep.update
	res, err := d.Apply(ctx, plan)
	rep.done()
	if err != nil {
		if res != nil && res.VersionID != "" {
			fmt.Fprintf(stderr, "deploy: version %s of %s is live; a step after the switch failed:\n", res.VersionID, plan.ScriptName)
		}
		return fmt.Errorf("deploy: %w", err)
	}
	writeResult(stdout, plan, res, time.Since(start))
	return nil
}

// deployPlan checks the options and plans the deploy of the tree with the embedded worker.
func deployPlan(opts *deployOptions) (*cloudflare.Plan, error) {
	limits, err := cloudflare.PlanLimits(opts.plan)
	if err != nil {
		return nil, usageErrorf("--plan: %v", err)
	}
	if opts.concurrency < 1 || opts.concurrency > 16 {
		return nil, usageErrorf("--concurrency: %d is not within 1–16", opts.concurrency)
	}
	w, err := cloudflare.LoadWorker(worker.WorkerFS, worker.WorkerConfig)
	if err != nil {
		return nil, fmt.Errorf("deploy: embedded worker: %w", err)
	}
	plan, err := cloudflare.Load(opts.dir, w, cloudflare.Options{
		ScriptName: opts.name, Routes: opts.routes, Domains: opts.domains, ZoneID: opts.zoneID, Limits: limits,
		WorkersSubdomain: opts.subdomain, KeepWorkersDev: opts.keepDev,
	})
	if err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	return plan, nil
}

// newDeployer takes the credentials from the environment (the account ID also from
// --account-id); it fails before any request when one is missing.
func newDeployer(opts *deployOptions, log io.Writer) (*cloudflare.Deployer, error) {
	account := opts.accountID
	if account == "" {
		account = os.Getenv(envAccount)
	}
	d := &cloudflare.Deployer{
		AccountID:   account,
		Token:       os.Getenv(envToken),
		BaseURL:     os.Getenv(envBaseURL),
		Concurrency: opts.concurrency,
		Retry:       cloudflare.DefaultRetry,
		Log:         log,
	}
	switch {
	case d.Token == "":
		return nil, cloudflare.ErrNoToken
	case d.AccountID == "":
		return nil, cloudflare.ErrNoAccount
	}
	return d, nil
}

// writeResult reports a finished deploy: what was sent and where the API now answers.
func writeResult(w io.Writer, plan *cloudflare.Plan, res *cloudflare.Result, took time.Duration) {
	fmt.Fprintf(w, "deployed %s: version %s live in %.1fs\n", plan.ScriptName, res.VersionID, took.Seconds())
	fmt.Fprintf(w, "  uploaded %s files, %s in %d bucket(s); skipped %s files, %s already on Cloudflare\n",
		humanize.Count(int64(res.UploadedFiles)), humanize.Bytes(res.UploadedBytes), res.Buckets,
		humanize.Count(int64(res.SkippedFiles)), humanize.Bytes(res.SkippedBytes))
	if res.Registered != "" {
		fmt.Fprintf(w, "  registered the account's workers.dev subdomain %s.workers.dev (it may take a few minutes to answer)\n", res.Registered)
	}
	for _, r := range res.Routes {
		fmt.Fprintf(w, "  route  %s\n", r)
	}
	for _, dmn := range res.Domains {
		fmt.Fprintf(w, "  domain %s\n", dmn)
	}
	for _, u := range res.URLs {
		fmt.Fprintf(w, "  live at %s (try %s%s/matrix/15/5/1990)\n", u, strings.TrimSuffix(u, "/"), manifest.APIPrefix)
	}
}

// uploadReporter shows upload progress: a bar on a terminal, otherwise a plain line at most
// every few seconds (and the last one), which suits CI logs.
type uploadReporter struct {
	mu    sync.Mutex
	w     io.Writer
	bar   *progress
	last  time.Time
	every time.Duration
	final cloudflare.Progress
}

func newUploadReporter(w io.Writer) *uploadReporter {
	return &uploadReporter{w: w, bar: newProgress(w, "upload"), every: 3 * time.Second}
}

func (r *uploadReporter) update(p cloudflare.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.final = p
	if r.bar != nil {
		r.bar.Update(p.Files, p.TotalFiles)
		return
	}
	if p.Buckets == 0 || p.Buckets == p.TotalBuckets || time.Since(r.last) >= r.every {
		r.last = time.Now()
		fmt.Fprintf(r.w, "upload: %d/%d buckets, %s/%s files, %s/%s\n", p.Buckets, p.TotalBuckets,
			humanize.Count(int64(p.Files)), humanize.Count(int64(p.TotalFiles)), humanize.Bytes(p.Bytes), humanize.Bytes(p.TotalBytes))
	}
}

func (r *uploadReporter) done() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bar.Done()
}
