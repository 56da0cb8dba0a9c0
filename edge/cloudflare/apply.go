package cloudflare

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/cloudflare/cloudflare-go/v6/option"
	"github.com/cloudflare/cloudflare-go/v6/shared"
	"github.com/cloudflare/cloudflare-go/v6/workers"
	json "github.com/goccy/go-json"
	"golang.org/x/sync/errgroup"

	"github.com/opennumerology/numerology/internal/humanize"
)

// RequestTimeout bounds one attempt of one API call; a bucket is at most a few MB.
var RequestTimeout = 5 * time.Minute

// Deployer applies plans to one Cloudflare account.
type Deployer struct {
	AccountID string
	Token     string // the API token; never printed
	// BaseURL replaces Cloudflare's API address (a fake in tests); empty means the real one.
	BaseURL    string
	HTTPClient *http.Client
	// Concurrency bounds the upload buckets in flight (default 3).
	Concurrency int
	Retry       Retry // zero means DefaultRetry
	// Log receives retries and steps as plain lines; nil discards them.
	Log io.Writer
	// OnProgress is called after each uploaded bucket.
	OnProgress func(Progress)
	// Now is the clock the upload session's one-hour tokens are timed with; nil: time.Now.
	Now func() time.Time
}

func (d *Deployer) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Progress is the state of the upload.
type Progress struct {
	Buckets, TotalBuckets int
	Files, TotalFiles     int
	Bytes, TotalBytes     int64
}

// Result summarises an applied deploy.
type Result struct {
	Files         int   // assets in the new version
	Bytes         int64 // their total size
	UploadedFiles int
	UploadedBytes int64
	SkippedFiles  int // already on Cloudflare: not sent
	SkippedBytes  int64
	Buckets       int
	VersionID     string
	Routes        []string
	Domains       []string
	// Registered is the workers.dev subdomain this deploy registered for the account
	// (--workers-subdomain on an account that had none).
	Registered string
	// URLs are where the new version answers: https:// and each route's host or custom
	// domain, and its workers.dev address when the deploy answers there.
	URLs     []string
	Duration time.Duration
}

// Apply publishes the plan: the upload session, the missing files, then one script upload
// that switches the worker and its assets to the new version. Until that last call the live
// worker is untouched, so an interrupted deploy leaves the previous version serving, and a
// re-run uploads only what Cloudflare still lacks. Then it makes the version reachable: the
// routes and custom domains asked for, or else the worker's workers.dev address.
func (d *Deployer) Apply(ctx context.Context, p *Plan) (*Result, error) {
	red := &redactor{}
	red.add(d.Token)
	res, err := d.apply(ctx, p, red)
	return res, red.err(err)
}

func (d *Deployer) apply(ctx context.Context, p *Plan, red *redactor) (*Result, error) {
	start := time.Now()
	if err := d.check(p); err != nil {
		return nil, err
	}
	a := d.newApplier(p, red)
	// 0. What Cloudflare would refuse after the upload is checked before it: the routes'
	// zone, the custom domains, the account's workers.dev subdomain.
	if err := a.checkRoutes(ctx); err != nil {
		return nil, err
	}
	if err := a.checkDomains(ctx); err != nil {
		return nil, err
	}
	if err := a.ensureSubdomain(ctx); err != nil {
		return nil, err
	}
	// 1–2. The upload session and the files Cloudflare lacks.
	completion, err := a.uploadAssets(ctx)
	if err != nil {
		return nil, err
	}
	// 3. The script with its assets and bindings: the new version goes live in one step.
	version, err := a.uploadScript(ctx, completion)
	if err != nil {
		return nil, err
	}
	a.res.VersionID = version
	// 4. Where it answers: routes, custom domains and the workers.dev address.
	if err := a.publish(ctx); err != nil {
		return a.res, err
	}
	a.res.Duration = time.Since(start)
	return a.res, nil
}

// check refuses, before any request, what Cloudflare would refuse or cannot be sent.
func (d *Deployer) check(p *Plan) error {
	if d.Token == "" {
		return ErrNoToken
	}
	if d.AccountID == "" {
		return ErrNoAccount
	}
	if err := p.Preflight(); err != nil {
		return err
	}
	return p.Worker.Validate()
}

