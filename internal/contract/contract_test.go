package contract

import "testing"

func TestContentType(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"json", "api/public/life-path.json", "application/json; charset=utf-8"},
		{"html, upper case", "INDEX.HTML", "text/html; charset=utf-8"},
		{"archive", "downloads/numerology-dataset-1.0.tar.gz", "application/gzip"},
		{"citation", "CITATION.cff", "text/plain; charset=utf-8"},
		{"web manifest", "site.webmanifest", "application/manifest+json"},
		{"unknown", "x.bin", DefaultContentType},
		{"no extension", "_headers", DefaultContentType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContentType(tt.file); got != tt.want {
				t.Errorf("ContentType(%q) = %q, want %q", tt.file, got, tt.want)
			}
		})
	}
}
