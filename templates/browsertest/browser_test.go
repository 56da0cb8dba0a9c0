package browsertest

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/edge/server"
	"github.com/opennumerology/numerology/edge/server/servertest"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/calendar"
)

// vectorDate is the date whose golden matrix the details page must show.
const vectorDate = "1990-05-15"

// TestMatrixDetailsPage opens the details page of a date in Chromium and checks the diagram
// against the golden vector, then the friendly messages of a bad date, a 429 and a network
// error. The page draws the matrix itself and checks it against the API record, so the API's
// errors are reported under the citation while the matrix stays.
func TestMatrixDetailsPage(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	c := loadContent(t)
	tree := testTree(t)
	var apiCalls atomic.Int64
	srv := serveTree(t, tree, 0, &apiCalls)

	t.Run("diagram", func(t *testing.T) {
		want := goldenMatrix(t, vectorDate)
		do(t, ctx,
			chromedp.Navigate(srv.URL+"/matrix/details?date="+vectorDate),
			chromedp.WaitVisible(chromedp.CSS(`#diagram[data-state="ready"]`)),
		)
		cells := eval[[]cellInfo](t, ctx, cellsJS)
		if len(cells) != len(want) {
			t.Fatalf("diagram shows %d positions, want %d: %+v", len(cells), len(want), cells)
		}
		for _, cell := range cells {
			w, ok := want[cell.Position]
			if !ok {
				t.Errorf("diagram shows unknown position %q", cell.Position)
				continue
			}
			if cell.Arcana != strconv.Itoa(w) {
				t.Errorf("position %s shows arcana %s, want %d", cell.Position, cell.Arcana, w)
			}
			a := c.Arcana[w-1]
			if cell.Number != strconv.Itoa(w) || cell.Name != a.Name || cell.Keyword != a.Keyword {
				t.Errorf("position %s shows %q %q %q, want %d %q %q", cell.Position, cell.Number, cell.Name, cell.Keyword, w, a.Name, a.Keyword)
			}
			if cell.Title == "" {
				t.Errorf("position %s has no title", cell.Position)
			}
		}
		title := get(t, ctx, chromedp.Text(chromedp.CSS(`#details-title`)))
		if !strings.Contains(title, "15.05.1990") {
			t.Errorf("title %q does not name the date", title)
		}
		msg := friendlyMessage(t, ctx, "", "#api-status", "ok")
		if !strings.Contains(msg, "совпадает с записью API") {
			t.Errorf("api status = %q, want it to say the drawing matches the API record", msg)
		}
		rec := eval[map[string]any](t, ctx, `fetch("/api/public/matrix/15/5/1990").then(r => r.json())`, chromedp.EvalAwaitPromise)
		if got, want := get(t, ctx, chromedp.Text(chromedp.CSS(`#citation`))), rec["suggested_citation"].(string)+"\n"+rec["attribution"].(string); got != want {
			t.Errorf("citation = %q, want the record's %q", got, want)
		}
		screenshot(t, ctx, "details-"+vectorDate+".png")
	})

	t.Run("russian-date-format", func(t *testing.T) {
		do(t, ctx,
			chromedp.Navigate(srv.URL+"/matrix/details?date=15.05.1990"),
			chromedp.WaitVisible(chromedp.CSS(`#diagram[data-state="ready"]`)),
		)
		want := goldenMatrix(t, vectorDate)
		got := eval[string](t, ctx, `document.querySelector('#diagram [data-position="personal"]').dataset.arcana`)
		if got != strconv.Itoa(want["personal"]) {
			t.Errorf("personal = %s for 15.05.1990, want %d", got, want["personal"])
		}
	})

	t.Run("bad-date", func(t *testing.T) {
		before := apiCalls.Load()
		msg := friendlyMessage(t, ctx, srv.URL+"/matrix/details?date=1990-02-30", "#status", "bad-date")
		if !strings.Contains(msg, "30.02.1990 нет в календаре") || !strings.Contains(msg, "28 дней") {
			t.Errorf("bad date message = %q, want it to say that 30.02.1990 does not exist and February 1990 has 28 days", msg)
		}
		if n := apiCalls.Load() - before; n != 0 {
			t.Errorf("the page called the API %d times for a bad date, want 0", n)
		}
		if !eval[bool](t, ctx, `document.getElementById("result").hidden`) {
			t.Error("the diagram section is shown for a bad date")
		}
	})

	// Each kind of bad value has its own heading: a date that is not in the calendar, a year
	// out of the range, a value that is no date at all.
	for _, tt := range []struct{ name, date, heading, text string }{
		{"not-in-calendar", "1990-13-01", "Такой даты нет", "месяцев всего двенадцать"},
		{"out-of-range", "1899-12-31", fmt.Sprintf("Год вне диапазона %d–%d", rules.FirstYear, rules.LastYear), "31.12.1899 в этот промежуток не входит"},
		{"out-of-range-ru", "01.01.2101", fmt.Sprintf("Год вне диапазона %d–%d", rules.FirstYear, rules.LastYear), "01.01.2101"},
		{"unreadable", "15%2F05%2F1990", "Не получилось прочитать дату", "ДД.ММ.ГГГГ или ГГГГ-ММ-ДД"},
	} {
		t.Run("bad-date/"+tt.name, func(t *testing.T) {
			msg := friendlyMessage(t, ctx, srv.URL+"/matrix/details?date="+tt.date, "#status", "bad-date")
			heading := get(t, ctx, chromedp.Text(chromedp.CSS(`#status .notice-title`)))
			if heading != tt.heading {
				t.Errorf("heading = %q, want %q", heading, tt.heading)
			}
			if !strings.Contains(msg, tt.text) {
				t.Errorf("message = %q, want it to say %q", msg, tt.text)
			}
		})
	}

	t.Run("rate-limit", func(t *testing.T) {
		limited := serveTree(t, tree, 1, nil)
		friendlyMessage(t, ctx, limited.URL+"/matrix/details?date="+vectorDate, "#api-status", "ok")
		// Another date: the browser's cache would answer the same one without asking.
		msg := friendlyMessage(t, ctx, limited.URL+"/matrix/details?date=1990-05-16", "#api-status", "rate-limit")
		if !strings.Contains(msg, "Слишком много запросов") || !strings.Contains(msg, "через") {
			t.Errorf("429 message = %q, want it to say to wait", msg)
		}
		if got := eval[string](t, ctx, `document.querySelector('#diagram [data-position="personal"]').dataset.arcana`); got != "16" {
			t.Errorf("personal = %s for 16.05.1990 under a 429, want the drawn 16", got)
		}
	})

	t.Run("network-error", func(t *testing.T) {
		down := httptest.NewServer(dropAPI(t, tree))
		t.Cleanup(down.Close)
		msg := friendlyMessage(t, ctx, down.URL+"/matrix/details?date="+vectorDate, "#api-status", "network")
		if !strings.Contains(msg, "Нет связи с сервером") {
			t.Errorf("network error message = %q", msg)
		}
	})
}