// newApplier builds the API client of one deploy.
func (d *Deployer) newApplier(p *Plan, red *redactor) *applier {
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithAPIToken(d.Token),
		option.WithMaxRetries(0), // Retry below owns retries: jittered, bounded, logged
		// A stalled connection fails the attempt (and is retried) instead of hanging.
		option.WithRequestTimeout(RequestTimeout),
	}
	if d.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(d.BaseURL))
	}
	// Every answer read, by the SDK or rawCall, stops at MaxAnswer bytes.
	client := cappedClient(d.HTTPClient)
	opts = append(opts, option.WithHTTPClient(client))
	// The services are built from explicit options rather than the SDK's NewClient, which
	// would also pick up CLOUDFLARE_API_KEY and friends from the environment.
	a := &applier{d: d, p: p, wk: workers.NewWorkerService(opts...), client: client, red: red, res: &Result{Files: len(p.Assets), Bytes: p.Bytes}, retry: d.Retry}
	if a.retry.Attempts == 0 {
		a.retry = DefaultRetry
	}
	return a
}

// uploadAssets opens the upload session and sends the buckets Cloudflare asks for; it
// returns the completion token the script upload needs.
func (a *applier) uploadAssets(ctx context.Context) (string, error) {
	session, err := a.openSession(ctx)
	if err != nil {
		return "", err
	}
	buckets, repeated := uniqueBuckets(session.Buckets)
	if repeated > 0 {
		a.logf("upload session: Cloudflare listed %s hash(es) more than once; each file is sent once", humanize.Count(int64(repeated)))
	}
	a.logf("upload session: %d of %d files to upload in %d bucket(s)", countHashes(buckets), len(a.p.Assets), len(buckets))
	// The buckets, a few at a time; the last one answers with the completion token.
	completion := session.JWT
	a.completionAt = a.sessionAt
	if len(buckets) > 0 {
		if completion, err = a.uploadBuckets(ctx, session.JWT, buckets); err != nil {
			return "", err
		}
	}
	a.res.SkippedFiles = len(a.p.Assets) - a.res.UploadedFiles
	a.res.SkippedBytes = a.p.Bytes - a.res.UploadedBytes
	return completion, nil
}

// openSession sends the assets manifest; Cloudflare answers with the buckets of hashes it
// lacks and an upload token (or, with nothing to upload, the completion token).
func (a *applier) openSession(ctx context.Context) (*workers.ScriptAssetUploadNewResponse, error) {
	// The SDK's JSON encoder inserts map entries one by one with sjson, which is quadratic in
	// the manifest's size (minutes for 73,000 files), so the body is encoded here and the
	// SDK keeps the path, auth, retries and envelope.
	body, err := sessionBody(a.p.Assets)
	if err != nil {
		return nil, err
	}
	var sp workers.ScriptAssetUploadNewParams
	set(&sp.AccountID.Value, &sp.AccountID.Present, a.d.AccountID)
	var session *workers.ScriptAssetUploadNewResponse
	err = a.call(ctx, "start the assets upload session", func() (err error) {
		session, err = a.wk.Scripts.Assets.Upload.New(ctx, a.p.ScriptName, sp, option.WithRequestBody("application/json", body))
		return err
	})
	if err != nil {
		var apiErr *workers.Error
		if n := len(a.p.Assets); errors.As(err, &apiErr) && apiErr.StatusCode < 500 && a.p.Limits.Plan == "paid" && n > freeMaxFiles {
			return nil, &LimitError{Problems: []string{fmt.Sprintf("Cloudflare refused the upload session of %s files (%v): an account on Workers Free holds %s files per version; "+
				"deploy with --plan free to check that before any upload, or move the account to Workers Paid", humanize.Count(int64(n)), err, humanize.Count(freeMaxFiles))}}
		}
		return nil, err
	}
	if session.JWT == "" {
		// Without a token nothing can be uploaded, and with no bucket it is the completion
		// token the script upload needs (wrangler stops here too).
		//lint:ignore ST1005 the message starts with a proper noun
		return nil, errors.New("Cloudflare answered the upload session without a token: nothing can be uploaded or attached to the version; run deploy again (nothing went live)")
	}
	a.sessionAt = a.d.now()
	a.red.add(session.JWT)
	return session, nil
}

// tokenLife is how long the tokens of an upload session are valid.
const tokenLife = time.Hour

type applier struct {
	d      *Deployer
	p      *Plan
	wk     *workers.WorkerService
	client *http.Client // the deploy's client, answers capped at MaxAnswer
	red    *redactor
	res    *Result
	retry  Retry
	mu     sync.Mutex // guards res and progress while buckets upload

	sessionAt    time.Time         // when the upload session (and its upload token) began
	completionAt time.Time         // when the completion token arrived
	subdomain    string            // the account's workers.dev subdomain, when the deploy answers there
	zoneRoutes   map[string]string // the zone's routes, pattern → id, read before the upload

	logMu sync.Mutex // one log line at a time from the bucket goroutines
}

