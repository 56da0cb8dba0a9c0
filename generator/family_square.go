package generator

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"maps"
	"strconv"
	"strings"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/calendar"
)

// The route names of the Pythagoras square (docs/design.md §14): its texts, and the square
// of a date.
const (
	RouteSquareMeanings = "square-meanings"
	RouteSquare         = "square"
)

// squareFamily is the route family of the Pythagoras square (docs/design.md §14): its texts, and the square of a date.
func squareFamily() []routeUnit {
	p := manifest.APIPrefix
	return []routeUnit{{
		row: manifest.Route{
			Name: RouteSquareMeanings, Pattern: p + "/square/meanings", File: "api/public/square/meanings.json",
			Summary:     "Тексты квадрата Пифагора",
			Description: "Тексты квадрата Пифагора: что означает каждая клетка и каждая линия, чтения по числу цифр и по силе линии",
			English:     "the Pythagoras square's texts: each cell and line described, a reading per count and per line band",
			Example:     p + "/square/meanings",
			OperationID: "getSquareMeanings", Tag: "square",
		},
		renderer: renderer{
			tag:  "Квадрат Пифагора (психоматрица) по дате рождения и его тексты",
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
			pages:  func(p *pageRenderer) []page { return []page{p.squarePage()} },
			tables: squareMeaningsTables,
		},
	}, {
		row: manifest.Route{
			Name: RouteSquare, Pattern: p + "/square/{day}/{month}/{year}", File: "api/public/square/{day}/{month}/{year}.json",
			Params: dateParams(), Packed: &manifest.Packed{File: "api/public/square-months/{year}/{month}.jsonl", Unit: manifest.UnitMonth},
			Error: manifest.ErrInvalidDate, RateLimited: true,
			Summary:     "Квадрат Пифагора для даты рождения",
			Description: fmt.Sprintf("Квадрат Пифагора (психоматрица) для даты рождения с %d по %d год: рабочие числа, девять клеток с краткими чтениями и суммы восьми линий", rules.FirstYear, rules.LastYear),
			English:     "the Pythagoras square (psychomatrix) of a birth date, " + yearsLabel() + ": working numbers, nine cells with short readings, the sums of the eight lines",
			Example:     p + "/square/15/5/1990",
			OperationID: "getSquare", Tag: "square",
		},
		renderer: renderer{
			goldens: [][]int{{9, 1, 2000}},

			maxBytes: 2816, // 2.75 KB (§14): the largest is 2,590 bytes, 266 of them the caveat every record carries

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
			tables: squareTables,
		},
	}}
}

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
			for d := 1; d <= calendar.DaysIn(m, y); d++ {
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

// squareTables is square: the working numbers, the count of every cell and the sum of every
// line of each date.
func squareTables() []Table {
	cols := dateColumns()
	rg := squareRanges()
	for i, d := range []string{"the sum of the date's digits", "the sum of W1's digits", "W1 minus twice the first digit of the day; zero or below for some dates", "the sum of the digits of |W3|"} {
		cols = append(cols, intColumn("w"+itoa(i+1), "Working number W"+itoa(i+1)+": "+d, rg.working[i][0], rg.working[i][1]))
	}
	for c := 1; c <= 9; c++ {
		cols = append(cols, intColumn("c"+itoa(c), "How often the digit "+itoa(c)+" occurs in the date and W1–W4 (cell "+itoa(c)+"); its reading is in square_cell_readings", 0, rg.maxCount))
	}
	for l, k := range rules.SquareLineKeys() {
		cells := rules.SquareLine(l).Cells()
		cols = append(cols, intColumn(k, fmt.Sprintf("Sum of the line %s: the counts of cells %d, %d and %d; its reading is in square_line_readings by its band (square_bands)", k, cells[0], cells[1], cells[2]), 0, 3*rg.maxCount))
	}
	return []Table{{&table.Table{
		Name:        "square",
		Title:       "Pythagoras square of every birth date",
		Description: "One row per date: the working numbers W1–W4, the count of each digit 1–9 (the cells of the square) and the sum of each line, as in " + route(RouteSquare).File + ". The texts are in the square_* tables.",
		Russian:     "квадрат Пифагора для каждой даты: дата ISO, день, месяц, год, рабочие числа W1–W4, число цифр в клетках 1–9 и суммы восьми линий",
		Columns:     cols,
		PrimaryKey:  []string{"date"},
	}, func(t *table.Table, vals []int, body []byte) error {
		d, m, y, w, c, ok := scanSquare(body)
		var sums [rules.NumSquareLines]int
		if ok {
			sums, ok = scanSquareLines(body)
		}
		if !ok {
			var r SquareRecord
			if err := json.Unmarshal(body, &r); err != nil {
				return fmt.Errorf("not a square record: %w", err)
			}
			d, m, y, w = r.Input.Day, r.Input.Month, r.Input.Year, r.WorkingNumbers
			for i, cell := range r.Cells.All() {
				c[i] = cell.Count
			}
			for i, s := range r.Lines.All() {
				sums[i] = *s
			}
		}
		if err := checkDate(vals, d, m, y); err != nil {
			return err
		}
		row := append(dateValues(d, m, y), ints(w[:]...)...)
		return t.Append(append(append(row, ints(c[:]...)...), ints(sums[:]...)...)...)
	}}}
}

// scanSquareLines reads the line sums of a square record as the generator writes it (the
// "lines" object, its keys in contract order); ok is false for anything unexpected.
func scanSquareLines(b []byte) (sums [rules.NumSquareLines]int, ok bool) {
	i := bytes.Index(b, []byte(`"lines":{`))
	if i < 0 {
		return sums, false
	}
	rest := b[i+len(`"lines":{`):]
	for l, k := range rules.SquareLineKeys() {
		sep := ","
		if l == 0 {
			sep = ""
		}
		if rest, ok = cutPrefix(rest, sep+`"`+k+`":`); !ok {
			return sums, false
		}
		if rest, ok = scanInt(rest, &sums[l]); !ok {
			return sums, false
		}
	}
	_, ok = cutPrefix(rest, "}")
	return sums, ok
}

// squareMeaningsTables are the square's texts, from /square/meanings: square_bands,
// square_cells, square_cell_readings, square_lines and square_line_readings.
func squareMeaningsTables() []Table {
	cell := func(desc string) table.Column { return intColumn("cell", desc, 1, 9) }
	bands := &table.Table{
		Name: "square_bands", Title: "The bands of a line's sum",
		Description: "How strong a line of the square is, by its sum: from min to max, both included; the last band has no max.",
		Russian:     "сила линии квадрата по сумме: полоса, от, до (у последней верхней границы нет)",
		Columns: []table.Column{
			{Name: "band", Type: table.Text, Description: "Band key", Unique: true},
			intColumn("min", "Smallest sum of the band", 0, 99),
			{Name: "max", Type: table.Integer, Description: "Largest sum of the band; none for the last", Min: 1, Max: 99, Nullable: true},
		},
		PrimaryKey: []string{"band"},
	}
	cells := &table.Table{
		Name: "square_cells", Title: "The cells of the Pythagoras square",
		Description: "Each cell 1–9: its place in the 3×3 grid as drawn, its name and what it means.",
		Russian:     "клетки квадрата: номер, строка и столбец в сетке, название, описание",
		Columns: []table.Column{
			{Name: "cell", Type: table.Integer, Description: "Cell: the digit it counts", Unique: true, Min: 1, Max: 9},
			intColumn("grid_row", "Row of the grid, from the top", 1, 3), intColumn("grid_column", "Column of the grid, from the left", 1, 3),
			textColumn("name", "Name (Russian)"), textColumn("description", "What the cell means (Russian)"),
		},
		PrimaryKey: []string{"cell"},
	}
	cellReadings := &table.Table{
		Name: "square_cell_readings", Title: "The readings of a cell's count",
		Description: "The short reading of each count a cell takes over the range: what a square record's cell says.",
		Russian:     "краткое чтение клетки для каждого числа цифр в ней",
		Columns:     []table.Column{cell("Cell; see square_cells"), intColumn("count", "How often the digit occurs", 0, 99), textColumn("reading", "Reading (Russian)")},
		PrimaryKey:  []string{"cell", "count"},
		ForeignKeys: []table.ForeignKey{{Column: "cell", Table: "square_cells", TableColumn: "cell"}},
	}
	lineCols := []table.Column{
		{Name: "line", Type: table.Text, Description: "Line key: a column of the square table", Unique: true},
		{Name: "position", Type: table.Integer, Description: "Place in the square record's lines, from 1", Unique: true, Min: 1, Max: rules.NumSquareLines},
		textColumn("name", "Name (Russian)"),
	}
	for i := range 3 {
		lineCols = append(lineCols, intColumn("cell_"+itoa(i+1), "Cell "+itoa(i+1)+" of the line's three", 1, 9))
	}
	lineCols = append(lineCols, textColumn("description", "What the line means (Russian)"))
	lineTable := &table.Table{
		Name: "square_lines", Title: "The lines of the Pythagoras square",
		Description: "Each of the eight lines (rows, columns, diagonals): its three cells, name and meaning.",
		Russian:     "линии квадрата: ключ (столбец таблицы square), порядок, название, три клетки, описание",
		Columns:     lineCols,
		PrimaryKey:  []string{"line"},
	}
	lineReadings := &table.Table{
		Name: "square_line_readings", Title: "The readings of a line's band",
		Description: "The reading of each line for each band of its sum.",
		Russian:     "чтение линии для каждой полосы её суммы",
		Columns:     []table.Column{{Name: "line", Type: table.Text, Description: "Line; see square_lines"}, {Name: "band", Type: table.Text, Description: "Band; see square_bands"}, textColumn("reading", "Reading (Russian)")},
		PrimaryKey:  []string{"line", "band"},
		ForeignKeys: []table.ForeignKey{{Column: "line", Table: "square_lines", TableColumn: "line"}, {Column: "band", Table: "square_bands", TableColumn: "band"}},
	}
	meanings := func(body []byte) (*SquareMeanings, error) {
		var m SquareMeanings
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("not the square's meanings: %w", err)
		}
		return &m, nil
	}
	fill := func(fn func(t *table.Table, m *SquareMeanings) error) func(*table.Table, []int, []byte) error {
		return func(t *table.Table, _ []int, body []byte) error {
			m, err := meanings(body)
			if err != nil {
				return err
			}
			return fn(t, m)
		}
	}
	return []Table{
		{bands, fill(func(t *table.Table, m *SquareMeanings) error {
			for i, b := range m.Bands {
				max := table.Int(b.Max)
				if i == len(m.Bands)-1 && b.Max == 0 {
					max = table.Null()
				}
				if err := t.Append(table.Str(b.Key), table.Int(b.Min), max); err != nil {
					return err
				}
			}
			return nil
		})},
		{cells, fill(func(t *table.Table, m *SquareMeanings) error {
			for _, c := range m.Cells {
				row, col := gridPlace(m.Layout, c.Cell)
				if row == 0 {
					return fmt.Errorf("cell %d is not in the layout", c.Cell)
				}
				if err := t.Append(table.Int(c.Cell), table.Int(row), table.Int(col), table.Str(c.Name), table.Str(c.Description)); err != nil {
					return err
				}
			}
			return nil
		})},
		{cellReadings, fill(func(t *table.Table, m *SquareMeanings) error {
			for _, c := range m.Cells {
				for _, r := range c.Readings {
					if err := t.Append(table.Int(c.Cell), table.Int(r.Count), table.Str(r.Reading)); err != nil {
						return err
					}
				}
			}
			return nil
		})},
		{lineTable, fill(func(t *table.Table, m *SquareMeanings) error {
			for i, l := range m.Lines {
				row := []table.Value{table.Str(l.Key), table.Int(i + 1), table.Str(l.Name)}
				row = append(append(row, ints(l.Cells[:]...)...), table.Str(l.Description))
				if err := t.Append(row...); err != nil {
					return err
				}
			}
			return nil
		})},
		{lineReadings, fill(func(t *table.Table, m *SquareMeanings) error {
			for _, l := range m.Lines {
				for b, text := range []string{l.Readings.Low, l.Readings.Medium, l.Readings.High} {
					if err := t.Append(table.Str(l.Key), table.Str(rules.Band(b).Key()), table.Str(text)); err != nil {
						return err
					}
				}
			}
			return nil
		})},
	}
}

