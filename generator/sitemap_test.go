package generator

import (
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// TestSitemap checks that sitemap.xml lists, with absolute URLs, exactly the pages meant
// for reading, each of which the tree answers, and none of the API.
func TestSitemap(t *testing.T) {
	s, tree := sharedTree(t)
	b, err := os.ReadFile(filepath.Join(tree, SitemapFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
		URLs    []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("sitemap.xml: %v", err)
	}
	want := []string{s.SiteURL + "/", s.SiteURL + "/life-path"}
	for _, n := range rules.LifePathNumbers {
		want = append(want, s.SiteURL+"/life-path/"+strconv.Itoa(n))
	}
	want = append(want, s.SiteURL+"/matrix", s.SiteURL+"/arcana")
	for _, n := range rules.ArcanaNumbers {
		want = append(want, s.SiteURL+"/arcana/"+strconv.Itoa(n))
	}
	want = append(want, s.SiteURL+"/compatibility")
	for i, a := range rules.LifePathNumbers {
		for _, b := range rules.LifePathNumbers[i:] {
			want = append(want, s.SiteURL+"/compatibility/"+strconv.Itoa(a)+"/"+strconv.Itoa(b))
		}
	}
	want = append(want, s.SiteURL+"/square", s.SiteURL+"/chart", s.SiteURL+"/personal-year")
	var got []string
	for _, u := range doc.URLs {
		got = append(got, u.Loc)
		p, ok := strings.CutPrefix(u.Loc, s.SiteURL)
		if !ok {
			t.Errorf("%s is not an absolute URL of %s", u.Loc, s.SiteURL)
			continue
		}
		if resolvePage(t, tree, p) == "" {
			t.Errorf("%s: no page in the tree", u.Loc)
		}
		if strings.HasPrefix(p, manifest.APIPrefix) {
			t.Errorf("%s: the sitemap lists the API", u.Loc)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("sitemap URLs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(string(b), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("sitemap.xml starts %.40q, want an XML declaration", b)
	}
}

// TestRobots checks that robots.txt lets crawlers in and points to the sitemap by its
// absolute URL.
func TestRobots(t *testing.T) {
	s, tree := sharedTree(t)
	b, err := os.ReadFile(filepath.Join(tree, RobotsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if !slices.Contains(lines, "User-agent: *") || !slices.Contains(lines, "Allow: /") {
		t.Errorf("robots.txt does not let every crawler in:\n%s", b)
	}
	if !slices.Contains(lines, "Sitemap: "+s.SiteURL+"/"+SitemapFile) {
		t.Errorf("robots.txt lacks Sitemap: %s/%s:\n%s", s.SiteURL, SitemapFile, b)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "Disallow:") && strings.TrimSpace(strings.TrimPrefix(l, "Disallow:")) != "" {
			t.Errorf("robots.txt blocks %q", l)
		}
	}
}

var (
	titleRe = regexp.MustCompile(`<title>([^<]*)</title>`)
	metaRe  = regexp.MustCompile(`<meta (?:name|property)="([^"]+)" content="([^"]*)">`)
)

// TestShareCards checks that every page carries Open Graph and Twitter card tags whose
// title and description are the page's own, and og:url its canonical address.
func TestShareCards(t *testing.T) {
	s, tree := sharedTree(t)
	p := &pageRenderer{s: s}
	for _, pg := range p.pages() {
		t.Run(pg.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(tree, pg.file))
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			meta := map[string]string{}
			for _, m := range metaRe.FindAllStringSubmatch(page, -1) {
				meta[m[1]] = html.UnescapeString(m[2])
			}
			title := titleRe.FindStringSubmatch(page)
			if title == nil || html.UnescapeString(title[1]) != pg.title {
				t.Fatalf("<title> = %q, want %q", title, pg.title)
			}
			want := map[string]string{
				"description": pg.description, "og:title": pg.title, "og:description": pg.description,
				"og:type": "website", "og:locale": "ru_RU", "og:site_name": s.Content.Site.Title,
				"twitter:card": "summary_large_image", "twitter:title": pg.title, "twitter:description": pg.description,
			}
			if pg.path != "/404" {
				want["og:url"] = s.SiteURL + pg.path
			}
			for k, v := range want {
				if meta[k] != v {
					t.Errorf("%s = %q, want %q", k, meta[k], v)
				}
			}
			if pg.description == "" || pg.title == "" {
				t.Error("the page has no title or description to share")
			}
		})
	}
}

// TestSourceURLsHavePages: every source_url of every file of every route (its records, the
// items of its lists) is a page of the tree, and a fragment names an element of it.
func TestSourceURLsHavePages(t *testing.T) {
	s, tree := sharedTree(t)
	m, err := manifest.Load(tree)
	if err != nil {
		t.Fatal(err)
	}
	var urls func(v any, out map[string]bool)
	urls = func(v any, out map[string]bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if u, ok := x.(string); ok && k == "source_url" {
					out[u] = true
				}
				urls(x, out)
			}
		case []any:
			for _, x := range v {
				urls(x, out)
			}
		}
	}
	for _, r := range m.Edge.Routes {
		found := map[string]bool{}
		for _, vals := range r.Values(m.Years) {
			var v any
			readJSON(t, tree, r.FilePath(vals), &v)
			urls(v, found)
		}
		if r.Name != RouteIndex && r.Name != RouteOpenAPI && len(found) == 0 {
			t.Errorf("route %s: no source_url in its files", r.Name)
		}
		for u := range found {
			p, ok := strings.CutPrefix(u, s.SiteURL)
			if !ok {
				t.Errorf("route %s: source_url %s is not a page of %s", r.Name, u, s.SiteURL)
				continue
			}
			p, frag, _ := strings.Cut(p, "#")
			p, _, _ = strings.Cut(p, "?") // a details page reads its date from the query
			page := resolvePage(t, tree, p)
			if page == "" {
				t.Errorf("route %s: source_url %s: no page in the tree", r.Name, u)
				continue
			}
			if frag != "" {
				b, err := os.ReadFile(filepath.Join(tree, page))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), ` id="`+frag+`"`) {
					t.Errorf("route %s: source_url %s: %s has no element with id %q", r.Name, u, page, frag)
				}
			}
		}
	}
}