func (a *applier) logf(format string, args ...any) {
	if a.d.Log != nil {
		line := a.red.text(fmt.Sprintf(format, args...))
		a.logMu.Lock()
		defer a.logMu.Unlock()
		fmt.Fprintln(a.d.Log, line)
	}
}

// call runs one API call with retries and turns token rejections into *AuthError.
func (a *applier) call(ctx context.Context, what string, fn func() error) error {
	log := func(s string) { a.logf("%s", s) }
	err := a.retry.do(ctx, what, log, fn)
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	if ae := classify(err); ae != err {
		return ae
	}
	return fmt.Errorf("%s: %w", what, err)
}

// uniqueBuckets drops from the session's buckets each hash listed before (and the buckets
// left empty), and says how many it dropped: a file is sent once, and counted once.
func uniqueBuckets(buckets [][]string) ([][]string, int) {
	seen := map[string]bool{}
	var out [][]string
	repeated := 0
	for _, b := range buckets {
		var keep []string
		for _, h := range b {
			if seen[h] {
				repeated++
				continue
			}
			seen[h] = true
			keep = append(keep, h)
		}
		if len(keep) > 0 {
			out = append(out, keep)
		}
	}
	return out, repeated
}

func countHashes(buckets [][]string) int {
	n := 0
	for _, b := range buckets {
		n += len(b)
	}
	return n
}

// uploadBuckets sends every bucket with at most Concurrency in flight and returns the
// completion token.
func (a *applier) uploadBuckets(ctx context.Context, uploadJWT string, buckets [][]string) (string, error) {
	byHash := make(map[string]*Asset, len(a.p.Assets))
	for i := range a.p.Assets {
		as := &a.p.Assets[i]
		if _, dup := byHash[as.Hash]; !dup {
			byHash[as.Hash] = as
		}
	}
	total := Progress{TotalBuckets: len(buckets)}
	for _, b := range buckets {
		for _, h := range b {
			total.TotalFiles++
			if as := byHash[h]; as != nil {
				total.TotalBytes += as.Size
			}
		}
	}
	conc := a.d.Concurrency
	if conc <= 0 {
		conc = 3
	}
	// The first failed bucket cancels the others.
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(conc)
	var (
		completion string
		done       = total
	)
	done.Buckets, done.Files, done.Bytes = 0, 0, 0
	a.report(done)
	for i, bucket := range buckets {
		if ectx.Err() != nil {
			break
		}
		eg.Go(func() error {
			jwt, files, size, err := a.uploadBucket(ectx, uploadJWT, i, len(buckets), bucket, byHash)
			if err != nil {
				return err
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if jwt != "" {
				completion, a.completionAt = jwt, a.d.now()
			}
			a.res.UploadedFiles += files
			a.res.UploadedBytes += size
			a.res.Buckets++
			done.Buckets++
			done.Files += files
			done.Bytes += size
			a.report(done)
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if completion == "" {
		//lint:ignore ST1005 the message starts with a proper noun
		return "", errors.New("Cloudflare accepted every bucket but sent no completion token; run deploy again")
	}
	a.red.add(completion)
	return completion, nil
}

func (a *applier) report(p Progress) {
	if a.d.OnProgress != nil {
		a.d.OnProgress(p)
	}
}

// uploadBucket reads, checks and sends one bucket as a multipart form of base64 contents
// keyed by hash, each part with its content type, authorised by the upload token.
func (a *applier) uploadBucket(ctx context.Context, uploadJWT string, i, n int, bucket []string, byHash map[string]*Asset) (jwt string, files int, size int64, err error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, h := range bucket {
		as := byHash[h]
		if as == nil {
			//lint:ignore ST1005 the message starts with a proper noun
			return "", 0, 0, fmt.Errorf("Cloudflare asked for hash %s, which is not in the manifest", h)
		}
		content, err := a.readAsset(as)
		if err != nil {
			return "", 0, 0, err
		}
		hdr := make(textproto.MIMEHeader)
		hdr.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, h, h))
		hdr.Set("Content-Type", as.ContentType)
		part, err := mw.CreatePart(hdr)
		if err != nil {
			return "", 0, 0, fmt.Errorf("build bucket %d: %w", i+1, err)
		}
		enc := base64.NewEncoder(base64.StdEncoding, part)
		enc.Write(content)
		if err := enc.Close(); err != nil {
			return "", 0, 0, fmt.Errorf("build bucket %d: %w", i+1, err)
		}
		files++
		size += as.Size
	}
	if err := mw.Close(); err != nil {
		return "", 0, 0, fmt.Errorf("build bucket %d: %w", i+1, err)
	}
	form, contentType := body.Bytes(), mw.FormDataContentType()
	var res *workers.AssetUploadNewResponse
	err = a.call(ctx, fmt.Sprintf("upload bucket %d of %d", i+1, n), func() (err error) {
		// The SDK's map[string]string body would drop each file's content type, so the form
		// built above replaces it; path, query, auth and envelope stay the SDK's.
		var params workers.AssetUploadNewParams
		set(&params.AccountID.Value, &params.AccountID.Present, a.d.AccountID)
		set(&params.Base64.Value, &params.Base64.Present, workers.AssetUploadNewParamsBase64True)
		res, err = a.wk.Assets.Upload.New(ctx, params, option.WithAPIToken(uploadJWT), option.WithRequestBody(contentType, form))
		return err
	})
	if err != nil {
		var ae *AuthError
		if errors.As(err, &ae) {
			if age := a.d.now().Sub(a.sessionAt); age >= tokenLife {
				return "", 0, 0, &ExpiredError{What: fmt.Sprintf("upload bucket %d of %d", i+1, n), Age: age, Err: err}
			}
			return "", 0, 0, fmt.Errorf("upload bucket %d of %d: Cloudflare rejected the upload token (HTTP %d: %s): run deploy again", i+1, n, ae.Status, ae.Detail)
		}
		return "", 0, 0, err
	}
	return res.JWT, files, size, nil
}

// readAsset reads a file of the tree and checks it still matches the manifest.
func (a *applier) readAsset(as *Asset) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(a.p.Dir, filepath.FromSlash(as.File)))
	if err != nil {
		return nil, &TreeError{Err: fmt.Errorf("read %s: %w", as.File, err)}
	}
	sum := sha256.Sum256(b)
	if int64(len(b)) != as.Size || hex.EncodeToString(sum[:]) != as.SHA256 {
		return nil, &TreeError{Mismatch: true, Err: fmt.Errorf("%s does not match the manifest: the tree changed after generate (run numerology verify, or generate again)", as.File)}
	}
	return b, nil
}

