package generator

import (
	"bytes"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
)

// maxCardBytes is the largest a share card may be (issue 20: ≤ 60 KB).
const maxCardBytes = 60 << 10

// TestShareCardImages checks that every page names, in absolute og:image and
// twitter:image tags, a card of the tree that is a PNG of 1200×630 within 60 KB and listed
// in the manifest, with its size and alt text in the tags, and that every page of the
// sitemap has a card of its own.
func TestShareCardImages(t *testing.T) {
	s, tree := sharedTree(t)
	m, err := manifest.Load(tree)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]int64{}
	for _, f := range m.Files {
		listed[f.Path] = f.Size
	}
	p := &pageRenderer{s: s}
	owner := map[string]string{} // card URL → the indexed page that has it
	for _, pg := range p.pages() {
		t.Run(pg.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(tree, pg.file))
			if err != nil {
				t.Fatal(err)
			}
			meta := map[string]string{}
			for _, m := range metaRe.FindAllStringSubmatch(string(b), -1) {
				meta[m[1]] = html.UnescapeString(m[2])
			}
			url := meta["og:image"]
			rel, ok := strings.CutPrefix(url, s.SiteURL+"/")
			if !ok {
				t.Fatalf("og:image %q is not an absolute URL of %s", url, s.SiteURL)
			}
			want := map[string]string{
				"twitter:card": "summary_large_image", "twitter:image": url,
				"og:image:type": "image/png", "og:image:width": strconv.Itoa(cards.Width), "og:image:height": strconv.Itoa(cards.Height),
				"twitter:image:alt": meta["og:image:alt"],
			}
			for k, v := range want {
				if meta[k] != v {
					t.Errorf("%s = %q, want %q", k, meta[k], v)
				}
			}
			if !strings.Contains(meta["og:image:alt"], s.Content.Site.Title) {
				t.Errorf("og:image:alt %q does not name the site", meta["og:image:alt"])
			}
			if !strings.HasPrefix(rel, CardsDir+"/") || resolvePage(t, tree, rel) != rel {
				t.Fatalf("og:image %s is not a card file of the tree", url)
			}
			img, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(img))
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			if cfg.Width != cards.Width || cfg.Height != cards.Height {
				t.Errorf("%s is %dx%d, want %dx%d", rel, cfg.Width, cfg.Height, cards.Width, cards.Height)
			}
			if len(img) > maxCardBytes {
				t.Errorf("%s is %d bytes, want at most %d", rel, len(img), maxCardBytes)
			}
			if size, ok := listed[rel]; !ok || size != int64(len(img)) {
				t.Errorf("%s: the manifest lists %d bytes (listed: %v), the file has %d", rel, size, ok, len(img))
			}
			if pg.indexed {
				if other, ok := owner[url]; ok {
					t.Errorf("%s shares its card with %s, want its own", pg.file, other)
				}
				owner[url] = pg.file
			}
			t.Logf("%s: %d bytes", rel, len(img))
		})
	}
}

// TestShareCardsParallel checks that the cards are the same bytes whatever GOMAXPROCS (a
// render at another GOMAXPROCS than the process's, at which generate wrote the shared
// tree's cards, gives the tree's bytes), that each is rendered once, and that a page naming
// no card shares the home page's.
func TestShareCardsParallel(t *testing.T) {
	_, tree := sharedTree(t)
	p, err := newPageRenderer(testSite(t))
	if err != nil {
		t.Fatal(err)
	}
	pages := append(p.pages(), page{file: "new-page.html", path: "/new-page", title: "Новая страница", description: "Без карточки."})
	procs := 1
	if runtime.GOMAXPROCS(0) == 1 {
		procs = 4
	}
	old := runtime.GOMAXPROCS(procs)
	tags, files, err := p.shareCards(pages)
	runtime.GOMAXPROCS(old)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tags(pages[len(pages)-1]).URL, tags(pages[0]).URL; got != want {
		t.Errorf("a page without a card shares %s, want the home page's %s", got, want)
	}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.path] {
			t.Errorf("%s rendered twice", f.path)
		}
		seen[f.path] = true
		b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(f.path)))
		if err != nil || !bytes.Equal(b, f.body) {
			t.Errorf("%s: GOMAXPROCS %d and %d give other bytes (%v)", f.path, procs, old, err)
		}
	}
	m, err := manifest.Load(tree)
	if err != nil {
		t.Fatal(err)
	}
	inTree := 0
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, CardsDir+"/") {
			inTree++
		}
	}
	if inTree != len(files) {
		t.Errorf("the tree has %d cards, the render %d", inTree, len(files))
	}
	if seen[CardFile("new-page.html")] {
		t.Error("a page without a card got one of its own")
	}
	if _, _, err := p.shareCards(pages[1:]); err == nil || !strings.Contains(err.Error(), "home page names no card") {
		t.Errorf("pages without the home page: error %v, want one saying the home page names no card", err)
	}
}

// TestCardFile checks the card's path of a page file.
func TestCardFile(t *testing.T) {
	for page, want := range map[string]string{
		HomePage:        "assets/cards/index.png",
		LifePathPage(7): "assets/cards/life-path/7.png",
		DetailsPage:     "assets/cards/matrix/details.png",
	} {
		if got := CardFile(page); got != want {
			t.Errorf("CardFile(%q) = %q, want %q", page, got, want)
		}
	}
}

// BenchmarkShareCards renders every card of the site, as generate does once per run.
func BenchmarkShareCards(b *testing.B) {
	p, err := newPageRenderer(testSite(b))
	if err != nil {
		b.Fatal(err)
	}
	pages := p.pages()
	for b.Loop() {
		if _, _, err := p.shareCards(pages); err != nil {
			b.Fatal(err)
		}
	}
}
