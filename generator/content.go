package generator

import (
	"io/fs"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/rules"
)

// ContentRules are the rules the content must follow (docs/design.md §7): the life path
// numbers with a file, the positions' order, the life path rule every famous person's
// birth date is checked with, the square's counts, lines and bands its texts must
// cover (§14), and the arcana each reading zone of the chart holds (§15). This is where content meets the rules: the content package
// loads and reports, the rules package decides, and neither imports the other.
func ContentRules() content.Rules {
	return content.Rules{
		LifePathNumbers: rules.LifePathNumbers,
		PositionKeys:    rules.PositionKeys(),
		LifePath:        rules.LifePath,
		Square:          content.SquareRules{Counts: rules.SquareCounts(), LineKeys: rules.SquareLineKeys(), BandKeys: rules.BandKeys()},
		Chart:           chartContentRules(),
	}
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

// LoadContent loads and validates the content of fsys against ContentRules; label prefixes
// the file names of problems. The error, if any, is content.Errors: every problem, the
// famous people's dates among them, sorted by file, line and field.
func LoadContent(fsys fs.FS, label string) (*content.Content, error) {
	return content.Load(fsys, label, ContentRules())
}