// uploadScript uploads the worker module with its assets (completion token and routing
// config) and bindings, and returns the new version's id.
func (a *applier) uploadScript(ctx context.Context, completionJWT string) (string, error) {
	// A completion token is valid for an hour; one near its end (a long upload) is renewed
	// by opening the session again, which with every file uploaded answers at once with a
	// fresh completion token.
	if a.d.now().Sub(a.completionAt) > tokenLife-10*time.Minute {
		session, err := a.openSession(ctx)
		if err != nil {
			return "", fmt.Errorf("renew the completion token: %w", err)
		}
		if len(session.Buckets) > 0 {
			return "", errors.New("renew the completion token: Cloudflare asks for files again that it had accepted; run deploy again")
		}
		a.logf("upload session: the completion token was %s old; renewed", a.d.now().Sub(a.completionAt).Round(time.Second))
		completionJWT, a.completionAt = session.JWT, a.d.now()
	}
	w := a.p.Worker
	// Cloudflare finds main_module by the multipart part's name; the SDK names its file parts
	// after the "files" field, so the form is built here: a metadata part and the module part
	// named (and filed) as main_module says.
	form, contentType, err := scriptForm(scriptMetadata(w, completionJWT, a.p.Headers, a.p.Redirects), w)
	if err != nil {
		return "", err
	}
	var params workers.ScriptUpdateParams
	set(&params.AccountID.Value, &params.AccountID.Present, a.d.AccountID)
	// The answer is decoded here: the SDK's response type has no version id, and it does not
	// look at the envelope's success.
	var answer []byte
	err = a.call(ctx, "upload the worker script", func() (err error) {
		_, err = a.wk.Scripts.Update(ctx, a.p.ScriptName, params, option.WithRequestBody(contentType, form), option.WithResponseBodyInto(&answer))
		return err
	})
	switch {
	case err == nil:
	case hasCode(err, codeNeedsSubdomain):
		// The account lost (or never had) its subdomain after the check: the same answer.
		return "", &SubdomainError{Account: a.d.AccountID, Uploaded: true, Err: err}
	case isRefusal(err) && a.d.now().Sub(a.completionAt) >= tokenLife:
		return "", &ExpiredError{What: "upload the worker script", Age: a.d.now().Sub(a.completionAt), Err: err}
	default:
		return "", err
	}
	return scriptVersion(answer)
}

