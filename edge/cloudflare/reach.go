package cloudflare

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/cloudflare/cloudflare-go/v6/option"
	"github.com/cloudflare/cloudflare-go/v6/packages/pagination"
	"github.com/cloudflare/cloudflare-go/v6/workers"
)

// scriptAPIDate is the Cloudflare-Workers-Script-Api-Date wrangler sends when it sets a
// script's workers.dev address: the API version whose defaults it expects (previews
// follow the address when previews_enabled is left out).
const scriptAPIDate = "2025-08-01"

// checkRoutes checks, before any upload, what binding the routes needs: that the token can
// see the zone (GET /zones/{id}), that every route's host is in it, and that no route of
// the same pattern runs another Worker (or none). The zone's routes are kept for
// bindRoutes.
func (a *applier) checkRoutes(ctx context.Context) error {
	if len(a.p.Routes) == 0 {
		return nil
	}
	var zone struct {
		Name string `json:"name"`
	}
	err := a.call(ctx, "read zone "+a.p.ZoneID, func() error {
		return a.rawCall(ctx, "GET", "/zones/"+url.PathEscape(a.p.ZoneID), nil, &zone)
	})
	if err != nil {
		return a.zoneError(err)
	}
	for _, r := range a.p.Routes {
		host, _, _ := strings.Cut(r, "/")
		host = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(host, "*"), "."))
		if host != zone.Name && !strings.HasSuffix(host, "."+zone.Name) {
			return &UsageError{Msg: fmt.Sprintf("--route %q: its host is not in the zone %s (--zone-id %s): give the zone of that host, or a route under %s (nothing was uploaded)", r, zone.Name, a.p.ZoneID, zone.Name)}
		}
	}
	var existing []workers.RouteListResponse
	err = a.call(ctx, "list the zone's worker routes", func() error {
		var q workers.RouteListParams
		set(&q.ZoneID.Value, &q.ZoneID.Present, a.p.ZoneID)
		page, err := a.wk.Routes.List(ctx, q)
		if err == nil {
			existing = page.Result
		}
		return err
	})
	if err != nil {
		return a.zoneError(err)
	}
	a.zoneRoutes = map[string]string{}
	for _, e := range existing {
		a.zoneRoutes[e.Pattern] = e.ID
		for _, r := range a.p.Routes {
			if e.Pattern == r && e.Script != a.p.ScriptName {
				return &RouteConflictError{Pattern: r, Zone: zone.Name, Other: e.Script}
			}
		}
	}
	return nil
}

// zoneError turns a refusal to show the zone into a *ZoneAccessError.
func (a *applier) zoneError(err error) error {
	var ae *AuthError
	if errors.As(err, &ae) {
		return &ZoneAccessError{Zone: a.p.ZoneID, Status: ae.Status, Detail: ae.Detail, Err: err}
	}
	var apiErr *workers.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode == 404 {
		return &ZoneAccessError{Zone: a.p.ZoneID, Status: 404, Detail: firstMessage(apiErr), Err: err}
	}
	return err
}

func firstMessage(e *workers.Error) string {
	for _, d := range e.Errors {
		if d.Message != "" {
			return d.Message
		}
	}
	return "no details"
}

// domainChangeset is Cloudflare's answer to POST …/domains/changeset: what attaching the
// hostnames would add, change (another Worker's domain taken over) and run into (DNS
// records of the hostname).
type domainChangeset struct {
	Updated []struct {
		Hostname string `json:"hostname"`
		Modified bool   `json:"modified"`
	} `json:"updated"`
	Conflicting []struct {
		Hostname string `json:"hostname"`
	} `json:"conflicting"`
}

