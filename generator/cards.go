package generator

import (
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/opennumerology/numerology/generator/cards"
)

// CardsDir is the directory of the pages' share cards in the tree.
const CardsDir = AssetsDir + "/cards"

// shareCard is what the head tags of layout.html say of a page's share card.
type shareCard struct {
	URL           string // absolute: the site URL and the card's path
	Alt           string
	Width, Height int
}

// CardFile is the tree path of the share card of a page file: the page's path under
// assets/cards/, with .png for .html (life-path/7.html → assets/cards/life-path/7.png).
func CardFile(pageFile string) string {
	return path.Join(CardsDir, strings.TrimSuffix(pageFile, path.Ext(pageFile))+".png")
}

// cardOf returns the tree path and the content of the card a page shares. A page names
// its card's headline (page.card.Title) and, when it likes, a mark; the site's name, the
// footer and, unless the page gives one, the subtitle (the page's description) are filled
// in here. A page that names no card shares the home page's.
func (p *pageRenderer) cardOf(pg page, home page) (string, cards.Card) {
	if pg.card.Title == "" {
		pg = home
	}
	c := pg.card
	if c.Site == "" {
		c.Site = p.s.Content.Site.Title
	}
	if c.Subtitle == "" {
		c.Subtitle = pg.description
	}
	if c.Footer == "" {
		c.Footer = strings.TrimPrefix(strings.TrimPrefix(p.s.SiteURL, "https://"), "http://")
	}
	return CardFile(pg.file), c
}

// shareCards renders the cards the pages share and returns them with the function that
// gives each page its head tags' values.
func (p *pageRenderer) shareCards(pages []page) (tags func(page) shareCard, files []pageFile, err error) {
	i := slices.IndexFunc(pages, func(pg page) bool { return pg.file == HomePage })
	if i < 0 || pages[i].card.Title == "" {
		return nil, nil, errors.New("share cards: the home page names no card")
	}
	home := pages[i]
	files, err = p.renderCards(pages, home)
	if err != nil {
		return nil, nil, err
	}
	return func(pg page) shareCard {
		file, c := p.cardOf(pg, home)
		return shareCard{
			URL:    p.s.SiteURL + "/" + file,
			Alt:    "«" + c.Site + "»: " + c.Title,
			Width:  cards.Width,
			Height: cards.Height,
		}
	}, files, nil
}

// renderCards renders every card the pages share, each once, in the pages' order, on as
// many goroutines as there are Ps: a card takes a few milliseconds and depends only on its
// text, so the bytes are the same whatever the parallelism.
func (p *pageRenderer) renderCards(pages []page, home page) ([]pageFile, error) {
	var out []pageFile
	var todo []cards.Card
	seen := map[string]bool{}
	for _, pg := range pages {
		file, c := p.cardOf(pg, home)
		if !seen[file] {
			seen[file] = true
			out = append(out, pageFile{path: file})
			todo = append(todo, c)
		}
	}
	// Every card is rendered and every failure reported, in the pages' order.
	errs := make([]error, len(todo))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, c := range todo {
		g.Go(func() error {
			b, err := cards.Render(c)
			if err != nil {
				errs[i] = fmt.Errorf("render %s: %w", out[i].path, err)
				return nil
			}
			out[i].body = b
			return nil
		})
	}
	_ = g.Wait() // the errors are in errs
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
