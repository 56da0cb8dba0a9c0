package content

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CyclesFile holds the texts of the personal cycles (issue 29): the personal years, months
// and days, the pinnacles and the challenges.
const CyclesFile = "cycles.yaml"

// The numbers each set of cycle texts covers (issue 29's rules): personal years, months and
// days are reduced to one digit; pinnacles keep the master numbers 11 and 22; a challenge
// is a difference of two digits, 0–8.
var (
	CycleNumbers     = numbersFrom(1, 9)
	PinnacleNumbers  = append(numbersFrom(1, 9), 11, 22)
	ChallengeNumbers = numbersFrom(0, 8)
)

// Limits of the cycles' texts, in characters (runes) and words.
const (
	// MaxCycleShort bounds a short text carried in a record: the personal year's in every
	// personal-year record, a pinnacle's and a challenge's in the life path record of a date.
	MaxCycleShort = 160
	// MaxCycleNote bounds a personal month's or day's text: one or two sentences.
	MaxCycleNote       = 300
	MaxCycleTitle      = 60
	MaxCycleText       = 1000 // a year's purpose, helps and avoid; a pinnacle's or challenge's description
	MinCycleTextWords  = 12   // a year's purpose, helps and avoid
	MinCycleDescWords  = 30   // a pinnacle's or challenge's description: three to five sentences
	MinCycleIntroWords = 20
)

// Cycles is the content of cycles.yaml. The loader trims every text.
type Cycles struct {
	// Intro says what the numbers are: tendencies to reflect on, not events to come.
	Intro      string
	Years      map[int]CycleYear // by personal year number, CycleNumbers
	Months     map[int]string    // by personal month number, CycleNumbers
	Days       map[int]string    // by personal day number, CycleNumbers
	Pinnacles  map[int]CycleText // by pinnacle number, PinnacleNumbers
	Challenges map[int]CycleText // by challenge number, ChallengeNumbers
}

// CycleYear is the text of one personal year number.
type CycleYear struct {
	Title   string `yaml:"title"`
	Short   string `yaml:"short"`   // one sentence, carried in every personal-year record
	Purpose string `yaml:"purpose"` // what the year is for
	Helps   string `yaml:"helps"`   // what helps in it
	Avoid   string `yaml:"avoid"`   // what to avoid
}

// CycleText is the text of one pinnacle or challenge number.
type CycleText struct {
	Short       string `yaml:"short"` // carried in the life path record of a date
	Description string `yaml:"description"`
}

// cyclesFile is cycles.yaml as written.
type cyclesFile struct {
	Intro      string            `yaml:"intro"`
	Years      map[int]CycleYear `yaml:"years"`
	Months     map[int]string    `yaml:"months"`
	Days       map[int]string    `yaml:"days"`
	Pinnacles  map[int]CycleText `yaml:"pinnacles"`
	Challenges map[int]CycleText `yaml:"challenges"`
}

func (l *loader) loadCycles() Cycles {
	var f cyclesFile
	d := l.read(CyclesFile, &f)
	if d == nil {
		return Cycles{}
	}
	d.text("$.intro", "intro", f.Intro, MinCycleIntroWords, MaxCycleText)
	return Cycles{
		Intro:      strings.TrimSpace(f.Intro),
		Years:      d.checkYears(f.Years),
		Months:     d.numbered("$.months", "months", f.Months, CycleNumbers, "personal month", MaxCycleNote),
		Days:       d.numbered("$.days", "days", f.Days, CycleNumbers, "personal day", MaxCycleNote),
		Pinnacles:  d.checkCycleTexts("pinnacles", "pinnacle", f.Pinnacles, PinnacleNumbers),
		Challenges: d.checkCycleTexts("challenges", "challenge", f.Challenges, ChallengeNumbers),
	}
}

func (d *doc) checkYears(years map[int]CycleYear) map[int]CycleYear {
	out := map[int]CycleYear{}
	d.cycleNumbers("years", "personal year", slices.Collect(maps.Keys(years)), CycleNumbers)
	for _, n := range CycleNumbers {
		y, ok := years[n]
		if !ok {
			continue
		}
		yp, f := fmt.Sprintf("$.years.%d", n), fmt.Sprintf("years.%d", n)
		d.required(yp+".title", f+".title", y.Title)
		d.maxLen(yp+".title", f+".title", strings.TrimSpace(y.Title), MaxCycleTitle)
		d.short(yp, f, y.Short)
		d.text(yp+".purpose", f+".purpose", y.Purpose, MinCycleTextWords, MaxCycleText)
		d.text(yp+".helps", f+".helps", y.Helps, MinCycleTextWords, MaxCycleText)
		d.text(yp+".avoid", f+".avoid", y.Avoid, MinCycleTextWords, MaxCycleText)
		out[n] = CycleYear{
			Title: strings.TrimSpace(y.Title), Short: strings.TrimSpace(y.Short),
			Purpose: strings.TrimSpace(y.Purpose), Helps: strings.TrimSpace(y.Helps), Avoid: strings.TrimSpace(y.Avoid),
		}
	}
	return out
}

// checkCycleTexts checks the pinnacles or the challenges: a short text and a description for
// each number of want.
func (d *doc) checkCycleTexts(key, what string, texts map[int]CycleText, want []int) map[int]CycleText {
	out := map[int]CycleText{}
	d.cycleNumbers(key, what, slices.Collect(maps.Keys(texts)), want)
	for _, n := range want {
		t, ok := texts[n]
		if !ok {
			continue
		}
		yp, f := fmt.Sprintf("$.%s.%d", key, n), fmt.Sprintf("%s.%d", key, n)
		d.short(yp, f, t.Short)
		d.text(yp+".description", f+".description", t.Description, MinCycleDescWords, MaxCycleText)
		out[n] = CycleText{Short: strings.TrimSpace(t.Short), Description: strings.TrimSpace(t.Description)}
	}
	return out
}

// cycleNumbers reports the numbers of want that have no entry in the set key, and the
// entries for a number outside want.
func (d *doc) cycleNumbers(key, what string, have, want []int) {
	var missing []int
	for _, n := range want {
		if !slices.Contains(have, n) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		d.problem(d.setLine("$."+key), key, "no text for %s %s (want %s)", what, numberSpan(missing), numberSpan(want))
	}
	slices.Sort(have)
	for _, n := range have {
		if !slices.Contains(want, n) {
			d.problem(d.entryLine("$."+key, n), fmt.Sprintf("%s.%d", key, n), "unexpected %s %d (want %s)", what, n, numberSpan(want))
		}
	}
}

// short checks the short text of a year, pinnacle or challenge: present and at most
// MaxCycleShort characters, since records carry it.
func (d *doc) short(yp, f, value string) {
	d.required(yp+".short", f+".short", value)
	d.maxLen(yp+".short", f+".short", strings.TrimSpace(value), MaxCycleShort)
}