// checkDomains refuses, before anything is uploaded, a --domain that is another Worker's
// custom domain or has DNS records of its own: Cloudflare would refuse to attach it after
// the switch (wrangler asks, and in CI takes both over silently; deploy does neither). It
// asks the changeset endpoint wrangler uses; a script that does not exist yet has none
// (10007), and then another Worker's domain is found by listing the domains, and DNS
// records show only when attaching (reading a zone's DNS needs another permission).
func (a *applier) checkDomains(ctx context.Context) error {
	if len(a.p.Domains) == 0 {
		return nil
	}
	type origin struct {
		Hostname string `json:"hostname"`
		ZoneID   string `json:"zone_id,omitempty"`
	}
	var origins []origin
	for _, h := range a.p.Domains {
		origins = append(origins, origin{Hostname: h, ZoneID: a.p.ZoneID})
	}
	var cs domainChangeset
	path := "/accounts/" + url.PathEscape(a.d.AccountID) + "/workers/scripts/" + url.PathEscape(a.p.ScriptName) + "/domains/changeset?replace_state=true"
	err := a.call(ctx, "check the custom domains", func() error {
		return a.rawCall(ctx, "POST", path, origins, &cs)
	})
	switch {
	case err == nil:
		if len(cs.Conflicting) > 0 {
			return &DomainConflictError{Host: cs.Conflicting[0].Hostname, Script: a.p.ScriptName, DNS: true}
		}
		for _, u := range cs.Updated {
			if u.Modified {
				other, err := a.domainService(ctx, u.Hostname)
				if err != nil {
					return err
				}
				return &DomainConflictError{Host: u.Hostname, Script: a.p.ScriptName, Other: other}
			}
		}
		return nil
	case hasCode(err, codeNotFound):
		a.logf("check the custom domains: %s has no version yet; DNS records of the hostnames show when they are attached", a.p.ScriptName)
	default:
		return err
	}
	for _, host := range a.p.Domains {
		other, err := a.domainService(ctx, host)
		if err != nil {
			return err
		}
		if other != "" && other != a.p.ScriptName {
			return &DomainConflictError{Host: host, Script: a.p.ScriptName, Other: other}
		}
	}
	return nil
}

// domainService returns the Worker a hostname is the custom domain of, or "".
func (a *applier) domainService(ctx context.Context, host string) (string, error) {
	var page *pagination.SinglePage[workers.DomainListResponse]
	err := a.call(ctx, "look up custom domain "+host, func() (err error) {
		var q workers.DomainListParams
		set(&q.AccountID.Value, &q.AccountID.Present, a.d.AccountID)
		set(&q.Hostname.Value, &q.Hostname.Present, host)
		page, err = a.wk.Domains.List(ctx, q)
		return err
	})
	if err != nil {
		return "", err
	}
	for _, dm := range page.Result {
		if dm.Hostname == host {
			return dm.Service, nil
		}
	}
	return "", nil
}

// ensureSubdomain reads the account's workers.dev subdomain before any upload when the
// deploy answers there, as wrangler does: a brand-new account has none, and Cloudflare
// refuses its first script upload (10063) after every file was sent. With none (10007,
// whatever the HTTP status), deploy registers --workers-subdomain, or stops with the
// dashboard's onboarding link.
func (a *applier) ensureSubdomain(ctx context.Context) error {
	if !a.p.WantsWorkersDev() {
		return nil
	}
	var sub *workers.SubdomainGetResponse
	err := a.call(ctx, "read the account's workers.dev subdomain", func() (err error) {
		var q workers.SubdomainGetParams
		set(&q.AccountID.Value, &q.AccountID.Present, a.d.AccountID)
		sub, err = a.wk.Subdomains.Get(ctx, q)
		return err
	})
	switch {
	case err == nil:
		a.subdomain = sub.Subdomain
		if n := a.p.WorkersSubdomain; n != "" && n != sub.Subdomain {
			a.logf("workers.dev: the account's subdomain is %s already; --workers-subdomain %s is not used (rename it in the dashboard)", sub.Subdomain, n)
		}
		return nil
	case !hasCode(err, codeNotFound):
		return err
	case a.p.WorkersSubdomain == "":
		return &SubdomainError{Account: a.d.AccountID, Err: err}
	}
	name := a.p.WorkersSubdomain
	var reg *workers.SubdomainUpdateResponse
	err = a.call(ctx, "register the workers.dev subdomain "+name, func() (err error) {
		var up workers.SubdomainUpdateParams
		set(&up.AccountID.Value, &up.AccountID.Present, a.d.AccountID)
		set(&up.Subdomain.Value, &up.Subdomain.Present, name)
		reg, err = a.wk.Subdomains.Update(ctx, up)
		return err
	})
	switch {
	case hasCode(err, codeSubdomainTaken):
		return &SubdomainError{Account: a.d.AccountID, Name: name, Taken: true, Err: err}
	case err != nil:
		return err
	}
	a.subdomain = reg.Subdomain
	a.res.Registered = reg.Subdomain
	a.logf("workers.dev: registered the account's subdomain %s.workers.dev", reg.Subdomain)
	return nil
}

