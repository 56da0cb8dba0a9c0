package browsertest

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/chromedp"

	"github.com/opennumerology/numerology/edge/server/servertest"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/calendar"
)

// chartCellsJS reads what the chart's details page shows, by the record field of each
// element marked data-key: in the drawing ("svg points.A") the number in its circle, or for
// an outer point of the age line the arcanum its title names; in the tables ("points.A")
// the number of the arcanum linked.
const chartCellsJS = `(() => {
	const out = {};
	for (const e of document.querySelectorAll("#result [data-key]")) {
		if (e.namespaceURI === "http://www.w3.org/2000/svg") {
			const v = e.classList.contains("ch-decade")
				? (/: (\d+), /.exec(e.querySelector("title").textContent) || [])[1]
				: e.querySelector("text:not(.ch-letter)").textContent;
			out["svg " + e.dataset.key] = v || "";
		} else {
			out[e.dataset.key] = (/^(\d+)\. /.exec(e.textContent) || [])[1] || "";
		}
	}
	return out;
})()`

// chartKeys names every arcanum of a chart by the field of the record that holds it, as the
// details page keys its cells.
func chartKeys(c *rules.Chart) map[string]int {
	out := map[string]int{}
	for i, a := range c.Points {
		out["points."+rules.ChartPoint(i).Key()] = int(a)
	}
	for i, a := range c.Channels {
		out["channels."+rules.ChartChannel(i).Key()] = int(a)
	}
	for i, a := range c.Purposes {
		out["purposes."+rules.ChartPurpose(i).Key()] = int(a)
	}
	for i := range 3 {
		out["karmic_tail."+strconv.Itoa(i)] = int(c.KarmicTail[i])
		out["talents."+strconv.Itoa(i)] = int(c.Talents[i])
	}
	for i, row := range c.Chakras {
		for j, a := range row {
			out["chakras."+strconv.Itoa(i)+"."+rules.ChakraColumn(j).Key()] = int(a)
		}
	}
	for j, a := range c.ChakraTotals {
		out["chakra_totals."+rules.ChakraColumn(j).Key()] = int(a)
	}
	for i, a := range c.AgeLine {
		out["age_line."+strconv.Itoa(i)] = int(a)
	}
	return out
}

