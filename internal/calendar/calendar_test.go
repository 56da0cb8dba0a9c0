package calendar

import (
	"testing"
	"time"
)

// TestAgainstTime: DaysIn, DayOfYear and Valid agree with the time package, whose calendar
// is the proleptic Gregorian one, for every day of the years 1–2400 and for the numbers
// around each month's end.
func TestAgainstTime(t *testing.T) {
	for y := 1; y <= 2400; y++ {
		if got, want := IsLeap(y), time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC).YearDay() == 366; got != want {
			t.Fatalf("IsLeap(%d) = %v, want %v", y, got, want)
		}
		for m := 1; m <= 12; m++ {
			want := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
			if got := DaysIn(m, y); got != want {
				t.Fatalf("DaysIn(%d, %d) = %d, want %d", m, y, got, want)
			}
			for d := 1; d <= want; d++ {
				if got, want := DayOfYear(d, m, y), time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).YearDay(); got != want {
					t.Fatalf("DayOfYear(%d, %d, %d) = %d, want %d", d, m, y, got, want)
				}
			}
			for _, d := range []int{0, 1, want, want + 1} {
				if got, want := Valid(d, m, y), d >= 1 && d <= want; got != want {
					t.Fatalf("Valid(%d, %d, %d) = %v, want %v", d, m, y, got, want)
				}
			}
		}
	}
}

func TestValid(t *testing.T) {
	tests := []struct {
		name    string
		d, m, y int
		want    bool
	}{
		{"an ordinary date", 15, 5, 1990, true},
		{"29 February of a leap year", 29, 2, 2000, true},
		{"29 February of a century that is not leap", 29, 2, 1900, false},
		{"30 February", 30, 2, 2000, false},
		{"31 April", 31, 4, 2000, false},
		{"month 0", 1, 0, 2000, false},
		{"month 13", 1, 13, 2000, false},
		{"day 0", 0, 1, 2000, false},
		{"a negative day", -1, 1, 2000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Valid(tt.d, tt.m, tt.y); got != tt.want {
				t.Errorf("Valid(%d, %d, %d) = %v, want %v", tt.d, tt.m, tt.y, got, tt.want)
			}
		})
	}
	if !IsLeap(LeapYear) {
		t.Errorf("LeapYear %d is not a leap year", LeapYear)
	}
}