// gridPlace is the row and column (from 1) of a cell in the layout, 0 when it is not there.
func gridPlace(layout [3][3]int, cell int) (row, col int) {
	for r, cells := range layout {
		for c, n := range cells {
			if n == cell {
				return r + 1, c + 1
			}
		}
	}
	return 0, 0
}

// squareEncoder renders square records by appending pieces encoded once: each cell for
// each count it takes, each line for each sum, the citation's text around its date and URL,
// and the attribution tail. TestSquareEncoderMatchesEncode holds its output
// byte-identical to Encode(s.SquareRecord) for every date of the range.
type squareEncoder struct {
	cells    [9][maxSquareCount + 1][]byte // `"c":{…}` of each count; nil: a count without a reading
	lines    [rules.NumSquareLines][]byte  // `"key":` of each line
	citation []squarePart
	tail     []byte // `",` + the attribution fields + "}\n"
	siteURL  string
}

// maxSquareCount bounds the count of a cell for any year up to 9999 (rules.Square.Digits).
const maxSquareCount = 16

// squarePart is a literal, JSON-escaped run of the citation, or the date ('d') or the
// details URL ('u').
type squarePart struct {
	lit  []byte
	kind byte
}

func newSquareEncoder(s *Site) (*squareEncoder, error) {
	if strings.ContainsAny(s.SiteURL, `"\<>&`) {
		return nil, fmt.Errorf("site url %q needs JSON escaping", s.SiteURL)
	}
	e := &squareEncoder{siteURL: s.SiteURL}
	texts := &s.Content.Square
	if len(texts.Cells) != 9 {
		return nil, fmt.Errorf("square: %d cells of texts, want 9", len(texts.Cells))
	}
	for i := range 9 {
		c := &texts.Cells[i]
		for n, reading := range c.Readings {
			if n < 0 || n > maxSquareCount {
				continue // a count no date has
			}
			b, err := jsonFragment(SquareCell{strings.Repeat(strconv.Itoa(i+1), n), n, c.Name, reading})
			if err != nil {
				return nil, err
			}
			e.cells[i][n] = append([]byte(`"`+strconv.Itoa(i+1)+`":`), b...)
		}
	}
	for l := range rules.NumSquareLines {
		e.lines[l] = []byte(`"` + rules.SquareLine(l).Key() + `":`)
	}
	// The citation, split at {date} and {url}: content holds no control characters, so a
	// NUL marks them.
	marked := strings.NewReplacer("{date}", "\x00d", "{url}", "\x00u").Replace(s.squareCitation(squareSubject))
	for i, piece := range strings.Split(marked, "\x00") {
		if i > 0 {
			e.citation = append(e.citation, squarePart{kind: piece[0]})
			piece = piece[1:]
		}
		if piece != "" {
			b, err := jsonFragment(piece)
			if err != nil {
				return nil, err
			}
			e.citation = append(e.citation, squarePart{lit: b[1 : len(b)-1]})
		}
	}
	tail, err := jsonFragment(s.attribution())
	if err != nil {
		return nil, err
	}
	e.tail = append(append([]byte(`",`), tail[1:]...), '\n') // tail[1:] drops the attribution's '{'; its '}' closes the record
	return e, nil
}

