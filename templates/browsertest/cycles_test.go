package browsertest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/calendar"
)

// TestPersonalYearDetailsPage opens the personal year's details page of 23 April in 2000
// (a leap year) and of 29 February in 1990 (a common one) and checks the calendar the page
// draws against the Go rule: the year's number, every month's and every day's, and
// February's 29 or 28 days; the page then agrees with the API record.
func TestPersonalYearDetailsPage(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	srv := serveTree(t, testTree(t), 0, nil)
	for _, in := range [][3]int{{23, 4, 2000}, {29, 2, 1990}} {
		d, m, y := in[0], in[1], in[2]
		t.Run(fmt.Sprintf("%d.%d.%d", d, m, y), func(t *testing.T) {
			do(t, ctx,
				chromedp.Navigate(fmt.Sprintf("%s/personal-year/details?birthday=%02d-%02d&year=%d", srv.URL, m, d, y)),
				chromedp.WaitVisible(chromedp.CSS(`#calendar[data-state="ready"]`)),
				chromedp.WaitReady(chromedp.CSS(`#api-status[data-state="ok"]`)))
			got := eval[string](t, ctx, `(() => {
				const out = [document.getElementById("py-number").textContent];
				for (const t of document.querySelectorAll("#calendar table")) {
					const days = [...t.querySelectorAll("td[data-day]")].map((e) => e.dataset.number).join("");
					out.push(t.querySelector("caption .cy-num").textContent + ":" + days);
				}
				return out.join(" ");
			})()`)
			py := rules.ComputePersonalYear(d, m, y)
			want := []string{strconv.Itoa(int(py.Number))}
			for k := 1; k <= 12; k++ {
				var b strings.Builder
				for _, n := range py.MonthDays(k) {
					b.WriteString(strconv.Itoa(int(n)))
				}
				want = append(want, strconv.Itoa(int(py.Months[k-1]))+":"+b.String())
			}
			if got != strings.Join(want, " ") {
				t.Errorf("the page draws\n%s\nthe rule gives\n%s", got, strings.Join(want, " "))
			}
		})
	}
	t.Run("bad input", func(t *testing.T) {
		for _, q := range []string{"birthday=02-30&year=2000", "birthday=04-23&year=2101", "day=31&month=4&year=2000", "birthday=x&year=2000"} {
			do(t, ctx, chromedp.Navigate(srv.URL+"/personal-year/details?"+q), chromedp.WaitReady(chromedp.CSS(`#status[data-state="bad-date"]`)))
			if hidden := eval[bool](t, ctx, `document.getElementById("result").hidden`); !hidden {
				t.Errorf("%s: the result is shown", q)
			}
		}
	})
	t.Run("form year", func(t *testing.T) {
		do(t, ctx, chromedp.Navigate(srv.URL+"/personal-year"), chromedp.WaitReady(chromedp.CSS(`footer`)))
		got := eval[string](t, ctx, `document.getElementById("cy-year").value`)
		want := eval[string](t, ctx, `String(new Date().getFullYear())`)
		if got != want {
			t.Errorf("the form's year is %q, want the current year %s", got, want)
		}
	})
}

// TestLifePathDetailsPage opens the life path details page of the golden vector's date and
// checks the pinnacles' timeline and the challenges against the Go rule.
func TestLifePathDetailsPage(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	srv := serveTree(t, testTree(t), 0, nil)
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/life-path/details?date="+vectorDate),
		chromedp.WaitVisible(chromedp.CSS(`#timeline[data-state="ready"]`)),
		chromedp.WaitReady(chromedp.CSS(`#api-status[data-state="ok"]`)))
	got := eval[string](t, ctx, `(() => {
		const p = [...document.querySelectorAll("#timeline [data-pinnacle]")].map((e) => e.dataset.number + "@" + e.querySelector(".cy-peak-ages").textContent);
		const c = [...document.querySelectorAll("#challenges [data-challenge]")].map((e) => e.dataset.number);
		return document.getElementById("lp-number").textContent + " " + p.join(",") + " " + c.join(",");
	})()`)
	// 15.05.1990 (docs/design.md §16): 11, 7, 9, 6 at 0–33, 33–42, 42–51, 51 on; 1, 5, 4, 4.
	// The ages read «от 42 до 51 года», «с 51 года»: a number ending in 1 (but 11) takes
	// «года», any other «лет» (the texts35 read found «с 51 лет»).
	if want := "3 11@0–33 лет,7@33–42 лет,9@42–51 года,6@с 51 года 1,5,4,4"; got != want {
		t.Errorf("the page shows %q, want %q", got, want)
	}
}

