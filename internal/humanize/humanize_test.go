package humanize

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		name string
		in   int64
		want string
	}{
		{"small", 7, "7"},
		{"three digits", 999, "999"},
		{"thousands", 73440, "73,440"},
		{"millions", 1234567, "1,234,567"},
		{"negative", -1234, "-1,234"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Count(tt.in); got != tt.want {
				t.Errorf("Count(%d) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		name string
		in   int64
		want string
	}{
		{"bytes", 999, "999 B"},
		{"kilobytes", 1500, "1.5 KB"},
		{"megabytes", 150_300_000, "150.3 MB"},
		{"gigabytes", 2_500_000_000, "2.50 GB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Bytes(tt.in); got != tt.want {
				t.Errorf("Bytes(%d) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
