package browsertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/opennumerology/numerology/edge/server/servertest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/calendar"
)

// squareGrid is what the square's details page draws: the working numbers, each cell's
// digits and count, each line's sum.
type squareGrid struct {
	Working string            `json:"working"`
	Digits  map[string]string `json:"digits"`
	Counts  map[string]string `json:"counts"`
	Sums    map[string]string `json:"sums"`
}

const squareGridJS = `(() => {
	const out = {working: document.getElementById("working").textContent, digits: {}, counts: {}, sums: {}};
	for (const e of document.querySelectorAll("#grid [data-cell]")) {
		out.digits[e.dataset.cell] = e.querySelector(".sq-cell-digits").textContent;
		out.counts[e.dataset.cell] = e.dataset.count;
	}
	for (const e of document.querySelectorAll("#grid [data-line]")) out.sums[e.dataset.line] = e.querySelector(".sq-sum-num").textContent;
	return out;
})()`

// TestSquareDetailsPage opens the square's details page of a date in Chromium and checks
// the grid against the golden vector (testdata/square-1990-05-15.csv, a row of the shared
// vectors) and the Go rule, a date whose W3 is below zero against the Go rule, then the
// friendly messages of a bad date, a 429 and a network error. The page draws the square
// itself and checks it against the API record, so the API's errors are reported under the
// citation while the square stays.
func TestSquareDetailsPage(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	tree := testTree(t)
	var apiCalls atomic.Int64
	h := servertest.TreeHandler(t, tree, 0)
	srv := servertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/public/square") {
			apiCalls.Add(1)
		}
		h.ServeHTTP(w, r)
	}))

	for _, date := range []string{vectorDate, "2000-01-09"} {
		t.Run(date, func(t *testing.T) {
			do(t, ctx,
				chromedp.Navigate(srv.URL+"/square/details?date="+date),
				chromedp.WaitVisible(chromedp.CSS(`#grid[data-state="ready"]`)),
			)
			got := eval[squareGrid](t, ctx, squareGridJS)
			var y, m, d int
			fmt.Sscanf(date, "%d-%d-%d", &y, &m, &d)
			sq := rules.ComputeSquare(d, m, y)
			if want := fmt.Sprintf("%d, %d, %d, %d", sq.Working[0], sq.Working[1], sq.Working[2], sq.Working[3]); got.Working != want {
				t.Errorf("working numbers %q, want %q", got.Working, want)
			}
			for c := 1; c <= 9; c++ {
				want := sq.Digits(c)
				if want == "" {
					want = "—"
				}
				if k := strconv.Itoa(c); got.Digits[k] != want || got.Counts[k] != strconv.Itoa(sq.Counts[c-1]) {
					t.Errorf("cell %d shows %q (count %s), want %q", c, got.Digits[k], got.Counts[k], want)
				}
			}
			for l := range rules.NumSquareLines {
				key := rules.SquareLine(l).Key()
				if got.Sums[key] != strconv.Itoa(sq.Lines[l]) {
					t.Errorf("line %s shows %q, want %d", key, got.Sums[key], sq.Lines[l])
				}
			}
			if date == vectorDate {
				w, cells := goldenSquare(t, date)
				if got.Working != w {
					t.Errorf("working numbers %q, the golden vector %q", got.Working, w)
				}
				for c, want := range cells {
					if got.Digits[strconv.Itoa(c+1)] != want {
						t.Errorf("cell %d shows %q, the golden vector %q", c+1, got.Digits[strconv.Itoa(c+1)], want)
					}
				}
			}
			if title := get(t, ctx, chromedp.Text(chromedp.CSS(`#details-title`))); !strings.Contains(title, fmt.Sprintf("%02d.%02d.%d", d, m, y)) {
				t.Errorf("title %q does not name the date", title)
			}
			if msg := friendlyMessage(t, ctx, "", "#api-status", "ok"); !strings.Contains(msg, "совпадает с записью API") {
				t.Errorf("api status = %q, want it to say the drawing matches the API record", msg)
			}
			rec := eval[map[string]any](t, ctx, fmt.Sprintf(`fetch("/api/public/square/%d/%d/%d").then(r => r.json())`, d, m, y), chromedp.EvalAwaitPromise)
			if got, want := get(t, ctx, chromedp.Text(chromedp.CSS(`#citation`))), rec["suggested_citation"].(string)+"\n"+rec["attribution"].(string); got != want {
				t.Errorf("citation = %q, want the record's %q", got, want)
			}
			screenshot(t, ctx, "square-"+date+".png")
		})
	}

	t.Run("bad-date", func(t *testing.T) {
		before := apiCalls.Load()
		msg := friendlyMessage(t, ctx, srv.URL+"/square/details?date=1990-02-30", "#status", "bad-date")
		if !strings.Contains(msg, "30.02.1990 нет в календаре") || !strings.Contains(msg, "28 дней") {
			t.Errorf("bad date message = %q, want it to say that 30.02.1990 does not exist and February 1990 has 28 days", msg)
		}
		if n := apiCalls.Load() - before; n != 0 {
			t.Errorf("the page called the API %d times for a bad date, want 0", n)
		}
		if !eval[bool](t, ctx, `document.getElementById("result").hidden`) {
			t.Error("the square is shown for a bad date")
		}
	})

	// Each kind of bad value has its own heading, as on the matrix's details page: before,
	// every one was «Такой даты нет», an unreadable value and a year out of range included.
	for _, tt := range []struct{ name, date, heading, text string }{
		{"not-in-calendar", "1990-02-30", "Такой даты нет", "28 дней"},
		{"out-of-range", "1899-12-31", fmt.Sprintf("Год вне диапазона %d–%d", rules.FirstYear, rules.LastYear), "31.12.1899 в этот промежуток не входит"},
		{"unreadable", "15%2F05%2F1990", "Не получилось прочитать дату", "ДД.ММ.ГГГГ или ГГГГ-ММ-ДД"},
	} {
		t.Run("bad-date/"+tt.name, func(t *testing.T) {
			msg := friendlyMessage(t, ctx, srv.URL+"/square/details?date="+tt.date, "#status", "bad-date")
			if heading := get(t, ctx, chromedp.Text(chromedp.CSS(`#status .notice-title`))); heading != tt.heading {
				t.Errorf("heading = %q, want %q", heading, tt.heading)
			}
			if !strings.Contains(msg, tt.text) {
				t.Errorf("message = %q, want it to say %q", msg, tt.text)
			}
		})
	}

	t.Run("rate-limit", func(t *testing.T) {
		limited := serveTree(t, tree, 1, nil)
		friendlyMessage(t, ctx, limited.URL+"/square/details?date="+vectorDate, "#api-status", "ok")
		msg := friendlyMessage(t, ctx, limited.URL+"/square/details?date=1990-05-16", "#api-status", "rate-limit")
		if !strings.Contains(msg, "Слишком много запросов") || !strings.Contains(msg, "через") {
			t.Errorf("429 message = %q, want it to say to wait", msg)
		}
		if got := eval[string](t, ctx, `document.querySelector('#grid [data-line="purpose"] .sq-sum-num').textContent`); got != strconv.Itoa(rules.ComputeSquare(16, 5, 1990).Lines[rules.RowPurpose]) {
			t.Errorf("purpose = %s for 16.05.1990 under a 429, want the drawn sum", got)
		}
	})

	t.Run("network-error", func(t *testing.T) {
		down := httptest.NewServer(dropAPI(t, tree))
		t.Cleanup(down.Close)
		if msg := friendlyMessage(t, ctx, down.URL+"/square/details?date="+vectorDate, "#api-status", "network"); !strings.Contains(msg, "Нет связи с сервером") {
			t.Errorf("network error message = %q", msg)
		}
	})
}

