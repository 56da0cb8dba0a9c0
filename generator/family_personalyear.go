package generator

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/opennumerology/numerology/generator/cards"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/generator/pack/table"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/internal/calendar"
)

// The route names of the personal cycles (docs/design.md §16).
const (
	RoutePersonalYearMeanings = "personal-year-meanings"
	RoutePersonalYear         = "personal-year"
)

// personalYearFamily is the route family of the personal cycles (docs/design.md §16): their
// texts, and the personal year of a birthday in a target year. The pinnacles and challenges
// of a birth date are in the life path record of the date (family_lifepath.go); their long
// texts are in this family's meanings.
func personalYearFamily() []routeUnit {
	p := manifest.APIPrefix
	return []routeUnit{{
		row: manifest.Route{
			Name: RoutePersonalYearMeanings, Pattern: p + "/personal-year/meanings", File: "api/public/personal-year/meanings.json",
			Summary:     "Тексты личных циклов",
			Description: "Тексты личных циклов: личные годы 1–9 (чему посвящён год, что помогает, чего избегать), личные месяцы и дни, вершины 1–9, 11, 22 и испытания 0–8",
			English:     "the personal cycles' texts: personal years 1–9 (what the year is for, what helps, what to avoid), personal months and days, pinnacles 1–9, 11, 22 and challenges 0–8",
			Example:     p + "/personal-year/meanings",
			OperationID: "getPersonalYearMeanings", Tag: "personal-year",
		},
		renderer: renderer{
			tag:    "Личный год, месяцы и дни по дню рождения и выбранному году, тексты циклов (вершины и испытания — в записи числа жизненного пути даты)",
			body:   CyclesMeanings{},
			fields: cyclesMeaningsFields,
			encoder: func(s *Site) (encodeFunc, error) {
				m, err := s.CyclesMeanings()
				if err != nil {
					return nil, err
				}
				return encodeOnce(m)
			},
			pages: func(p *pageRenderer) []page { return []page{p.personalYearPage()} },
		},
	}, {
		row: manifest.Route{
			Name: RoutePersonalYear, Pattern: p + "/personal-year/{day}/{month}/{year}", File: "api/public/personal-year/{day}/{month}/{year}.json",
			Params: personalYearParams(), Packed: &manifest.Packed{File: "api/public/personal-year-months/{year}/{month}.jsonl", Unit: manifest.UnitMonth},
			Error: manifest.ErrInvalidDate, RateLimited: true,
			Summary:     "Личный год, месяцы и дни для дня рождения",
			Description: fmt.Sprintf("Личный год для дня рождения (день и месяц) в выбранном году с %d по %d: число года, двенадцать личных месяцев и личное число каждого дня, краткое чтение года", rules.FirstYear, rules.LastYear),
			English:     "the personal year of a birthday (day and month) in a target year, " + yearsLabel() + ": the year's number, the twelve personal months and every day's personal number, with a short reading of the year; pass the current year for \"this year\"",
			Example:     p + "/personal-year/23/4/2025",
			OperationID: "getPersonalYear", Tag: "personal-year",
		},
		renderer: renderer{
			maxBytes: 3072, // issue 29: a record of at most 3 KB (TestPersonalYearRecordSize)
			goldens:  [][]int{{29, 2, 2000}, {29, 2, 1900}, {31, 12, 1900}, {1, 1, 2100}},

			body:   PersonalYearRecord{},
			fields: personalYearFields,
			encoder: func(s *Site) (encodeFunc, error) {
				e, err := newPersonalYearEncoder(s)
				if err != nil {
					return nil, err
				}
				return func(dst []byte, v []int) ([]byte, error) { return e.Append(dst, v[0], v[1], v[2]), nil }, nil
			},
			pages:  func(p *pageRenderer) []page { return []page{p.personalYearDetailsPage()} },
			tables: personalYearTables,
		},
	}}
}

// personalYearParams is the parameter type of the personal year: a birthday (any day of a
// leap year's calendar) and a target year of the range (docs/design.md §3, §16).
func personalYearParams() []manifest.ParamType {
	return []manifest.ParamType{{Type: manifest.ParamBirthdayYear, FirstYear: rules.FirstYear, LastYear: rules.LastYear}}
}

