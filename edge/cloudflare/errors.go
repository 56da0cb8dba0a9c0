package cloudflare

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cloudflare/cloudflare-go/v6/workers"

	"github.com/opennumerology/numerology/internal/assetsignore"
)

// LimitError reports a tree that exceeds the plan's limits, with what to do.
type LimitError struct {
	Problems []string
}

func (e *LimitError) Error() string {
	return "the tree exceeds Cloudflare's limits: " + strings.Join(e.Problems, "; ")
}

// AuthError reports credentials Cloudflare rejected, or that are missing.
type AuthError struct {
	Status int    // HTTP status, 0 when the credentials are missing
	Detail string // Cloudflare's own message, or what is missing
}

func (e *AuthError) Error() string {
	if e.Status == 0 {
		return e.Detail
	}
	return fmt.Sprintf("Cloudflare rejected the API token (HTTP %d: %s): check that CLOUDFLARE_API_TOKEN is current "+
		"and has the permissions Account > Workers Scripts > Edit (and Zone > Workers Routes > Edit for --route and "+
		"--domain) on the account of CLOUDFLARE_ACCOUNT_ID", e.Status, e.Detail)
}

// ErrNoToken is returned when CLOUDFLARE_API_TOKEN is not set.
var ErrNoToken = &AuthError{Detail: "CLOUDFLARE_API_TOKEN is not set: create an API token with Account > Workers Scripts > Edit and export it (use --dry-run to see the plan without credentials)"}

// ErrNoAccount is returned when no account ID is given.
var ErrNoAccount = &AuthError{Detail: "no account ID: set CLOUDFLARE_ACCOUNT_ID or pass --account-id"}

// TreeError reports a tree that cannot be read, or whose files no longer match its manifest.
type TreeError struct {
	Mismatch bool // a file's content differs from the manifest: the tree changed after generate
	Err      error
}

func (e *TreeError) Error() string { return e.Err.Error() }
func (e *TreeError) Unwrap() error { return e.Err }

// UsageError reports options that do not fit together.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// authCodes are Cloudflare error codes that mean the token is invalid, malformed or lacks
// permissions, whatever the HTTP status.
var authCodes = map[int64]bool{6003: true, 6111: true, 9103: true, 9106: true, 9109: true, 10000: true, 10001: true}

// definiteCodes are Cloudflare error codes that say what is wrong, whatever the HTTP status
// they come with: never a rejected token, and not worth a retry.
var definiteCodes = map[int64]bool{codeNotFound: true, codeNeedsSubdomain: true, codeSubdomainTaken: true}

// classify turns an API error about the account token into an *AuthError. An error code
// of definiteCodes (10007: not found) is its own answer even on a 401 or 403.
func classify(err error) error {
	var apiErr *workers.Error
	if !errors.As(err, &apiErr) {
		return err
	}
	auth := apiErr.StatusCode == 401 || apiErr.StatusCode == 403
	detail := ""
	for _, e := range apiErr.Errors {
		if definiteCodes[e.Code] {
			return err
		}
		if authCodes[e.Code] {
			auth = true
		}
		if detail == "" {
			detail = e.Message
		}
	}
	if !auth {
		return err
	}
	if detail == "" {
		detail = "no details"
	}
	return &AuthError{Status: apiErr.StatusCode, Detail: detail}
}

// redactedError carries an error whose text had secrets removed; errors.As and errors.Is
// still see the original chain.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactor removes secrets (the API token, upload tokens) from error texts and log lines.
type redactor struct{ secrets []string }

func (r *redactor) add(s string) {
	if len(s) >= 4 {
		r.secrets = append(r.secrets, s)
	}
}

func (r *redactor) text(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, "[REDACTED]")
	}
	return s
}