// TestSquareRuleMatchesGo checks the details page's own square rule against the
// generator's for every date of the range: the page draws a date before the API answers.
func TestSquareRuleMatchesGo(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	srv := serveTree(t, testTree(t), 0, nil)
	do(t, ctx, chromedp.Navigate(srv.URL+"/square/details"), chromedp.WaitReady(chromedp.CSS(`#status[data-state="empty"]`)))
	// One line per date, "d.m.y:w1,w2,w3,w4:c1,…,c9:l1,…,l8", for every date of the range.
	js := `((y0, y1) => {
		const out = [];
		for (let y = y0; y <= y1; y++)
			for (let m = 1; m <= 12; m++)
				for (let d = 1; d <= new Date(Date.UTC(y, m, 0)).getUTCDate(); d++) {
					const s = window.numerologySquareOf(d, m, y);
					out.push(d + "." + m + "." + y + ":" + s.working.join(",") + ":" + s.counts.join(",") + ":" + s.lines.join(","));
				}
		return out.join("\n");
	})`
	join := func(ns []int) string {
		s := make([]string, len(ns))
		for i, n := range ns {
			s[i] = strconv.Itoa(n)
		}
		return strings.Join(s, ",")
	}
	var want []string
	negative := 0
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				sq := rules.ComputeSquare(d, m, y)
				if sq.Working[2] <= 0 {
					negative++
				}
				want = append(want, fmt.Sprintf("%d.%d.%d:%s:%s:%s", d, m, y, join(sq.Working[:]), join(sq.Counts[:]), join(sq.Lines[:])))
			}
		}
	}
	if negative == 0 {
		t.Fatal("no date of the range has W3 ≤ 0: the comparison would not cover them")
	}
	matchYears(t, ctx, "square", js, want)
}

// TestSquareLayoutShift measures the cumulative layout shift of the square's details page
// with the Layout Instability API while the API answers slowly, as TestDetailsLayoutShift
// does for the matrix: a date, a date whose W3 is below zero, a bad date, a date out of
// range, a 429, a 5xx and a dropped connection, on a desktop and a phone screen; and the
// square page itself.
func TestSquareLayoutShift(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	details := "/square/details?date="
	for _, screen := range screens {
		// Servers of its own for each screen: the browser's cache holds what the other
		// screen fetched, and the rate limit is spent.
		api := heldAPI(t, testTree(t))
		cases := append(detailsStates(api, details),
			shiftCase{name: "w3-below-zero", url: api.ok + details + "2000-01-09", done: `#api-status[data-state="ok"]`},
			shiftCase{name: "square-page", url: api.ok + "/square", done: `footer`})
		do(t, ctx, chromedp.EmulateViewport(screen.width, screen.height))
		for _, tt := range cases {
			t.Run(screen.name+"/"+tt.name, func(t *testing.T) {
				checkLayoutShift(t, ctx, api.gate, tt)
				if tt.name != "square-page" {
					checkAPIStatusFits(t, ctx)
				}
				if width := eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(screen.width) {
					t.Errorf("the page is %d px wide at a %d px viewport", width, screen.width)
				}
				screenshot(t, ctx, "square-cls-"+screen.name+"-"+tt.name+".png")
			})
		}
	}
}

// goldenSquare reads the golden working numbers ("30, 3, 28, 10") and cells ("—" for an
// empty one) of a date from testdata (a copy of the shared vectors' row).
func goldenSquare(t *testing.T, date string) (string, []string) {
	t.Helper()
	_, row := goldenRow(t, "square", date)
	cells := make([]string, 9)
	for i, c := range row[5:14] {
		if c == "-" {
			c = "—"
		}
		cells[i] = c
	}
	return strings.Join(row[1:5], ", "), cells
}
