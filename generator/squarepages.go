package generator

import (
	"fmt"
	htmltemplate "html/template"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// Page files of the Pythagoras square.
const (
	SquarePage        = "square.html"
	SquareDetailsPage = "square/details.html"
)

// squareDoc is what the square's pages show: the texts, a worked example and, for the
// details page, the data its script draws a date with.
type squareDoc struct {
	Meanings SquareMeanings
	Cells    []squareCellDoc
	Lines    []squareLineDoc
	Example  squareExample
	// Zero is a date whose W3 is zero or below, and that W3 worked out.
	Zero, ZeroW3 string
	MeaningsAPI  string // the path of /square/meanings
	Citation     string // of the meanings
	JSON         htmltemplate.JS
}

// squareExample is the worked example of docs/design.md §14, drawn from the rule.
type squareExample struct {
	Date, ISO, APIPath string
	Digits             string // "1 5 5 1 9 9 0"
	W1Sum, W2Sum       string // "1 + 5 + 5 + 1 + 9 + 9 + 0 = 30", "3 + 0 = 3"
	W3, W4Sum          string
	Working            [4]int
	Grid               squareGrid
}

// squareCellDoc is a cell's texts as the square page lists them.
type squareCellDoc struct {
	Cell        int
	Name        string
	Description string
	Readings    []squareReadingDoc
}

type squareReadingDoc struct {
	Digits  string // the cell's digit, count times; "—" for none
	Count   int
	Reading string
}

// squareLineDoc is a line's texts as the square page lists them.
type squareLineDoc struct {
	Key, Name, Cells, Description string // Cells: "1-4-7"
	Bands                         []squareReadingDoc
}

// squareGrid is the drawing of a square: the cells row by row as laid out, each row's sum,
// each column's and the two diagonals'.
type squareGrid struct {
	Rows        [3][3]squareGridCell
	RowSums     [3]squareGridSum // purpose, family, habits
	ColumnSums  [3]squareGridSum // self-esteem, household, talent
	Temperament squareGridSum    // 3-5-7, drawn top right
	Spirit      squareGridSum    // 1-5-9, drawn bottom right
}

type squareGridCell struct {
	Cell   int
	Name   string
	Digits string // "—" for an empty cell
}

type squareGridSum struct {
	Key, Name string
	Sum       int
}

// squareGridOf draws the square of a date.
func (p *pageRenderer) squareGridOf(day, month, year int) squareGrid {
	sq := rules.ComputeSquare(day, month, year)
	texts := &p.s.Content.Square
	var g squareGrid
	for r, row := range [3][3]int{{1, 4, 7}, {2, 5, 8}, {3, 6, 9}} {
		for c, cell := range row {
			d := sq.Digits(cell)
			if d == "" {
				d = "—"
			}
			g.Rows[r][c] = squareGridCell{cell, texts.Cells[cell-1].Name, d}
		}
	}
	sum := func(l rules.SquareLine) squareGridSum {
		return squareGridSum{l.Key(), texts.Lines[l].Name, sq.Lines[l]}
	}
	g.RowSums = [3]squareGridSum{sum(rules.RowPurpose), sum(rules.RowFamily), sum(rules.RowHabits)}
	g.ColumnSums = [3]squareGridSum{sum(rules.ColumnSelfEsteem), sum(rules.ColumnHousehold), sum(rules.ColumnTalent)}
	g.Temperament, g.Spirit = sum(rules.DiagonalTemper), sum(rules.DiagonalSpirit)
	return g
}

// squareDocOf builds what both square pages show.
func (p *pageRenderer) squareDocOf() (*squareDoc, error) {
	m, err := p.s.SquareMeanings()
	if err != nil {
		return nil, err
	}
	const d, mo, y = 15, 5, 1990
	sq := rules.ComputeSquare(d, mo, y)
	digits := strings.Split(strconv.Itoa(d)+strconv.Itoa(mo)+strconv.Itoa(y), "")
	w := sq.Working
	doc := &squareDoc{
		Meanings:    m,
		MeaningsAPI: RoutePath(manifest.RouteSquareMeanings),
		Citation:    m.SuggestedCitation,
		Example: squareExample{
			Date: fmt.Sprintf("%02d.%02d.%d", d, mo, y), ISO: fmt.Sprintf("%d-%02d-%02d", y, mo, d),
			APIPath: RoutePath(manifest.RouteSquare, d, mo, y),
			Digits:  strings.Join(digits, " "),
			W1Sum:   strings.Join(digits, " + ") + " = " + strconv.Itoa(w[0]),
			W2Sum:   strings.Join(strings.Split(strconv.Itoa(w[0]), ""), " + ") + " = " + strconv.Itoa(w[1]),
			W3:      fmt.Sprintf("%d − 2 × %d = %d", w[0], firstDigitOf(d), w[2]),
			W4Sum:   strings.Join(strings.Split(strconv.Itoa(w[2]), ""), " + ") + " = " + strconv.Itoa(w[3]),
			Working: w,
			Grid:    p.squareGridOf(d, mo, y),
		},
	}
	const zd, zm, zy = 9, 1, 2000 // docs/design.md §14's example of a W3 below zero
	z := rules.ComputeSquare(zd, zm, zy).Working
	doc.Zero = fmt.Sprintf("%02d.%02d.%d", zd, zm, zy)
	doc.ZeroW3 = fmt.Sprintf("%d − 2 × %d = −%d", z[0], firstDigitOf(zd), -z[2])
	for _, c := range m.Cells {
		cd := squareCellDoc{Cell: c.Cell, Name: c.Name, Description: c.Description}
		for _, r := range c.Readings {
			digits := strings.Repeat(strconv.Itoa(c.Cell), r.Count)
			if digits == "" {
				digits = "—"
			}
			cd.Readings = append(cd.Readings, squareReadingDoc{digits, r.Count, r.Reading})
		}
		doc.Cells = append(doc.Cells, cd)
	}
	for _, l := range m.Lines {
		cells := make([]string, 3)
		for i, c := range l.Cells {
			cells[i] = strconv.Itoa(c)
		}
		ld := squareLineDoc{Key: l.Key, Name: l.Name, Cells: strings.Join(cells, "-"), Description: l.Description}
		for i, text := range []string{l.Readings.Low, l.Readings.Medium, l.Readings.High} {
			b := m.Bands[i]
			span := fmt.Sprintf("%d–%d", b.Min, b.Max)
			if b.Max == 0 {
				span = fmt.Sprintf("%d и больше", b.Min)
			}
			ld.Bands = append(ld.Bands, squareReadingDoc{Digits: span, Reading: text})
		}
		doc.Lines = append(doc.Lines, ld)
	}
	return doc, nil
}

func firstDigitOf(n int) int { return int(strconv.Itoa(n)[0] - '0') }

// squarePage is the page of the square: the method, a form, every cell's and line's texts.
func (p *pageRenderer) squarePage() page {
	return page{file: SquarePage, template: "square.html", path: "/square", indexed: true,
		card:        cards.Card{Title: "Квадрат Пифагора"},
		title:       "Квадрат Пифагора (психоматрица) по дате рождения",
		description: "Квадрат Пифагора по дате рождения: как считаются рабочие числа, что означают девять клеток и восемь линий. Расчёт для любой даты с 1900 по 2100 год.",
		fill: func(d *pageData) (err error) {
			d.Square, err = p.squareDocOf()
			return err
		}}
}

// squareDetailsPage draws the square of the date in its query string. Like the matrix's
// details page it is left out of the sitemap: one URL per date would be 73,414 thin pages.
func (p *pageRenderer) squareDetailsPage() page {
	return page{file: SquareDetailsPage, template: "square-details.html", path: "/square/details",
		card:        cards.Card{Title: "Квадрат Пифагора для даты рождения"},
		title:       "Квадрат Пифагора для даты рождения — " + p.s.Content.Site.Title,
		description: "Квадрат Пифагора для выбранной даты рождения: рабочие числа, девять клеток с их значениями и суммы строк, столбцов и диагоналей.",
		fill: func(d *pageData) (err error) {
			if d.Square, err = p.squareDocOf(); err != nil {
				return err
			}
			d.Square.JSON, err = p.squareJSON(d.Square)
			return err
		}}
}

// squareJSON is the data the details page's script reads: with it the page draws the
// square of a date at once by the rule (docs/design.md §14) and only checks it against the
// API record, so nothing moves when the record arrives.
func (p *pageRenderer) squareJSON(doc *squareDoc) (htmltemplate.JS, error) {
	type cell struct {
		Name        string            `json:"name"`
		Description string            `json:"description"`
		Readings    map[string]string `json:"readings"` // by count
	}
	type line struct {
		Key         string          `json:"key"`
		Name        string          `json:"name"`
		Cells       [3]int          `json:"cells"`
		Description string          `json:"description"`
		Readings    SquareBandTexts `json:"readings"`
	}
	var cells []cell
	for _, c := range doc.Meanings.Cells {
		rd := map[string]string{}
		for _, r := range c.Readings {
			rd[strconv.Itoa(r.Count)] = r.Reading
		}
		cells = append(cells, cell{c.Name, c.Description, rd})
	}
	var lines []line
	for _, l := range doc.Meanings.Lines {
		lines = append(lines, line(l))
	}
	v := struct {
		SiteTitle    string       `json:"siteTitle"`
		SiteURL      string       `json:"siteURL"`
		SupportEmail string       `json:"supportEmail"`
		FirstYear    int          `json:"firstYear"`
		LastYear     int          `json:"lastYear"`
		RateLimit    int          `json:"rateLimit"`
		Citation     string       `json:"citation"` // {date} and {url} left to fill
		Attribution  string       `json:"attribution"`
		Bands        []SquareBand `json:"bands"`
		Cells        []cell       `json:"cells"`
		Lines        []line       `json:"lines"`
	}{
		SiteTitle:    p.s.Content.Site.Title,
		SiteURL:      p.s.SiteURL,
		SupportEmail: p.s.Content.Site.SupportEmail,
		FirstYear:    rules.FirstYear,
		LastYear:     rules.LastYear,
		RateLimit:    p.base.RateLimit.Requests,
		Citation:     p.s.squareCitation(squareSubject),
		Attribution:  p.s.Attribution,
		Bands:        doc.Meanings.Bands,
		Cells:        cells,
		Lines:        lines,
	}
	// goccy/go-json escapes <, > and & by default, so the JSON cannot close the script element.
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode square page data: %w", err)
	}
	return htmltemplate.JS(b), nil
}