// PersonalYearRecord is the body of /personal-year/{day}/{month}/{year} (docs/design.md §16):
// the personal year of a birthday in a target year, its months and days, and the year's
// short reading. The long texts are in /personal-year/meanings.
type PersonalYearRecord struct {
	Input        PersonalYearInput `json:"input"`
	PersonalYear int               `json:"personal_year"`
	Title        string            `json:"title"`   // the year's title
	Reading      string            `json:"reading"` // the year's short text
	Months       [12]PersonalMonth `json:"months"`
	// SuggestedCitation and SourceURL: the details page of the birthday and year.
	SuggestedCitation string `json:"suggested_citation"`
	SourceURL         string `json:"source_url"`
	attribution
}

// PersonalYearInput is the canonical input of a personal year: the birthday and the target
// year.
type PersonalYearInput struct {
	Day   int `json:"day"`
	Month int `json:"month"`
	Year  int `json:"year"`
}

// PersonalMonth is one personal month of a year: its number and each day's personal number.
type PersonalMonth struct {
	Month  int   `json:"month"`
	Number int   `json:"number"`
	Days   []int `json:"days"`
}

// PersonalYearPage is the human page of the personal cycles: the method and every text.
func (s *Site) PersonalYearSourceURL() string { return s.SiteURL + "/personal-year" }

// PersonalYearDetailsURL is the human page of one birthday's personal year.
func (s *Site) PersonalYearDetailsURL(day, month, year int) string {
	return fmt.Sprintf("%s/personal-year/details?birthday=%02d-%02d&year=%04d", s.SiteURL, month, day, year)
}

// personalYearSubject names a personal year in its citation; {birthday} is DD.MM, {year}
// the target year.
const personalYearSubject = "Личный год для дня рождения {birthday} в {year} году"

// PersonalYearRecord builds the record of a valid birthday and target year.
func (s *Site) PersonalYearRecord(day, month, year int) PersonalYearRecord {
	py := rules.ComputePersonalYear(day, month, year)
	src := s.PersonalYearDetailsURL(day, month, year)
	text := s.Content.Cycles.Years[int(py.Number)]
	r := PersonalYearRecord{
		Input:        PersonalYearInput{day, month, year},
		PersonalYear: int(py.Number),
		Title:        text.Title,
		Reading:      text.Short,
		SuggestedCitation: strings.NewReplacer("{birthday}", fmt.Sprintf("%02d.%02d", day, month), "{year}", strconv.Itoa(year), "{url}", src).
			Replace(s.cite(personalYearSubject, "{url}")),
		SourceURL:   src,
		attribution: s.attribution(),
	}
	for k := 1; k <= 12; k++ {
		days := make([]int, 0, 31)
		for _, d := range py.MonthDays(k) {
			days = append(days, int(d))
		}
		r.Months[k-1] = PersonalMonth{Month: k, Number: int(py.Months[k-1]), Days: days}
	}
	return r
}

// personalYearEncoder renders the records of /personal-year/{day}/{month}/{year} by
// appending: between the input and the citation a record depends only on the personal year
// and whether the target year is a leap year, so those 18 middles are encoded once; the
// citation and the source URL are filled in. TestPersonalYearEncoderMatchesEncode holds it
// byte-identical to Encode(s.PersonalYearRecord) over every input.
type personalYearEncoder struct {
	middle [10][2][]byte // by number and leap: `},"personal_year":…,"months":[…],"suggested_citation":"`
	cite   []string      // the citation's JSON text split at its placeholders, in order
	order  []string      // the placeholders, in the order cite splits at them
	url    []byte        // `…/personal-year/details?birthday=`, JSON-escaped
	tail   []byte        // `","disclaimer":…}` + "\n"
}