// publish makes the live version reachable: the routes and custom domains of the plan,
// then the workers.dev address, on when the deploy answers there and off otherwise, as
// wrangler sets it.
func (a *applier) publish(ctx context.Context) error {
	if err := a.bindRoutes(ctx); err != nil {
		return err
	}
	if err := a.bindDomains(ctx); err != nil {
		return err
	}
	return a.setWorkersDev(ctx)
}

// setWorkersDev sets the script's workers.dev address (POST …/scripts/{name}/subdomain)
// the way wrangler does: enabled when the deploy answers there, previews_enabled left out
// so that Cloudflare's default applies, and the Cloudflare-Workers-Script-Api-Date header.
func (a *applier) setWorkersDev(ctx context.Context) error {
	want := a.p.WantsWorkersDev()
	err := a.call(ctx, "set the worker's workers.dev address", func() error {
		var np workers.ScriptSubdomainNewParams
		set(&np.AccountID.Value, &np.AccountID.Present, a.d.AccountID)
		set(&np.Enabled.Value, &np.Enabled.Present, want)
		_, err := a.wk.Scripts.Subdomain.New(ctx, a.p.ScriptName, np, option.WithHeader("Cloudflare-Workers-Script-Api-Date", scriptAPIDate))
		return err
	})
	if err != nil {
		return err
	}
	if want {
		a.res.URLs = append(a.res.URLs, "https://"+a.p.ScriptName+"."+a.subdomain+".workers.dev")
	}
	return nil
}

// bindRoutes attaches the zone routes; a route of the same pattern that already runs this
// script (checkRoutes allowed no other) is updated instead of duplicated, so re-runs are
// safe.
func (a *applier) bindRoutes(ctx context.Context) error {
	for _, pattern := range a.p.Routes {
		id, ok := a.zoneRoutes[pattern]
		err := a.call(ctx, "bind route "+pattern, func() error {
			if ok {
				var up workers.RouteUpdateParams
				set(&up.ZoneID.Value, &up.ZoneID.Present, a.p.ZoneID)
				set(&up.Pattern.Value, &up.Pattern.Present, pattern)
				set(&up.Script.Value, &up.Script.Present, a.p.ScriptName)
				_, err := a.wk.Routes.Update(ctx, id, up)
				return err
			}
			var np workers.RouteNewParams
			set(&np.ZoneID.Value, &np.ZoneID.Present, a.p.ZoneID)
			set(&np.Pattern.Value, &np.Pattern.Present, pattern)
			set(&np.Script.Value, &np.Script.Present, a.p.ScriptName)
			_, err := a.wk.Routes.New(ctx, np)
			return err
		})
		if err != nil {
			return err
		}
		a.res.Routes = append(a.res.Routes, pattern)
		a.res.URLs = append(a.res.URLs, routeURL(pattern))
	}
	return nil
}

// routeURL is the address a route pattern answers on: "api.example.org/*" →
// "https://api.example.org/" (a leading "*." wildcard is kept as written).
func routeURL(pattern string) string {
	host, rest, _ := strings.Cut(pattern, "/")
	return "https://" + host + "/" + strings.TrimSuffix(rest, "*")
}

// bindDomains attaches the custom domains, replacing neither DNS records nor another
// Worker's domain (checkDomains found none; one that appeared since is refused by
// Cloudflare, and the error says what to do).
func (a *applier) bindDomains(ctx context.Context) error {
	for _, host := range a.p.Domains {
		var params workers.DomainUpdateParams
		set(&params.AccountID.Value, &params.AccountID.Present, a.d.AccountID)
		set(&params.Hostname.Value, &params.Hostname.Present, host)
		set(&params.Service.Value, &params.Service.Present, a.p.ScriptName)
		if a.p.ZoneID != "" {
			set(&params.ZoneID.Value, &params.ZoneID.Present, a.p.ZoneID)
		}
		err := a.call(ctx, "bind custom domain "+host, func() error {
			_, err := a.wk.Domains.Update(ctx, params)
			return err
		})
		if err != nil {
			return domainError(host, a.p.ScriptName, err)
		}
		a.res.Domains = append(a.res.Domains, host)
		a.res.URLs = append(a.res.URLs, "https://"+host+"/")
	}
	return nil
}
