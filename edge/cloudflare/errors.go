package cloudflare

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cloudflare/cloudflare-go/v6/workers"
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

// classify turns an API error about the account token into an *AuthError.
func classify(err error) error {
	var apiErr *workers.Error
	if !errors.As(err, &apiErr) {
		return err
	}
	auth := apiErr.StatusCode == 401 || apiErr.StatusCode == 403
	detail := ""
	for _, e := range apiErr.Errors {
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

// Cloudflare error codes deploy tells apart.
const (
	// codeNoSubdomain: the account has not chosen its workers.dev subdomain yet.
	codeNoSubdomain = 10007
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
	DNS    bool   // true: existing DNS records; false: another Worker's origin
	Other  string // the other Worker, when found before the upload (then nothing was sent)
	Err    error
}

func (e *DomainConflictError) Error() string {
	live := fmt.Sprintf("the new version of %s is live; only the domain is not attached", e.Script)
	if e.Other != "" {
		return fmt.Sprintf("--domain %s is already the custom domain of the Worker %s: detach it there (dashboard: Workers & Pages, %s, Settings, Domains & Routes) "+
			"or choose another hostname, then run deploy again (nothing was uploaded)", e.Host, e.Other, e.Other)
	}
	if e.DNS {
		return fmt.Sprintf("--domain %s: the zone already has a DNS record (A, AAAA or CNAME) for %s, which a custom domain would replace, and Cloudflare does not replace it unasked: "+
			"delete that record (dashboard: the zone, DNS, Records) or choose another hostname, then run deploy again (%s)", e.Host, e.Host, live)
	}
	return fmt.Sprintf("--domain %s is already the custom domain of another Worker: detach it there (dashboard: Workers & Pages, that Worker, Settings, Domains & Routes) "+
		"or choose another hostname, then run deploy again (%s)", e.Host, live)
}

func (e *DomainConflictError) Unwrap() error { return e.Err }

// domainError turns Cloudflare's refusal of a custom domain into a *DomainConflictError.
func domainError(host, script string, err error) error {
	switch {
	case hasCode(err, codeDomainDNSConflict):
		return &DomainConflictError{Host: host, Script: script, DNS: true, Err: err}
	case hasCode(err, codeDomainOriginConflict):
		return &DomainConflictError{Host: host, Script: script, Err: err}
	}
	return err
}