// TestChartDetailsPage opens the chart's details page of a date in Chromium and checks every
// number of the drawing and the tables against the Go rule and the golden vector
// (testdata/chart-1990-05-15.csv, a row of the hand-worked vectors), the readings shown
// against the content, then a leap day, and the friendly messages of a bad date, a 429 and
// a network error. The page draws the chart itself and checks it against the API record,
// so the API's errors are reported under the citation while the chart stays.
func TestChartDetailsPage(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	tree := testTree(t)
	texts := loadContent(t)
	var apiCalls atomic.Int64
	h := servertest.TreeHandler(t, tree, 0)
	srv := servertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/public/chart") {
			apiCalls.Add(1)
		}
		h.ServeHTTP(w, r)
	}))

	for _, date := range []string{vectorDate, "2000-02-29"} {
		t.Run(date, func(t *testing.T) {
			do(t, ctx,
				chromedp.Navigate(srv.URL+"/chart/details?date="+date),
				chromedp.WaitVisible(chromedp.CSS(`#drawing[data-state="ready"]`)),
			)
			got := eval[map[string]string](t, ctx, chartCellsJS)
			var y, m, d int
			fmt.Sscanf(date, "%d-%d-%d", &y, &m, &d)
			c := rules.ComputeChart(d, m, y)
			want := chartKeys(&c)
			drawn := 0
			for k, n := range want {
				if got[k] != strconv.Itoa(n) {
					t.Errorf("the tables show %s as %q, the rule gives %d", k, got[k], n)
				}
				if v, ok := got["svg "+k]; ok {
					drawn++
					if v != strconv.Itoa(n) {
						t.Errorf("the drawing shows %s as %q, the rule gives %d", k, v, n)
					}
				}
			}
			// Drawn: 27 points (not U), the money, balance and love points, 64 ages.
			if len(got) != len(want)+drawn || drawn != 27+3+rules.AgeLinePoints {
				t.Errorf("the page shows %d cells, %d of them drawn; the record has %d arcana", len(got), drawn, len(want))
			}
			if date == vectorDate {
				header, row := goldenRow(t, "chart", date)
				for i, col := range header[1 : len(header)-1] {
					key := col
					switch {
					case strings.HasSuffix(col, "_total"):
						key = "chakra_totals." + strings.TrimSuffix(col, "_total")
					case strings.HasSuffix(col, "_emotions"):
						key = "chakras." + strconv.Itoa(indexOf(rules.ChakraKeys(), strings.TrimSuffix(col, "_emotions"))) + ".emotions"
					case indexOf(rules.ChartChannelKeys(), col) >= 0:
						key = "channels." + col
					case indexOf(rules.ChartPurposeKeys(), col) >= 0:
						key = "purposes." + col
					default:
						key = "points." + col
					}
					if got[key] != row[1+i] {
						t.Errorf("%s (%s) shows %q, the golden vector %s", key, col, got[key], row[1+i])
					}
				}
				for i, a := range strings.Fields(strings.ReplaceAll(row[len(row)-1], "/", " ")) {
					if k := "age_line." + strconv.Itoa(i); got[k] != a {
						t.Errorf("%s shows %q, the golden vector %s", k, got[k], a)
					}
				}
			}
			// The readings: each zone's arcana once, with its reading from the content.
			for z := range rules.NumChartReadingZones {
				zone := rules.ChartReadingZone(z)
				var arcana []string
				for _, a := range zone.Arcana(&c) {
					if s := strconv.Itoa(int(a)); indexOf(arcana, s) < 0 {
						arcana = append(arcana, s)
					}
				}
				shown := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#readings-`+zone.Key()+` .explanation")).map(e => e.querySelector("dt a").textContent.split(".")[0] + "|" + e.querySelector("dd").textContent)`)
				if len(shown) != len(arcana) {
					t.Errorf("zone %s shows %d readings %v, its arcana are %v", zone.Key(), len(shown), shown, arcana)
					continue
				}
				for i, s := range shown {
					n, _ := strconv.Atoi(arcana[i])
					if want := arcana[i] + "|" + texts.Chart.Readings[zone.Key()][n]; s != want {
						t.Errorf("zone %s, reading %d: %q, want %q", zone.Key(), i, s, want)
					}
				}
			}
			if title := get(t, ctx, chromedp.Text(chromedp.CSS(`#details-title`))); !strings.Contains(title, fmt.Sprintf("%02d.%02d.%d", d, m, y)) {
				t.Errorf("title %q does not name the date", title)
			}
			if msg := friendlyMessage(t, ctx, "", "#api-status", "ok"); !strings.Contains(msg, "совпадает с записью API") {
				t.Errorf("api status = %q, want it to say the drawing matches the API record", msg)
			}
			rec := eval[map[string]any](t, ctx, fmt.Sprintf(`fetch("/api/public/chart/%d/%d/%d").then(r => r.json())`, d, m, y), chromedp.EvalAwaitPromise)
			if got, want := get(t, ctx, chromedp.Text(chromedp.CSS(`#citation`))), rec["suggested_citation"].(string)+"\n"+rec["attribution"].(string); got != want {
				t.Errorf("citation = %q, want the record's %q", got, want)
			}
			screenshot(t, ctx, "chart-"+date+".png")
		})
	}

	t.Run("a link to a heading", func(t *testing.T) {
		// The headings below the drawing are hidden when the page loads (it shows them a
		// step a frame); a link to one still lands on it once it is shown.
		do(t, ctx, chromedp.EmulateViewport(1280, 900),
			chromedp.Navigate(srv.URL+"/chart/details?date="+vectorDate+"#chakras-h"),
			chromedp.WaitVisible(chromedp.CSS(`#drawing[data-state="ready"]`)))
		top := eval[float64](t, ctx, `new Promise(resolve => {
			const h = document.getElementById("chakras-h"), until = performance.now() + 5000;
			const at = () => { const top = h.getBoundingClientRect().top; Math.abs(top) < 2 || performance.now() > until ? resolve(top) : requestAnimationFrame(at); };
			at();
		})`, chromedp.EvalAwaitPromise)
		if math.Abs(top) >= 2 {
			t.Errorf("the chakras' heading is %.0f px from the top of the window, want it at the top", top)
		}
	})

	t.Run("the record wins", func(t *testing.T) {
		// A record that differs from the page's own rule replaces what the page drew.
		tampered := servertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/public/chart/15/5/1990" {
				w.Header().Set("Content-Type", "application/json")
				c := rules.ComputeChart(15, 5, 1990)
				c.Points[rules.PointA] = 22
				fmt.Fprint(w, chartJSONForTest(&c, 15, 5, 1990))
				return
			}
			h.ServeHTTP(w, r)
		}))
		friendlyMessage(t, ctx, tampered.URL+"/chart/details?date="+vectorDate, "#api-status", "ok")
		if got := eval[map[string]string](t, ctx, chartCellsJS); got["points.A"] != "22" || got["svg points.A"] != "22" {
			t.Errorf("point A shows %q and is drawn %q, want the record's 22", got["points.A"], got["svg points.A"])
		}
	})

	t.Run("bad-date", func(t *testing.T) {
		before := apiCalls.Load()
		msg := friendlyMessage(t, ctx, srv.URL+"/chart/details?date=1990-02-30", "#status", "bad-date")
		if !strings.Contains(msg, "30.02.1990 нет в календаре") || !strings.Contains(msg, "28 дней") {
			t.Errorf("bad date message = %q, want it to say that 30.02.1990 does not exist and February 1990 has 28 days", msg)
		}
		if n := apiCalls.Load() - before; n != 0 {
			t.Errorf("the page called the API %d times for a bad date, want 0", n)
		}
		if !eval[bool](t, ctx, `document.getElementById("result").hidden`) {
			t.Error("the chart is shown for a bad date")
		}
	})

	// Each kind of bad value has its own heading, as on the matrix's page: a date that is not
	// in the calendar, a year out of the range, a value that is no date at all.
	for _, tt := range []struct{ name, date, heading, text string }{
		{"not-in-calendar", "1990-02-30", "Такой даты нет", "28 дней"},
		{"out-of-range", "1899-12-31", fmt.Sprintf("Год вне диапазона %d–%d", rules.FirstYear, rules.LastYear), "31.12.1899 в этот промежуток не входит"},
		{"unreadable", "15%2F05%2F1990", "Не получилось прочитать дату", "ГГГГ-ММ-ДД"},
	} {
		t.Run("bad-date/"+tt.name, func(t *testing.T) {
			msg := friendlyMessage(t, ctx, srv.URL+"/chart/details?date="+tt.date, "#status", "bad-date")
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
		friendlyMessage(t, ctx, limited.URL+"/chart/details?date="+vectorDate, "#api-status", "ok")
		msg := friendlyMessage(t, ctx, limited.URL+"/chart/details?date=1990-05-16", "#api-status", "rate-limit")
		if !strings.Contains(msg, "Слишком много запросов") || !strings.Contains(msg, "через") {
			t.Errorf("429 message = %q, want it to say to wait", msg)
		}
		c := rules.ComputeChart(16, 5, 1990)
		if got := eval[map[string]string](t, ctx, chartCellsJS); got["channels.money"] != strconv.Itoa(int(c.Channels[rules.ChannelMoney])) {
			t.Errorf("the money point shows %q for 16.05.1990 under a 429, want the drawn %d", got["channels.money"], c.Channels[rules.ChannelMoney])
		}
	})

	t.Run("network-error", func(t *testing.T) {
		down := httptest.NewServer(dropAPI(t, tree))
		t.Cleanup(down.Close)
		if msg := friendlyMessage(t, ctx, down.URL+"/chart/details?date="+vectorDate, "#api-status", "network"); !strings.Contains(msg, "Нет связи с сервером") {
			t.Errorf("network error message = %q", msg)
		}
	})
}

