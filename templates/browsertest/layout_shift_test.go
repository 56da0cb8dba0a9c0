package browsertest

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/opennumerology/numerology/edge/server/servertest"
)

// maxLayoutShift is the largest cumulative layout shift a page may score: 0.1 is "good" in
// Chrome's Web Vitals.
const maxLayoutShift = 0.1

// TestDetailsLayoutShift measures the cumulative layout shift of the details page with the
// Layout Instability API while the API answers slowly: for a date, a bad date, a 429, a 5xx
// and a dropped connection, on a desktop and a phone screen.
func TestDetailsLayoutShift(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	details := "/matrix/details?date="
	for _, screen := range screens {
		// Servers of its own for each screen: the browser's cache holds what the other
		// screen fetched, and the rate limit is spent.
		api := heldAPI(t, testTree(t))
		cases := detailsStates(api, details)
		do(t, ctx, chromedp.EmulateViewport(screen.width, screen.height))
		for _, tt := range cases {
			t.Run(screen.name+"/"+tt.name, func(t *testing.T) {
				checkLayoutShift(t, ctx, api.gate, tt)
				// The API's message must fit the box reserved for it, or it would push the footer.
				checkAPIStatusFits(t, ctx)
				screenshot(t, ctx, "details-cls-"+screen.name+"-"+tt.name+".png")
			})
		}
	}
}

// TestScrollbarMovesNothing opens pages at a desktop width in a window too short for them
// and in one tall enough, with the scroll bar a desktop browser on Windows or Linux shows
// (main_test.go): the header and the content must stand in the same place either way. A
// page that grows past the window's height while it is drawn (every details page) gets its
// scroll bar then, and without room kept for it everything centred moved sideways by half
// its width: a layout shift of 0.0066 at 1280 px and 0.03–0.06 at 360 px in
// TestChartLayoutShift and the others, before site.css kept the room.
func TestScrollbarMovesNothing(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	srv := serveTree(t, testTree(t), 0, nil)
	// Where the header and main begin: a narrower page also wraps the header's links sooner,
	// and main then starts lower.
	const placesJS = `JSON.stringify([".header-row", "main"].flatMap(s => { const r = document.querySelector(s).getBoundingClientRect(); return [r.left, r.top]; }))`
	for _, path := range []string{"/", "/no-such-page", "/chart/details?date=" + vectorDate} {
		for _, width := range []int64{1280, 360} {
			var places [2]string
			for i, height := range []int64{600, 30000} {
				do(t, ctx, chromedp.EmulateViewport(width, height), chromedp.Navigate(srv.URL+path))
				eval[bool](t, ctx, drawnJS, chromedp.EvalAwaitPromise)
				places[i] = eval[string](t, ctx, placesJS)
			}
			if places[0] != places[1] {
				t.Errorf("%s at %d px: the header and main stand at %s (left, top of each) in a short window, at %s in a tall one", path, width, places[0], places[1])
			}
		}
	}
}

// detailsStates are the states of a details page (at the path details, "…?date=") whose
// layout shift is measured: a date, a bad date, a date out of range, a 429, a 5xx and a
// dropped connection.
func detailsStates(api heldServers, details string) []shiftCase {
	return []shiftCase{
		{name: "date", url: api.ok + details + vectorDate, done: `#api-status[data-state="ok"]`},
		{name: "bad-date", url: api.ok + details + "1990-02-30", done: `#status[data-state="bad-date"]`},
		{name: "out-of-range", url: api.ok + details + "2101-01-01", done: `#status[data-state="bad-date"]`},
		{name: "rate-limit", first: api.limited + details + vectorDate,
			url: api.limited + details + "1990-05-16", done: `#api-status[data-state="rate-limit"]`},
		{name: "server-error", url: api.failing + details + vectorDate, done: `#api-status[data-state="server"]`},
		{name: "network-error", url: api.down + details + vectorDate, done: `#api-status[data-state="network"]`},
	}
}

// screens are the two screens the layout shift is measured on.
var screens = []struct {
	name          string
	width, height int64
}{{"desktop", 1280, 900}, {"phone", 360, 740}}

// shiftCase is one state of a details page whose layout shift is measured.
type shiftCase struct {
	name  string
	first string // opened before, to use up the rate limit
	url   string
	// done is the selector of the page's final state: nothing may move after it, or after
	// the page has drawn all it draws a step a frame (drawnJS), either. A
	// state of #api-status is reached through an API request, which the gate holds until
	// the page has shown that it is loading.
	done string
}