// TestDetailsRuleMatchesGo checks the details page's own matrix rule against the generator's
// for every date of the range: the page draws a date before the API answers.
func TestDetailsRuleMatchesGo(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	srv := serveTree(t, testTree(t), 0, nil)
	do(t, ctx, chromedp.Navigate(srv.URL+"/matrix/details"), chromedp.WaitReady(chromedp.CSS(`#status[data-state="empty"]`)))
	keys := rules.PositionKeys()
	// One line per date, "d.m.y:a,b,…" in position order, for every date of the range.
	js := `((y0, y1) => {
		const keys = ` + `["` + strings.Join(keys, `","`) + `"]` + `, out = [];
		for (let y = y0; y <= y1; y++)
			for (let m = 1; m <= 12; m++)
				for (let d = 1; d <= new Date(Date.UTC(y, m, 0)).getUTCDate(); d++) {
					const r = window.numerologyMatrixOf(d, m, y);
					out.push(d + "." + m + "." + y + ":" + keys.map(k => r[k]).join(","));
				}
		return out.join("\n");
	})`
	var want []string
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				mx := rules.ComputeMatrix(d, m, y)
				nums := make([]string, len(mx))
				for i, n := range mx {
					nums[i] = strconv.Itoa(n)
				}
				want = append(want, fmt.Sprintf("%d.%d.%d:%s", d, m, y, strings.Join(nums, ",")))
			}
		}
	}
	matchYears(t, ctx, "matrix", js, want)
}

