package generator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/contract"
)

func TestRouteBudget(t *testing.T) {
	years := allYears()
	// Date routes enough to make ten with the built-in ones.
	synthetic := 10
	for _, r := range Routes() {
		if r.Packed != nil {
			synthetic--
		}
	}
	free, _ := contract.PlanNamed("free")
	paid, _ := contract.PlanNamed("paid")
	tests := []struct {
		name string
		edit func(s *Site)
		plan contract.Plan
		want []string // substrings of the error; none: within the budget
	}{
		{name: "built-in table on Free", plan: free},
		{name: "ten routes packed by month on Free",
			edit: func(s *Site) {
				s.units = append(s.units, syntheticDateRoutes(synthetic, manifest.UnitMonth)...)
			},
			plan: free,
			want: []string{"files would be uploaded, over the 20,000 a version may hold on Workers Free", fmt.Sprintf("synthetic-%d 2,412", synthetic), "matrix 2,412", "Pack some date routes by year"}},
		{name: "ten routes, the synthetic ones packed by year, on Free",
			edit: func(s *Site) {
				s.units = append(s.units, syntheticDateRoutes(synthetic, manifest.UnitYear)...)
			},
			plan: free},
		{name: "ten routes packed by month on Paid",
			edit: func(s *Site) {
				s.units = append(s.units, syntheticDateRoutes(synthetic, manifest.UnitMonth)...)
			},
			plan: paid},
		{name: "a record bound too large for its packed file",
			edit: func(s *Site) {
				u := syntheticDateRoutes(1, manifest.UnitMonth)
				u[0].maxBytes = 200 << 10
				s.units = append(s.units, u...)
			},
			plan: free,
			want: []string{"route synthetic-1: a packed file holds up to 31 records of up to 204,800 bytes, 6,348,800 bytes", "over the 5 MiB an uploaded file may have"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := *testSite(t) // a copy: the test site is shared
			s := &site
			if tt.edit != nil {
				s.units = append([]routeUnit(nil), s.units...)
				tt.edit(s)
			}
			g := &gen{site: s, years: years, counts: map[string]*atomic.Int64{}}
			if err := g.prepare(context.Background()); err != nil {
				t.Fatal(err)
			}
			err := s.checkBudget(years, tt.plan, g.pre)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("checkBudget: %v", err)
				}
				return
			}
			var be *BudgetError
			if !errors.As(err, &be) {
				t.Fatalf("checkBudget = %v, want a *BudgetError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestRecordBound: a date route's encoder refuses a record over its renderer's maxBytes, so
// the budget's bound on a packed file holds for every file generate writes.
func TestRecordBound(t *testing.T) {
	site := *testSite(t)
	s := &site
	u := syntheticDateRoutes(1, manifest.UnitMonth)
	u[0].maxBytes = 100
	s.units = append(append([]routeUnit(nil), s.units...), u...)
	encs, err := s.encoders()
	if err != nil {
		t.Fatal(err)
	}
	_, err = encs["synthetic-1"](nil, []int{15, 5, 1990})
	if err == nil || !strings.Contains(err.Error(), "over the route's 100") {
		t.Fatalf("encoding a record over its bound: %v, want an error naming the bound", err)
	}
	_, err = Generate(context.Background(), Options{Site: s, Out: t.TempDir() + "/out", Years: []int{2000}})
	if err == nil || !strings.Contains(err.Error(), "render synthetic-1 ") || !strings.Contains(err.Error(), "/2000: the body is") {
		t.Fatalf("Generate with a record over its bound: %v, want the route and the date", err)
	}
}
