package generator

import (
	"io/fs"
	"sync"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/rules"
)

// ContentRules are the rules the content must follow (docs/design.md §7): the life path
// numbers with a file, the positions' order, the life path rule every famous person's
// birth date is checked with, the square's counts, lines and bands its texts must
// cover (§14), the arcana each reading zone of the chart holds (§15), and the fields the share cards show with what their fonts draw. This is where content meets the rules: the content package
// loads and reports, the rules package decides, and neither imports the other.
func ContentRules() content.Rules {
	return content.Rules{
		LifePathNumbers: rules.LifePathNumbers,
		PositionKeys:    rules.PositionKeys(),
		LifePath:        rules.LifePath,
		Square:          content.SquareRules{Counts: rules.SquareCounts(), LineKeys: rules.SquareLineKeys(), BandKeys: rules.BandKeys()},
		Cards:           content.CardRules{Fields: CardFields, Drawable: cards.Drawable},
		Chart:           chartContentRules(),
	}
}

// CardFields are the content fields the share cards show (cardOf, and the cards the pages
// name in pages.go): the site's title, a life path number's archetype and short
// description, an arcanum's name and keyword, and a pair's summary. The loader checks them
// against the cards' fonts (docs/design.md §7); TestCardFields checks that no other field
// reaches a card.
var CardFields = map[string][]string{
	"site.yaml":          {"title"},
	"life-path/*.yaml":   {"archetype", "short_description"},
	"arcana.yaml":        {"[*].name", "[*].keyword"},
	"compatibility.yaml": {"pairs[*].summary"},
}

// EmbeddedContent is the built-in content (content.Embedded) as LoadContent gives it,
// loaded once per process and shared: a loaded Content is only read (NewSite, the
// renderers, verify), and a process that generates, verifies or reloads trees more than
// once, as serve and the tests do, loaded it anew each time (a tenth of a second each).
var EmbeddedContent = sync.OnceValues(func() (*content.Content, error) {
	return LoadContent(content.Embedded(), "content")
})

// LoadContent loads and validates the content of fsys against ContentRules; label prefixes
// the file names of problems. The error, if any, is content.Errors: every problem, the
// famous people's dates among them, sorted by file, line and field. The texts come back
// set with no-break spaces (texttypography.go).
func LoadContent(fsys fs.FS, label string) (*content.Content, error) {
	c, err := content.Load(fsys, label, ContentRules())
	if err != nil {
		return nil, err
	}
	typesetContent(c)
	return c, nil
}

// chartContentRules are the arcana of each reading zone of the chart, keyed as the content
// keys them (rules.ChartReadingZone's keys are content.ChartReadingKeys).
func chartContentRules() content.ChartRules {
	r := content.ChartRules{Arcana: map[string][]int{}}
	for z, arcana := range rules.ChartReadingArcana() {
		r.Arcana[rules.ChartReadingZone(z).Key()] = arcana
	}
	return r
}
