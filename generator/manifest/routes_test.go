package manifest

import (
	"slices"
	"testing"
)

func TestRouteScopeAndParams(t *testing.T) {
	tests := []struct {
		name, pattern, scope string
		params               []string
	}{
		{"prefix", APIPrefix, APIPrefix, nil},
		{"literal", APIPrefix + "/openapi.json", APIPrefix + "/openapi.json", nil},
		{"one param", APIPrefix + "/life-path/{number}", APIPrefix + "/life-path", []string{"number"}},
		{"three params", APIPrefix + "/matrix/{day}/{month}/{year}", APIPrefix + "/matrix", []string{"day", "month", "year"}},
		{"literal after a param", APIPrefix + "/n/{n}/about", APIPrefix + "/n", []string{"n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Route{Pattern: tt.pattern}
			if got := r.Scope(); got != tt.scope {
				t.Errorf("Scope() = %q, want %q", got, tt.scope)
			}
			if got := r.Params(); !slices.Equal(got, tt.params) {
				t.Errorf("Params() = %q, want %q", got, tt.params)
			}
		})
	}
}

func TestRateLimited(t *testing.T) {
	c := &EdgeConfig{Routes: []Route{
		{Pattern: APIPrefix + "/life-path/{number}"},
		{Pattern: APIPrefix + "/matrix/{day}/{month}/{year}", RateLimited: true},
	}}
	tests := []struct {
		name string
		path string
		want bool
	}{
		{"the scope itself", APIPrefix + "/matrix", true},
		{"under it", APIPrefix + "/matrix/1/1/2000", true},
		{"malformed under it", APIPrefix + "/matrix/x", true},
		{"a longer word", APIPrefix + "/matrixx", false},
		{"a route not limited", APIPrefix + "/life-path/7", false},
		{"the prefix", APIPrefix, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.RateLimited(tt.path); got != tt.want {
				t.Errorf("RateLimited(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}
