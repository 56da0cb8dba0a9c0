package browsertest

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/generatortest"
)

// TestShareImagesLoad reads, in Chromium, every page of the sitemap, the details pages and
// the 404 page as a crawler that makes a link preview does — the page's HTML through the
// browser's own parser, no script run — and loads the picture its og:image names as the
// browser loads a picture: the URL must be absolute on the site's address, twitter:image
// must name the same, and the picture (fetched from the local server at the same path) must
// come as image/png and decode to 1200×630. One script in one tab does the pages, a batch at
// a time (each distinct picture of a batch decoded once): rendering each page would only
// repeat what the layout tests do, at a second of CPU a page. That the tags are in every
// page of the tree, with their sizes and alt text, generator's TestShareCardImages checks.
func TestShareImagesLoad(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	site := generatortest.Site(t)
	srv := serveTree(t, testTree(t), 0, nil)
	pages := append(sitemapPaths(t, srv.URL, site.SiteURL), "/matrix/details?date="+vectorDate, "/square/details?date="+vectorDate, "/no-such-page")
	if len(pages) < 5 {
		t.Fatalf("the sitemap lists %d pages: %v", len(pages), pages)
	}
	do(t, ctx, chromedp.Navigate(srv.URL+"/robots.txt")) // a page of the server, for its origin
	// A batch of pages a browser step, so that a loaded machine does not run a step past
	// actionTimeout.
	const batch = 16
	var got []shareImage
	for i := 0; i < len(pages); i += batch {
		list, err := json.Marshal(pages[i:min(i+batch, len(pages))])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, eval[[]shareImage](t, ctx, shareImagesJS+"("+string(list)+")", chromedp.EvalAwaitPromise)...)
	}
	if len(got) != len(pages) {
		t.Fatalf("the script reported %d pages of %d", len(got), len(pages))
	}
	for i, p := range pages {
		t.Run(p, func(t *testing.T) {
			got := got[i]
			if got.Error != "" {
				t.Fatalf("%s: %s", got.OG, got.Error)
			}
			if !strings.HasPrefix(got.OG, site.SiteURL+"/") {
				t.Errorf("og:image %q is not an absolute URL of %s", got.OG, site.SiteURL)
			}
			if got.Twitter != got.OG {
				t.Errorf("twitter:image %q, og:image %q", got.Twitter, got.OG)
			}
			if got.Type != "image/png" || got.Width != cards.Width || got.Height != cards.Height {
				t.Errorf("%s loads as %s %dx%d, want image/png %dx%d", got.OG, got.Type, got.Width, got.Height, cards.Width, cards.Height)
			}
		})
	}
}

// shareImage is what shareImagesJS finds of a page's share image.
type shareImage struct {
	OG      string `json:"og"`
	Twitter string `json:"twitter"`
	Type    string `json:"type"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	Error   string `json:"error"`
}

// shareImagesJS, called with a list of page paths, fetches each page, parses it with the
// browser's HTML parser (DOMParser: no script runs, nothing is laid out) and loads the
// og:image it names from this server (the tree's URLs name the site's own address) as the
// browser loads a picture, each picture once; it reports, page by page, the tags and the
// picture's type and size.
const shareImagesJS = `(async (pages) => {
	const pictures = new Map();
	const picture = async (local) => {
		const out = {type: "", width: 0, height: 0};
		const r = await fetch(local);
		out.type = r.headers.get("content-type") || "";
		if (!r.ok) throw new Error("HTTP " + r.status);
		const img = new Image();
		img.src = local;
		await img.decode();
		out.width = img.naturalWidth;
		out.height = img.naturalHeight;
		return out;
	};
	return Promise.all(pages.map(async (page) => {
		const out = {og: "", twitter: "", type: "", width: 0, height: 0, error: ""};
		try {
			const doc = new DOMParser().parseFromString(await (await fetch(page)).text(), "text/html");
			const meta = name => (doc.querySelector('meta[property="' + name + '"], meta[name="' + name + '"]') || {}).content || "";
			out.og = meta("og:image");
			out.twitter = meta("twitter:image");
			const local = new URL(out.og).pathname;
			if (!pictures.has(local)) pictures.set(local, picture(local));
			Object.assign(out, await pictures.get(local));
		} catch (e) {
			out.error = String(e);
		}
		return out;
	}));
})`

// sitemapPaths returns the paths of the pages sitemap.xml lists.
func sitemapPaths(t *testing.T, server, siteURL string) []string {
	t.Helper()
	resp, err := http.Get(server + "/sitemap.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		URLs []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatalf("sitemap.xml: %v", err)
	}
	var out []string
	for _, u := range doc.URLs {
		loc, err := url.Parse(u.Loc)
		if err != nil || !strings.HasPrefix(u.Loc, siteURL) {
			t.Fatalf("sitemap URL %q is not of %s", u.Loc, siteURL)
		}
		out = append(out, loc.Path)
	}
	return out
}
