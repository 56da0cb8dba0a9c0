package cloudflare

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"

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

// flexibleID is an identifier written as a JSON string or number ("1001" or 1001).
type flexibleID string

func (f *flexibleID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexibleID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("namespace_id must be a string or a number, not %s", b)
	}
	*f = flexibleID(n.String())
	return nil
}

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
	var problems []string
	if c.Name == "" {
		problems = append(problems, "name is empty")
	}
	if c.Main == "" {
		problems = append(problems, "main is empty")
	}
	if !compatibilityDate.MatchString(c.CompatibilityDate) {
		problems = append(problems, fmt.Sprintf("compatibility_date %q is not YYYY-MM-DD", c.CompatibilityDate))
	}
	if c.Assets == nil || c.Assets.Binding == "" {
		problems = append(problems, "assets.binding is missing: the worker reads the tree through it")
	}
	for i, rl := range c.RateLimits {
		if rl.Name == "" || rl.NamespaceID == "" || rl.Simple.Limit <= 0 || rl.Simple.Period <= 0 {
			problems = append(problems, fmt.Sprintf("ratelimits[%d] needs name, namespace_id and simple {limit, period}", i))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("worker config %s: %s", configPath, strings.Join(problems, "; "))
	}
	if len(c.Assets.RunWorkerFirst) > 0 {
		if _, _, err := runWorkerFirst(c.Assets.RunWorkerFirst); err != nil {
			return nil, fmt.Errorf("worker config %s: %w", configPath, err)
		}
	}
	mainPath := path.Clean(path.Join(path.Dir(configPath), c.Main))
	script, err := fs.ReadFile(fsys, mainPath)
	if err != nil {
		return nil, fmt.Errorf("read worker module: %w", err)
	}
	return &Worker{
		Name:               c.Name,
		MainModule:         path.Base(mainPath),
		Script:             script,
		CompatibilityDate:  c.CompatibilityDate,
		CompatibilityFlags: c.CompatibilityFlags,
		Assets:             *c.Assets,
		RateLimits:         c.RateLimits,
		Vars:               c.Vars,
		Observability:      observability(c),
	}, nil
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