func newPersonalYearEncoder(s *Site) (*personalYearEncoder, error) {
	e := &personalYearEncoder{}
	// Render a record of each number and calendar, then cut it where the pieces vary.
	for n := 1; n <= 9; n++ {
		for leap, y := range [2]int{2001, 2004} { // common, leap; only the day counts matter
			day := pyDayOf(n, y)
			r := s.PersonalYearRecord(day, 1, y)
			if r.PersonalYear != n {
				return nil, fmt.Errorf("personal year: the marker date gives %d, want %d", r.PersonalYear, n)
			}
			b, err := Encode(r)
			if err != nil {
				return nil, err
			}
			start := bytes.Index(b, []byte(`},"personal_year":`))
			end := bytes.Index(b, []byte(`"suggested_citation":"`))
			if start < 0 || end < 0 {
				return nil, fmt.Errorf("personal year record: unexpected field order")
			}
			e.middle[n][leap] = slices0(b[start : end+len(`"suggested_citation":"`)])
			if n == 1 && leap == 0 {
				tail := bytes.Index(b, []byte(`","disclaimer":`))
				if tail < 0 {
					return nil, fmt.Errorf("personal year record: no disclaimer after the source URL")
				}
				e.tail = slices0(b[tail:])
			}
		}
	}
	// The citation, JSON-escaped, with its placeholders found in it.
	c, err := json.MarshalWithOption(s.cite(personalYearSubject, "{url}"), json.DisableHTMLEscape())
	if err != nil {
		return nil, err
	}
	rest := string(c[1 : len(c)-1])
	for {
		i, ph := -1, ""
		for _, p := range []string{"{birthday}", "{year}", "{url}"} {
			if j := strings.Index(rest, p); j >= 0 && (i < 0 || j < i) {
				i, ph = j, p
			}
		}
		if i < 0 {
			e.cite = append(e.cite, rest)
			break
		}
		e.cite = append(e.cite, rest[:i])
		e.order = append(e.order, ph)
		rest = rest[i+len(ph):]
	}
	u, err := json.MarshalWithOption(s.PersonalYearSourceURL()+"/details?birthday=", json.DisableHTMLEscape())
	if err != nil {
		return nil, err
	}
	e.url = u[1 : len(u)-1]
	return e, nil
}

// pyDayOf is a day of January whose personal year in y is n.
func pyDayOf(n, y int) int {
	for d := 1; d <= 31; d++ {
		if int(rules.ComputePersonalYear(d, 1, y).Number) == n {
			return d
		}
	}
	panic("generator bug: no January day gives every personal year")
}

func slices0(b []byte) []byte { return append([]byte(nil), b...) }

// Append appends the record of a valid birthday and target year to dst.
func (e *personalYearEncoder) Append(dst []byte, day, month, year int) []byte {
	dst = append(dst, `{"input":{"day":`...)
	dst = strconv.AppendInt(dst, int64(day), 10)
	dst = append(dst, `,"month":`...)
	dst = strconv.AppendInt(dst, int64(month), 10)
	dst = append(dst, `,"year":`...)
	dst = strconv.AppendInt(dst, int64(year), 10)
	leap := 0
	if calendar.IsLeap(year) {
		leap = 1
	}
	n := rules.ComputePersonalYear(day, month, year).Number
	dst = append(dst, e.middle[n][leap]...)
	for i, part := range e.cite {
		dst = append(dst, part...)
		if i < len(e.order) {
			switch e.order[i] {
			case "{birthday}":
				dst = append2(dst, day)
				dst = append(dst, '.')
				dst = append2(dst, month)
			case "{year}":
				dst = strconv.AppendInt(dst, int64(year), 10)
			case "{url}":
				dst = e.appendURL(dst, day, month, year)
			}
		}
	}
	dst = append(dst, `","source_url":"`...)
	dst = e.appendURL(dst, day, month, year)
	return append(dst, e.tail...)
}

func (e *personalYearEncoder) appendURL(dst []byte, day, month, year int) []byte {
	dst = append(dst, e.url...)
	dst = append2(dst, month)
	dst = append(dst, '-')
	dst = append2(dst, day)
	dst = append(dst, "&year="...)
	return append4(dst, year)
}

