package generator

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/rules"
)

// The Pythagoras square (docs/design.md §14) has two routes: /square/{day}/{month}/{year},
// the square of a date, kept within 2.5 KB a record (each cell's short reading, each line's
// name and sum, no long text), and /square/meanings, the long texts served once.

// SquareRecord is the body of /square/{d}/{m}/{y}.
type SquareRecord struct {
	Input DateInput `json:"input"`
	// WorkingNumbers are W1–W4; W3 may be zero or negative (docs/design.md §14).
	WorkingNumbers    [4]int      `json:"working_numbers"`
	Cells             SquareCells `json:"cells"`
	Lines             SquareLines `json:"lines"`
	SuggestedCitation string      `json:"suggested_citation"`
	SourceURL         string      `json:"source_url"` // the details page of the date
	attribution
}

// SquareCell is one cell of a square record.
type SquareCell struct {
	Digits  string `json:"digits"` // the cell's digit, count times; "" when empty
	Count   int    `json:"count"`
	Name    string `json:"name"`
	Reading string `json:"reading"` // the short reading of this count
}

// SquareCells holds the nine cells, keyed "1"–"9".
type SquareCells struct {
	C1 SquareCell `json:"1"`
	C2 SquareCell `json:"2"`
	C3 SquareCell `json:"3"`
	C4 SquareCell `json:"4"`
	C5 SquareCell `json:"5"`
	C6 SquareCell `json:"6"`
	C7 SquareCell `json:"7"`
	C8 SquareCell `json:"8"`
	C9 SquareCell `json:"9"`
}

// All returns pointers to the cells, cell c at index c-1.
func (c *SquareCells) All() [9]*SquareCell {
	return [9]*SquareCell{&c.C1, &c.C2, &c.C3, &c.C4, &c.C5, &c.C6, &c.C7, &c.C8, &c.C9}
}

// SquareLines holds the sums of the eight lines, keyed by the line's name in contract order
// (rules.SquareLine): rows, columns, diagonals. A sum is the count of the digits of the
// line's three cells; the lines' Russian names, cells, descriptions and band readings are
// in /square/meanings.
type SquareLines struct {
	Purpose      int `json:"purpose"`
	Family       int `json:"family"`
	Habits       int `json:"habits"`
	SelfEsteem   int `json:"self_esteem"`
	Household    int `json:"household"`
	Talent       int `json:"talent"`
	Spirituality int `json:"spirituality"`
	Temperament  int `json:"temperament"`
}

// All returns pointers to the sums, indexed by rules.SquareLine.
func (l *SquareLines) All() [rules.NumSquareLines]*int {
	return [rules.NumSquareLines]*int{
		&l.Purpose, &l.Family, &l.Habits, &l.SelfEsteem, &l.Household, &l.Talent, &l.Spirituality, &l.Temperament,
	}
}

// SquareSourceURL is the human page of the square: the method and every text.
func (s *Site) SquareSourceURL() string { return s.SiteURL + "/square" }

// SquareDetailsURL is the human page of one date's square.
func (s *Site) SquareDetailsURL(day, month, year int) string {
	return fmt.Sprintf("%s/square/details?date=%04d-%02d-%02d", s.SiteURL, year, month, day)
}

// squareCitation is the site's citation template for a record without one of its own,
// with everything but {date} and {url} filled in.
func (s *Site) squareCitation(subject string) string {
	return strings.NewReplacer(
		"{title}", s.Content.Site.Title, "{publisher}", s.Content.Site.Publisher, "{site_url}", s.SiteURL,
		"{license_name}", s.Content.Site.LicenseName, "{license_url}", LicenseURL,
		"{version}", manifest.APIVersion, "{subject}", subject,
	).Replace(s.Content.Site.Citation)
}

// squareSubject names a date's square in its citation; {date} is DD.MM.YYYY.
const squareSubject = "Квадрат Пифагора для даты рождения {date}"