func (r *redactor) err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := r.text(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

// Cloudflare error codes deploy tells apart; wrangler reads the same ones
// (deploy-helpers/src/triggers/subdomain.ts, publish-routes.ts).
const (
	// codeNotFound: the thing asked for does not exist. On GET /workers/subdomain: the
	// account has not registered its workers.dev subdomain yet.
	codeNotFound = 10007
	// codeNeedsSubdomain: a script upload refused because the account has no workers.dev
	// subdomain (the first upload of a brand-new account).
	codeNeedsSubdomain = 10063
	// codeSubdomainTaken: the workers.dev subdomain asked for is someone else's.
	codeSubdomainTaken = 10031
	// codeDomainDNSConflict: the hostname already has DNS records (A, AAAA, CNAME) that
	// the custom domain would replace.
	codeDomainDNSConflict = 100117
	// codeDomainOriginConflict: the hostname is already the custom domain of another Worker.
	codeDomainOriginConflict = 100116
)

// hasCode reports whether err is an API error carrying the Cloudflare error code.
func hasCode(err error, code int64) bool {
	var apiErr *workers.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	for _, e := range apiErr.Errors {
		if e.Code == code {
			return true
		}
	}
	return false
}

// DomainConflictError reports a --domain that Cloudflare will not attach without replacing
// something: DNS records of the hostname, or another Worker's custom domain.
type DomainConflictError struct {
	Host   string
	Script string
	DNS    bool   // true: existing DNS records; false: another Worker's custom domain
	Other  string // the other Worker, when known
	Live   bool   // the new version went live before the refusal (only the domain failed)
	Err    error
}

func (e *DomainConflictError) Error() string {
	outcome := "nothing was uploaded"
	if e.Live {
		outcome = fmt.Sprintf("the new version of %s is live; only the domain is not attached", e.Script)
	}
	if e.DNS {
		return fmt.Sprintf("--domain %s: the zone already has a DNS record (A, AAAA or CNAME) for %s, which a custom domain would replace, and deploy does not replace it unasked: "+
			"delete that record (dashboard: the zone, DNS, Records) or choose another hostname, then run deploy again (%s)", e.Host, e.Host, outcome)
	}
	other, where := "another Worker", "that Worker"
	if e.Other != "" {
		other, where = "the Worker "+e.Other, e.Other
	}
	return fmt.Sprintf("--domain %s is already the custom domain of %s: detach it there (dashboard: Workers & Pages, %s, Settings, Domains & Routes) "+
		"or choose another hostname, then run deploy again (%s)", e.Host, other, where, outcome)
}

func (e *DomainConflictError) Unwrap() error { return e.Err }

// domainError turns Cloudflare's refusal of a custom domain into a *DomainConflictError.
func domainError(host, script string, err error) error {
	switch {
	case hasCode(err, codeDomainDNSConflict):
		return &DomainConflictError{Host: host, Script: script, DNS: true, Live: true, Err: err}
	case hasCode(err, codeDomainOriginConflict):
		return &DomainConflictError{Host: host, Script: script, Live: true, Err: err}
	}
	return err
}

// OnboardingURL is the dashboard page where an account registers its workers.dev
// subdomain (wrangler gives the same link).
func OnboardingURL(account string) string {
	return "https://dash.cloudflare.com/" + account + "/workers/onboarding"
}

// SubdomainError reports an account without a workers.dev subdomain, which a deploy that
// answers on workers.dev needs (Cloudflare refuses a brand-new account's first script
// upload with error 10063 until it has one), or a --workers-subdomain name that is taken.
type SubdomainError struct {
	Account string
	Name    string // the --workers-subdomain asked for, if any
	Taken   bool   // Name belongs to someone else
	// Uploaded: the assets were uploaded when Cloudflare refused the script (10063 after a
	// race with the check); they are kept for the next run.
	Uploaded bool
	Err      error
}

func (e *SubdomainError) Error() string {
	outcome := "nothing was uploaded"
	if e.Uploaded {
		outcome = "the files were uploaded and are kept, so the next run only sends the script; nothing went live"
	}
	if e.Taken {
		return fmt.Sprintf("--workers-subdomain %s: the workers.dev subdomain %s is taken: choose another name, or register one at %s (%s)",
			e.Name, e.Name, OnboardingURL(e.Account), outcome)
	}
	return fmt.Sprintf("the account has no workers.dev subdomain yet, and a deploy without --route or --domain answers on one: "+
		"register it once with --workers-subdomain NAME (the API then answers on https://<worker>.NAME.workers.dev) or in the dashboard at %s, "+
		"or deploy with --route or --domain (%s)", OnboardingURL(e.Account), outcome)
}

func (e *SubdomainError) Unwrap() error { return e.Err }

// ZoneAccessError reports a zone of --route that the token cannot see: it does not exist
// on the account, or the token lacks a permission on it.
type ZoneAccessError struct {
	Zone   string
	Status int
	Detail string
	Err    error
}

func (e *ZoneAccessError) Error() string {
	return fmt.Sprintf("--zone-id %s: Cloudflare refused the API token access to the zone (HTTP %d: %s): give the token Zone > Zone > Read and Zone > Workers Routes > Edit "+
		"on that zone, or check the zone ID (dashboard: the zone, Overview, API) (nothing was uploaded)", e.Zone, e.Status, e.Detail)
}

func (e *ZoneAccessError) Unwrap() error { return e.Err }

// RouteConflictError reports a --route whose pattern the zone already gives to another
// Worker, or to none (a route that turns Workers off on its paths). wrangler refuses it
// too; deploy never takes a route over.
type RouteConflictError struct {
	Pattern string
	Zone    string
	Other   string // the Worker it runs, "" for none
}

func (e *RouteConflictError) Error() string {
	other := "runs the Worker " + e.Other
	if e.Other == "" {
		other = "runs no Worker (it turns Workers off on its paths)"
	}
	return fmt.Sprintf("--route %s: the zone %s already has this route, and it %s: remove it there (dashboard: the zone, Workers Routes) or choose another pattern, then run deploy again (nothing was uploaded)",
		e.Pattern, e.Zone, other)
}

// WorkerFilesError reports a plan that would leave out of the upload something the worker
// reads: the worker would answer 500 where it reads it.
type WorkerFilesError struct {
	Missing []assetsignore.Missing
}

func (e *WorkerFilesError) Error() string {
	m := e.Missing[0]
	more := ""
	if n := len(e.Missing) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	fix := "generate the tree again"
	if m.Kind == assetsignore.MissingIgnored {
		fix = "remove that rule from " + assetsignore.FileName
		if m.Rule.Line == 0 {
			fix = "rename the file"
		}
	}
	return fmt.Sprintf("the upload would lack what the worker reads: %s%s: %s, then run numerology verify and deploy again (nothing was sent)", m, more, fix)
}

// ExpiredError reports an upload or completion token refused after its hour: Cloudflare's
// tokens of an upload session are valid for one hour.
type ExpiredError struct {
	What string
	Age  time.Duration
	Err  error
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("%s: Cloudflare refused the upload session's token, which is valid for one hour, after %s: run deploy again; "+
		"the files already uploaded are kept, so the next run sends only the rest (nothing went live)", e.What, e.Age.Round(time.Second))
}

func (e *ExpiredError) Unwrap() error { return e.Err }
