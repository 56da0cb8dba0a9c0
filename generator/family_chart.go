package generator

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/generator/rules"
)

// The route names of the full matrix chart (docs/design.md §15).
const (
	RouteChartMeanings = "chart-meanings"
	RouteChart         = "chart"
)

// chartFamily is the route family of the full matrix chart (docs/design.md §15): its texts,
// and the chart of a date.
func chartFamily() []routeUnit {
	p := manifest.APIPrefix
	return []routeUnit{{
		row: manifest.Route{
			Name: RouteChartMeanings, Pattern: p + "/chart/meanings", File: "api/public/chart/meanings.json",
			Summary:     "Тексты полной карты матрицы судьбы",
			Description: "Тексты полной карты матрицы судьбы: что означает каждая зона карты, и чтения арканов в денежном канале, канале отношений и кармическом хвосте",
			English:     "the full destiny-matrix chart's texts: what each zone means, and a reading of each arcanum in the money channel, the love channel and the karmic tail",
			Example:     p + "/chart/meanings",
			OperationID: "getChartMeanings", Tag: "chart",
		},
		renderer: renderer{
			tag:    "Полная карта матрицы судьбы по дате рождения и её тексты",
			body:   ChartMeanings{},
			fields: chartMeaningsFields,
			encoder: func(s *Site) (encodeFunc, error) {
				m, err := s.ChartMeanings()
				if err != nil {
					return nil, err
				}
				return encodeOnce(m)
			},
			pages:  func(p *pageRenderer) []page { return []page{p.chartPage()} },
			tables: chartMeaningsTables,
		},
	}, {
		row: manifest.Route{
			Name: RouteChart, Pattern: p + "/chart/{day}/{month}/{year}", File: "api/public/chart/{day}/{month}/{year}.json",
			Params: dateParams(), Packed: &manifest.Packed{File: "api/public/chart-months/{year}/{month}.jsonl", Unit: manifest.UnitMonth},
			Error: manifest.ErrInvalidDate, RateLimited: true,
			Summary:     "Полная карта матрицы судьбы для даты рождения",
			Description: fmt.Sprintf("Полная карта матрицы судьбы (метод Н. Ладини) для даты рождения с %d по %d год: 28 точек звезды, денежный канал и канал отношений, восемь предназначений, кармический хвост, линия талантов, карта чакр и линия возраста — номерами арканов", rules.FirstYear, rules.LastYear),
			English:     "the full destiny-matrix chart (N. Ladini's method) of a birth date, " + yearsLabel() + ": the octagram's 28 points, the money and love channels, eight purposes, the karmic tail, talents, the chakra map and the age line, as arcana numbers",
			Example:     p + "/chart/11/7/1996",
			OperationID: "getChart", Tag: "chart",
		},
		renderer: renderer{
			maxBytes: 4096, // issue 28: a record of at most 4 KB (TestChartRecordSize)
			goldens:  [][]int{{1, 1, 1900}, {29, 2, 2000}},

			body:   ChartRecord{},
			fields: chartRecordFields,
			encoder: func(s *Site) (encodeFunc, error) {
				e, err := newChartEncoder(s)
				if err != nil {
					return nil, err
				}
				return func(dst []byte, v []int) ([]byte, error) { return e.Append(dst, v[0], v[1], v[2]) }, nil
			},
			pages:  func(p *pageRenderer) []page { return []page{p.chartDetailsPage()} },
			tables: chartTables,
		},
	}}
}

// ChartRecord is the body of /chart/{d}/{m}/{y}: numbers only (docs/design.md §15). The
// arcana's names and texts are in /arcana, the zones' in /chart/meanings.
type ChartRecord struct {
	Input        DateInput         `json:"input"`
	Method       string            `json:"method"` // rules.ChartMethod
	Points       ChartPoints       `json:"points"`
	Channels     ChartChannels     `json:"channels"`
	Purposes     ChartPurposes     `json:"purposes"`
	KarmicTail   [3]int            `json:"karmic_tail"` // D, D1, D2
	Talents      [3]int            `json:"talents"`     // B, B1, B2
	Chakras      [7]ChartChakra    `json:"chakras"`     // top to bottom
	ChakraTotals ChartChakraTotals `json:"chakra_totals"`
	AgeLine      [64]ChartAgePoint `json:"age_line"` // ascending age
	// SuggestedCitation and SourceURL: the details page of the date.
	SuggestedCitation string `json:"suggested_citation"`
	SourceURL         string `json:"source_url"`
	attribution
}

// ChartPoints are the octagram's 28 points, keyed by their letters (rules.ChartPoint).
type ChartPoints struct {
	A  int `json:"A"`
	B  int `json:"B"`
	C  int `json:"C"`
	D  int `json:"D"`
	E  int `json:"E"`
	F  int `json:"F"`
	G  int `json:"G"`
	H  int `json:"H"`
	I  int `json:"I"`
	A1 int `json:"A1"`
	A2 int `json:"A2"`
	B1 int `json:"B1"`
	B2 int `json:"B2"`
	C1 int `json:"C1"`
	C2 int `json:"C2"`
	D1 int `json:"D1"`
	D2 int `json:"D2"`
	F1 int `json:"F1"`
	F2 int `json:"F2"`
	G1 int `json:"G1"`
	G2 int `json:"G2"`
	H1 int `json:"H1"`
	H2 int `json:"H2"`
	I1 int `json:"I1"`
	I2 int `json:"I2"`
	A3 int `json:"A3"`
	B3 int `json:"B3"`
	U  int `json:"U"`
}

// All returns pointers to the points, indexed by rules.ChartPoint.
func (p *ChartPoints) All() [rules.NumChartPoints]*int {
	return [rules.NumChartPoints]*int{
		&p.A, &p.B, &p.C, &p.D, &p.E, &p.F, &p.G, &p.H, &p.I,
		&p.A1, &p.A2, &p.B1, &p.B2, &p.C1, &p.C2, &p.D1, &p.D2,
		&p.F1, &p.F2, &p.G1, &p.G2, &p.H1, &p.H2, &p.I1, &p.I2,
		&p.A3, &p.B3, &p.U,
	}
}

// ChartChannels are the money and love channels (rules.ChartChannel).
type ChartChannels struct {
	MoneyEntry        int `json:"money_entry"`
	RelationshipEntry int `json:"relationship_entry"`
	Balance           int `json:"balance"`
	Money             int `json:"money"`
	Love              int `json:"love"`
}

// All returns pointers to the channels, indexed by rules.ChartChannel.
func (c *ChartChannels) All() [rules.NumChartChannels]*int {
	return [rules.NumChartChannels]*int{&c.MoneyEntry, &c.RelationshipEntry, &c.Balance, &c.Money, &c.Love}
}

// ChartPurposes are the eight purposes (rules.ChartPurpose).
type ChartPurposes struct {
	Sky       int `json:"sky"`
	Earth     int `json:"earth"`
	Personal  int `json:"personal"`
	Male      int `json:"male"`
	Female    int `json:"female"`
	Social    int `json:"social"`
	Spiritual int `json:"spiritual"`
	Planetary int `json:"planetary"`
}

// All returns pointers to the purposes, indexed by rules.ChartPurpose.
func (p *ChartPurposes) All() [rules.NumChartPurposes]*int {
	return [rules.NumChartPurposes]*int{&p.Sky, &p.Earth, &p.Personal, &p.Male, &p.Female, &p.Social, &p.Spiritual, &p.Planetary}
}

// ChartChakra is one row of the chakra map.
type ChartChakra struct {
	Key      string `json:"key"`
	Physical int    `json:"physical"`
	Energy   int    `json:"energy"`
	Emotions int    `json:"emotions"`
}

