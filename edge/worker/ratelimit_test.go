package worker

import (
	"testing"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/internal/contract"
)

// TestWranglerRateLimit checks the Rate Limiting binding of wrangler.json against the
// contract's limit (docs/design.md §3), without Node: the worker counts with this binding,
// so its limit and period must be the ones the Go server and the generated texts use.
func TestWranglerRateLimit(t *testing.T) {
	b, err := WorkerFS.ReadFile(WorkerConfig)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		RateLimits []struct {
			Name   string `json:"name"`
			Simple struct {
				Limit  int `json:"limit"`
				Period int `json:"period"`
			} `json:"simple"`
		} `json:"ratelimits"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("parse %s: %v", WorkerConfig, err)
	}
	if len(cfg.RateLimits) != 1 {
		t.Fatalf("%s has %d ratelimits entries, want 1 (RATE_LIMITER)", WorkerConfig, len(cfg.RateLimits))
	}
	rl := cfg.RateLimits[0]
	if rl.Name != "RATE_LIMITER" {
		t.Errorf("ratelimits[0].name = %q, want RATE_LIMITER (the binding src/index.js uses)", rl.Name)
	}
	if rl.Simple.Limit != contract.RateLimitRequests || rl.Simple.Period != contract.RateLimitWindowSeconds {
		t.Errorf("ratelimits[0].simple = limit %d, period %d; the contract says %d per %d s (internal/contract)",
			rl.Simple.Limit, rl.Simple.Period, contract.RateLimitRequests, contract.RateLimitWindowSeconds)
	}
}