// CyclesMeanings is the body of /personal-year/meanings: the texts of the personal cycles
// (docs/design.md §16), served once — the personal years, months and days, and the
// pinnacles and challenges that the life path record of a date carries by number.
type CyclesMeanings struct {
	Intro             string             `json:"intro"`
	Years             []CycleYearMeaning `json:"years"`      // 1–9
	Months            []CycleNote        `json:"months"`     // 1–9
	Days              []CycleNote        `json:"days"`       // 1–9
	Pinnacles         []CycleMeaning     `json:"pinnacles"`  // rules.PinnacleNumbers
	Challenges        []CycleMeaning     `json:"challenges"` // rules.ChallengeNumbers
	SuggestedCitation string             `json:"suggested_citation"`
	SourceURL         string             `json:"source_url"`
	attribution
}

// CycleYearMeaning is the text of one personal year number.
type CycleYearMeaning struct {
	Number  int    `json:"number"`
	Title   string `json:"title"`
	Short   string `json:"short"`
	Purpose string `json:"purpose"`
	Helps   string `json:"helps"`
	Avoid   string `json:"avoid"`
}

// CycleNote is the text of one personal month or day number.
type CycleNote struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

// CycleMeaning is the text of one pinnacle or challenge number.
type CycleMeaning struct {
	Number      int    `json:"number"`
	Short       string `json:"short"`
	Description string `json:"description"`
}

// CyclesMeanings builds the body of /personal-year/meanings.
func (s *Site) CyclesMeanings() (CyclesMeanings, error) {
	c := &s.Content.Cycles
	m := CyclesMeanings{
		Intro:             c.Intro,
		SuggestedCitation: s.cite("Личные циклы: личный год, месяц и день, вершины и испытания", s.PersonalYearSourceURL()),
		SourceURL:         s.PersonalYearSourceURL(),
		attribution:       s.attribution(),
	}
	for n := 1; n <= 9; n++ {
		y, ok := c.Years[n]
		mo, okm := c.Months[n]
		d, okd := c.Days[n]
		if !ok || !okm || !okd {
			return m, fmt.Errorf("personal cycles: no text of personal year, month or day %d", n)
		}
		m.Years = append(m.Years, CycleYearMeaning{n, y.Title, y.Short, y.Purpose, y.Helps, y.Avoid})
		m.Months = append(m.Months, CycleNote{n, mo})
		m.Days = append(m.Days, CycleNote{n, d})
	}
	for _, n := range rules.PinnacleNumbers {
		t, ok := c.Pinnacles[n]
		if !ok {
			return m, fmt.Errorf("personal cycles: no text of pinnacle %d", n)
		}
		m.Pinnacles = append(m.Pinnacles, CycleMeaning{n, t.Short, t.Description})
	}
	for _, n := range rules.ChallengeNumbers {
		t, ok := c.Challenges[n]
		if !ok {
			return m, fmt.Errorf("personal cycles: no text of challenge %d", n)
		}
		m.Challenges = append(m.Challenges, CycleMeaning{n, t.Short, t.Description})
	}
	return m, nil
}

// cycleDigit is the schema of a personal year, month or day number.
var cycleDigit = obj{"type": "integer", "minimum": 1, "maximum": 9}

func personalYearFields(*Site) map[string]obj {
	return map[string]obj{
		"PersonalYearRecord.personal_year": {"minimum": 1, "maximum": 9, "description": "Личный год: r9(день + месяц + сумма цифр года); мастер-числа тоже приводятся к одной цифре"},
		"PersonalYearRecord.title":         {"description": "Название личного года; полные тексты — /personal-year/meanings"},
		"PersonalYearRecord.reading":       {"description": "Краткое чтение года: склонность, не прогноз"},
		"PersonalYearRecord.months":        {"minItems": 12, "maxItems": 12, "description": "Двенадцать личных месяцев по порядку"},
		"PersonalYearRecord.source_url":    {"format": "uri", "description": "Страница с календарём этого дня рождения и года"},
		"PersonalYearInput.day":            {"minimum": 1, "maximum": 31, "description": "День рождения"},
		"PersonalYearInput.month":          {"minimum": 1, "maximum": 12, "description": "Месяц рождения"},
		"PersonalYearInput.year":           {"minimum": rules.FirstYear, "maximum": rules.LastYear, "description": "Год, для которого считается цикл"},
		"PersonalMonth.month":              {"minimum": 1, "maximum": 12},
		"PersonalMonth.number":             {"minimum": 1, "maximum": 9, "description": "Личный месяц: r9(личный год + номер месяца)"},
		"PersonalMonth.days":               {"minItems": 28, "maxItems": 31, "items": cycleDigit, "description": "Личное число каждого дня месяца по календарю выбранного года: r9(личный месяц + день)"},
	}
}