// ChartChakraTotals are the reduced sums of the chakra map's columns.
type ChartChakraTotals struct {
	Physical int `json:"physical"`
	Energy   int `json:"energy"`
	Emotions int `json:"emotions"`
}

// ChartAgePoint is one point of the age line: an age in years and its arcanum.
type ChartAgePoint struct {
	Age    float64 `json:"age"`
	Arcana int     `json:"arcana"`
}

// chartValueCount is the number of arcana in a chart: 28 points, 5 channels, 8 purposes,
// the tail and the talents (3 each), the chakra map (7 × 3) with its totals (3), and the
// 64 points of the age line.
const chartValueCount = rules.NumChartPoints + rules.NumChartChannels + rules.NumChartPurposes + 3 + 3 +
	rules.NumChakras*rules.NumChakraColumns + rules.NumChakraColumns + rules.AgeLinePoints

// chartValues lists a chart's arcana in the order its record writes them.
func chartValues(c *rules.Chart) [chartValueCount]uint8 {
	var v [chartValueCount]uint8
	n := copy(v[:], c.Points[:])
	n += copy(v[n:], c.Channels[:])
	n += copy(v[n:], c.Purposes[:])
	n += copy(v[n:], c.KarmicTail[:])
	n += copy(v[n:], c.Talents[:])
	for _, row := range c.Chakras {
		n += copy(v[n:], row[:])
	}
	n += copy(v[n:], c.ChakraTotals[:])
	copy(v[n:], c.AgeLine[:])
	return v
}

// fillChart sets every arcanum of a record from v, a chart's values in record order
// (chartValues), and the chakras' keys and the age line's ages.
func (r *ChartRecord) fillChart(v *[chartValueCount]int) {
	i := 0
	next := func() int { i++; return v[i-1] }
	for _, p := range r.Points.All() {
		*p = next()
	}
	for _, c := range r.Channels.All() {
		*c = next()
	}
	for _, p := range r.Purposes.All() {
		*p = next()
	}
	for j := range r.KarmicTail {
		r.KarmicTail[j] = next()
	}
	for j := range r.Talents {
		r.Talents[j] = next()
	}
	for j := range r.Chakras {
		r.Chakras[j] = ChartChakra{Key: rules.Chakra(j).Key(), Physical: next(), Energy: next(), Emotions: next()}
	}
	r.ChakraTotals = ChartChakraTotals{next(), next(), next()}
	for j := range r.AgeLine {
		r.AgeLine[j] = ChartAgePoint{rules.AgeLineAge(j), next()}
	}
}

// ChartSourceURL is the human page of the chart: the method and every text.
func (s *Site) ChartSourceURL() string { return s.SiteURL + "/chart" }

// ChartDetailsURL is the human page of one date's chart.
func (s *Site) ChartDetailsURL(day, month, year int) string {
	return fmt.Sprintf("%s/chart/details?date=%04d-%02d-%02d", s.SiteURL, year, month, day)
}

// chartSubject names a date's chart in its citation; {date} is DD.MM.YYYY.
const chartSubject = "Полная карта матрицы судьбы для даты рождения {date}"

// chartCitation is a date's citation with {date} and {url} left to fill.
func (s *Site) chartCitation() string { return s.cite(chartSubject, "{url}") }

// ChartRecord builds the record of one valid date.
func (s *Site) ChartRecord(day, month, year int) ChartRecord {
	c := rules.ComputeChart(day, month, year)
	src := s.ChartDetailsURL(day, month, year)
	r := ChartRecord{
		Input:  DateInput{day, month, year},
		Method: rules.ChartMethod,
		SuggestedCitation: strings.NewReplacer("{date}", fmt.Sprintf("%02d.%02d.%04d", day, month, year), "{url}", src).
			Replace(s.chartCitation()),
		SourceURL:   src,
		attribution: s.attribution(),
	}
	var v [chartValueCount]int
	for i, a := range chartValues(&c) {
		v[i] = int(a)
	}
	r.fillChart(&v)
	return r
}

// ChartMeanings is the body of /chart/meanings: what every zone of the chart means, and the
// reading of each arcanum the money channel, the love channel and the karmic tail hold.
type ChartMeanings struct {
	Method            string             `json:"method"`
	Intro             string             `json:"intro"`
	Zones             []ChartZoneMeaning `json:"zones"`
	Readings          ChartReadings      `json:"readings"`
	SuggestedCitation string             `json:"suggested_citation"`
	SourceURL         string             `json:"source_url"`
	attribution
}

// ChartZoneMeaning says what one zone of the chart means. Its key is the key of the
// record's field it describes (a point's letter, a channel's, purpose's or chakra's key, a
// chakra column's), or names a whole: "inner", "money_channel", "relationship_channel",
// "male_line", "female_line", "chakras".
type ChartZoneMeaning struct {
	Key   string `json:"key"`
	Title string `json:"title"`
	// Term is the usual Russian term of N. Ladini's method; "" when the title is that term.
	Term        string `json:"term"`
	Description string `json:"description"`
}

// ChartReadings are the zones whose arcana each have a reading (rules.ChartReadingZone).
type ChartReadings struct {
	Money      ChartReadingSet `json:"money"`
	Love       ChartReadingSet `json:"love"`
	KarmicTail ChartReadingSet `json:"karmic_tail"`
}

// All returns pointers to the sets, indexed by rules.ChartReadingZone.
func (r *ChartReadings) All() [rules.NumChartReadingZones]*ChartReadingSet {
	return [rules.NumChartReadingZones]*ChartReadingSet{&r.Money, &r.Love, &r.KarmicTail}
}

// ChartReadingSet is the readings of one zone: its zone's key, the record fields whose
// arcana they read, and the reading of every arcanum those fields take over the range.
type ChartReadingSet struct {
	Zone     string         `json:"zone"`
	Fields   []string       `json:"fields"`
	Readings []ChartReading `json:"readings"` // ascending arcana
}

// ChartReading is the reading of one arcanum in a zone.
type ChartReading struct {
	Arcana  int    `json:"arcana"`
	Reading string `json:"reading"`
}

// chartReadingZones are, for each rules.ChartReadingZone, its zone in the texts and the
// record fields it reads, in the order rules.ChartReadingZone.Arcana gives them.
var chartReadingZones = [rules.NumChartReadingZones]struct {
	zone   string
	fields []string
}{
	{"money_channel", []string{"channels.money_entry", "channels.money", "channels.balance"}},
	{"relationship_channel", []string{"channels.relationship_entry", "channels.love", "channels.balance"}},
	{"karmic_tail", []string{"karmic_tail[0]", "karmic_tail[1]", "karmic_tail[2]"}},
}

// ChartMeanings builds the body of /chart/meanings.
func (s *Site) ChartMeanings() (ChartMeanings, error) {
	texts := &s.Content.Chart
	m := ChartMeanings{
		Method:            rules.ChartMethod,
		Intro:             texts.Intro,
		SuggestedCitation: s.cite("Полная карта матрицы судьбы: значения зон и чтения арканов", s.ChartSourceURL()),
		SourceURL:         s.ChartSourceURL(),
		attribution:       s.attribution(),
	}
	for _, z := range texts.Zones {
		m.Zones = append(m.Zones, ChartZoneMeaning(z))
	}
	arcana := rules.ChartReadingArcana()
	for z, set := range m.Readings.All() {
		key := rules.ChartReadingZone(z).Key()
		*set = ChartReadingSet{Zone: chartReadingZones[z].zone, Fields: chartReadingZones[z].fields}
		for _, a := range arcana[z] {
			text, ok := texts.Readings[key][a]
			if !ok {
				return m, fmt.Errorf("chart: zone %s has no reading of arcanum %d", key, a)
			}
			set.Readings = append(set.Readings, ChartReading{a, text})
		}
	}
	return m, nil
}

