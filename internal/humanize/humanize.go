// Package humanize writes counts and sizes for people reading a terminal or a CI log.
//
// It stays hand-written beside dustin/go-humanize on purpose: the two functions are 30
// lines, and go-humanize's nearest ones (Comma, Bytes) print sizes differently ("150 MB"
// and "kB", no decimal above 10) from the figures the README, docs and tests quote
// ("150.4 MB"); a dependency would change the output to save nothing.
package humanize

import (
	"fmt"
	"strconv"
)

// Count writes n with thousands separators: 73440 → 73,440.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Bytes writes a size in B, KB, MB or GB (powers of 1000).
func Bytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