// SquareRecord builds the record of one valid date.
func (s *Site) SquareRecord(day, month, year int) (SquareRecord, error) {
	sq := rules.ComputeSquare(day, month, year)
	src := s.SquareDetailsURL(day, month, year)
	r := SquareRecord{
		Input:          DateInput{day, month, year},
		WorkingNumbers: sq.Working,
		SuggestedCitation: strings.NewReplacer("{date}", fmt.Sprintf("%02d.%02d.%04d", day, month, year), "{url}", src).
			Replace(s.squareCitation(squareSubject)),
		SourceURL:   src,
		attribution: s.attribution(),
	}
	texts := &s.Content.Square
	for i, c := range r.Cells.All() {
		if i >= len(texts.Cells) {
			return r, fmt.Errorf("square: no texts for cell %d", i+1)
		}
		n := sq.Counts[i]
		reading, ok := texts.Cells[i].Readings[n]
		if !ok {
			return r, fmt.Errorf("square: cell %d has no reading for count %d", i+1, n)
		}
		*c = SquareCell{Digits: sq.Digits(i + 1), Count: n, Name: texts.Cells[i].Name, Reading: reading}
	}
	for l, sum := range r.Lines.All() {
		*sum = sq.Lines[l]
	}
	return r, nil
}

// SquareMeanings is the body of /square/meanings: what the cells and lines mean, the
// reading of every count of every cell and of every band of every line.
type SquareMeanings struct {
	// Layout is the grid as drawn: rows of cells, top to bottom.
	Layout            [3][3]int           `json:"layout"`
	Bands             []SquareBand        `json:"bands"`
	Cells             []SquareCellMeaning `json:"cells"`
	Lines             []SquareLineMeaning `json:"lines"`
	SuggestedCitation string              `json:"suggested_citation"`
	SourceURL         string              `json:"source_url"`
	attribution
}

// SquareBand is how strong a line is: the sums from Min to Max (no Max: and more).
type SquareBand struct {
	Key string `json:"key"`
	Min int    `json:"min"`
	Max int    `json:"max,omitempty"`
}