// chartArcanum is the schema of an arcanum's number.
var chartArcanum = obj{"type": "integer", "minimum": 1, "maximum": 22}

func chartRecordFields(*Site) map[string]obj {
	out := map[string]obj{
		"ChartRecord.method":        {"const": rules.ChartMethod, "description": "Метод расчёта: «ladini-22» — матрица Н. Ладини на 22 старших арканах; меняется, только если меняется правило"},
		"ChartRecord.points":        {"description": "28 точек звезды по буквам: вершины A–D, центр E, углы F–I, внутренние точки X1, X2 каждой вершины и угла, A3, B3 и центр рода U; названия арканов — /arcana, смысл зон — /chart/meanings"},
		"ChartRecord.channels":      {"description": "Денежный канал и канал отношений"},
		"ChartRecord.purposes":      {"description": "Восемь предназначений"},
		"ChartRecord.karmic_tail":   {"minItems": 3, "maxItems": 3, "items": chartArcanum, "description": "Кармический хвост: точки D, D1, D2"},
		"ChartRecord.talents":       {"minItems": 3, "maxItems": 3, "items": chartArcanum, "description": "Линия талантов: точки B, B1, B2"},
		"ChartRecord.chakras":       {"minItems": rules.NumChakras, "maxItems": rules.NumChakras, "description": "Карта чакр сверху вниз; это образ традиции, а не медицина"},
		"ChartRecord.chakra_totals": {"description": "Итог: приведённая сумма каждого столбца карты чакр"},
		"ChartRecord.age_line":      {"minItems": rules.AgeLinePoints, "maxItems": rules.AgeLinePoints, "description": "Линия возраста: 64 точки от 0 до 78,75 года через 1,25 года"},
		"ChartRecord.source_url":    {"format": "uri", "description": "Страница с картой этой даты"},
		"ChartChakra.key":           {"enum": rules.ChakraKeys()},
		"ChartAgePoint.age":         {"minimum": 0, "maximum": rules.AgeLineAge(rules.AgeLinePoints - 1), "multipleOf": 1.25, "description": "Возраст в годах"},
		"ChartAgePoint.arcana":      chartArcanum,
	}
	for _, k := range rules.ChartPointKeys() {
		out["ChartPoints."+k] = chartArcanum
	}
	for _, k := range rules.ChartChannelKeys() {
		out["ChartChannels."+k] = chartArcanum
	}
	for _, k := range rules.ChartPurposeKeys() {
		out["ChartPurposes."+k] = chartArcanum
	}
	for _, k := range rules.ChakraColumnKeys() {
		out["ChartChakra."+k] = chartArcanum
		out["ChartChakraTotals."+k] = chartArcanum
	}
	return out
}

func chartMeaningsFields(*Site) map[string]obj {
	fields := []string{}
	for _, z := range chartReadingZones {
		for _, f := range z.fields {
			if !slices.Contains(fields, f) { // the balance is in both channels
				fields = append(fields, f)
			}
		}
	}
	return map[string]obj{
		"ChartMeanings.method":         {"const": rules.ChartMethod},
		"ChartMeanings.zones":          {"minItems": 1, "description": "Зоны карты по порядку: точки, каналы, предназначения, хвост, таланты, родовые линии, чакры и их столбцы, линия возраста"},
		"ChartZoneMeaning.term":        {"description": "Привычный термин метода Н. Ладини; пустая строка, когда название и есть этот термин"},
		"ChartReadingSet.zone":         {"enum": []string{chartReadingZones[0].zone, chartReadingZones[1].zone, chartReadingZones[2].zone}},
		"ChartReadingSet.fields":       {"minItems": 1, "items": obj{"type": "string", "enum": fields}, "description": "Поля записи даты, к арканам которых относятся чтения"},
		"ChartReadingSet.readings":     {"minItems": 1, "description": "Чтение каждого аркана, какой эти поля принимают в 1900–2100 годах, по возрастанию"},
		"ChartReading.arcana":          chartArcanum,
		"ChartMeanings.source_url":     {"format": "uri", "description": "Страница с методом и всеми текстами карты"},
		"ChartMeanings.readings":       {"description": "Чтения арканов в денежном канале, канале отношений и кармическом хвосте"},
		"ChartZoneMeaning.key":         {"description": "Ключ поля записи, которое описывает зона, или имя целого: inner, money_channel, relationship_channel, male_line, female_line, chakras"},
		"ChartZoneMeaning.title":       {"description": "Название зоны"},
		"ChartReading.reading":         {"description": "От одного до трёх предложений о склонностях, не прогноз"},
		"ChartZoneMeaning.description": {"description": "Что означает зона"},
	}
}

// chartTables is chart: the date and every arcanum of its chart, a row a date, in the
// order of the record (chartValues), the age line included.
func chartTables() []Table {
	cols := dateColumns()
	arc := func(name, desc string) { cols = append(cols, intColumn(name, desc, 1, 22)) }
	// Column names are lower case, to be SQL names without quotes: the point A is column a.
	for _, k := range rules.ChartPointKeys() {
		arc(strings.ToLower(k), "Point "+k+" of the octagram (arcanum)")
	}
	for _, k := range rules.ChartChannelKeys() {
		arc(strings.ToLower(k), "Channel point "+k+" (arcanum); money_entry is C2, relationship_entry D2")
	}
	for _, k := range rules.ChartPurposeKeys() {
		arc("purpose_"+strings.ToLower(k), "Purpose "+k+" (arcanum)")
	}
	for i, p := range []string{"D", "D1", "D2"} {
		arc("karmic_tail_"+itoa(i+1), "Karmic tail, arcanum "+itoa(i+1)+" of 3 (point "+p+")")
	}
	for i, p := range []string{"B", "B1", "B2"} {
		arc("talents_"+itoa(i+1), "Talents, arcanum "+itoa(i+1)+" of 3 (point "+p+")")
	}
	for _, ch := range rules.ChakraKeys() {
		for _, col := range rules.ChakraColumnKeys() {
			arc(ch+"_"+col, "Chakra map: "+ch+", column "+col+" (arcanum)")
		}
	}
	for _, col := range rules.ChakraColumnKeys() {
		arc("total_"+col, "Chakra map: the reduced sum of the "+col+" column (arcanum)")
	}
	for i := range rules.AgeLinePoints {
		age := strings.ReplaceAll(strconv.FormatFloat(rules.AgeLineAge(i), 'f', -1, 64), ".", ",")
		arc(fmt.Sprintf("age_line_%02d", i), "Age line, point "+itoa(i)+" of 64: the arcanum at the age of "+age+" years")
	}
	dates := len(dateColumns())
	var fks []table.ForeignKey
	for _, c := range cols[dates:] {
		fks = append(fks, table.ForeignKey{Column: c.Name, Table: "arcana", TableColumn: "number"})
	}
	chart := &table.Table{
		Name:        "chart",
		Title:       "Full destiny-matrix chart of every birth date",
		Description: "One row per date: every arcanum (1–22) of the chart, in the order of the record at " + route(RouteChart).File + " (method " + rules.ChartMethod + "): the octagram's 28 points, the channels, the purposes, the karmic tail, the talents, the chakra map with its totals and the 64 points of the age line. The arcana's names are in arcana; the zones' texts in chart_zones and chart_readings.",
		Russian:     "полная карта матрицы судьбы для каждой даты: дата ISO, день, месяц, год, 28 точек, каналы, предназначения, кармический хвост, линия талантов, карта чакр с итогами и 64 точки линии возраста — номерами арканов",
		Columns:     cols,
		PrimaryKey:  []string{"date"},
		ForeignKeys: fks,
	}
	return []Table{{chart, func(t *table.Table, vals []int, body []byte) error {
		d, m, y, v, ok := scanChart(body)
		if !ok {
			var r ChartRecord
			if err := json.Unmarshal(body, &r); err != nil {
				return fmt.Errorf("not a chart record: %w", err)
			}
			d, m, y, v = r.Input.Day, r.Input.Month, r.Input.Year, r.values()
		}
		if err := checkDate(vals, d, m, y); err != nil {
			return err
		}
		for _, a := range v {
			if a < 1 || a > 22 {
				return fmt.Errorf("arcanum %d is outside 1–22", a)
			}
		}
		return t.Append(append(dateValues(d, m, y), ints(v[:]...)...)...)
	}}}
}

