package browsertest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/opennumerology/numerology/edge/server"
)

// maxLayoutShift is the largest cumulative layout shift a page may score: 0.1 is "good" in
// Chrome's Web Vitals.
const maxLayoutShift = 0.1

// apiDelay holds back every API answer, as a slow network would, so that a page which does
// not reserve the space of what it fetches visibly moves when the answer lands.
const apiDelay = 600 * time.Millisecond

// TestDetailsLayoutShift measures the cumulative layout shift of the details page with the
// Layout Instability API while the API answers slowly: for a date, a bad date, a 429, a 5xx
// and a dropped connection, on a desktop and a phone screen.
func TestDetailsLayoutShift(t *testing.T) {
	tree := generateTree(t, []int{1990})
	serve := func(h http.Handler) *httptest.Server {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv
	}
	srv := serve(slowAPI(t, tree, 0, nil))
	limited := serve(slowAPI(t, tree, 1, nil))
	failing := serve(slowAPI(t, tree, 0, func(w http.ResponseWriter) { http.Error(w, "boom", http.StatusBadGateway) }))
	down := serve(slowAPI(t, tree, 0, func(w http.ResponseWriter) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	ctx := newBrowser(t)

	tests := []struct {
		name  string
		first string // opened before, to use up the rate limit
		url   string
		// done is the selector of the page's final state: nothing may move after it either.
		done string
	}{
		{name: "date", url: srv.URL + "/matrix/details?date=" + vectorDate, done: `#api-status[data-state="ok"]`},
		{name: "bad-date", url: srv.URL + "/matrix/details?date=1990-02-30", done: `#status[data-state="bad-date"]`},
		{name: "out-of-range", url: srv.URL + "/matrix/details?date=2101-01-01", done: `#status[data-state="bad-date"]`},
		{name: "rate-limit", first: limited.URL + "/matrix/details?date=" + vectorDate,
			url: limited.URL + "/matrix/details?date=1990-05-16", done: `#api-status[data-state="rate-limit"]`},
		{name: "server-error", url: failing.URL + "/matrix/details?date=" + vectorDate, done: `#api-status[data-state="server"]`},
		{name: "network-error", url: down.URL + "/matrix/details?date=" + vectorDate, done: `#api-status[data-state="network"]`},
	}
	for _, screen := range []struct {
		name          string
		width, height int64
	}{{"desktop", 1280, 900}, {"phone", 360, 740}} {
		do(t, ctx, chromedp.EmulateViewport(screen.width, screen.height))
		for _, tt := range tests {
			t.Run(screen.name+"/"+tt.name, func(t *testing.T) {
				if tt.first != "" {
					do(t, ctx, chromedp.Navigate(tt.first), chromedp.WaitReady(chromedp.CSS(`#api-status[data-state="ok"]`)))
				}
				do(t, ctx, chromedp.Navigate(tt.url), chromedp.WaitReady(chromedp.CSS(tt.done)))
				cls := eval[float64](t, ctx, layoutShiftJS, chromedp.EvalAwaitPromise)
				t.Logf("CLS %.4f", cls)
				if cls > maxLayoutShift {
					t.Errorf("cumulative layout shift %.4f, want ≤ %.1f", cls, maxLayoutShift)
				}
				// The API's message must fit the box reserved for it, or it would push the footer.
				if fits := eval[bool](t, ctx, apiStatusFitsJS); !fits {
					t.Errorf("the API status message is taller than the space reserved for it: %s", eval[string](t, ctx, `(() => { const e = document.getElementById("api-status"); return e.getBoundingClientRect().height + " > " + getComputedStyle(e).minHeight; })()`))
				}
				screenshot(t, ctx, "details-cls-"+screen.name+"-"+tt.name+".png")
			})
		}
	}
}

// layoutShiftJS sums the page's layout shifts not caused by input, after two more frames so
// that a shift of the final state's own frame is counted too.
const layoutShiftJS = `new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(() => {
	let cls = 0;
	new PerformanceObserver(list => {
		for (const e of list.getEntries()) if (!e.hadRecentInput) cls += e.value;
	}).observe({type: "layout-shift", buffered: true});
	setTimeout(() => resolve(cls), 50);
})))`

// apiStatusFitsJS reports whether #api-status is no taller than its reserved min-height.
const apiStatusFitsJS = `(() => {
	const e = document.getElementById("api-status");
	return e.getBoundingClientRect().height <= parseFloat(getComputedStyle(e).minHeight) + 0.5;
})()`

// slowAPI serves a tree with the local edge server and answers every API request apiDelay
// late; rateLimit 0 turns the limit off. fail, when set, answers the API requests instead.
func slowAPI(t *testing.T, dir string, rateLimit int, fail func(http.ResponseWriter)) http.Handler {
	t.Helper()
	h, err := server.New(server.Options{Dir: dir, RateLimit: rateLimit, RateWindow: time.Minute})
	if err != nil {
		t.Fatalf("edge: %v", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			time.Sleep(apiDelay)
			if fail != nil {
				fail(w)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