// SquareCellMeaning holds the texts of one cell.
type SquareCellMeaning struct {
	Cell        int             `json:"cell"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Readings    []SquareReading `json:"readings"` // one per count the cell takes, ascending
}

// SquareReading is the reading of one count of a cell.
type SquareReading struct {
	Count   int    `json:"count"`
	Reading string `json:"reading"`
}

// SquareLineMeaning holds the texts of one line.
type SquareLineMeaning struct {
	Key         string          `json:"key"`
	Name        string          `json:"name"`
	Cells       [3]int          `json:"cells"`
	Description string          `json:"description"`
	Readings    SquareBandTexts `json:"readings"`
}

// SquareBandTexts holds a line's reading for each band.
type SquareBandTexts struct {
	Low    string `json:"low"`
	Medium string `json:"medium"`
	High   string `json:"high"`
}

// SquareMeanings builds the body of /square/meanings.
func (s *Site) SquareMeanings() (SquareMeanings, error) {
	texts := &s.Content.Square
	m := SquareMeanings{
		Layout:            [3][3]int{{1, 4, 7}, {2, 5, 8}, {3, 6, 9}},
		SuggestedCitation: strings.ReplaceAll(s.squareCitation("Квадрат Пифагора: значения клеток и линий"), "{url}", s.SquareSourceURL()),
		SourceURL:         s.SquareSourceURL(),
		attribution:       s.attribution(),
	}
	for b := range rules.NumBands {
		band := SquareBand{Key: rules.Band(b).Key(), Min: -1}
		for sum := 0; sum <= 3*squareRanges().maxCount; sum++ {
			if rules.LineBand(sum) == rules.Band(b) {
				if band.Min < 0 {
					band.Min = sum
				}
				band.Max = sum
			}
		}
		if b == rules.NumBands-1 {
			band.Max = 0 // the strongest band has no end
		}
		m.Bands = append(m.Bands, band)
	}
	counts := rules.SquareCounts()
	for i, c := range texts.Cells {
		cm := SquareCellMeaning{Cell: c.Cell, Name: c.Name, Description: strings.TrimSpace(c.Description)}
		for _, n := range counts[i] {
			r, ok := c.Readings[n]
			if !ok {
				return m, fmt.Errorf("square: cell %d has no reading for count %d", i+1, n)
			}
			cm.Readings = append(cm.Readings, SquareReading{n, r})
		}
		m.Cells = append(m.Cells, cm)
	}
	for l, line := range texts.Lines {
		m.Lines = append(m.Lines, SquareLineMeaning{
			Key: line.Key, Name: line.Name, Cells: rules.SquareLine(l).Cells(), Description: strings.TrimSpace(line.Description),
			Readings: SquareBandTexts{line.Readings["low"], line.Readings["medium"], line.Readings["high"]},
		})
	}
	return m, nil
}

// squareRenderers are the renderers of the square's two routes.
func squareRenderers() map[string]renderer {
	return map[string]renderer{
		manifest.RouteSquareMeanings: {
			body: SquareMeanings{},
			fields: func(*Site) map[string]obj {
				cell := obj{"minimum": 1, "maximum": 9}
				return map[string]obj{
					"SquareMeanings.layout": {"minItems": 3, "maxItems": 3, "description": "Клетки по строкам сетки, сверху вниз: 1 4 7 / 2 5 8 / 3 6 9",
						"items": obj{"type": "array", "minItems": 3, "maxItems": 3, "items": obj{"type": "integer", "minimum": 1, "maximum": 9}}},
					"SquareMeanings.bands":       {"minItems": rules.NumBands, "maxItems": rules.NumBands, "description": "Сила линии по сумме: от min до max включительно; у последней нет max"},
					"SquareMeanings.cells":       {"minItems": 9, "maxItems": 9, "description": "Клетки 1–9 по порядку"},
					"SquareMeanings.lines":       {"minItems": rules.NumSquareLines, "maxItems": rules.NumSquareLines, "description": "Строки, столбцы и диагонали в порядке записи квадрата даты"},
					"SquareBand.key":             {"enum": rules.BandKeys()},
					"SquareBand.min":             {"minimum": 0},
					"SquareBand.max":             {"minimum": 1},
					"SquareCellMeaning.cell":     cell,
					"SquareCellMeaning.readings": {"minItems": 1, "description": "Краткое чтение для каждого числа цифр, какое клетка принимает в 1900–2100 годах"},
					"SquareReading.count":        {"minimum": 0},
					"SquareLineMeaning.key":      {"enum": rules.SquareLineKeys()},
					"SquareLineMeaning.cells":    {"minItems": 3, "maxItems": 3, "items": obj{"type": "integer", "minimum": 1, "maximum": 9}},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) {
				m, err := s.SquareMeanings()
				if err != nil {
					return nil, err
				}
				return encodeOnce(m)
			},
			pages: func(p *pageRenderer) []page { return []page{p.squarePage()} },
		},
		manifest.RouteSquare: {
			body: SquareRecord{},
			fields: func(*Site) map[string]obj {
				out := map[string]obj{}
				for _, k := range rules.SquareLineKeys() {
					out["SquareLines."+k] = obj{"minimum": 0}
				}
				for c := 1; c <= 9; c++ { // a cell holds its own digit only
					out["SquareCells."+strconv.Itoa(c)] = obj{"properties": obj{"digits": obj{"pattern": "^" + strconv.Itoa(c) + "*$"}}}
				}
				maps.Copy(out, map[string]obj{
					"SquareRecord.working_numbers": {"minItems": 4, "maxItems": 4, "description": "Рабочие числа W1–W4; W3 бывает нулём или меньше нуля (его цифры берутся без знака)"},
					"SquareRecord.cells":           {"description": "Клетки «1»–«9»: цифры, их число, название клетки и краткое чтение; полные тексты — /square/meanings"},
					"SquareRecord.lines":           {"description": "Суммы строк, столбцов и диагоналей (число цифр в трёх клетках линии) по ключу линии; названия, клетки и чтения линий — /square/meanings"},
					"SquareRecord.source_url":      {"format": "uri", "description": "Страница с квадратом этой даты"},
					"SquareCell.digits":            {"pattern": "^(1+|2+|3+|4+|5+|6+|7+|8+|9+)?$", "description": "Цифра клетки столько раз, сколько она встречается; пустая строка — клетка пуста"},
					"SquareCell.count":             {"minimum": 0},
				})
				return out
			},
			encoder: func(s *Site) (encodeFunc, error) {
				e, err := newSquareEncoder(s)
				if err != nil {
					return nil, err
				}
				return func(dst []byte, v []int) ([]byte, error) { return e.Append(dst, v[0], v[1], v[2]) }, nil
			},
			pages:  func(p *pageRenderer) []page { return []page{p.squareDetailsPage()} },
			tables: []Table{squareTable()},
		},
	}
}

// squareRange holds the bounds the square's numbers take over the dates of the range.
type squareRange struct {
	working  [4][2]int // the least and the greatest W1–W4
	maxCount int       // the greatest count of any cell
}

// squareRanges computes the bounds once, from the rule over every date of the range.
var squareRanges = sync.OnceValue(func() squareRange {
	var r squareRange
	for i := range r.working {
		r.working[i] = [2]int{1 << 30, -1 << 30}
	}
	for y := rules.FirstYear; y <= rules.LastYear; y++ {
		for m := 1; m <= 12; m++ {
			for d := 1; d <= rules.DaysIn(m, y); d++ {
				sq := rules.ComputeSquare(d, m, y)
				for i, w := range sq.Working {
					r.working[i] = [2]int{min(r.working[i][0], w), max(r.working[i][1], w)}
				}
				for _, n := range sq.Counts {
					r.maxCount = max(r.maxCount, n)
				}
			}
		}
	}
	return r
})

// squareTable is square.csv: the working numbers and the count of every cell of each date.
func squareTable() Table {
	fields := []TableField{
		{Name: "date", Type: "date", Description: "Birth date, ISO 8601 (YYYY-MM-DD)", Unique: true},
		intField("day", "Day of the month", 1, 31),
		intField("month", "Month", 1, 12),
		intField("year", "Year", rules.FirstYear, rules.LastYear),
	}
	rg := squareRanges()
	for i, d := range []string{"the sum of the date's digits", "the sum of W1's digits", "W1 minus twice the first digit of the day; zero or below for some dates", "the sum of the digits of |W3|"} {
		fields = append(fields, intField("w"+strconv.Itoa(i+1), "Working number W"+strconv.Itoa(i+1)+": "+d, rg.working[i][0], rg.working[i][1]))
	}
	for c := 1; c <= 9; c++ {
		fields = append(fields, intField("c"+strconv.Itoa(c), "How often the digit "+strconv.Itoa(c)+" occurs in the date and W1–W4 (cell "+strconv.Itoa(c)+")", 0, rg.maxCount))
	}
	return Table{
		Name:        "square",
		Title:       "Pythagoras square of every birth date",
		Description: "One row per date: the working numbers W1–W4 and the count of each digit 1–9 (the cells of the square), as in api/public/square/{day}/{month}/{year}.json. Line sums are the sums of their cells' counts; the texts are in api/public/square/meanings.json.",
		Russian:     "квадрат Пифагора для каждой даты: дата ISO, день, месяц, год, рабочие числа W1–W4 и число цифр в клетках 1–9",
		Fields:      fields,
		PrimaryKey:  []string{"date"},
		Rows: func(vals []int, body []byte) ([][]string, error) {
			d, m, y, w, c, ok := scanSquare(body)
			if !ok {
				var r SquareRecord
				if err := json.Unmarshal(body, &r); err != nil {
					return nil, fmt.Errorf("not a square record: %w", err)
				}
				d, m, y, w = r.Input.Day, r.Input.Month, r.Input.Year, r.WorkingNumbers
				for i, cell := range r.Cells.All() {
					c[i] = cell.Count
				}
			}
			if d != vals[0] || m != vals[1] || y != vals[2] {
				return nil, fmt.Errorf("holds the record of %d.%d.%d", d, m, y)
			}
			row := make([]string, 0, 4+4+9)
			row = append(row, fmt.Sprintf("%04d-%02d-%02d", y, m, d), strconv.Itoa(d), strconv.Itoa(m), strconv.Itoa(y))
			for _, n := range w {
				row = append(row, strconv.Itoa(n))
			}
			for _, n := range c {
				row = append(row, strconv.Itoa(n))
			}
			return [][]string{row}, nil
		},
	}
}
