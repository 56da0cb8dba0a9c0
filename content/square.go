package content

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// SquareRules are the facts of the Pythagoras square rule (docs/design.md §14) that its
// texts must follow.
type SquareRules struct {
	// Counts[c-1] are the counts cell c takes over the dates of the API, ascending: each
	// needs a short reading, and a reading for any other count is refused as dead text.
	Counts [9][]int
	// LineKeys are the keys of the eight lines, in contract order.
	LineKeys []string
	// BandKeys are the keys of the bands a line sum falls in, low to high: each line needs
	// a reading for each.
	BandKeys []string
}

func (r *SquareRules) complete() bool {
	return len(r.LineKeys) > 0 && len(r.BandKeys) > 0 && !slices.ContainsFunc(r.Counts[:], func(c []int) bool { return len(c) == 0 })
}

// Square holds the texts of the Pythagoras square (square.yaml).
type Square struct {
	Cells []SquareCell `yaml:"cells"` // Cells[i].Cell == i+1
	Lines []SquareLine `yaml:"lines"` // in SquareRules.LineKeys order
}

// SquareCell holds the texts of one cell of the square.
type SquareCell struct {
	Cell        int    `yaml:"cell"`
	Name        string `yaml:"name"`        // the tradition's name: Характер, Энергия, …
	Description string `yaml:"description"` // what the cell is about, served once
	// Readings maps a count of the cell's digit to a short reading, carried by every record.
	Readings map[int]string `yaml:"readings"`
}

// SquareLine holds the texts of one line (row, column or diagonal) of the square.
type SquareLine struct {
	Key         string `yaml:"key"`
	Name        string `yaml:"name"` // the tradition's name: Самооценка, Семья, …
	Description string `yaml:"description"`
	// Readings maps a band key (SquareRules.BandKeys) to a reading of the line's sum.
	Readings map[string]string `yaml:"readings"`
}

// Minimum lengths of the square's descriptions, in words.
const (
	MinSquareCellWords = 80
	MinSquareLineWords = 30
)

func (l *loader) loadSquare() Square {
	var sq Square
	d := l.read("square.yaml", &sq)
	if d == nil {
		return Square{}
	}
	r := &l.rules.Square
	if len(sq.Cells) != 9 {
		d.at("$.cells", "cells", "wrong count: %d cells, want 9", len(sq.Cells))
	}
	for i := range sq.Cells {
		d.checkSquareCell(i, &sq.Cells[i], r)
	}
	if len(sq.Lines) != len(r.LineKeys) {
		d.at("$.lines", "lines", "wrong count: %d lines, want %d", len(sq.Lines), len(r.LineKeys))
	}
	for i := range sq.Lines {
		d.checkSquareLine(i, &sq.Lines[i], r)
	}
	return sq
}

func (d *doc) checkSquareCell(i int, c *SquareCell, r *SquareRules) {
	yp, f := fmt.Sprintf("$.cells[%d]", i), fmt.Sprintf("cells[%d]", i)
	if c.Cell != i+1 {
		d.at(yp+".cell", f+".cell", "is %d, want %d (cells are listed 1–9 in order)", c.Cell, i+1)
	}
	d.squareTexts(yp, f, c.Name, c.Description, MinSquareCellWords)
	if i >= len(r.Counts) {
		return
	}
	want := r.Counts[i]
	span := countSpan(want)
	for _, n := range want {
		text, ok := c.Readings[n]
		switch {
		case !ok:
			d.at(yp+".readings", f+".readings", "no reading for count %d (cell %d takes counts %s in the range)", n, i+1, span)
		case strings.TrimSpace(text) == "":
			d.at(fmt.Sprintf("%s.readings.%d", yp, n), fmt.Sprintf("%s.readings.%d", f, n), "empty reading")
		default:
			d.maxLen(fmt.Sprintf("%s.readings.%d", yp, n), fmt.Sprintf("%s.readings.%d", f, n), text, maxSquareReading)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Readings)) {
		if !slices.Contains(want, n) {
			d.at(fmt.Sprintf("%s.readings.%d", yp, n), fmt.Sprintf("%s.readings.%d", f, n), "count %d never occurs in cell %d (it takes counts %s in the range)", n, i+1, span)
		}
	}
}

func (d *doc) checkSquareLine(i int, l *SquareLine, r *SquareRules) {
	yp, f := fmt.Sprintf("$.lines[%d]", i), fmt.Sprintf("lines[%d]", i)
	if i < len(r.LineKeys) && l.Key != r.LineKeys[i] {
		d.at(yp+".key", f+".key", "is %q, want %q (lines follow docs/design.md §14 order)", l.Key, r.LineKeys[i])
	}
	d.squareTexts(yp, f, l.Name, l.Description, MinSquareLineWords)
	for _, b := range r.BandKeys {
		text, ok := l.Readings[b]
		switch {
		case !ok:
			d.at(yp+".readings", f+".readings", "no reading for band %s", b)
		case strings.TrimSpace(text) == "":
			d.at(yp+".readings."+b, f+".readings."+b, "empty reading")
		default:
			d.maxLen(yp+".readings."+b, f+".readings."+b, text, maxShortText)
		}
	}
	for _, b := range slices.Sorted(maps.Keys(l.Readings)) {
		if !slices.Contains(r.BandKeys, b) {
			d.at(yp+".readings."+b, f+".readings."+b, "unknown band (want %s)", strings.Join(r.BandKeys, ", "))
		}
	}
}

// squareTexts checks the name and description shared by cells and lines.
func (d *doc) squareTexts(yp, f, name, description string, minWords int) {
	d.required(yp+".name", f+".name", name)
	d.maxLen(yp+".name", f+".name", name, maxName)
	d.required(yp+".description", f+".description", description)
	d.maxLen(yp+".description", f+".description", description, maxParagraph)
	if w := len(strings.Fields(description)); description != "" && w < minWords {
		d.at(yp+".description", f+".description", "too short: %d words, want at least %d", w, minWords)
	}
}

// countSpan writes ascending counts as "0–9" when they run without a gap, else as a list.
func countSpan(counts []int) string {
	if len(counts) > 1 && counts[len(counts)-1]-counts[0] == len(counts)-1 {
		return fmt.Sprintf("%d–%d", counts[0], counts[len(counts)-1])
	}
	s := make([]string, len(counts))
	for i, n := range counts {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