// TestPagesFitPhone opens every kind of page 360 px wide and checks that nothing makes the
// page scroll sideways.
func TestPagesFitPhone(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	srv := serveTree(t, testTree(t), 0, nil)
	do(t, ctx, chromedp.EmulateViewport(360, 740))
	for _, p := range []string{"/", "/life-path", "/life-path/22", "/matrix", "/matrix/details?date=" + vectorDate, "/arcana", "/arcana/22", "/compatibility", "/compatibility/3/11", "/square", "/square/details?date=" + vectorDate, "/no-such-page"} {
		t.Run(p, func(t *testing.T) {
			do(t, ctx, chromedp.Navigate(srv.URL+p), chromedp.WaitReady(chromedp.CSS(`footer`)))
			if p == "/matrix/details?date="+vectorDate {
				do(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#diagram[data-state="ready"]`)))
			}
			width := eval[int](t, ctx, `document.documentElement.scrollWidth`)
			if width > 360 {
				t.Errorf("%s is %d px wide at a 360 px viewport", p, width)
			}
		})
	}
	screenshot(t, ctx, "details-360px.png")
}

// cellInfo is what the diagram shows for one position.
type cellInfo struct {
	Position string `json:"position"`
	Arcana   string `json:"arcana"`
	Title    string `json:"title"`
	Number   string `json:"number"`
	Name     string `json:"name"`
	Keyword  string `json:"keyword"`
}

const cellsJS = `Array.from(document.querySelectorAll("#diagram [data-position]")).map(e => ({
	position: e.dataset.position,
	arcana: e.dataset.arcana,
	title: e.querySelector(".cell-title").textContent,
	number: e.querySelector(".cell-arcana").textContent,
	name: e.querySelector(".cell-name").textContent,
	keyword: e.querySelector(".cell-keyword").textContent,
}))`

// friendlyMessage opens url (unless empty), waits for the box to reach state and returns
// its text.
func friendlyMessage(t *testing.T, ctx context.Context, url, box, state string) string {
	t.Helper()
	sel := chromedp.CSS(box + `[data-state="` + state + `"]`)
	if url != "" {
		do(t, ctx, chromedp.Navigate(url))
	}
	do(t, ctx, chromedp.WaitReady(sel))
	eval[bool](t, ctx, drawnJS, chromedp.EvalAwaitPromise)
	return get(t, ctx, chromedp.Text(sel))
}

// drawnJS resolves once nothing on the page is being drawn: the chart's details page and
// the personal year's show what they computed a step a frame, their box marked
// data-state="drawing" until the last step (templates/assets/chart.js, cycles.js).
const drawnJS = `new Promise(resolve => {
	const drawn = () => document.querySelector('[data-state="drawing"]') ? requestAnimationFrame(drawn) : resolve(true);
	drawn();
})`

// actionTimeout bounds one browser step: a page that never reaches the state waited for
// fails the test instead of hanging it.
const actionTimeout = 20 * time.Second

// do runs browser steps in order.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	get(t, ctx, chromedp.Steps(steps...))
}

// get runs one browser action and returns its value.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return v
}

