package conformance

import (
	"testing"
	"time"
)

// TestSpoiled checks when exhausted repeats a burst: when it took a window or more on the
// target's clock, and, for an aligned window, when it straddled two aligned windows.
func TestSpoiled(t *testing.T) {
	minute := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		aligned    bool
		start, end time.Time
		spoiled    bool
	}{
		{"within the window", false, minute.Add(50 * time.Second), minute.Add(70 * time.Second), false},
		{"one window long", false, minute, minute.Add(time.Minute), true},
		{"a clock jump of a window", false, minute.Add(time.Second), minute.Add(time.Minute + 2*time.Second), true},
		{"aligned, within one minute", true, minute.Add(time.Second), minute.Add(59 * time.Second), false},
		{"aligned, from a minute's first instant", true, minute, minute.Add(59*time.Second + 999*time.Millisecond), false},
		{"aligned, straddling two minutes", true, minute.Add(-time.Second), minute.Add(time.Second), true},
		{"aligned, ending on the next minute", true, minute.Add(-time.Millisecond), minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &suite{target: Target{RateWindow: time.Minute, AlignedWindow: tt.aligned}}
			if why := s.spoiled(tt.start, tt.end); (why != "") != tt.spoiled {
				t.Errorf("spoiled(%v, %v) = %q, want spoiled %v", tt.start, tt.end, why, tt.spoiled)
			}
		})
	}
}