// scriptVersion reads the new version's id from the script upload's answer: deployment_id,
// as wrangler reads it, else the etag. A 2xx answer whose envelope says "success": false,
// or holds no result or no id, is not taken for a live version.
func scriptVersion(answer []byte) (string, error) {
	var env struct {
		Success bool `json:"success"`
		Result  *struct {
			DeploymentID string `json:"deployment_id"`
			Etag         string `json:"etag"`
		} `json:"result"`
	}
	var problem string
	switch err := json.Unmarshal(answer, &env); {
	case err != nil:
		problem = "an answer that is not its JSON envelope (" + err.Error() + ")"
	case !env.Success:
		problem = `"success": false (and HTTP 2xx)`
	case env.Result == nil:
		problem = "no result"
	case env.Result.DeploymentID == "" && env.Result.Etag == "":
		problem = "no version id"
	default:
		return cmp.Or(env.Result.DeploymentID, env.Result.Etag), nil
	}
	//lint:ignore ST1005 the message starts with a proper noun
	return "", fmt.Errorf("Cloudflare answered the script upload with %s: whether the new version is live is unknown; run deploy again", problem)
}

// isRefusal reports whether err is Cloudflare's 4xx answer (or a rejected token).
func isRefusal(err error) bool {
	var apiErr *workers.Error
	var ae *AuthError
	return errors.As(err, &ae) || errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500
}

// scriptMetadata is the metadata part of the script upload: module, compatibility, assets
// and bindings.
func scriptMetadata(w *Worker, completionJWT, headers, redirects string) workers.ScriptUpdateParamsMetadata {
	var assets workers.ScriptUpdateParamsMetadataAssets
	set(&assets.JWT.Value, &assets.JWT.Present, completionJWT)
	set(&assets.Config.Value, &assets.Config.Present, assetsConfig(w, headers, redirects))
	var meta workers.ScriptUpdateParamsMetadata
	set(&meta.MainModule.Value, &meta.MainModule.Present, w.MainModule)
	set(&meta.CompatibilityDate.Value, &meta.CompatibilityDate.Present, w.CompatibilityDate)
	set(&meta.Assets.Value, &meta.Assets.Present, assets)
	set(&meta.Bindings.Value, &meta.Bindings.Present, bindings(w))
	if w.Observability != nil {
		var o workers.ScriptUpdateParamsMetadataObservability
		set(&o.Enabled.Value, &o.Enabled.Present, *w.Observability)
		set(&meta.Observability.Value, &meta.Observability.Present, o)
	}
	if len(w.CompatibilityFlags) > 0 {
		set(&meta.CompatibilityFlags.Value, &meta.CompatibilityFlags.Present, w.CompatibilityFlags)
	}
	return meta
}

// assetsConfig is the assets routing config of the wrangler config, with the tree's
// _headers as header rules and its _redirects, if any, as redirect rules.
func assetsConfig(w *Worker, headers, redirects string) workers.ScriptUpdateParamsMetadataAssetsConfig {
	var cfg workers.ScriptUpdateParamsMetadataAssetsConfig
	if w.Assets.HTMLHandling != "" {
		set(&cfg.HTMLHandling.Value, &cfg.HTMLHandling.Present, workers.ScriptUpdateParamsMetadataAssetsConfigHTMLHandling(w.Assets.HTMLHandling))
	}
	if w.Assets.NotFoundHandling != "" {
		set(&cfg.NotFoundHandling.Value, &cfg.NotFoundHandling.Present, workers.ScriptUpdateParamsMetadataAssetsConfigNotFoundHandling(w.Assets.NotFoundHandling))
	}
	if len(w.Assets.RunWorkerFirst) > 0 {
		all, rules, _ := runWorkerFirst(w.Assets.RunWorkerFirst)
		var v workers.ScriptUpdateParamsMetadataAssetsConfigRunWorkerFirstUnion = shared.UnionBool(all)
		if rules != nil {
			v = workers.ScriptUpdateParamsMetadataAssetsConfigRunWorkerFirstArray(rules)
		}
		set(&cfg.RunWorkerFirst.Value, &cfg.RunWorkerFirst.Present, v)
	}
	if headers != "" {
		set(&cfg.Headers.Value, &cfg.Headers.Present, headers)
	}
	if redirects != "" {
		set(&cfg.Redirects.Value, &cfg.Redirects.Present, redirects)
	}
	return cfg
}