// chartJSONForTest writes the fields of a chart record the page compares, from a chart.
func chartJSONForTest(c *rules.Chart, d, m, y int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"input":{"day":%d,"month":%d,"year":%d},"method":%q,"points":{`, d, m, y, rules.ChartMethod)
	for i, a := range c.Points {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", rules.ChartPoint(i).Key(), a)
	}
	b.WriteString(`},"channels":{`)
	for i, a := range c.Channels {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", rules.ChartChannel(i).Key(), a)
	}
	b.WriteString(`},"purposes":{`)
	for i, a := range c.Purposes {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", rules.ChartPurpose(i).Key(), a)
	}
	fmt.Fprintf(&b, `},"karmic_tail":[%d,%d,%d],"talents":[%d,%d,%d],"chakras":[`, c.KarmicTail[0], c.KarmicTail[1], c.KarmicTail[2], c.Talents[0], c.Talents[1], c.Talents[2])
	for i, row := range c.Chakras {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"key":%q,"physical":%d,"energy":%d,"emotions":%d}`, rules.Chakra(i).Key(), row[0], row[1], row[2])
	}
	fmt.Fprintf(&b, `],"chakra_totals":{"physical":%d,"energy":%d,"emotions":%d},"age_line":[`, c.ChakraTotals[0], c.ChakraTotals[1], c.ChakraTotals[2])
	for i, a := range c.AgeLine {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"age":%g,"arcana":%d}`, rules.AgeLineAge(i), a)
	}
	fmt.Fprintf(&b, `],"suggested_citation":"a test record","source_url":"","attribution":"a test attribution"}`)
	return b.String()
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestChartRuleMatchesGo checks the details page's own chart rule against the generator's
// for every date of the range, twenty years at a time: every arcanum of the chart in record
// order (one character each, so a year is a short string) and the age line's ages.
func TestChartRuleMatchesGo(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	srv := serveTree(t, testTree(t), 0, nil)
	do(t, ctx, chromedp.Navigate(srv.URL+"/chart/details"), chromedp.WaitReady(chromedp.CSS(`#status[data-state="empty"]`)))
	// One line per date of the years from y0 to y1: "d.m.y:" and a character 64+n for each
	// arcanum n, in the record's order; "!" after it when an age of the age line is not
	// 1.25 × its index.
	const yearsJS = `((y0, y1) => {
		const out = [], ch = n => String.fromCharCode(64 + n);
		for (let y = y0; y <= y1; y++)
		for (let m = 1; m <= 12; m++)
			for (let d = 1; d <= new Date(Date.UTC(y, m, 0)).getUTCDate(); d++) {
				const c = window.numerologyChartOf(d, m, y);
				let s = d + "." + m + "." + y + ":" + c.method + ":";
				for (const v of Object.values(c.points)) s += ch(v);
				for (const v of Object.values(c.channels)) s += ch(v);
				for (const v of Object.values(c.purposes)) s += ch(v);
				for (const v of c.karmic_tail.concat(c.talents)) s += ch(v);
				for (const r of c.chakras) s += r.key + ch(r.physical) + ch(r.energy) + ch(r.emotions);
				s += ch(c.chakra_totals.physical) + ch(c.chakra_totals.energy) + ch(c.chakra_totals.emotions);
				c.age_line.forEach((a, i) => { s += ch(a.arcana) + (a.age === i * 1.25 ? "" : "!"); });
				out.push(s);
			}
		return out.join("\n");
	})`
	ch := func(b *strings.Builder, a uint8) { b.WriteByte(64 + a) }
	var want []string
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
				c := rules.ComputeChart(d, m, y)
				var b strings.Builder
				fmt.Fprintf(&b, "%d.%d.%d:%s:", d, m, y, rules.ChartMethod)
				for _, group := range [][]uint8{c.Points[:], c.Channels[:], c.Purposes[:], c.KarmicTail[:], c.Talents[:]} {
					for _, a := range group {
						ch(&b, a)
					}
				}
				for i, row := range c.Chakras {
					b.WriteString(rules.Chakra(i).Key())
					for _, a := range row {
						ch(&b, a)
					}
				}
				for _, a := range c.ChakraTotals {
					ch(&b, a)
				}
				for _, a := range c.AgeLine {
					ch(&b, a)
				}
				want = append(want, b.String())
			}
		}
	}
	matchYears(t, ctx, "chart", yearsJS, want)
	dates := len(want)
	if dates != 73414 {
		t.Errorf("compared %d dates, want 73414", dates)
	}
}