func cyclesMeaningsFields(*Site) map[string]obj {
	return map[string]obj{
		"CyclesMeanings.years":              {"minItems": 9, "maxItems": 9, "description": "Личные годы 1–9"},
		"CyclesMeanings.months":             {"minItems": 9, "maxItems": 9, "description": "Личные месяцы 1–9"},
		"CyclesMeanings.days":               {"minItems": 9, "maxItems": 9, "description": "Личные дни 1–9"},
		"CyclesMeanings.pinnacles":          {"minItems": len(rules.PinnacleNumbers), "maxItems": len(rules.PinnacleNumbers), "description": "Вершины 1–9, 11, 22 (их числа — в записи /life-path/{day}/{month}/{year})"},
		"CyclesMeanings.challenges":         {"minItems": len(rules.ChallengeNumbers), "maxItems": len(rules.ChallengeNumbers), "description": "Испытания 0–8"},
		"CyclesMeanings.source_url":         {"format": "uri", "description": "Страница с правилами и всеми текстами циклов"},
		"CycleYearMeaning.number":           cycleDigit,
		"CycleYearMeaning.purpose":          {"description": "Чему посвящён год"},
		"CycleYearMeaning.helps":            {"description": "Что помогает"},
		"CycleYearMeaning.avoid":            {"description": "Чего избегать"},
		"CycleNote.number":                  cycleDigit,
		"CycleMeaning.number":               {"minimum": 0, "maximum": 22},
		"CycleMeaning.short":                {"description": "Краткий текст, как в записи даты"},
		"CycleMeaning.description":          {"description": "От трёх до пяти предложений о склонностях, не прогноз"},
		"CycleYearMeaning.short":            {"description": "Краткий текст, как в записи личного года"},
		"CyclesMeanings.intro":              {"description": "Что такое числа циклов: склонности, а не события"},
		"CycleNote.text":                    {"description": "Одно-два предложения"},
		"CycleYearMeaning.title":            {"description": "Название года"},
		"CyclesMeanings.suggested_citation": {"description": "Как цитировать эти тексты"},
	}
}

// personalYearTables is personal_year: the personal year and months of every birthday and
// target year. The days follow from the months (day j of month k is r9(month k + j)).
func personalYearTables() []Table {
	cols := []table.Column{
		intColumn("day", "Day of birth", 1, 31),
		intColumn("month", "Month of birth", 1, 12),
		intColumn("year", "Target year", rules.FirstYear, rules.LastYear),
		intColumn("personal_year", "Personal year, 1–9", 1, 9),
	}
	for k := 1; k <= 12; k++ {
		cols = append(cols, intColumn("month_"+strconv.Itoa(k), "Personal month "+strconv.Itoa(k)+", 1–9", 1, 9))
	}
	return []Table{{&table.Table{
		Name:        "personal_year",
		Title:       "Personal year and months of every birthday in every year",
		Description: "One row per birthday (any day of a leap year's calendar) and target year: the personal year and the twelve personal months, as in " + route(RoutePersonalYear).File + "; the personal day j of month k is r9(month_k + j). The texts are in " + route(RoutePersonalYearMeanings).File + ".",
		Russian:     "личный год и двенадцать личных месяцев для каждого дня рождения и года: день, месяц, год, личный год, месяцы 1–12",
		Columns:     cols,
		PrimaryKey:  []string{"day", "month", "year"},
	}, func(t *table.Table, vals []int, body []byte) error {
		var r struct {
			Input        PersonalYearInput `json:"input"`
			PersonalYear int               `json:"personal_year"`
			Months       []struct {
				Number int `json:"number"`
			} `json:"months"`
		}
		if err := json.Unmarshal(body, &r); err != nil || len(r.Months) != 12 {
			return fmt.Errorf("not a personal year record: %v", err)
		}
		if r.Input.Day != vals[0] || r.Input.Month != vals[1] || r.Input.Year != vals[2] {
			return fmt.Errorf("holds the record of %d.%d in %d", r.Input.Day, r.Input.Month, r.Input.Year)
		}
		row := []table.Value{table.Int(vals[0]), table.Int(vals[1]), table.Int(vals[2]), table.Int(r.PersonalYear)}
		for _, m := range r.Months {
			row = append(row, table.Int(m.Number))
		}
		return t.Append(row...)
	}}}
}