// checkLayoutShift opens tt.url as a slow network would serve it: the API's answer lands
// only once the page has painted its loading state. The answer is held by the gate, not
// by a sleep, so the order is certain and no time is lost. It then fails t if the page's
// cumulative layout shift, the final state's own frame included, is above maxLayoutShift.
func checkLayoutShift(t *testing.T, ctx context.Context, g *apiGate, tt shiftCase) {
	t.Helper()
	if tt.first != "" {
		do(t, ctx, chromedp.Navigate(tt.first), chromedp.WaitReady(chromedp.CSS(`#api-status[data-state="ok"]`)))
	}
	if strings.HasPrefix(tt.done, "#api-status") {
		arrived := g.hold()
		defer g.release()
		do(t, ctx, chromedp.Navigate(tt.url), chromedp.WaitReady(chromedp.CSS(`#api-status[data-state="loading"]`)))
		select {
		case <-arrived:
		case <-time.After(actionTimeout):
			t.Fatalf("the page shows it is loading, but no API request came within %v", actionTimeout)
		}
		eval[bool](t, ctx, twoFramesJS, chromedp.EvalAwaitPromise)
		g.release()
	} else {
		do(t, ctx, chromedp.Navigate(tt.url))
	}
	do(t, ctx, chromedp.WaitReady(chromedp.CSS(tt.done)))
	eval[bool](t, ctx, drawnJS, chromedp.EvalAwaitPromise)
	shift := eval[struct {
		CLS   float64  `json:"cls"`
		Moved []string `json:"moved"`
	}](t, ctx, layoutShiftJS, chromedp.EvalAwaitPromise)
	t.Logf("CLS %.4f", shift.CLS)
	if shift.CLS >= 0.001 {
		t.Logf("what moved:\n%s", strings.Join(shift.Moved, "\n"))
	}
	if shift.CLS > maxLayoutShift {
		t.Errorf("cumulative layout shift %.4f, want ≤ %.1f", shift.CLS, maxLayoutShift)
	}
}

// checkAPIStatusFits fails t if the API's message is taller than the box reserved for it.
func checkAPIStatusFits(t *testing.T, ctx context.Context) {
	t.Helper()
	if fits := eval[bool](t, ctx, apiStatusFitsJS); !fits {
		t.Errorf("the API status message is taller than the space reserved for it: %s", eval[string](t, ctx, `(() => { const e = document.getElementById("api-status"); return e.getBoundingClientRect().height + " > " + getComputedStyle(e).minHeight; })()`))
	}
}

// twoFramesJS resolves after two animation frames: what the page showed before has been
// painted.
const twoFramesJS = `new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))`

// layoutShiftJS sums the page's layout shifts not caused by input, after two more frames so
// that a shift of the final state's own frame is counted too.
// It resolves to {cls, moved}: moved names what moved in each shift, and from where to where.
const layoutShiftJS = `new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(() => {
	let cls = 0;
	const moved = [];
	const name = n => !n ? "?" : n.nodeType !== 1 ? "text in " + name(n.parentElement) :
		n.localName + (n.id ? "#" + n.id : "") + (n.classList.length ? "." + [...n.classList].join(".") : "");
	const rect = r => Math.round(r.x) + "," + Math.round(r.y) + " " + Math.round(r.width) + "×" + Math.round(r.height);
	new PerformanceObserver(list => {
		for (const e of list.getEntries()) {
			if (e.hadRecentInput) continue;
			cls += e.value;
			moved.push(e.value.toFixed(4) + " at " + Math.round(e.startTime) + " ms: " + e.sources.map(s => name(s.node) + " " + rect(s.previousRect) + " → " + rect(s.currentRect)).join("; "));
		}
	}).observe({type: "layout-shift", buffered: true});
	setTimeout(() => resolve({cls, moved}), 50);
})))`

// apiStatusFitsJS reports whether #api-status is no taller than its reserved min-height.
const apiStatusFitsJS = `(() => {
	const e = document.getElementById("api-status");
	return e.getBoundingClientRect().height <= parseFloat(getComputedStyle(e).minHeight) + 0.5;
})()`

// heldServers are the servers of a tree whose API answers wait for one gate: one that
// answers, one whose rate limit is 1, one that answers 502 and one that drops the
// connection.
type heldServers struct {
	gate                       *apiGate
	ok, limited, failing, down string // base URLs
}

// heldAPI serves dir with the local edge server four ways (heldServers), each API request
// held by one gate while it is shut.
func heldAPI(t *testing.T, dir string) heldServers {
	t.Helper()
	g := &apiGate{}
	serve := func(rateLimit int, fail func(http.ResponseWriter)) string {
		h := servertest.TreeHandler(t, dir, rateLimit)
		return servertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/api/") {
				g.wait(r.Context())
				if fail != nil {
					fail(w)
					return
				}
			}
			h.ServeHTTP(w, r)
		})).URL
	}
	return heldServers{
		gate:    g,
		ok:      serve(0, nil),
		limited: serve(1, nil),
		failing: serve(0, func(w http.ResponseWriter) { http.Error(w, "boom", http.StatusBadGateway) }),
		down: serve(0, func(w http.ResponseWriter) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}),
	}
}

// apiGate holds API requests while it is shut, as a slow network would, until the test
// releases them: a test can let the page paint what it shows while it waits, then let the
// answer land, with no sleep.
type apiGate struct {
	mu      sync.Mutex
	shut    chan struct{} // nil while open
	arrived chan struct{} // closed when the first request reaches the shut gate
}

// hold shuts the gate: API requests wait from now on. It returns a channel closed when the
// first request arrives.
func (g *apiGate) hold() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut == nil {
		g.shut, g.arrived = make(chan struct{}), make(chan struct{})
	}
	return g.arrived
}

// release opens the gate and lets every held request through.
func (g *apiGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut != nil {
		close(g.shut)
		g.shut = nil
	}
}

// wait returns when the gate is open, or when ctx ends.
func (g *apiGate) wait(ctx context.Context) {
	g.mu.Lock()
	shut := g.shut
	if shut != nil {
		select {
		case <-g.arrived:
		default:
			close(g.arrived)
		}
	}
	g.mu.Unlock()
	if shut != nil {
		select {
		case <-shut:
		case <-ctx.Done():
		}
	}
}