// Append appends the record of a valid date to dst.
func (e *squareEncoder) Append(dst []byte, day, month, year int) ([]byte, error) {
	sq := rules.ComputeSquare(day, month, year)
	dst = append(dst, `{"input":{"day":`...)
	dst = strconv.AppendInt(dst, int64(day), 10)
	dst = append(dst, `,"month":`...)
	dst = strconv.AppendInt(dst, int64(month), 10)
	dst = append(dst, `,"year":`...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	dst = append(dst, `},"working_numbers":[`...)
	for i, w := range sq.Working {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(w), 10)
	}
	dst = append(dst, `],"cells":{`...)
	for i, n := range sq.Counts {
		if n > maxSquareCount || e.cells[i][n] == nil {
			return dst, fmt.Errorf("square: cell %d has no reading for count %d", i+1, n)
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.cells[i][n]...)
	}
	dst = append(dst, `},"lines":{`...)
	for l, sum := range sq.Lines {
		if l > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.lines[l]...)
		dst = strconv.AppendInt(dst, int64(sum), 10)
	}
	dst = append(dst, `},"suggested_citation":"`...)
	for _, p := range e.citation {
		switch p.kind {
		case 'd':
			dst = appendPadded(dst, day)
			dst = append(dst, '.')
			dst = appendPadded(dst, month)
			dst = append(dst, '.')
			dst = strconv.AppendInt(dst, int64(year), 10)
		case 'u':
			dst = e.appendURL(dst, day, month, year)
		default:
			dst = append(dst, p.lit...)
		}
	}
	dst = append(dst, `","source_url":"`...)
	dst = e.appendURL(dst, day, month, year)
	return append(dst, e.tail...), nil
}