// Page files of the personal cycles.
const (
	PersonalYearPage        = "personal-year.html"
	PersonalYearDetailsPage = "personal-year/details.html"
)

// personalYearExampleInput is the worked example of docs/design.md §16 (the issue's).
var personalYearExampleInput = PersonalYearInput{23, 4, 2025}

// personalYearDoc is what the personal year's pages show: the texts, the worked example
// and, for the details page, the data its script computes a year with.
type personalYearDoc struct {
	Meanings    CyclesMeanings
	Example     personalYearExample
	MonthNames  []monthOption // the form's months
	MeaningsAPI string        // the path of /personal-year/meanings
	Citation    string        // of the meanings
	JSON        htmltemplate.JS
}

// personalYearExample is the worked example, drawn from the rule.
type personalYearExample struct {
	Birthday, DetailsPath, APIPath string
	Year                           int
	YearSum                        string // "2 + 0 + 2 + 5 = 9"
	Sum                            string // "23 + 4 + 9 = 36 → 9"
	Number                         int
	Months                         [12]int
	Month                          string // "апреле"
	MonthNumber, DayNumber         int
	DaySum                         string // "4 + 23 = 27 → 9"
}

// monthNames are the months in Russian, nominative.
var monthNames = [12]string{"Январь", "Февраль", "Март", "Апрель", "Май", "Июнь", "Июль", "Август", "Сентябрь", "Октябрь", "Ноябрь", "Декабрь"}

// monthOption is a month of the form's list.
type monthOption struct {
	Number int
	Name   string
}

func monthOptions() []monthOption {
	out := make([]monthOption, 12)
	for i, n := range monthNames {
		out[i] = monthOption{i + 1, n}
	}
	return out
}

// monthsIn are the months in Russian, prepositional («в апреле»).
var monthsIn = [12]string{"январе", "феврале", "марте", "апреле", "мае", "июне", "июле", "августе", "сентябре", "октябре", "ноябре", "декабре"}

// reduction writes how n reduces by r9: "36 → 9", "9" when it is one digit already.
func reduction(n int) string {
	s := strconv.Itoa(n)
	for n > 9 {
		n = sumOfDigits(n)
		s += " → " + strconv.Itoa(n)
	}
	return s
}

func (p *pageRenderer) personalYearDocOf() (*personalYearDoc, error) {
	m, err := p.s.CyclesMeanings()
	if err != nil {
		return nil, err
	}
	in := personalYearExampleInput
	py := rules.ComputePersonalYear(in.Day, in.Month, in.Year)
	digits := strings.Split(strconv.Itoa(in.Year), "")
	ys := sumOfDigits(in.Year)
	ex := personalYearExample{
		Birthday:    fmt.Sprintf("%02d.%02d", in.Day, in.Month),
		DetailsPath: strings.TrimPrefix(p.s.PersonalYearDetailsURL(in.Day, in.Month, in.Year), p.s.SiteURL),
		APIPath:     RoutePath(RoutePersonalYear, in.Day, in.Month, in.Year),
		Year:        in.Year,
		YearSum:     strings.Join(digits, " + ") + " = " + strconv.Itoa(ys),
		Sum:         fmt.Sprintf("%d + %d + %d = %s", in.Day, in.Month, ys, reduction(in.Day+in.Month+ys)),
		Number:      int(py.Number),
		Month:       monthsIn[in.Month-1],
		MonthNumber: int(py.Months[in.Month-1]),
		DayNumber:   int(py.Days[in.Month-1][in.Day-1]),
	}
	ex.DaySum = fmt.Sprintf("%d + %d = %s", ex.MonthNumber, in.Day, reduction(ex.MonthNumber+in.Day))
	for k := range ex.Months {
		ex.Months[k] = int(py.Months[k])
	}
	return &personalYearDoc{
		Meanings:    m,
		Example:     ex,
		MonthNames:  monthOptions(),
		MeaningsAPI: RoutePath(RoutePersonalYearMeanings),
		Citation:    m.SuggestedCitation,
	}, nil
}

