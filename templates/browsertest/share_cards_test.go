package browsertest

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/generatortest"
)

// TestShareImagesLoad opens every page of the sitemap, the details pages and the 404 page
// in Chromium and loads the picture its og:image names: the URL must be absolute on the
// site's address, twitter:image must name the same, and the picture (fetched from the
// local server at the same path) must decode as an image/png of 1200×630.
func TestShareImagesLoad(t *testing.T) {
	ctx := newTab(t)
	t.Parallel()
	site := generatortest.Site(t)
	srv := serveTree(t, testTree(t), 0, nil)
	pages := append(sitemapPaths(t, srv.URL, site.SiteURL), "/matrix/details?date="+vectorDate, "/square/details?date="+vectorDate, "/no-such-page")
	if len(pages) < 5 {
		t.Fatalf("the sitemap lists %d pages: %v", len(pages), pages)
	}
	for _, p := range pages {
		t.Run(p, func(t *testing.T) {
			do(t, ctx, chromedp.Navigate(srv.URL+p), chromedp.WaitReady(chromedp.CSS(`footer`)))
			got := eval[shareImage](t, ctx, shareImageJS, chromedp.EvalAwaitPromise)
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

// shareImage is what shareImageJS finds of a page's share image.
type shareImage struct {
	OG      string `json:"og"`
	Twitter string `json:"twitter"`
	Type    string `json:"type"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	Error   string `json:"error"`
}

// shareImageJS loads the page's og:image from this server (the tree's URLs name the
// site's own address) as the browser loads a picture, and reports its size.
const shareImageJS = `(async () => {
	const meta = name => (document.querySelector('meta[property="' + name + '"], meta[name="' + name + '"]') || {}).content || "";
	const og = meta("og:image"), out = {og, twitter: meta("twitter:image"), type: "", width: 0, height: 0, error: ""};
	try {
		const local = location.origin + new URL(og).pathname;
		const r = await fetch(local);
		out.type = r.headers.get("content-type") || "";
		if (!r.ok) throw new Error("HTTP " + r.status);
		const img = new Image();
		img.src = local;
		await img.decode();
		out.width = img.naturalWidth;
		out.height = img.naturalHeight;
	} catch (e) {
		out.error = String(e);
	}
	return out;
})()`

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
