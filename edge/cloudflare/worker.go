package cloudflare

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	json "github.com/goccy/go-json"
)

// Worker is the worker script and the configuration deploy sends with it, read from a
// wrangler config (JSON) and the module it names as main.
type Worker struct {
	Name               string // the script name on Cloudflare
	MainModule         string // the module's file name, as referenced by main_module
	Script             []byte // the module's source: one self-contained ES module
	CompatibilityDate  string
	CompatibilityFlags []string
	Assets             AssetsConfig
	RateLimits         []RateLimit
	Vars               map[string]string // plain-text bindings
	Observability      *bool             // observability.enabled, when the config sets it
}

// AssetsConfig is the "assets" section of the wrangler config.
type AssetsConfig struct {
	Binding   string `json:"binding"`
	Directory string `json:"directory"`
	// RunWorkerFirst is true, false or a list of path rules ("/api/*").
	RunWorkerFirst   json.RawMessage `json:"run_worker_first"`
	HTMLHandling     string          `json:"html_handling"`
	NotFoundHandling string          `json:"not_found_handling"`
}

// RateLimit is one entry of the wrangler config's "ratelimits": a rate-limit binding.
type RateLimit struct {
	Name        string     `json:"name"`
	NamespaceID flexibleID `json:"namespace_id"`
	Simple      struct {
		Limit  int `json:"limit"`
		Period int `json:"period"`
	} `json:"simple"`
}

// flexibleID is a rate-limit namespace id. Cloudflare takes it as a string of digits
// ("1001"); a JSON number is decoded too, so that Validate can say what to write instead
// of a bare type error.
type flexibleID string

func (f *flexibleID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexibleID(s)
		return nil
	}
	*f = flexibleID(string(b) + notAString) // Validate reports it
	return nil
}

// notAString marks a namespace id that was not written as a JSON string.
const notAString = " (not a JSON string)"

type wranglerConfig struct {
	Name               string            `json:"name"`
	Main               string            `json:"main"`
	CompatibilityDate  string            `json:"compatibility_date"`
	CompatibilityFlags []string          `json:"compatibility_flags"`
	Assets             *AssetsConfig     `json:"assets"`
	RateLimits         []RateLimit       `json:"ratelimits"`
	Vars               map[string]string `json:"vars"`
	Observability      *struct {
		Enabled bool `json:"enabled"`
	} `json:"observability"`
}

var compatibilityDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// LoadWorker reads the wrangler config at configPath in fsys and the module it names as
// main (relative to the config's directory).
func LoadWorker(fsys fs.FS, configPath string) (*Worker, error) {
	b, err := fs.ReadFile(fsys, configPath)
	if err != nil {
		return nil, fmt.Errorf("read worker config: %w", err)
	}
	var c wranglerConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("parse worker config %s: %w", configPath, err)
	}
	if c.Assets == nil {
		c.Assets = &AssetsConfig{}
	}
	w := &Worker{
		Name:               c.Name,
		CompatibilityDate:  c.CompatibilityDate,
		CompatibilityFlags: c.CompatibilityFlags,
		Assets:             *c.Assets,
		RateLimits:         c.RateLimits,
		Vars:               c.Vars,
		Observability:      observability(c),
	}
	problems := w.problems(Now())
	if c.Main == "" {
		problems = append([]string{"main is empty"}, problems...)
	}
	if len(problems) > 0 {
		return nil, &ConfigError{Config: configPath, Problems: problems}
	}
	mainPath := path.Clean(path.Join(path.Dir(configPath), c.Main))
	script, err := fs.ReadFile(fsys, mainPath)
	if err != nil {
		return nil, fmt.Errorf("read worker module: %w", err)
	}
	w.MainModule, w.Script = path.Base(mainPath), script
	return w, nil
}

// Now is the clock the compatibility date is checked against; tests replace it.
var Now = time.Now

// Validate checks the worker's configuration the way Cloudflare checks a script upload, so
// that a deploy fails before its first request rather than after uploading the assets.
func (w *Worker) Validate() error {
	if problems := w.problems(Now()); len(problems) > 0 {
		return &ConfigError{Config: "worker " + w.Name, Problems: problems}
	}
	return nil
}