// TestChartLayoutShift measures the cumulative layout shift of the chart's details page with
// the Layout Instability API while the API answers slowly, as TestDetailsLayoutShift does for
// the matrix: a date, a leap day, a bad date, a date out of range, a 429, a 5xx and a dropped
// connection, on a desktop and a phone screen; and the chart page itself. Neither page may
// be wider than the screen.
func TestChartLayoutShift(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	details := "/chart/details?date="
	for _, screen := range screens {
		// Servers of its own for each screen: the browser's cache holds what the other
		// screen fetched, and the rate limit is spent.
		api := heldAPI(t, testTree(t))
		cases := append(detailsStates(api, details),
			shiftCase{name: "leap-day", url: api.ok + details + "2000-02-29", done: `#api-status[data-state="ok"]`},
			shiftCase{name: "chart-page", url: api.ok + "/chart", done: `footer`})
		do(t, ctx, chromedp.EmulateViewport(screen.width, screen.height))
		for _, tt := range cases {
			t.Run(screen.name+"/"+tt.name, func(t *testing.T) {
				checkLayoutShift(t, ctx, api.gate, tt)
				if tt.name != "chart-page" {
					checkAPIStatusFits(t, ctx)
				}
				if width := eval[int](t, ctx, `document.documentElement.scrollWidth`); width > int(screen.width) {
					t.Errorf("the page is %d px wide at a %d px viewport", width, screen.width)
				}
				screenshot(t, ctx, "chart-cls-"+screen.name+"-"+tt.name+".png")
			})
		}
	}
}