// appendURL appends the details page's URL of a date (Site.SquareDetailsURL).
func (e *squareEncoder) appendURL(dst []byte, day, month, year int) []byte {
	dst = append(dst, e.siteURL...)
	dst = append(dst, "/square/details?date="...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	dst = append(dst, '-')
	dst = appendPadded(dst, month)
	dst = append(dst, '-')
	return appendPadded(dst, day)
}

// appendPadded appends n (0–99) in two digits.
func appendPadded(dst []byte, n int) []byte { return append(dst, byte('0'+n/10), byte('0'+n%10)) }

// scanSquare reads the date, the working numbers and the nine counts of a square record
// as the generator writes it, without a full JSON parse. A key such as "count": cannot
// occur inside a JSON string, whose quotes are escaped. ok is false for anything
// unexpected; the caller then parses the record.
func scanSquare(b []byte) (d, m, y int, w [4]int, counts [9]int, ok bool) {
	rest, ok := cutPrefix(b, `{"input":{"day":`)
	fields := []struct {
		after string
		dst   *int
	}{{`,"month":`, &d}, {`,"year":`, &m}, {`},"working_numbers":[`, &y}, {`,`, &w[0]}, {`,`, &w[1]}, {`,`, &w[2]}, {`],"cells":{`, &w[3]}}
	for _, f := range fields {
		if !ok {
			return
		}
		if rest, ok = scanSigned(rest, f.dst); ok {
			rest, ok = cutPrefix(rest, f.after)
		}
	}
	for i := range counts {
		j := bytes.Index(rest, countKey)
		if !ok || j < 0 {
			return d, m, y, w, counts, false
		}
		if rest, ok = scanSigned(rest[j+len(countKey):], &counts[i]); ok && counts[i] < 0 {
			ok = false
		}
	}
	return d, m, y, w, counts, ok
}

var countKey = []byte(`"count":`)

// cutPrefix is bytes.CutPrefix with a string prefix.
func cutPrefix(b []byte, prefix string) ([]byte, bool) {
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return b, false
	}
	return b[len(prefix):], true
}

// scanSigned reads a decimal of at most 4 digits, with an optional minus sign.
func scanSigned(b []byte, dst *int) ([]byte, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	rest, ok := scanInt(b, dst)
	if ok && neg {
		*dst = -*dst
	}
	return rest, ok
}

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
		MeaningsAPI: RoutePath(RouteSquareMeanings),
		Citation:    m.SuggestedCitation,
		Example: squareExample{
			Date: fmt.Sprintf("%02d.%02d.%d", d, mo, y), ISO: fmt.Sprintf("%d-%02d-%02d", y, mo, d),
			APIPath: RoutePath(RouteSquare, d, mo, y),
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
		ld := squareLineDoc{Key: l.Key, Name: l.Name, Cells: strings.Join(cells, ", "), Description: l.Description}
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
			d.Page, err = p.squareDocOf()
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
		fill: func(d *pageData) error {
			doc, err := p.squareDocOf()
			if err != nil {
				return err
			}
			d.Page = doc
			doc.JSON, err = p.squareJSON(doc)
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