// The values Cloudflare accepts (Workers API: script upload metadata, assets config and
// ratelimit bindings).
var (
	htmlHandlings      = []string{"auto-trailing-slash", "force-trailing-slash", "drop-trailing-slash", "none"}
	notFoundHandlings  = []string{"single-page-application", "404-page", "none"}
	rateLimitPeriods   = []int{10, 60}
	namespaceIDPattern = regexp.MustCompile(`^[1-9][0-9]{0,17}$`)
)

// Limits on run_worker_first rules (workers-shared/utils/configuration/constants.ts).
const (
	maxRunWorkerFirstRules = 100
	maxRunWorkerFirstRule  = 100 // UTF-16 code units, as JavaScript's length counts
)

// staticRoutingProblems checks a run_worker_first list as Cloudflare does; the rules are
// those of workers-sdk's parseStaticRouting.ts, which translates Cloudflare's own check
// (assets/staticrouting.go): 1 to 100 rules; each starts with "/" (run the worker) or "!/"
// (serve the asset); not only "!/" rules; within each kind no rule longer than 100
// characters, none repeated, and none made redundant by a rule ending in "*" that it
// starts with.
func staticRoutingProblems(rules []string) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if len(rules) == 0 {
		return []string{"assets.run_worker_first is an empty list: Cloudflare wants at least 1 rule (or true, or false)"}
	}
	if len(rules) > maxRunWorkerFirstRules {
		return []string{fmt.Sprintf("assets.run_worker_first has %d rules, Cloudflare allows %d", len(rules), maxRunWorkerFirstRules)}
	}
	var assetRules, workerRules []string
	for i, r := range rules {
		switch {
		case strings.HasPrefix(r, "!/"):
			assetRules = append(assetRules, r)
		case strings.HasPrefix(r, "/"):
			workerRules = append(workerRules, r)
		case strings.HasPrefix(r, "!"):
			add("assets.run_worker_first[%d] %q: negative rules must start with !/", i, r)
		default:
			add("assets.run_worker_first[%d] %q must start with / or !/", i, r)
		}
	}
	if len(assetRules) > 0 && len(workerRules) == 0 {
		add("assets.run_worker_first has only negative (!/) rules: Cloudflare wants at least 1 rule starting with /")
	}
	for _, group := range [][]string{workerRules, assetRules} {
		seen := map[string]bool{}
		for _, r := range group {
			if n := len(utf16.Encode([]rune(r))); n > maxRunWorkerFirstRule {
				add("assets.run_worker_first rule %q is %d characters long, Cloudflare allows %d", r, n, maxRunWorkerFirstRule)
			}
			if seen[r] {
				add("assets.run_worker_first rule %q is a duplicate; rules must be unique", r)
			}
			seen[r] = true
			if prefix, glob := strings.CutSuffix(r, "*"); glob {
				for _, other := range group {
					if other != r && strings.HasPrefix(other, prefix) {
						add("assets.run_worker_first rule %q is redundant: %q covers it", other, r)
					}
				}
			}
		}
	}
	return problems
}

// NamespaceID is the rate-limit namespace deploy derives for a worker name: 1,000,000
// plus the name's FNV-1a 32-bit hash modulo 1,000,000,000. A namespace is shared by every
// Worker of the account that names it, so the shipped wrangler.json does not use the
// docs' example 1001, which another Worker of the account may well use; the derived id is
// at least 1,000,000 and differs between names, so a Worker deployed under another --name
// counts its own clients.
func NamespaceID(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	return strconv.FormatUint(1_000_000+uint64(h.Sum32())%1_000_000_000, 10)
}