// TestChartPartPlaceholders holds the placeholder height of each part below the drawing on
// the details page (chart.css, --ch-h) at or above the part's real height at the narrowest
// width of the placeholder's range, 320 and 600 px, for the date of the vectors and the
// dates of 1900–2100 with the longest channel readings and the longest karmic tail
// readings. The parts are skipped (content-visibility) until they near the viewport; a
// part taller than its placeholder lays its contents, when a tool measures them still
// skipped, over the next part's, and Lighthouse's accessibility audit then found the links
// of two parts on top of each other (target size, 97).
func TestChartPartPlaceholders(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	texts := loadContent(t)
	srv := serveTree(t, testTree(t), 0, nil)
	// longest returns the date whose charts' readings in zones are the longest.
	longest := func(zones ...rules.ChartReadingZone) string {
		best, date := 0, ""
		for day := time.Date(rules.FirstYear, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() <= rules.LastYear; day = day.AddDate(0, 0, 1) {
			c := rules.ComputeChart(day.Day(), int(day.Month()), day.Year())
			n := 0
			for _, z := range zones {
				var seen [23]bool
				for _, a := range z.Arcana(&c) {
					if !seen[a] {
						seen[a] = true
						n += utf8.RuneCountInString(texts.Chart.Readings[z.Key()][int(a)])
					}
				}
			}
			if n > best {
				best, date = n, day.Format(time.DateOnly)
			}
		}
		return date
	}
	dates := []string{vectorDate, longest(rules.ReadingMoney, rules.ReadingLove), longest(rules.ReadingKarmicTail)}
	for _, width := range []int64{320, 600} {
		for _, date := range dates {
			t.Run(fmt.Sprintf("%d/%s", width, date), func(t *testing.T) {
				do(t, ctx, chromedp.EmulateViewport(width, 800),
					chromedp.Navigate(srv.URL+"/chart/details?date="+date),
					chromedp.WaitVisible(chromedp.CSS(`#drawing[data-state="ready"]`)))
				parts := eval[[]struct {
					Class             string
					Real, Placeholder float64
				}](t, ctx, `Array.from(document.querySelectorAll(".ch-part:not(.cite)")).map(p => {
					const placeholder = parseFloat(getComputedStyle(p).getPropertyValue("--ch-h"));
					p.style.contentVisibility = "visible";
					return {Class: p.className, Real: p.getBoundingClientRect().height, Placeholder: placeholder};
				})`)
				if len(parts) != 15 {
					t.Fatalf("%d parts below the drawing, want 15", len(parts))
				}
				for _, p := range parts {
					if !(p.Real > 0 && p.Real <= p.Placeholder) {
						t.Errorf("%s: %.0f px tall, its placeholder %.0f px", p.Class, p.Real, p.Placeholder)
					}
				}
			})
		}
	}
}