// personalYearPage is the page of the personal cycles: the rules, a form, every text.
func (p *pageRenderer) personalYearPage() page {
	return page{file: PersonalYearPage, template: "personal-year.html", path: "/personal-year", indexed: true,
		card:        cards.Card{Title: "Личный год"},
		title:       "Личный год, месяц и день по дню рождения",
		description: "Личный год по дню рождения: как считаются личный год, месяцы и дни, что традиция связывает с каждым числом, вершины и испытания жизненного пути. Для любого года с 1900 по 2100.",
		fill: func(d *pageData) (err error) {
			d.Page, err = p.personalYearDocOf()
			return err
		}}
}

// personalYearDetailsPage draws the personal year of the birthday and year in its query
// string. Like the other details pages it is left out of the sitemap.
func (p *pageRenderer) personalYearDetailsPage() page {
	return page{file: PersonalYearDetailsPage, template: "personal-year-details.html", path: "/personal-year/details",
		card:        cards.Card{Title: "Личный год по дню рождения"},
		title:       "Личный год по дню рождения — " + p.s.Content.Site.Title,
		description: "Личный год для выбранного дня рождения и года: число года и календарь из двенадцати месяцев, где у каждого дня своё личное число.",
		fill: func(d *pageData) error {
			doc, err := p.personalYearDocOf()
			if err != nil {
				return err
			}
			d.Page = doc
			doc.JSON, err = p.personalYearJSON(doc)
			return err
		}}
}

// personalYearJSON is the data the details page's script reads: with it the page computes
// the year by the rule (docs/design.md §16) at once and only checks it against the API
// record, so nothing moves when the record arrives.
func (p *pageRenderer) personalYearJSON(doc *personalYearDoc) (htmltemplate.JS, error) {
	type year struct {
		Title string `json:"title"`
		Short string `json:"short"`
	}
	v := struct {
		SiteTitle    string     `json:"siteTitle"`
		SiteURL      string     `json:"siteURL"`
		SupportEmail string     `json:"supportEmail"`
		FirstYear    int        `json:"firstYear"`
		LastYear     int        `json:"lastYear"`
		RateLimit    int        `json:"rateLimit"`
		Citation     string     `json:"citation"` // {birthday}, {year} and {url} left to fill
		Attribution  string     `json:"attribution"`
		Years        []year     `json:"years"`  // by number − 1
		Months       []string   `json:"months"` // the personal months' texts, by number − 1
		Days         []string   `json:"days"`   // the personal days' texts, by number − 1
		MonthNames   [12]string `json:"monthNames"`
	}{
		SiteTitle:    p.s.Content.Site.Title,
		SiteURL:      p.s.SiteURL,
		SupportEmail: p.s.Content.Site.SupportEmail,
		FirstYear:    rules.FirstYear,
		LastYear:     rules.LastYear,
		RateLimit:    p.base.RateLimit.Requests,
		Citation:     p.s.cite(personalYearSubject, "{url}"),
		Attribution:  p.s.Attribution,
		MonthNames:   monthNames,
	}
	for _, y := range doc.Meanings.Years {
		v.Years = append(v.Years, year{y.Title, y.Short})
	}
	for i := range doc.Meanings.Months {
		v.Months = append(v.Months, doc.Meanings.Months[i].Text)
		v.Days = append(v.Days, doc.Meanings.Days[i].Text)
	}
	// goccy/go-json escapes <, > and & by default, so the JSON cannot close the script element.
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode personal year page data: %w", err)
	}
	return htmltemplate.JS(b), nil
}

// sumOfDigits is the sum of n's decimal digits.
func sumOfDigits(n int) int {
	s := 0
	for ; n > 0; n /= 10 {
		s += n % 10
	}
	return s
}