// chartMeaningsTables are chart_zones and chart_readings: the texts of /chart/meanings,
// keyed, a row a zone and a row a reading.
func chartMeaningsTables() []Table {
	zones := &table.Table{
		Name:        "chart_zones",
		Title:       "What each zone of the full chart means",
		Description: "One row per zone of the chart, as in " + route(RouteChartMeanings).File + ": its key (a column of chart, or a whole: inner, money_channel, relationship_channel, male_line, female_line, chakras), title, the method's usual term, and description, in Russian.",
		Russian:     "что означает каждая зона полной карты: ключ, название, термин метода, описание",
		Columns: []table.Column{
			{Name: "key", Type: table.Text, Description: "The zone's key", Unique: true},
			textColumn("title", "The zone's title (Russian)"),
			textColumn("term", "The usual Russian term of the method; empty when the title is that term"),
			textColumn("description", "What the zone means (Russian)"),
		},
		PrimaryKey: []string{"key"},
	}
	readings := &table.Table{
		Name:        "chart_readings",
		Title:       "The reading of each arcanum in the chart's money channel, love channel and karmic tail",
		Description: "One row per zone and arcanum, as in " + route(RouteChartMeanings).File + ": the zone (a key of chart_zones), the record fields it reads, the arcanum and its reading, in Russian.",
		Russian:     "чтения арканов в денежном канале, канале отношений и кармическом хвосте: зона, поля записи, аркан, текст",
		Columns: []table.Column{
			textColumn("zone", "The zone: a key of chart_zones"),
			textColumn("fields", "The fields of the chart record the zone's arcana are read from, one a line"),
			intColumn("arcana", "Arcanum (1–22); see arcana", 1, 22),
			textColumn("reading", "The reading (Russian)"),
		},
		PrimaryKey: []string{"zone", "arcana"},
		ForeignKeys: []table.ForeignKey{
			{Column: "zone", Table: "chart_zones", TableColumn: "key"},
			{Column: "arcana", Table: "arcana", TableColumn: "number"},
		},
	}
	return []Table{{zones, func(t *table.Table, _ []int, body []byte) error {
		var m ChartMeanings
		if err := json.Unmarshal(body, &m); err != nil {
			return fmt.Errorf("not the chart's meanings: %w", err)
		}
		for _, z := range m.Zones {
			if err := t.Append(table.Str(z.Key), table.Str(z.Title), table.Str(z.Term), table.Str(z.Description)); err != nil {
				return err
			}
		}
		return nil
	}}, {readings, func(t *table.Table, _ []int, body []byte) error {
		var m ChartMeanings
		if err := json.Unmarshal(body, &m); err != nil {
			return fmt.Errorf("not the chart's meanings: %w", err)
		}
		for _, set := range m.Readings.All() {
			for _, r := range set.Readings {
				if err := t.Append(table.Str(set.Zone), table.Str(lines(set.Fields)), table.Int(r.Arcana), table.Str(r.Reading)); err != nil {
					return err
				}
			}
		}
		return nil
	}}}
}

// values returns the record's arcana in record order (chartValues).
func (r *ChartRecord) values() [chartValueCount]int {
	var v [chartValueCount]int
	i := 0
	add := func(n int) { v[i] = n; i++ }
	for _, p := range r.Points.All() {
		add(*p)
	}
	for _, c := range r.Channels.All() {
		add(*c)
	}
	for _, p := range r.Purposes.All() {
		add(*p)
	}
	for _, n := range r.KarmicTail {
		add(n)
	}
	for _, n := range r.Talents {
		add(n)
	}
	for _, c := range r.Chakras {
		add(c.Physical)
		add(c.Energy)
		add(c.Emotions)
	}
	add(r.ChakraTotals.Physical)
	add(r.ChakraTotals.Energy)
	add(r.ChakraTotals.Emotions)
	for _, a := range r.AgeLine {
		add(a.Arcana)
	}
	return v
}

// chartSkeleton is the text of a chart record between its input and its citation, cut at
// its arcana: lits[i] comes before the arcanum chartValues[i], and end after the last. It
// is Encode's own output for a record whose arcana are markers, so the fast encoder and the
// scanner write and read exactly the keys, order and spacing Encode gives.
type chartSkeleton struct {
	lits [chartValueCount][]byte
	end  []byte
}

// chartMarkerBase marks the arcanum i as chartMarkerBase+i in the skeleton's record: a
// number no other field of it holds.
const chartMarkerBase = 100000

var chartMarker = regexp.MustCompile(`1\d{5}`)

func newChartSkeleton() (*chartSkeleton, error) {
	r := ChartRecord{Input: DateInput{1, 1, 2000}, Method: rules.ChartMethod}
	var v [chartValueCount]int
	for i := range v {
		v[i] = chartMarkerBase + i
	}
	r.fillChart(&v)
	b, err := jsonFragment(r)
	if err != nil {
		return nil, err
	}
	_, b, ok := bytes.Cut(b, []byte(`"year":2000}`))
	end := bytes.Index(b, []byte(`,"suggested_citation":`))
	if !ok || end < 0 {
		return nil, fmt.Errorf("chart: unexpected record shape %s", b)
	}
	b = b[:end]
	sk := &chartSkeleton{}
	last := 0
	marks := chartMarker.FindAllIndex(b, -1)
	if len(marks) != chartValueCount {
		return nil, fmt.Errorf("chart: %d arcana in the record, want %d", len(marks), chartValueCount)
	}
	for i, m := range marks {
		if n, _ := strconv.Atoi(string(b[m[0]:m[1]])); n != chartMarkerBase+i {
			return nil, fmt.Errorf("chart: arcanum %d of the record is value %d of the chart", i, n-chartMarkerBase)
		}
		sk.lits[i] = b[last:m[0]]
		last = m[1]
	}
	sk.end = b[last:]
	return sk, nil
}

// chartEncoder renders chart records by appending pieces encoded once: the skeleton around
// the arcana, the citation's text around its date and URL, and the attribution tail.
// TestChartEncoderMatchesEncode holds its output byte-identical to Encode(s.ChartRecord)
// for every date of the range.
type chartEncoder struct {
	sk       *chartSkeleton
	citation []squarePart
	tail     []byte // `",` + the attribution fields + "}\n"
	siteURL  string
}

