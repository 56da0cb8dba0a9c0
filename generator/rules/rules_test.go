package rules

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/internal/calendar"
)

func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(rows) < 2 {
		t.Fatalf("%s: no rows", name)
	}
	return rows
}

func parseDate(t *testing.T, s string) (d, m, y int) {
	t.Helper()
	p := strings.Split(s, "-")
	if len(p) != 3 {
		t.Fatalf("bad date %q", s)
	}
	y, _ = strconv.Atoi(p[0])
	m, _ = strconv.Atoi(p[1])
	d, _ = strconv.Atoi(p[2])
	return d, m, y
}

func TestMatrixVectors(t *testing.T) {
	rows := readCSV(t, "matrix.csv")
	header := rows[0]
	if strings.Join(header[1:], ",") != strings.Join(PositionKeys(), ",") {
		t.Fatalf("vector columns %v differ from position order %v", header[1:], PositionKeys())
	}
	for _, row := range rows[1:] {
		t.Run(row[0], func(t *testing.T) {
			d, m, y := parseDate(t, row[0])
			got := ComputeMatrix(d, m, y)
			for i, cell := range row[1:] {
				want, err := strconv.Atoi(cell)
				if err != nil {
					t.Fatalf("column %s: %v", header[i+1], err)
				}
				if got[i] != want {
					t.Errorf("%s = %d, want %d", header[i+1], got[i], want)
				}
			}
		})
	}
}

func TestLifePathVectors(t *testing.T) {
	for _, row := range readCSV(t, "life-path.csv")[1:] {
		t.Run(row[0], func(t *testing.T) {
			d, m, y := parseDate(t, row[0])
			want, _ := strconv.Atoi(row[1])
			if got := LifePath(d, m, y); got != want {
				t.Errorf("LifePath = %d, want %d", got, want)
			}
		})
	}
}

func TestReduce(t *testing.T) {
	tests := []struct {
		name string
		in   int
		want int
	}{
		{"zero stays", 0, 0},
		{"22 stays", 22, 22},
		{"23 reduces", 23, 5},
		{"99 reduces twice", 99, 18},
		{"199 reduces to 19", 199, 19},
		{"2100 reduces", 2100, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Reduce(tt.in); got != tt.want {
				t.Errorf("Reduce(%d) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

// TestMatrixProperties checks every date of the range: each position is an arcana 1–22.
func TestMatrixProperties(t *testing.T) {
	n := 0
	seen := [NumPositions][23]bool{}
	for y := FirstYear; y <= LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				n++
				mx := ComputeMatrix(d, m, y)
				for p, a := range mx {
					if a < 1 || a > 22 {
						t.Fatalf("%02d.%02d.%04d: %s = %d, outside 1–22", d, m, y, Position(p).Key(), a)
					}
					seen[p][a] = true
				}
				if lp := LifePath(d, m, y); !IsLifePathNumber(lp) {
					t.Fatalf("%02d.%02d.%04d: life path %d is not a valid number", d, m, y, lp)
				}
			}
		}
	}
	if n != 73414 || DatesIn(FirstYear, LastYear) != 73414 {
		t.Fatalf("dates in range = %d (DatesIn %d), want 73414", n, DatesIn(FirstYear, LastYear))
	}
	// Personal is the reduced day: 1–22 all occur; talents is the month: 1–12 only.
	for a := 1; a <= 22; a++ {
		if !seen[Personal][a] {
			t.Errorf("personal never takes arcana %d", a)
		}
	}
}

func TestValidDate(t *testing.T) {
	tests := []struct {
		name    string
		d, m, y int
		want    bool
	}{
		{"first day", 1, 1, 1900, true},
		{"last day", 31, 12, 2100, true},
		{"before range", 31, 12, 1899, false},
		{"after range", 1, 1, 2101, false},
		{"30 February", 30, 2, 2000, false},
		{"29 February 1900 (not leap)", 29, 2, 1900, false},
		{"29 February 2000 (leap)", 29, 2, 2000, true},
		{"29 February 2100 (not leap)", 29, 2, 2100, false},
		{"31 April", 31, 4, 1990, false},
		{"day zero", 0, 1, 1990, false},
		{"month 13", 1, 13, 1990, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidDate(tt.d, tt.m, tt.y); got != tt.want {
				t.Errorf("ValidDate(%d, %d, %d) = %v, want %v", tt.d, tt.m, tt.y, got, tt.want)
			}
		})
	}
}