// TestCyclesRulesMatchGo checks the pages' own rules against the generator's for every
// input: the personal year of every birthday in every target year (366 × 201), and the
// pinnacles and challenges of every date of the range. The pages draw before the API answers.
func TestCyclesRulesMatchGo(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	srv := serveTree(t, testTree(t), 0, nil)
	do(t, ctx, chromedp.Navigate(srv.URL+"/personal-year/details"), chromedp.WaitReady(chromedp.CSS(`#status[data-state="empty"]`)))
	// One year at a time, each a browser step.
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		var want []string
		js := `(() => {
			const out = [], y = ` + strconv.Itoa(y) + `;
			for (let m = 1; m <= 12; m++)
				for (let d = 1; d <= new Date(Date.UTC(2000, m, 0)).getUTCDate(); d++) {
					const p = window.numerologyPersonalYearOf(d, m, y);
					out.push(d + "." + m + "." + y + ":" + p.number + ":" + p.months.join("") + ":" + p.days.map((x) => x.join("")).join(","));
				}
			for (let m = 1; m <= 12; m++)
				for (let d = 1; d <= new Date(Date.UTC(y, m, 0)).getUTCDate(); d++) {
					const c = window.numerologyLifeCyclesOf(d, m, y);
					out.push(d + "." + m + "." + y + ":" + c.pinnacles.map((p) => p.number + "/" + p.from + "/" + (p.to === null ? "-" : p.to)).join(",") + ":" + c.challenges.join(","));
				}
			return out.join("\n");
		})()`
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, 2000); d++ {
				py := rules.ComputePersonalYear(d, m, y)
				var months, days strings.Builder
				for k := 1; k <= 12; k++ {
					months.WriteString(strconv.Itoa(int(py.Months[k-1])))
					if k > 1 {
						days.WriteByte(',')
					}
					for _, n := range py.MonthDays(k) {
						days.WriteString(strconv.Itoa(int(n)))
					}
				}
				want = append(want, fmt.Sprintf("%d.%d.%d:%d:%s:%s", d, m, y, py.Number, months.String(), days.String()))
			}
		}
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				lc := rules.ComputeLifeCycles(d, m, y)
				var p []string
				for _, q := range lc.Pinnacles {
					to := "-"
					if q.HasEnd() {
						to = strconv.Itoa(int(q.To))
					}
					p = append(p, fmt.Sprintf("%d/%d/%s", q.Number, q.From, to))
				}
				c := lc.Challenges
				want = append(want, fmt.Sprintf("%d.%d.%d:%s:%d,%d,%d,%d", d, m, y, strings.Join(p, ","), c[0], c[1], c[2], c[3]))
			}
		}
		matchLines(t, ctx, fmt.Sprintf("personal year, pinnacles and challenges, %d", y), js, want)
	}
}

// compareLines reports the first lines where the page's rule and Go's differ.
func compareLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: the page computed %d inputs, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range want {
		if got[i] != want[i] && bad < 5 {
			t.Errorf("%s: page %s, generator %s", what, got[i], want[i])
			bad++
		}
	}
}

// TestCyclesLayoutShift measures the cumulative layout shift of the personal year's and
// the life path's details pages while the API answers slowly (an input, a bad one, one out
// of range, a 429, a 5xx, a dropped connection) and of /personal-year, on a desktop and a
// phone screen.
func TestCyclesLayoutShift(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	py := "/personal-year/details?"
	for _, screen := range screens {
		// Servers of their own for the life path's states and the personal year's: each set
		// spends its rate limit once.
		api, lp := heldAPI(t, testTree(t)), heldAPI(t, testTree(t))
		type gated struct {
			shiftCase
			gate *apiGate
		}
		var cases []gated
		for _, c := range detailsStates(lp, "/life-path/details?date=") {
			cases = append(cases, gated{c, lp.gate})
		}
		for _, c := range []shiftCase{
			{name: "py-date", url: api.ok + py + "birthday=04-23&year=2000", done: `#api-status[data-state="ok"]`},
			{name: "py-leap-day-common-year", url: api.ok + py + "birthday=02-29&year=1990", done: `#api-status[data-state="ok"]`},
			{name: "py-form", url: api.ok + py + "day=25&month=4&year=2000", done: `#api-status[data-state="ok"]`},
			{name: "py-bad", url: api.ok + py + "birthday=02-30&year=2000", done: `#status[data-state="bad-date"]`},
			{name: "py-out-of-range", url: api.ok + py + "birthday=04-23&year=2101", done: `#status[data-state="bad-date"]`},
			{name: "py-rate-limit", first: api.limited + py + "birthday=04-23&year=2000",
				url: api.limited + py + "birthday=04-24&year=2000", done: `#api-status[data-state="rate-limit"]`},
			{name: "py-server-error", url: api.failing + py + "birthday=04-23&year=2000", done: `#api-status[data-state="server"]`},
			{name: "py-network-error", url: api.down + py + "birthday=04-23&year=2000", done: `#api-status[data-state="network"]`},
			{name: "personal-year-page", url: api.ok + "/personal-year", done: `footer`},
		} {
			cases = append(cases, gated{c, api.gate})
		}
		do(t, ctx, chromedp.EmulateViewport(screen.width, screen.height))
		for _, tt := range cases {
			t.Run(screen.name+"/"+tt.name, func(t *testing.T) {
				checkLayoutShift(t, ctx, tt.gate, tt.shiftCase)
				if strings.HasPrefix(tt.done, "#api-status") {
					checkAPIStatusFits(t, ctx)
				}
				if width := eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(screen.width) {
					t.Errorf("the page is %d px wide at a %d px viewport", width, screen.width)
				}
				screenshot(t, ctx, "cycles-cls-"+screen.name+"-"+tt.name+".png")
			})
		}
	}
}