func newChartEncoder(s *Site) (*chartEncoder, error) {
	if strings.ContainsAny(s.SiteURL, `"\<>&`) {
		return nil, fmt.Errorf("site url %q needs JSON escaping", s.SiteURL)
	}
	sk, err := chartSkeletons()
	if err != nil {
		return nil, err
	}
	e := &chartEncoder{sk: sk, siteURL: s.SiteURL}
	// The citation, split at {date} and {url}: content holds no control characters, so a
	// NUL marks them.
	marked := strings.NewReplacer("{date}", "\x00d", "{url}", "\x00u").Replace(s.chartCitation())
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

// chartSkeletons is the skeleton, built once: it depends on no content.
var chartSkeletons = sync.OnceValues(newChartSkeleton)

// Append appends the record of a valid date to dst.
func (e *chartEncoder) Append(dst []byte, day, month, year int) ([]byte, error) {
	c := rules.ComputeChart(day, month, year)
	v := chartValues(&c)
	dst = append(dst, `{"input":{"day":`...)
	dst = strconv.AppendInt(dst, int64(day), 10)
	dst = append(dst, `,"month":`...)
	dst = strconv.AppendInt(dst, int64(month), 10)
	dst = append(dst, `,"year":`...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	dst = append(dst, '}')
	for i, a := range v {
		dst = append(dst, e.sk.lits[i]...)
		if a >= 10 {
			dst = append(dst, '0'+a/10)
		}
		dst = append(dst, '0'+a%10)
	}
	dst = append(dst, e.sk.end...)
	dst = append(dst, `,"suggested_citation":"`...)
	for _, p := range e.citation {
		switch p.kind {
		case 'd':
			dst = appendDate(dst, day, month, year)
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

// appendURL appends the details page's URL of a date (Site.ChartDetailsURL).
func (e *chartEncoder) appendURL(dst []byte, day, month, year int) []byte {
	dst = append(dst, e.siteURL...)
	dst = append(dst, "/chart/details?date="...)
	dst = append4(dst, year)
	dst = append(dst, '-')
	dst = append2(dst, month)
	dst = append(dst, '-')
	return append2(dst, day)
}

// scanChart reads the date and the arcana of a chart record as the generator writes it,
// without a full JSON parse. ok is false for anything unexpected; the caller then parses
// the record.
func scanChart(b []byte) (d, m, y int, v [chartValueCount]int, ok bool) {
	sk, err := chartSkeletons()
	if err != nil {
		return
	}
	rest, ok := cutPrefix(b, `{"input":{"day":`)
	for _, f := range []struct {
		after string
		dst   *int
	}{{`,"month":`, &d}, {`,"year":`, &m}, {`}`, &y}} {
		if !ok {
			return
		}
		if rest, ok = scanInt(rest, f.dst); ok {
			rest, ok = cutPrefix(rest, f.after)
		}
	}
	for i := range v {
		if !ok {
			return
		}
		if rest, ok = bytes.CutPrefix(rest, sk.lits[i]); ok {
			rest, ok = scanInt(rest, &v[i])
		}
	}
	if ok {
		_, ok = bytes.CutPrefix(rest, sk.end)
	}
	return
}

// Page files of the full matrix chart.
const (
	ChartPage        = "chart.html"
	ChartDetailsPage = "chart/details.html"
)

// chartExampleDate is the worked example of docs/design.md §15 (the issue's).
var chartExampleDate = DateInput{11, 7, 1996}

// chartDoc is what the chart's pages show: the texts, the worked example and its drawing,
// and, for the details page, the empty drawing and the data its script fills it with.
type chartDoc struct {
	Meanings    ChartMeanings
	Zones       []chartZoneDoc
	Readings    []chartReadingsDoc
	Absent      string // the arcana no reading zone ever holds: "Арканов 1 и 2"
	Details     chartDetails
	Example     chartExample
	Drawing     htmltemplate.HTML // the octagram: the example's, or the details page's to fill
	MeaningsAPI string            // the path of /chart/meanings
	Citation    string            // of the meanings
	JSON        htmltemplate.JS
}

// chartZoneDoc is a zone's texts as the chart page lists them, in groups.
type chartZoneDoc struct {
	Group string // the heading the zone starts, "" within a group
	ChartZoneMeaning
}

// chartReadingsDoc is one zone's readings as the chart page lists them.
type chartReadingsDoc struct {
	Key, Zone, Title string
	Readings         []chartReadingDoc
}

type chartReadingDoc struct {
	Arcana  int
	Name    string
	Reading string
}

// chartDetails is what the details page shows of a date, below the drawing, as empty cells
// its script fills: each cell's key is the field of the record it shows ("points.A",
// "karmic_tail.0", "chakras.2.energy", "age_line.12").
type chartDetails struct {
	Points             []chartCellGroup
	Channels, Purposes []chartCell
	Tail, Talents      []chartCell
	Chakras            []chartChakraRow
	Totals             [3]string // the keys of the totals
	Decades            []chartDecade
	// Labels names every cell's field, for the readings' headings.
	Labels map[string]string
}

// chartCellGroup is a group of cells under a heading; a compact group's labels are short
// (a point's letter), so its cells stand in narrower columns.
type chartCellGroup struct {
	Title   string
	Compact bool
	Cells   []chartCell
}

// chartCell is one number of the chart: its field, what it is, and the zone that says
// what it means (an anchor of the chart page), if any.
type chartCell struct{ Key, Label, Zone string }

type chartChakraRow struct {
	Title, Zone string
	Keys        [3]string
}

// chartDecade is ten years of the age line: from one outer point to the next.
type chartDecade struct {
	Label string
	Ages  []chartCell
}

// chartDetailsOf lays out the details page's cells.
func (p *pageRenderer) chartDetailsOf() chartDetails {
	title := func(key string) string {
		z, _ := p.s.Content.Chart.Zone(key)
		return z.Title
	}
	d := chartDetails{Labels: map[string]string{}}
	add := func(cells *[]chartCell, key, label, zone string) {
		*cells = append(*cells, chartCell{key, label, zone})
		d.Labels[key] = label
	}
	var main, ancestral, inner []chartCell
	for _, k := range rules.ChartPointKeys() {
		switch {
		case len(k) == 1 && k >= "A" && k <= "E":
			add(&main, "points."+k, k+" — "+title(k), k)
		case len(k) == 1:
			add(&ancestral, "points."+k, k+" — "+title(k), k)
		default:
			add(&inner, "points."+k, k, "inner")
		}
	}
	d.Points = []chartCellGroup{{"Вершины и центр", false, main}, {"Родовой квадрат и его центр", false, ancestral}, {"Внутренние точки", true, inner}}
	for _, k := range rules.ChartChannelKeys() {
		add(&d.Channels, "channels."+k, title(k), k)
	}
	for _, k := range rules.ChartPurposeKeys() {
		add(&d.Purposes, "purposes."+k, title(k), k)
	}
	for i, k := range []string{"D", "D1", "D2"} {
		add(&d.Tail, "karmic_tail."+strconv.Itoa(i), "Точка "+k, "")
	}
	for i, k := range []string{"B", "B1", "B2"} {
		add(&d.Talents, "talents."+strconv.Itoa(i), "Точка "+k, "")
	}
	for i, k := range rules.ChakraKeys() {
		row := chartChakraRow{Title: title(k), Zone: k}
		for j, col := range rules.ChakraColumnKeys() {
			row.Keys[j] = "chakras." + strconv.Itoa(i) + "." + col
		}
		d.Chakras = append(d.Chakras, row)
	}
	for j, col := range rules.ChakraColumnKeys() {
		d.Totals[j] = "chakra_totals." + col
	}
	outer := []string{"A", "F", "B", "G", "C", "H", "D", "I", "A"}
	for s := range 8 {
		dec := chartDecade{Label: fmt.Sprintf("%d–%d лет, от %s к %s", 10*s, 10*s+10, outer[s], outer[s+1])}
		for i := 8 * s; i < 8*s+8; i++ {
			add(&dec.Ages, "age_line."+strconv.Itoa(i), strings.ReplaceAll(strconv.FormatFloat(rules.AgeLineAge(i), 'f', -1, 64), ".", ","), "")
		}
		d.Decades = append(d.Decades, dec)
	}
	return d
}

// chartExample is the worked example: the date, the rule worked on it step by step, and
// its chakra map.
type chartExample struct {
	Date, ISO, APIPath string
	Steps              []chartSteps
	Chakras            []chartChakraDoc
	Totals             [3]int
}

// chartSteps is one group of the worked example's steps.
type chartSteps struct {
	Title string
	Steps []ruleLine
}

type chartChakraDoc struct {
	Key, Title                 string
	Physical, Energy, Emotions int
}

// chartZoneGroups are the headings of the chart page's list of zones, by the zone that
// opens each.
var chartZoneGroups = map[string]string{
	"A": "Точки звезды", "money_channel": "Каналы", "sky": "Предназначения",
	"karmic_tail": "Хвост, таланты и род", "chakras": "Карта чакр", "age_line": "Линия возраста",
}

// chartDocOf builds what both chart pages show.
func (p *pageRenderer) chartDocOf() (*chartDoc, error) {
	m, err := p.s.ChartMeanings()
	if err != nil {
		return nil, err
	}
	doc := &chartDoc{Meanings: m, MeaningsAPI: RoutePath(RouteChartMeanings), Citation: m.SuggestedCitation}
	for _, z := range m.Zones {
		doc.Zones = append(doc.Zones, chartZoneDoc{chartZoneGroups[z.Key], z})
	}
	for z, set := range m.Readings.All() {
		zone, _ := p.s.Content.Chart.Zone(set.Zone)
		rd := chartReadingsDoc{Key: rules.ChartReadingZone(z).Key(), Zone: set.Zone, Title: zone.Title}
		for _, r := range set.Readings {
			rd.Readings = append(rd.Readings, chartReadingDoc{r.Arcana, p.s.Content.Arcana[r.Arcana-1].Name, r.Reading})
		}
		doc.Readings = append(doc.Readings, rd)
	}
	var held [23]bool
	for _, arcana := range rules.ChartReadingArcana() {
		for _, a := range arcana {
			held[a] = true
		}
	}
	var absent []string
	for a := 1; a <= 22; a++ {
		if !held[a] {
			absent = append(absent, strconv.Itoa(a))
		}
	}
	if n := len(absent); n > 1 {
		doc.Absent = "Арканов " + strings.Join(absent[:n-1], ", ") + " и " + absent[n-1]
	} else if n == 1 {
		doc.Absent = "Аркана " + absent[0]
	}
	doc.Example = p.chartExampleOf(chartExampleDate)
	return doc, nil
}

// chartExampleOf works the rule of docs/design.md §15 on a date, step by step.
func (p *pageRenderer) chartExampleOf(in DateInput) chartExample {
	c := rules.ComputeChart(in.Day, in.Month, in.Year)
	pt := func(k rules.ChartPoint) int { return int(c.Points[k]) }
	// sum writes "a + b = s", and "s → r(s)" when s is reduced.
	sum := func(terms ...int) string {
		parts := make([]string, len(terms))
		n := 0
		for i, t := range terms {
			parts[i] = strconv.Itoa(t)
			n += t
		}
		out := strconv.Itoa(n)
		if len(terms) > 1 {
			out = strings.Join(parts, " + ") + " = " + out
		}
		if r := rules.Reduce(n); r != n {
			out += " → " + strconv.Itoa(r)
		}
		return out
	}
	var year []int
	for _, ch := range strconv.Itoa(in.Year) {
		year = append(year, int(ch-'0'))
	}
	a, b, cc, d, e := pt(rules.PointA), pt(rules.PointB), pt(rules.PointC), pt(rules.PointD), pt(rules.PointE)
	f, g, h, i := pt(rules.PointF), pt(rules.PointG), pt(rules.PointH), pt(rules.PointI)
	ch, pu := c.Channels, c.Purposes
	c2, d2, bal := int(ch[rules.ChannelMoneyEntry]), int(ch[rules.ChannelRelationshipEntry]), int(ch[rules.ChannelBalance])
	purpose := func(k rules.ChartPurpose) int { return int(pu[k]) }
	ex := chartExample{
		Date: fmt.Sprintf("%02d.%02d.%d", in.Day, in.Month, in.Year), ISO: fmt.Sprintf("%d-%02d-%02d", in.Year, in.Month, in.Day),
		APIPath: RoutePath(RouteChart, in.Day, in.Month, in.Year),
		Steps: []chartSteps{
			{"Прямой квадрат и центр", []ruleLine{
				{"A — день", sum(in.Day)},
				{"B — месяц", sum(in.Month)},
				{"C — цифры года", sum(year...)},
				{"D = A + B + C", sum(a, b, cc)},
				{"E = A + B + C + D", sum(a, b, cc, d)},
			}},
			{"Родовой квадрат", []ruleLine{
				{"F = A + B", sum(a, b)},
				{"G = B + C", sum(b, cc)},
				{"H = C + D", sum(cc, d)},
				{"I = D + A", sum(d, a)},
			}},
			{"Внутренние точки (так же для каждой вершины и угла)", []ruleLine{
				{"A2 = A + E", sum(a, e)},
				{"A1 = A + A2", sum(a, pt(rules.PointA2))},
				{"A3 = A2 + E", sum(pt(rules.PointA2), e)},
			}},
			{"Каналы", []ruleLine{
				{"C2 = C + E, вход в денежный канал", sum(cc, e)},
				{"D2 = D + E, вход в канал отношений", sum(d, e)},
				{"Точка равновесия = C2 + D2", sum(c2, d2)},
				{"Денежная точка = точка равновесия + C2", sum(bal, c2)},
				{"Точка отношений = D2 + точка равновесия", sum(d2, bal)},
			}},
			{"Предназначения", []ruleLine{
				{"Небо = B + D", sum(b, d)},
				{"Земля = A + C", sum(a, cc)},
				{"Личное = небо + земля", sum(purpose(rules.PurposeSky), purpose(rules.PurposeEarth))},
				{"Мужская линия = F + H", sum(f, h)},
				{"Женская линия = G + I", sum(g, i)},
				{"Социальное = мужская + женская", sum(purpose(rules.PurposeMale), purpose(rules.PurposeFemale))},
				{"Духовное = личное + социальное", sum(purpose(rules.PurposePersonal), purpose(rules.PurposeSocial))},
				{"Планетарное = социальное + духовное", sum(purpose(rules.PurposeSocial), purpose(rules.PurposeSpiritual))},
			}},
			{"Линия возраста (от A в 0 лет до F в 10 лет)", []ruleLine{
				{"5 лет = A + F", sum(a, f)},
				{"2,5 года = A + 5 лет", sum(a, int(c.AgeLine[4]))},
				{"7,5 года = 5 лет + F", sum(int(c.AgeLine[4]), f)},
				{"1,25 года = A + 2,5 года", sum(a, int(c.AgeLine[2]))},
			}},
		},
	}
	for j, row := range c.Chakras {
		zone, _ := p.s.Content.Chart.Zone(rules.Chakra(j).Key())
		ex.Chakras = append(ex.Chakras, chartChakraDoc{rules.Chakra(j).Key(), zone.Title, int(row[0]), int(row[1]), int(row[2])})
	}
	ex.Totals = [3]int{int(c.ChakraTotals[0]), int(c.ChakraTotals[1]), int(c.ChakraTotals[2])}
	return ex
}

// chartDrawing is the octagram as the chart's pages draw it (templates/chart-octagram.html):
// the straight and the diagonal square, the lines from each outer point to the centre with
// the points on them, the channels, and the age line on a ring around. Its geometry does not
// depend on the date, only the numbers in it, so the details page's script fills an empty
// drawing and nothing moves.
type chartDrawing struct {
	ID                 string // prefix of the drawing's element ids
	Title, Desc        string
	Size               int     // the viewBox's side
	C, RingR           float64 // the centre's coordinate and the ring's radius
	Straight, Diagonal string  // the squares' polygon points
	Axes               []chartSegment
	Money, Love        chartSegment // the channels' lines: C2 to the balance, the balance to D2
	Dots               []chartDot
	Ages               []chartAgeMark
}

type chartSegment struct{ X1, Y1, X2, Y2 float64 }

// chartDot is one point of the drawing.
type chartDot struct {
	Key     string // the record's field: "points.A", "channels.money"
	Class   string // outer, centre, inner, money, balance, love
	Label   string // what the point is: "A — Личность"
	Title   string // Label with its arcanum, or Label alone in a drawing to fill
	X, Y, R float64
	Value   string // the arcanum; "" in a drawing to fill
	Letter  string // an outer point's letter, drawn beside it
	LX, LY  float64
}

// chartAgeMark is one point of the age line on the ring: at the outer points (every ten
// years) the age, between them the arcanum.
type chartAgeMark struct {
	Key    string // the record's field: "age_line.12"
	Index  int
	X, Y   float64
	Decade bool
	Label  string // "2,5 года", "10 лет — F"
	Title  string // Label with its arcanum, or Label alone in a drawing to fill
	Text   string // a decade's age; the arcanum otherwise ("" in a drawing to fill)
}

// Geometry of the drawing, in viewBox units.
const (
	chartSize  = 440
	chartOuter = 150.0 // the radius of the eight outer points
	chartRing  = 198.0 // the radius of the age line's numbers
)

// chartAngles are the outer points' directions in degrees (counter-clockwise from the
// right, y up): A left, then clockwise F, B, G, C, H, D, I, each 45° on, as the age line
// walks them.
var chartAngles = map[rules.ChartPoint]float64{
	rules.PointA: 180, rules.PointF: 135, rules.PointB: 90, rules.PointG: 45,
	rules.PointC: 0, rules.PointH: -45, rules.PointD: -90, rules.PointI: -135,
}

// chartInner are the points on the line from each outer point to the centre, with their
// distance from the centre as a share of chartOuter: the diagonal ones sit further out,
// to leave room for the channels in the lower right quarter.
var chartInner = []struct {
	outer, point rules.ChartPoint
	at           float64
}{
	{rules.PointA, rules.PointA1, 0.76}, {rules.PointA, rules.PointA2, 0.56}, {rules.PointA, rules.PointA3, 0.37},
	{rules.PointB, rules.PointB1, 0.76}, {rules.PointB, rules.PointB2, 0.56}, {rules.PointB, rules.PointB3, 0.37},
	{rules.PointC, rules.PointC1, 0.76}, {rules.PointC, rules.PointC2, 0.56},
	{rules.PointD, rules.PointD1, 0.76}, {rules.PointD, rules.PointD2, 0.56},
	{rules.PointF, rules.PointF1, 0.8}, {rules.PointF, rules.PointF2, 0.62},
	{rules.PointG, rules.PointG1, 0.8}, {rules.PointG, rules.PointG2, 0.62},
	{rules.PointH, rules.PointH1, 0.8}, {rules.PointH, rules.PointH2, 0.62},
	{rules.PointI, rules.PointI1, 0.8}, {rules.PointI, rules.PointI2, 0.62},
}

// polar returns the drawing's coordinates of a point at radius r in direction deg.
func polar(r, deg float64) (x, y float64) {
	rad := deg * math.Pi / 180
	return round1(chartSize/2 + r*math.Cos(rad)), round1(chartSize/2 - r*math.Sin(rad))
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// ageLabel writes an age of the age line in Russian: "0 лет", "2,5 года", "78,75 года".
func ageLabel(age float64) string {
	s := strings.ReplaceAll(strconv.FormatFloat(age, 'f', -1, 64), ".", ",")
	if age == math.Trunc(age) { // the whole ages of the line are multiples of 5: "лет"
		return s + " лет"
	}
	return s + " года"
}

// chartDrawingOf draws a chart: c's numbers, or an empty drawing for the details page's
// script to fill when c is nil.
func (p *pageRenderer) chartDrawingOf(id, title string, c *rules.Chart) chartDrawing {
	zoneTitle := func(key string) string {
		z, _ := p.s.Content.Chart.Zone(key)
		return z.Title
	}
	arcanum := func(label string, a uint8) (title, value string) {
		if c == nil {
			return label, ""
		}
		return fmt.Sprintf("%s: %d, %s", label, a, p.s.Content.Arcana[a-1].Name), strconv.Itoa(int(a))
	}
	d := chartDrawing{ID: id, Title: title, Size: chartSize, C: chartSize / 2, RingR: chartRing - 12,
		Desc: "Восьмиконечная звезда из двух квадратов: прямого (вершины A, B, C, D) и диагонального, родового (углы F, G, H, I), с центром E, точками на линиях к центру и каналами в нижней правой четверти; по кругу — линия возраста. Те же числа — в таблицах ниже."}
	corners := func(ps ...rules.ChartPoint) string {
		var out []string
		for _, pt := range ps {
			x, y := polar(chartOuter, chartAngles[pt])
			out = append(out, fmt.Sprintf("%g,%g", x, y))
		}
		return strings.Join(out, " ")
	}
	d.Straight = corners(rules.PointA, rules.PointB, rules.PointC, rules.PointD)
	d.Diagonal = corners(rules.PointF, rules.PointG, rules.PointH, rules.PointI)
	value := func(pt rules.ChartPoint) uint8 {
		if c == nil {
			return 0
		}
		return c.Points[pt]
	}
	dot := func(key, class, label string, x, y, r float64, a uint8) chartDot {
		t, v := arcanum(label, a)
		return chartDot{Key: key, Class: class, Label: label, Title: t, X: x, Y: y, R: r, Value: v}
	}
	for _, pt := range []rules.ChartPoint{rules.PointA, rules.PointF, rules.PointB, rules.PointG, rules.PointC, rules.PointH, rules.PointD, rules.PointI} {
		deg := chartAngles[pt]
		x, y := polar(chartOuter, deg)
		cx, cy := polar(0, 0)
		d.Axes = append(d.Axes, chartSegment{x, y, cx, cy})
		dt := dot("points."+pt.Key(), "outer", pt.Key()+" — "+zoneTitle(pt.Key()), x, y, 19, value(pt))
		dt.Letter = pt.Key()
		dt.LX, dt.LY = polar(chartOuter+27, deg)
		d.Dots = append(d.Dots, dt)
	}
	for _, in := range chartInner {
		x, y := polar(in.at*chartOuter, chartAngles[in.outer])
		label := "Точка " + in.point.Key() + " на линии " + in.outer.Key()
		switch in.point {
		case rules.PointC2:
			label = "C2 — " + zoneTitle("money_entry")
		case rules.PointD2:
			label = "D2 — " + zoneTitle("relationship_entry")
		}
		d.Dots = append(d.Dots, dot("points."+in.point.Key(), "inner", label, x, y, 12.5, value(in.point)))
	}
	// The channels: the balance halfway between C2 and D2, the money point halfway between
	// C2 and the balance, the love point halfway between the balance and D2.
	c2x, c2y := polar(0.56*chartOuter, chartAngles[rules.PointC])
	d2x, d2y := polar(0.56*chartOuter, chartAngles[rules.PointD])
	bx, by := round1((c2x+d2x)/2), round1((c2y+d2y)/2)
	d.Money, d.Love = chartSegment{c2x, c2y, bx, by}, chartSegment{bx, by, d2x, d2y}
	ch := func(k rules.ChartChannel) uint8 {
		if c == nil {
			return 0
		}
		return c.Channels[k]
	}
	d.Dots = append(d.Dots,
		dot("channels.money", "money", zoneTitle("money"), round1((c2x+bx)/2), round1((c2y+by)/2), 11, ch(rules.ChannelMoney)),
		dot("channels.balance", "balance", zoneTitle("balance"), bx, by, 11, ch(rules.ChannelBalance)),
		dot("channels.love", "love", zoneTitle("love"), round1((bx+d2x)/2), round1((by+d2y)/2), 11, ch(rules.ChannelLove)),
		dot("points.E", "centre", "E — "+zoneTitle("E"), chartSize/2, chartSize/2, 24, value(rules.PointE)),
	)
	outer := []rules.ChartPoint{rules.PointA, rules.PointF, rules.PointB, rules.PointG, rules.PointC, rules.PointH, rules.PointD, rules.PointI}
	for i := range rules.AgeLinePoints {
		age := rules.AgeLineAge(i)
		x, y := polar(chartRing, 180-age*4.5) // 80 years a turn, clockwise from A
		m := chartAgeMark{Key: "age_line." + strconv.Itoa(i), Index: i, X: x, Y: y, Decade: i%8 == 0, Label: ageLabel(age)}
		if m.Decade {
			m.Label += " — " + outer[i/8].Key()
			m.Text = strconv.Itoa(int(age))
		}
		var a uint8
		if c != nil {
			a = c.AgeLine[i]
		}
		var v string
		m.Title, v = arcanum(m.Label, a)
		if !m.Decade {
			m.Text = v
		}
		d.Ages = append(d.Ages, m)
	}
	return d
}

// drawChart renders a drawing with templates/chart-octagram.html.
func (p *pageRenderer) drawChart(d chartDrawing) (htmltemplate.HTML, error) {
	t, err := htmltemplate.New("").Funcs(templateFuncs).ParseFS(p.tfs, "chart-octagram.html")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "chart-octagram", d); err != nil {
		return "", fmt.Errorf("draw the chart: %w", err)
	}
	return htmltemplate.HTML(b.String()), nil // html/template escaped it
}

// chartPage is the page of the chart: the method worked on an example, a form, every text.
func (p *pageRenderer) chartPage() page {
	return page{file: ChartPage, template: "chart.html", path: "/chart", indexed: true,
		card:        cards.Card{Title: "Полная карта матрицы судьбы"},
		title:       "Полная карта матрицы судьбы по дате рождения",
		description: "Полная карта матрицы судьбы по методу Н. Ладини: 28 точек звезды, денежный канал и канал отношений, предназначения, кармический хвост, карта чакр и линия возраста. Для любой даты с 1900 по 2100 год.",
		fill: func(d *pageData) error {
			doc, err := p.chartDocOf()
			if err != nil {
				return err
			}
			in := chartExampleDate
			c := rules.ComputeChart(in.Day, in.Month, in.Year)
			doc.Drawing, err = p.drawChart(p.chartDrawingOf("example", "Карта матрицы судьбы для "+doc.Example.Date, &c))
			d.Page = doc
			return err
		}}
}

// chartDetailsPage draws the chart of the date in its query string. Like the other details
// pages it is left out of the sitemap: one URL per date would be 73,414 thin pages.
func (p *pageRenderer) chartDetailsPage() page {
	return page{file: ChartDetailsPage, template: "chart-details.html", path: "/chart/details",
		card:        cards.Card{Title: "Полная карта матрицы судьбы для даты рождения"},
		title:       "Полная карта матрицы по дате рождения — " + p.s.Content.Site.Title,
		description: "Полная карта матрицы судьбы для выбранной даты рождения: звезда из 28 точек, каналы, предназначения, кармический хвост, карта чакр и линия возраста.",
		fill: func(d *pageData) error {
			doc, err := p.chartDocOf()
			if err != nil {
				return err
			}
			if doc.Drawing, err = p.drawChart(p.chartDrawingOf("chart", "Карта матрицы судьбы", nil)); err != nil {
				return err
			}
			doc.Details = p.chartDetailsOf()
			d.Page = doc
			doc.JSON, err = p.chartJSON(doc)
			return err
		}}
}

// chartJSON is the data the details page's script reads: with it the page computes the
// chart of a date at once by the rule (docs/design.md §15), fills the drawing and the
// tables, and only checks them against the API record, so nothing moves when it arrives.
func (p *pageRenderer) chartJSON(doc *chartDoc) (htmltemplate.JS, error) {
	readings := map[string]map[string]string{}
	fields := map[string][]string{}
	for z, set := range doc.Meanings.Readings.All() {
		key := rules.ChartReadingZone(z).Key()
		for _, f := range set.Fields { // "karmic_tail[0]" → "karmic_tail.0", as the cells are keyed
			fields[key] = append(fields[key], strings.NewReplacer("[", ".", "]", "").Replace(f))
		}
		rd := map[string]string{}
		for _, r := range set.Readings {
			rd[strconv.Itoa(r.Arcana)] = r.Reading
		}
		readings[key] = rd
	}
	arcana := make([]string, len(p.s.Content.Arcana))
	for i, a := range p.s.Content.Arcana {
		arcana[i] = a.Name
	}
	v := struct {
		SiteTitle    string                       `json:"siteTitle"`
		SiteURL      string                       `json:"siteURL"`
		SupportEmail string                       `json:"supportEmail"`
		FirstYear    int                          `json:"firstYear"`
		LastYear     int                          `json:"lastYear"`
		RateLimit    int                          `json:"rateLimit"`
		Method       string                       `json:"method"`
		Citation     string                       `json:"citation"` // {date} and {url} left to fill
		Attribution  string                       `json:"attribution"`
		Arcana       []string                     `json:"arcana"`   // names, by number − 1
		Readings     map[string]map[string]string `json:"readings"` // by zone, then arcanum
		Fields       map[string][]string          `json:"fields"`   // the cells each zone's readings read
		Labels       map[string]string            `json:"labels"`   // what each cell is
		Points       []string                     `json:"points"`   // the point keys, in order
		Chakras      []string                     `json:"chakras"`  // the chakra keys, top to bottom
	}{
		SiteTitle:    p.s.Content.Site.Title,
		SiteURL:      p.s.SiteURL,
		SupportEmail: p.s.Content.Site.SupportEmail,
		FirstYear:    rules.FirstYear,
		LastYear:     rules.LastYear,
		RateLimit:    p.base.RateLimit.Requests,
		Method:       rules.ChartMethod,
		Citation:     p.s.chartCitation(),
		Attribution:  p.s.Attribution,
		Arcana:       arcana,
		Readings:     readings,
		Fields:       fields,
		Labels:       doc.Details.Labels,
		Points:       rules.ChartPointKeys(),
		Chakras:      rules.ChakraKeys(),
	}
	// goccy/go-json escapes <, > and & by default, so the JSON cannot close the script element.
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode chart page data: %w", err)
	}
	return htmltemplate.JS(b), nil
}