// bindings are the worker's bindings: the assets, the rate limits and the plain-text vars.
func bindings(w *Worker) []workers.ScriptUpdateParamsMetadataBindingUnion {
	var assetsBinding workers.ScriptUpdateParamsMetadataBindingsWorkersBindingKindAssets
	set(&assetsBinding.Name.Value, &assetsBinding.Name.Present, w.Assets.Binding)
	set(&assetsBinding.Type.Value, &assetsBinding.Type.Present, workers.ScriptUpdateParamsMetadataBindingsWorkersBindingKindAssetsTypeAssets)
	out := []workers.ScriptUpdateParamsMetadataBindingUnion{assetsBinding}
	for _, rl := range w.RateLimits {
		var b workers.ScriptUpdateParamsMetadataBindingsWorkersBindingKindRatelimit
		var simple workers.ScriptUpdateParamsMetadataBindingsWorkersBindingKindRatelimitSimple
		set(&simple.Limit.Value, &simple.Limit.Present, float64(rl.Simple.Limit))
		set(&simple.Period.Value, &simple.Period.Present, int64(rl.Simple.Period))
		set(&b.Name.Value, &b.Name.Present, rl.Name)
		set(&b.NamespaceID.Value, &b.NamespaceID.Present, string(rl.NamespaceID))
		set(&b.Simple.Value, &b.Simple.Present, simple)
		set(&b.Type.Value, &b.Type.Present, workers.ScriptUpdateParamsMetadataBindingsWorkersBindingKindRatelimitTypeRatelimit)
		out = append(out, b)
	}
	for _, k := range slices.Sorted(maps.Keys(w.Vars)) {
		var b workers.ScriptUpdateParamsMetadataBindingsWorkersBindingKindPlainText
		set(&b.Name.Value, &b.Name.Present, k)
		set(&b.Text.Value, &b.Text.Present, w.Vars[k])
		set(&b.Type.Value, &b.Type.Present, workers.ScriptUpdateParamsMetadataBindingsWorkersBindingKindPlainTextTypePlainText)
		out = append(out, b)
	}
	return out
}

// scriptForm encodes the script upload: the metadata as JSON, then the module.
func scriptForm(meta workers.ScriptUpdateParamsMetadata, w *Worker) ([]byte, string, error) {
	metaJSON, err := meta.MarshalJSON()
	if err != nil {
		return nil, "", fmt.Errorf("encode the script metadata: %w", err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	parts := []struct {
		header      string
		contentType string
		content     []byte
	}{
		{`form-data; name="metadata"`, "application/json", metaJSON},
		{fmt.Sprintf(`form-data; name=%q; filename=%q`, w.MainModule, w.MainModule), "application/javascript+module", w.Script},
	}
	for _, p := range parts {
		h := make(textproto.MIMEHeader)
		h.Set("Content-Disposition", p.header)
		h.Set("Content-Type", p.contentType)
		pw, err := mw.CreatePart(h)
		if err != nil {
			return nil, "", fmt.Errorf("encode the script upload: %w", err)
		}
		if _, err := pw.Write(p.content); err != nil {
			return nil, "", fmt.Errorf("encode the script upload: %w", err)
		}
	}
	if err := mw.Close(); err != nil {
		return nil, "", fmt.Errorf("encode the script upload: %w", err)
	}
	return body.Bytes(), mw.FormDataContentType(), nil
}

// set fills one request field of cloudflare-go (its param.Field: Value, and Present so it is
// sent). The SDK's own helper F lives in its root package, whose import would compile all of
// its ~100 API services; this package needs only workers and cache.
func set[T any](value *T, present *bool, v T) {
	*value, *present = v, true
}

// sessionBody encodes the upload session request: {"manifest": {path: {hash, size}}}.
func sessionBody(assets []Asset) ([]byte, error) {
	type entry struct {
		Hash string `json:"hash"`
		Size int64  `json:"size"`
	}
	m := make(map[string]entry, len(assets))
	for _, a := range assets {
		m[a.Path] = entry{Hash: a.Hash, Size: a.Size}
	}
	b, err := json.Marshal(map[string]any{"manifest": m})
	if err != nil {
		return nil, fmt.Errorf("encode the assets manifest: %w", err)
	}
	return b, nil
}