// problems lists what Cloudflare would refuse in the configuration, each naming its field.
func (w *Worker) problems(now time.Time) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if w.Name == "" {
		add("name is empty")
	}
	if d, err := time.Parse(time.DateOnly, w.CompatibilityDate); err != nil || !compatibilityDate.MatchString(w.CompatibilityDate) {
		add("compatibility_date %q is not a date YYYY-MM-DD", w.CompatibilityDate)
	} else if today := now.UTC().Format(time.DateOnly); w.CompatibilityDate > today {
		add("compatibility_date %s is in the future (today is %s UTC): Cloudflare refuses it; use a date up to today", d.Format(time.DateOnly), today)
	}
	a := w.Assets
	if a.Binding == "" {
		add("assets.binding is missing: the worker reads the tree through it")
	}
	if a.HTMLHandling != "" && !slices.Contains(htmlHandlings, a.HTMLHandling) {
		add("assets.html_handling %q is not one of %s", a.HTMLHandling, strings.Join(htmlHandlings, ", "))
	}
	if a.NotFoundHandling != "" && !slices.Contains(notFoundHandlings, a.NotFoundHandling) {
		add("assets.not_found_handling %q is not one of %s", a.NotFoundHandling, strings.Join(notFoundHandlings, ", "))
	}
	if len(a.RunWorkerFirst) > 0 {
		_, rules, err := runWorkerFirst(a.RunWorkerFirst)
		if err != nil {
			add("%v", err)
		} else if rules != nil {
			problems = append(problems, staticRoutingProblems(rules)...)
		}
	}
	for i, rl := range w.RateLimits {
		if rl.Name == "" {
			add("ratelimits[%d].name is empty", i)
		}
		if !namespaceIDPattern.MatchString(string(rl.NamespaceID)) {
			add("ratelimits[%d].namespace_id %s must be a positive integer written as a string, such as %q", i, quoteID(rl.NamespaceID), NamespaceID(w.Name))
		}
		if rl.Simple.Limit <= 0 {
			add("ratelimits[%d].simple.limit %d must be a positive number of requests", i, rl.Simple.Limit)
		}
		if !slices.Contains(rateLimitPeriods, rl.Simple.Period) {
			add("ratelimits[%d].simple.period %d must be 10 or 60 (seconds)", i, rl.Simple.Period)
		}
	}
	return problems
}

// renamed is the worker deployed under another script name. A rate-limit namespace that is
// the one NamespaceID derives from the config's name is derived from the new name, so a
// second deployment (staging-api) counts its clients apart from the first.
func (w *Worker) renamed(name string) *Worker {
	c := *w
	c.Name = name
	c.RateLimits = slices.Clone(w.RateLimits)
	for i, rl := range c.RateLimits {
		if string(rl.NamespaceID) == NamespaceID(w.Name) {
			c.RateLimits[i].NamespaceID = flexibleID(NamespaceID(name))
		}
	}
	return &c
}

// quoteID shows a namespace id as it was written: a string quoted, anything else raw.
func quoteID(id flexibleID) string {
	if strings.HasSuffix(string(id), notAString) {
		return string(id)
	}
	return strconv.Quote(string(id))
}

// ConfigError reports a worker configuration Cloudflare would refuse, every problem named
// by its field.
type ConfigError struct {
	Config   string
	Problems []string
}

func (e *ConfigError) Error() string {
	return e.Config + ": " + strings.Join(e.Problems, "; ")
}

// runWorkerFirst decodes run_worker_first: a bool, or a list of path rules.
func runWorkerFirst(raw json.RawMessage) (all bool, rules []string, err error) {
	if err := json.Unmarshal(raw, &all); err == nil {
		return all, nil, nil
	}
	if err := json.Unmarshal(raw, &rules); err == nil {
		return false, rules, nil
	}
	return false, nil, errors.New("assets.run_worker_first must be true, false or a list of path rules")
}

// describeRunWorkerFirst renders run_worker_first for the plan.
func (a AssetsConfig) describeRunWorkerFirst() string {
	if len(a.RunWorkerFirst) == 0 {
		return "false"
	}
	all, rules, err := runWorkerFirst(a.RunWorkerFirst)
	if err != nil {
		return "invalid"
	}
	if rules != nil {
		q := make([]string, len(rules))
		for i, r := range rules {
			q[i] = strconv.Quote(r)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	return strconv.FormatBool(all)
}

func observability(c wranglerConfig) *bool {
	if c.Observability == nil {
		return nil
	}
	return &c.Observability.Enabled
}