// matchYears checks the script function js, of a first and a last year, over the whole
// range of years a span at a time (one browser step each, so a loaded machine does not run a
// step past actionTimeout): the lines it gives, in order, must be want, whose lines are one
// per date of the range in calendar order.
func matchYears(t *testing.T, ctx context.Context, what, js string, want []string) {
	t.Helper()
	const span = 20 // years a call
	off := 0
	for y0 := rules.FirstYear; y0 <= rules.LastYear; y0 += span {
		y1 := min(y0+span-1, rules.LastYear)
		n := 0
		for y := y0; y <= y1; y++ {
			n += calendar.DayOfYear(31, 12, y)
		}
		if off+n > len(want) {
			t.Fatalf("%s: Go gave %d lines, fewer than the dates to %d", what, len(want), y1)
		}
		matchLines(t, ctx, fmt.Sprintf("%s, %d–%d", what, y0, y1), js+"("+strconv.Itoa(y0)+", "+strconv.Itoa(y1)+")", want[off:off+n])
		off += n
	}
	if off != len(want) {
		t.Fatalf("%s: Go gave %d lines, the range has %d dates", what, len(want), off)
	}
}

// matchLines checks that the lines the script expression call gives in the page are want.
// The page hands over a SHA-256 of its text, and the text itself only when that differs
// from Go's, to name the first lines that differ (compareLines): the lines of a rule over
// every input are megabytes through the DevTools protocol, which cost more than computing
// them.
func matchLines(t *testing.T, ctx context.Context, what, call string, want []string) {
	t.Helper()
	sum := sha256.Sum256([]byte(strings.Join(want, "\n")))
	got := eval[string](t, ctx, `(async () => {
		const text = `+call+`;
		const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
		return Array.from(sum, (b) => b.toString(16).padStart(2, "0")).join("");
	})()`, chromedp.EvalAwaitPromise)
	if got == hex.EncodeToString(sum[:]) {
		return
	}
	compareLines(t, what, strings.Split(eval[string](t, ctx, call), "\n"), want)
	if !t.Failed() {
		t.Errorf("%s: the page's lines have SHA-256 %s, Go's %x, yet no line differs", what, got, sum)
	}
}

// eval evaluates a script expression in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[T](expr, opts...))
}

// screenshot saves the whole page as a PNG into $BROWSERTEST_SCREENSHOTS, when that is set,
// to look at after the run. Without it no picture is taken: a full-page capture is slow, and
// a picture nobody looks at checks nothing.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("BROWSERTEST_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := get(t, ctx, chromedp.FullScreenshot(100))
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func loadContent(t *testing.T) *content.Content {
	t.Helper()
	return generatortest.Site(t).Content
}

// serveTree serves a tree with the local edge server on 127.0.0.1:0; rateLimit 0 turns the
// limit off. calls, when set, counts the requests to the matrix API.
func serveTree(t testing.TB, dir string, rateLimit int, calls *atomic.Int64) *httptest.Server {
	t.Helper()
	h := servertest.TreeHandler(t, dir, rateLimit)
	var handler http.Handler = h
	if calls != nil {
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/api/public/matrix") {
				calls.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	}
	return servertest.Serve(t, handler)
}

// dropAPI serves the pages of a tree but drops every API connection without an answer, as
// a network failure would.
func dropAPI(t *testing.T, dir string) http.Handler {
	t.Helper()
	h, err := server.New(server.Options{Dir: dir})
	if err != nil {
		t.Fatalf("edge: %v", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			h.ServeHTTP(w, r)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, not a clean close
		}
		conn.Close()
	})
}

// goldenMatrix reads the golden arcana of a date from testdata (a copy of the shared
// vectors' row), by position key.
func goldenMatrix(t *testing.T, date string) map[string]int {
	t.Helper()
	header, row := goldenRow(t, "matrix", date)
	want := map[string]int{}
	for i, key := range header[1:] {
		n, err := strconv.Atoi(row[i+1])
		if err != nil {
			t.Fatalf("testdata: %s %s: %v", date, key, err)
		}
		want[key] = n
	}
	return want
}

// goldenRow reads testdata/<kind>-<date>.csv (a copy of a row of the shared vectors): its
// header and the row of date.
func goldenRow(t *testing.T, kind, date string) (header, row []string) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", kind+"-"+date+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if row[0] == date {
			return rows[0], row
		}
	}
	t.Fatalf("testdata has no row for %s", date)
	return nil, nil
}
