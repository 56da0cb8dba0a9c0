package content

import (
	"strings"
	"testing"
)

// TestCanonicalSiteURL checks the site URL grammar: only https?://host[:port][/path]. Before,
// query, fragment, spaces, port 99999 and raw IDN hosts were accepted and made broken URLs.
func TestCanonicalSiteURL(t *testing.T) {
	tests := []struct {
		name, in, want, wantErr string
	}{
		{name: "plain", in: "https://numerology.example", want: "https://numerology.example"},
		{name: "port and path", in: "http://127.0.0.1:8080/api/v1", want: "http://127.0.0.1:8080/api/v1"},
		{name: "IPv6", in: "http://[::1]:8080", want: "http://[::1]:8080"},
		{name: "IDN host", in: "https://нумерология.рф/данные", wantErr: "must be percent-encoded"},
		{name: "IDN host to ASCII", in: "https://Пример.испытание", want: "https://xn--e1afmkfd.xn--80akhbyknj4f"},
		{name: "query", in: "https://a.example?x=1", wantErr: "must have no query"},
		{name: "fragment", in: "https://a.example/#top", wantErr: "must have no fragment"},
		{name: "space", in: "https://a.example/my site", wantErr: `contains " "`},
		{name: "quote", in: `https://a.example/"x`, wantErr: `contains "\""`},
		{name: "angle bracket", in: "https://a.example/<b>", wantErr: `contains "<"`},
		{name: "port too large", in: "https://a.example:99999", wantErr: `port "99999": must be a number 1–65535`},
		{name: "port zero", in: "https://a.example:0", wantErr: "must be a number 1–65535"},
		{name: "empty port", in: "https://a.example:", wantErr: "empty port"},
		{name: "trailing slash", in: "https://a.example/", wantErr: "no trailing slash"},
		{name: "dot segment", in: "https://a.example/a/../b", wantErr: `segment ".."`},
		{name: "user info", in: "https://u:p@a.example", wantErr: "no user info"},
		{name: "other scheme", in: "ftp://a.example", wantErr: "must start with https:// or http://"},
		{name: "no host", in: "https://", wantErr: "no host"},
		{name: "bad host", in: "https://a_b..example", wantErr: "host"},
		// Issue 21: each was accepted (or passed here and failed later with exit 1).
		{name: "signed port", in: "https://x.example:+80", wantErr: `port "+80": must be a number 1–65535, digits only`},
		{name: "trailing dots", in: "https://x.example..", wantErr: `host "x.example..": empty label`},
		{name: "trailing dot", in: "https://x.example.", wantErr: "empty label"},
		{name: "hex IPv4", in: "https://0x7f.1", wantErr: `host "0x7f.1": ends in a number, so browsers read it as an IPv4 address`},
		{name: "short IPv4", in: "https://127.1", wantErr: "ends in a number"},
		{name: "numeric last label", in: "https://x.example.123", wantErr: "ends in a number"},
		{name: "IPv4 with leading zero", in: "https://127.0.0.01", wantErr: "ends in a number"},
		{name: "ampersand", in: "https://x.example/a&b", wantErr: `character "&" must be percent-encoded (%26)`},
		{name: "dotted IPv4", in: "https://127.0.0.1:8443/x", want: "https://127.0.0.1:8443/x"},
		{name: "digits inside a label", in: "https://api2.example.org", want: "https://api2.example.org"},
		{name: "escaped ampersand", in: "https://x.example/a%26b", want: "https://x.example/a%26b"},
		// Issue 27: a dot segment spelled with %2e was accepted, and every record carried it.
		{name: "escaped dot dot", in: "https://x.example/%2e%2e/b", wantErr: `path segment "%2e%2e": a .. segment spelled with %2e`},
		{name: "escaped dot dot, upper case", in: "https://x.example/a/%2E%2e", wantErr: `segment "%2E%2e": a .. segment`},
		{name: "half-escaped dot dot", in: "https://x.example/.%2e/b", wantErr: `segment ".%2e": a .. segment`},
		{name: "half-escaped dot dot, other half", in: "https://x.example/%2E./b", wantErr: `segment "%2E.": a .. segment`},
		{name: "escaped dot", in: "https://x.example/%2e/b", wantErr: `segment "%2e": a . segment`},
		{name: "escaped dots inside a segment", in: "https://x.example/v%2e1/%2e%2e%2e", want: "https://x.example/v%2e1/%2e%2e%2e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CanonicalSiteURL(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("CanonicalSiteURL(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CanonicalSiteURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
