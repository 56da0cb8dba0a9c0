package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"strconv"
	"strings"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/generator/rules"
)

// The route names of the destiny matrix (docs/design.md §6): the matrix of a date, and its
// 12 positions.
const (
	RouteMatrix    = "matrix"
	RoutePositions = "positions"
)

// matrixFamily is the route family of the destiny matrix of a date (docs/design.md §6) and its 12 positions.
func matrixFamily() []routeUnit {
	p := manifest.APIPrefix
	return []routeUnit{{
		row: manifest.Route{
			Name: RouteMatrix, Pattern: p + "/matrix/{day}/{month}/{year}", File: "api/public/matrix/{day}/{month}/{year}.json",
			Params: dateParams(), Packed: &manifest.Packed{File: "api/public/matrix-months/{year}/{month}.jsonl", Unit: manifest.UnitMonth},
			Error: manifest.ErrInvalidDate, RateLimited: true,
			Summary:     "Матрица судьбы для даты рождения",
			Description: fmt.Sprintf("Матрица судьбы для даты рождения с %d по %d год", rules.FirstYear, rules.LastYear),
			English:     "the destiny matrix of a birth date, " + yearsLabel(),
			Example:     p + "/matrix/15/5/1990",
			OperationID: "getMatrix", Tag: "matrix",
		},
		renderer: renderer{
			tag:     "Матрица судьбы по дате рождения и её 12 позиций",
			goldens: [][]int{{29, 2, 2000}},

			maxBytes: 2816, // the largest is about 2,500 bytes, 266 of them the caveat

			body: MatrixRecord{},
			fields: func(*Site) map[string]obj {
				return map[string]obj{
					"MatrixRecord.details_url": {"format": "uri", "description": "Страница с расшифровкой этой даты"},
					"MatrixCell.arcana":        {"minimum": 1, "maximum": 22, "description": "Номер старшего аркана"},
					"MatrixCell.emoji":         {"minLength": 1},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) {
				e, err := newMatrixEncoder(s)
				if err != nil {
					return nil, err
				}
				return func(dst []byte, v []int) ([]byte, error) { return e.Append(dst, v[0], v[1], v[2]), nil }, nil
			},
			pages:  func(p *pageRenderer) []page { return p.matrixPages() },
			tables: matrixTables,
		},
	}, {
		row: manifest.Route{
			Name: RoutePositions, Pattern: p + "/positions", File: "api/public/positions.json",
			Summary:     "12 позиций матрицы судьбы",
			Description: "12 позиций матрицы судьбы: ключ в записи матрицы, название и описание",
			English:     "the 12 positions of the destiny matrix: the record's key, Russian title and description",
			Example:     p + "/positions",
			OperationID: "listPositions", Tag: "matrix",
		},
		renderer: renderer{
			body: PositionsList{},
			fields: func(*Site) map[string]obj {
				return map[string]obj{
					"PositionsList.positions":  {"minItems": rules.NumPositions, "maxItems": rules.NumPositions, "description": "12 позиций в порядке записи матрицы"},
					"PositionItem.key":         {"enum": rules.PositionKeys(), "description": "Ключ позиции в поле matrix записи матрицы"},
					"PositionItem.description": {"minLength": 1},
				}
			},
			encoder: func(s *Site) (encodeFunc, error) { return encodeOnce(s.PositionsList()) },
			tables:  positionsTables,
		},
	}}
}

// matrixEncoder renders matrix records without encoding a MatrixRecord each time: every piece
// that does not depend on the date (the 22 cells, the keys, the attribution tail, the
// citation's text) is encoded once with Encode, and a record is assembled by appending.
// TestMatrixEncoderMatchesEncode holds its output byte-identical to Encode(s.MatrixRecord).
type matrixEncoder struct {
	cells    [23][]byte // cells[a]: `{"arcana":a,…}`
	keys     [rules.NumPositions][]byte
	citation []citationPart
	source   []byte // `"source_url":"…","details_url":"` up to the date
	tail     []byte // `","license":…}` + "\n"
	siteURL  string
}

// citationPart is a literal, JSON-escaped run of the citation or a dynamic value.
type citationPart struct {
	lit  []byte
	kind byte // 0 literal, 'd' date DD.MM.YYYY, 'u' details URL
}

func newMatrixEncoder(s *Site) (*matrixEncoder, error) {
	e := &matrixEncoder{siteURL: s.SiteURL}
	for _, a := range s.Content.Arcana {
		b, err := jsonFragment(MatrixCell{a.Number, a.Name, a.Keyword, a.Emoji})
		if err != nil {
			return nil, err
		}
		e.cells[a.Number] = b
	}
	for p, k := range rules.PositionKeys() {
		e.keys[p] = []byte(`"` + k + `":`)
	}
	// The citation template, with {version} filled in, split at {date} and {url}. Dates and
	// URLs built from a checked site URL and digits need no JSON escaping.
	tpl := strings.ReplaceAll(s.citationMatrix, "{version}", manifest.APIVersion)
	for tpl != "" {
		i := strings.IndexAny(tpl, "{")
		if i < 0 || (!strings.HasPrefix(tpl[i:], "{date}") && !strings.HasPrefix(tpl[i:], "{url}")) {
			j := len(tpl)
			if i >= 0 {
				j = i + 1
			}
			if err := e.addLiteral(tpl[:j]); err != nil {
				return nil, err
			}
			tpl = tpl[j:]
			continue
		}
		if err := e.addLiteral(tpl[:i]); err != nil {
			return nil, err
		}
		if strings.HasPrefix(tpl[i:], "{date}") {
			e.citation = append(e.citation, citationPart{kind: 'd'})
			tpl = tpl[i+len("{date}"):]
		} else {
			e.citation = append(e.citation, citationPart{kind: 'u'})
			tpl = tpl[i+len("{url}"):]
		}
	}
	src, err := jsonFragment(s.MatrixSourceURL())
	if err != nil {
		return nil, err
	}
	e.source = append(append([]byte(`,"source_url":`), src...), `,"details_url":"`...)
	tail, err := jsonFragment(s.attribution())
	if err != nil {
		return nil, err
	}
	e.tail = append(append([]byte(`",`), tail[1:]...), '\n') // tail[1:] drops the attribution's '{'; its '}' closes the record
	if strings.ContainsAny(s.SiteURL, `"\<>&`) {
		return nil, fmt.Errorf("site url %q needs JSON escaping", s.SiteURL)
	}
	return e, nil
}

// addLiteral appends a JSON-escaped run of text (without quotes) to the citation.
func (e *matrixEncoder) addLiteral(text string) error {
	if text == "" {
		return nil
	}
	b, err := jsonFragment(text)
	if err != nil {
		return err
	}
	e.citation = append(e.citation, citationPart{lit: b[1 : len(b)-1]})
	return nil
}

// Append appends the record of a valid date to dst.
func (e *matrixEncoder) Append(dst []byte, day, month, year int) []byte {
	dst = append(dst, `{"input":{"day":`...)
	dst = strconv.AppendInt(dst, int64(day), 10)
	dst = append(dst, `,"month":`...)
	dst = strconv.AppendInt(dst, int64(month), 10)
	dst = append(dst, `,"year":`...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	dst = append(dst, `},"matrix":{`...)
	m := rules.ComputeMatrix(day, month, year)
	for p, a := range m {
		if p > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.keys[p]...)
		dst = append(dst, e.cells[a]...)
	}
	dst = append(dst, `},"suggested_citation":"`...)
	for _, part := range e.citation {
		switch part.kind {
		case 'd':
			dst = appendDate(dst, day, month, year)
		case 'u':
			dst = e.appendDetailsURL(dst, day, month, year)
		default:
			dst = append(dst, part.lit...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, e.source...)
	dst = e.appendDetailsURL(dst, day, month, year)
	return append(dst, e.tail...)
}

func (e *matrixEncoder) appendDetailsURL(dst []byte, day, month, year int) []byte {
	dst = append(dst, e.siteURL...)
	dst = append(dst, "/matrix/details?date="...)
	dst = append4(dst, year)
	dst = append(dst, '-')
	dst = append2(dst, month)
	dst = append(dst, '-')
	return append2(dst, day)
}

type positionDoc struct {
	Key     string `json:"key"`
	Title   string `json:"title"`
	Meaning string `json:"meaning"`
}

type arcanumDoc struct {
	Number                            int
	Name, Keyword, Emoji, Description string
}

// matrixDoc is what the matrix pages show: the positions and the arcana, or the data the
// details page's script draws a date with.
type matrixDoc struct {
	Positions   []positionDoc
	Arcana      []arcanumDoc
	DetailsJSON htmltemplate.JS
}

// matrixPages are the matrix page (positions and arcana) and the details page of a date.
func (p *pageRenderer) matrixPages() []page {
	site := p.s.Content.Site.Title
	return []page{
		{file: MatrixPage, template: "matrix.html", path: "/matrix", indexed: true,
			card:        cards.Card{Title: "Матрица судьбы"},
			title:       "Матрица судьбы — " + site,
			description: "Матрица судьбы по дате рождения: 12 позиций и 22 старших аркана.",
			fill: func(d *pageData) error {
				d.Page = &matrixDoc{Positions: p.positionDocs(), Arcana: p.arcanumDocs()}
				return nil
			}},
		// The details page shows any date through its query string and draws it in the browser:
		// one URL per date would be 73,414 thin pages, so the sitemap leaves it out.
		{file: DetailsPage, template: "details.html", path: "/matrix/details",
			card:        cards.Card{Title: "Расшифровка матрицы судьбы"},
			title:       "Расшифровка матрицы судьбы — " + site,
			description: "Матрица судьбы для выбранной даты рождения: 12 позиций с арканами и их значениями.",
			fill: func(d *pageData) error {
				js, err := p.detailsJSON()
				d.Page = &matrixDoc{DetailsJSON: js}
				return err
			}},
	}
}

func (p *pageRenderer) title(key string) string {
	for _, pos := range p.s.Content.Positions {
		if pos.Key == key {
			return pos.Title
		}
	}
	return key
}

// ruleLines spells the matrix rule of docs/design.md §6 with the positions' Russian titles.
func (p *pageRenderer) ruleLines() []ruleLine {
	t := p.title
	return []ruleLine{
		{t("personal") + " (A)", "= R(день рождения)"},
		{t("talents") + " (B)", "= R(месяц рождения)"},
		{t("money") + " (C)", "= R(сумма цифр года)"},
		{t("karma") + " (D)", "= R(A + B + C)"},
		{t("center") + " (E)", "= R(A + B + C + D)"},
		{t("soul"), "= R(B + E)"},
		{t("spirit"), "= R(B + D)"},
		{t("body"), "= R(A + C)"},
		{t("purpose"), "= R(" + t("spirit") + " + " + t("body") + ")"},
		{t("relationships") + " (H)", "= R(C + D)"},
		{t("social"), "= R(R(F + H) + R(G + I)), где F = R(A + B), G = R(B + C), I = R(D + A)"},
		{t("destiny"), "= R(" + t("purpose") + " + " + t("social") + ")"},
	}
}

func (p *pageRenderer) positionDocs() []positionDoc {
	out := make([]positionDoc, len(p.s.Content.Positions))
	for i, pos := range p.s.Content.Positions {
		out[i] = positionDoc{pos.Key, pos.Title, strings.TrimSpace(pos.Meaning)}
	}
	return out
}

func (p *pageRenderer) arcanumDocs() []arcanumDoc {
	out := make([]arcanumDoc, len(p.s.Content.Arcana))
	for i, a := range p.s.Content.Arcana {
		out[i] = arcanumDoc{a.Number, a.Name, a.Keyword, a.Emoji, strings.TrimSpace(a.Description)}
	}
	return out
}

// diagramGroup is one group of cells of the details page's diagram.
type diagramGroup struct {
	Name    string   `json:"name"`
	Label   string   `json:"label"`
	Caption string   `json:"caption,omitempty"`
	Keys    []string `json:"keys"`
}

// detailsCell is what the details page shows of one arcanum in a diagram cell.
type detailsCell struct {
	Name    string `json:"name"`
	Keyword string `json:"keyword"`
	Emoji   string `json:"emoji"`
}

// detailsJSON is the data the details page's script reads: position titles and meanings,
// the arcana, the diagram's layout and the texts it needs. With it the page draws the
// matrix of a date at once (docs/design.md §6) and only checks it against the API record,
// so nothing moves when the record arrives.
func (p *pageRenderer) detailsJSON() (htmltemplate.JS, error) {
	arcana := make([]string, len(p.s.Content.Arcana))
	cells := make([]detailsCell, len(p.s.Content.Arcana))
	for i, a := range p.s.Content.Arcana {
		arcana[i] = strings.TrimSpace(a.Description)
		cells[i] = detailsCell{a.Name, a.Keyword, a.Emoji}
	}
	v := struct {
		SiteTitle    string         `json:"siteTitle"`
		SiteURL      string         `json:"siteURL"`
		SupportEmail string         `json:"supportEmail"`
		FirstYear    int            `json:"firstYear"`
		LastYear     int            `json:"lastYear"`
		RateLimit    int            `json:"rateLimit"`
		Citation     string         `json:"citation"` // {date} and {url} left to fill
		Attribution  string         `json:"attribution"`
		Positions    []positionDoc  `json:"positions"`
		Arcana       []string       `json:"arcana"`
		Cells        []detailsCell  `json:"cells"`
		Layout       []diagramGroup `json:"layout"`
	}{
		SiteTitle:    p.s.Content.Site.Title,
		SiteURL:      p.s.SiteURL,
		SupportEmail: p.s.Content.Site.SupportEmail,
		FirstYear:    rules.FirstYear,
		LastYear:     rules.LastYear,
		RateLimit:    p.base.RateLimit.Requests,
		Citation:     strings.ReplaceAll(p.s.citationMatrix, "{version}", manifest.APIVersion),
		Attribution:  p.s.Attribution,
		Positions:    p.positionDocs(),
		Arcana:       arcana,
		Cells:        cells,
		Layout: []diagramGroup{
			{Name: "square", Label: "Основа матрицы", Caption: "Основа: день, месяц, год и их сочетания",
				Keys: []string{"soul", "talents", "spirit", "personal", "center", "money", "body", "karma", "relationships"}},
			{Name: "results", Label: "Итоговые позиции", Caption: "Итог: роль среди людей, миссия и предназначение",
				Keys: []string{"social", "purpose", "destiny"}},
		},
	}
	// goccy/go-json escapes <, > and & by default, so the JSON cannot close the script element.
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode details page data: %w", err)
	}
	return htmltemplate.JS(b), nil
}

// MatrixSourceURL is the human page of the matrix.
func (s *Site) MatrixSourceURL() string { return s.SiteURL + "/matrix" }

// MatrixDetailsURL is the human page of one date's matrix.
func (s *Site) MatrixDetailsURL(day, month, year int) string {
	return fmt.Sprintf("%s/matrix/details?date=%04d-%02d-%02d", s.SiteURL, year, month, day)
}

// MatrixCell is one position of a matrix record.
type MatrixCell struct {
	Arcana  int    `json:"arcana"`
	Name    string `json:"name"`
	Keyword string `json:"keyword"`
	Emoji   string `json:"emoji"`
}

// MatrixPositions holds the 12 positions, in contract order.
type MatrixPositions struct {
	Personal      MatrixCell `json:"personal"`
	Social        MatrixCell `json:"social"`
	Soul          MatrixCell `json:"soul"`
	Body          MatrixCell `json:"body"`
	Spirit        MatrixCell `json:"spirit"`
	Center        MatrixCell `json:"center"`
	Talents       MatrixCell `json:"talents"`
	Karma         MatrixCell `json:"karma"`
	Money         MatrixCell `json:"money"`
	Relationships MatrixCell `json:"relationships"`
	Destiny       MatrixCell `json:"destiny"`
	Purpose       MatrixCell `json:"purpose"`
}

// Cells returns pointers to the positions, indexed by rules.Position.
func (p *MatrixPositions) Cells() [rules.NumPositions]*MatrixCell {
	return [rules.NumPositions]*MatrixCell{
		&p.Personal, &p.Social, &p.Soul, &p.Body, &p.Spirit, &p.Center,
		&p.Talents, &p.Karma, &p.Money, &p.Relationships, &p.Destiny, &p.Purpose,
	}
}

// MatrixRecord is the body of /matrix/{d}/{m}/{y}.
type MatrixRecord struct {
	Input             DateInput       `json:"input"`
	Matrix            MatrixPositions `json:"matrix"`
	SuggestedCitation string          `json:"suggested_citation"`
	SourceURL         string          `json:"source_url"`
	DetailsURL        string          `json:"details_url"`
	attribution
}

// MatrixRecord builds the record of one valid date.
func (s *Site) MatrixRecord(day, month, year int) MatrixRecord {
	r := MatrixRecord{
		Input:             DateInput{day, month, year},
		SuggestedCitation: s.matrixCitation(day, month, year),
		SourceURL:         s.MatrixSourceURL(),
		DetailsURL:        s.MatrixDetailsURL(day, month, year),
		attribution:       s.attribution(),
	}
	m := rules.ComputeMatrix(day, month, year)
	for p, c := range r.Matrix.Cells() {
		a := &s.Content.Arcana[m[p]-1]
		*c = MatrixCell{a.Number, a.Name, a.Keyword, a.Emoji}
	}
	return r
}

func (s *Site) matrixCitation(day, month, year int) string {
	return strings.NewReplacer(
		"{date}", fmt.Sprintf("%02d.%02d.%04d", day, month, year),
		"{version}", manifest.APIVersion,
		"{url}", s.MatrixDetailsURL(day, month, year),
	).Replace(s.citationMatrix)
}

// PositionsSourceURL is the human page of the positions: their section of the matrix page.
func (s *Site) PositionsSourceURL() string { return s.MatrixSourceURL() + "#positions" }

// PositionItem is one position of /positions.
type PositionItem struct {
	Key         string `json:"key"` // its key in a matrix record's "matrix"
	Title       string `json:"title"`
	Description string `json:"description"`
}

// PositionsList is the body of /positions: the 12 positions in the matrix record's order.
type PositionsList struct {
	Positions         []PositionItem `json:"positions"`
	SourceURL         string         `json:"source_url"`
	SuggestedCitation string         `json:"suggested_citation"`
	attribution
}

// PositionsList builds the body of /positions.
func (s *Site) PositionsList() PositionsList {
	l := PositionsList{
		SourceURL:         s.PositionsSourceURL(),
		SuggestedCitation: s.cite("Позиции матрицы судьбы", s.PositionsSourceURL()),
		attribution:       s.attribution(),
	}
	for _, p := range s.Content.Positions {
		l.Positions = append(l.Positions, PositionItem{p.Key, p.Title, strings.TrimSpace(p.Meaning)})
	}
	return l
}

// positionsTables is positions: the 12 positions, from /positions.
func positionsTables() []Table {
	return []Table{{&table.Table{
		Name:        "positions",
		Title:       "The 12 positions of the destiny matrix",
		Description: "Key, Russian title and description of each position, in the order of the matrix table's columns, as in " + route(RoutePositions).File + ".",
		Russian:     "позиции матрицы: номер по порядку, ключ (столбец таблицы matrix), название, описание",
		Columns: []table.Column{
			{Name: "key", Type: table.Text, Description: "Position key: a column of the matrix table", Unique: true},
			{Name: "position", Type: table.Integer, Description: "Place in the matrix record, from 1", Unique: true, Min: 1, Max: rules.NumPositions},
			textColumn("title", "Title (Russian)"), textColumn("description", "Description (Russian)"),
		},
		PrimaryKey: []string{"key"},
	}, func(t *table.Table, _ []int, body []byte) error {
		var l PositionsList
		if err := json.Unmarshal(body, &l); err != nil {
			return fmt.Errorf("not the positions: %w", err)
		}
		for i, p := range l.Positions {
			if err := t.Append(table.Str(p.Key), table.Int(i+1), table.Str(p.Title), table.Str(p.Description)); err != nil {
				return err
			}
		}
		return nil
	}}}
}

// matrixTables is matrix: the date and the arcana of the 12 positions, a row a date.
func matrixTables() []Table {
	cols := dateColumns()
	var fks []table.ForeignKey
	for _, k := range rules.PositionKeys() {
		cols = append(cols, intColumn(k, "Arcanum (1–22) of the matrix position "+k+"; see arcana and positions", 1, 22))
		fks = append(fks, table.ForeignKey{Column: k, Table: "arcana", TableColumn: "number"})
	}
	return []Table{{&table.Table{
		Name:        "matrix",
		Title:       "Destiny matrix of every birth date",
		Description: "One row per date: the arcanum of each of the 12 positions, in the order of the API's matrix record, as in " + route(RouteMatrix).File + ". The arcana's names and texts are in arcana, the positions' in positions.",
		Russian:     "матрица судьбы для каждой даты: дата ISO, день, месяц, год и номера арканов 12 позиций в порядке API",
		Columns:     cols,
		PrimaryKey:  []string{"date"},
		ForeignKeys: fks,
	}, func(t *table.Table, vals []int, body []byte) error {
		d, m, y, arcana, ok := scanMatrix(body)
		if !ok {
			var r MatrixRecord
			if err := json.Unmarshal(body, &r); err != nil {
				return fmt.Errorf("not a matrix record: %w", err)
			}
			d, m, y = r.Input.Day, r.Input.Month, r.Input.Year
			for p, c := range r.Matrix.Cells() {
				arcana[p] = c.Arcana
			}
		}
		if err := checkDate(vals, d, m, y); err != nil {
			return err
		}
		for _, a := range arcana {
			if a < 1 || a > 22 {
				return fmt.Errorf("arcanum %d is outside 1–22", a)
			}
		}
		return t.Append(append(dateValues(d, m, y), ints(arcana[:]...)...)...)
	}}}
}

// scanMatrix reads the date and the 12 arcana numbers of a matrix record as the generator
// writes it, without a full JSON parse (which costs more than gzip'ing the record). A key
// pattern such as "social":{"arcana": cannot occur inside a JSON string, whose quotes are
// escaped. ok is false for anything unexpected; the caller then parses the record.
func scanMatrix(b []byte) (d, m, y int, arcana [rules.NumPositions]int, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"input":{"day":`))
	if !ok {
		return
	}
	fields := []struct {
		after string
		dst   *int
	}{{`,"month":`, &d}, {`,"year":`, &m}, {`},"matrix":{`, &y}}
	for _, f := range fields {
		if rest, ok = scanInt(rest, f.dst); !ok {
			return
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(f.after)); !ok {
			return
		}
	}
	for p, pat := range positionPatterns {
		i := bytes.Index(rest, pat)
		if i < 0 || (p == 0 && i != 0) {
			return d, m, y, arcana, false
		}
		if rest, ok = scanInt(rest[i+len(pat):], &arcana[p]); !ok {
			return
		}
	}
	return d, m, y, arcana, true
}

// positionPatterns are the keys of the 12 positions as they start a cell.
var positionPatterns = func() (pats [rules.NumPositions][]byte) {
	for p, key := range rules.PositionKeys() {
		pats[p] = []byte(`"` + key + `":{"arcana":`)
	}
	return pats
}()

// The matrix page (positions and arcana) and the details page of a date.
const (
	MatrixPage  = "matrix.html"
	DetailsPage = "matrix/details.html"
)
