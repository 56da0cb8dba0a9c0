package generator

import (
	"fmt"
	"html"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opennumerology/numerology/content"
	"github.com/opennumerology/numerology/generator/rules"
	"github.com/opennumerology/numerology/templates"
)

// The tests of this file pin, against the rules, the facts the pages state and an editor
// found false or missing (issue 32): where each arcanum can stand, the other way of
// computing the life path number, the +19 variant of the square, the famous people's dates,
// and the caveats every compatibility page carries.

// pageText reads a page of the tree as a reader sees its text: tags dropped, references
// decoded, no-break spaces as spaces.
func pageText(t *testing.T, tree, file string) (raw, text string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	raw = string(b)
	text = html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(raw, ""))
	return raw, strings.ReplaceAll(text, "\u00a0", " ")
}

// TestArcanumPositionsFacts checks the sets of positions against what the review computed
// over every date (its appendix), independently of ArcanumPositions' own walk.
func TestArcanumPositionsFacts(t *testing.T) {
	all := rules.PositionKeys()
	without := func(keys ...string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(k string) bool { return slices.Contains(keys, k) })
	}
	want := map[int][]string{
		1:  {"personal", "talents"},
		2:  {"personal", "talents", "money"},
		3:  all,
		4:  without("destiny"),
		12: all,
		13: without("social", "talents", "destiny"),
		15: without("center", "talents"),
		17: without("center", "talents", "destiny"),
		18: without("talents"),
		21: without("center", "talents"),
		22: without("talents", "destiny"),
	}
	for n, keys := range want {
		if got := ArcanumPositions(n); !slices.Equal(got, keys) {
			t.Errorf("ArcanumPositions(%d) = %v, want %v", n, got, keys)
		}
	}
	// Whole positions: Таланты holds only 1–12, Предназначение only multiples of 3.
	for n := 1; n <= numArcana; n++ {
		keys := ArcanumPositions(n)
		if got, want := slices.Contains(keys, "talents"), n <= 12; got != want {
			t.Errorf("arcanum %d in talents: %v, want %v", n, got, want)
		}
		if got, want := slices.Contains(keys, "destiny"), n%3 == 0; got != want {
			t.Errorf("arcanum %d in destiny: %v, want %v", n, got, want)
		}
	}
	if ArcanumPositions(0) != nil || ArcanumPositions(23) != nil {
		t.Error("ArcanumPositions answers for a number that is no arcanum")
	}
}

// TestArcanumPagesSayWhereTheyStand checks the sentence of every arcanum's page against the
// positions the arcanum takes, computed here by walking every date with package time (the
// review's E1: the page said «в любой из двенадцати позиций» for all 22).
func TestArcanumPagesSayWhereTheyStand(t *testing.T) {
	_, tree := sharedTree(t)
	var taken [numArcana + 1]map[string]bool
	for i := range taken {
		taken[i] = map[string]bool{}
	}
	keys := rules.PositionKeys()
	for d := time.Date(rules.FirstYear, 1, 1, 12, 0, 0, 0, time.UTC); d.Year() <= rules.LastYear; d = d.AddDate(0, 0, 1) {
		for p, a := range rules.ComputeMatrix(d.Day(), int(d.Month()), d.Year()) {
			taken[a][keys[p]] = true
		}
	}
	sentenceRe := regexp.MustCompile(`(?s)<p class="arcanum-places">(.*?)</p>`)
	linkRe := regexp.MustCompile(`href="/matrix#([a-z]+)"`)
	for n := 1; n <= numArcana; n++ {
		raw, _ := pageText(t, tree, ArcanaPage(n))
		m := sentenceRe.FindStringSubmatch(raw)
		if m == nil {
			t.Errorf("arcanum %d: the page does not say where it can stand", n)
			continue
		}
		sentence := strings.ReplaceAll(html.UnescapeString(m[1]), "\u00a0", " ")
		var named []string
		for _, l := range linkRe.FindAllStringSubmatch(sentence, -1) {
			named = append(named, l[1])
		}
		var in, out []string
		for _, k := range keys {
			if taken[n][k] {
				in = append(in, k)
			} else {
				out = append(out, k)
			}
		}
		switch {
		case len(out) == 0:
			if !strings.Contains(sentence, "в любой из двенадцати позиций") || len(named) != 0 {
				t.Errorf("arcanum %d stands anywhere, the page says: %s", n, sentence)
			}
		case strings.Contains(sentence, "встречается только в позициях"):
			if !slices.Equal(named, in) {
				t.Errorf("arcanum %d: the page names %v as its only positions, the rule gives %v", n, named, in)
			}
		case strings.Contains(sentence, "во всех позициях, кроме"):
			if !slices.Equal(named, out) {
				t.Errorf("arcanum %d: the page names %v as the positions it never takes, the rule gives %v", n, named, out)
			}
		default:
			t.Errorf("arcanum %d: the page's sentence says neither where it stands nor where it never does: %s", n, sentence)
		}
		if len(out) > 0 && strings.Contains(sentence, "любой") {
			t.Errorf("arcanum %d never takes %v, yet the page says «любой»", n, out)
		}
	}
}

// TestLifePathMethodClaim checks what the list of life path numbers says of the other way
// of computing the number (reduce the day, the month and the year first, then their sum):
// it gives another number on about one date in seven of the range, and only where one of
// the two ways stops at a master number and the other at its digit sum (2, 4 or 6).
func TestLifePathMethodClaim(t *testing.T) {
	_, tree := sharedTree(t)
	_, text := pageText(t, tree, LifePathListPage)
	for _, w := range []string{"примерно у каждой седьмой даты", "всегда из-за мастер-чисел", "у одного выходит 11, 22 или 33, у другого — 2, 4 или 6", "по новому стилю"} {
		if !strings.Contains(text, w) {
			t.Errorf("the list page no longer says %q: check the claim against its new text", w)
		}
	}
	// separately reduces each part as those calculators do, master numbers kept.
	reduce := func(n int) int {
		for n > 9 && n != 11 && n != 22 && n != 33 {
			s := 0
			for ; n > 0; n /= 10 {
				s += n % 10
			}
			n = s
		}
		return n
	}
	all, differ := 0, 0
	for d := time.Date(rules.FirstYear, 1, 1, 12, 0, 0, 0, time.UTC); d.Year() <= rules.LastYear; d = d.AddDate(0, 0, 1) {
		all++
		ours := rules.LifePath(d.Day(), int(d.Month()), d.Year())
		theirs := reduce(reduce(d.Day()) + reduce(int(d.Month())) + reduce(d.Year()))
		if ours == theirs {
			continue
		}
		differ++
		pair := [2]int{min(ours, theirs), max(ours, theirs)}
		if pair != [2]int{2, 11} && pair != [2]int{4, 22} && pair != [2]int{6, 33} {
			t.Errorf("%s: %d by all digits, %d by parts: not a master number and its digit sum", d.Format("02.01.2006"), ours, theirs)
		}
	}
	if share := float64(differ) / float64(all); share < 1.0/8 || share > 1.0/6 {
		t.Errorf("the ways differ on %d of %d dates (%.3f), not about one in seven", differ, all, share)
	}
}

// TestSquarePageVariant checks the square page's sentence on the variant it does not use
// (the review's E10): it adds 19 to the first number for dates from 2000 on (docs/design.md
// §14), and the page must say so, not «после 2000 года» nor «к числам».
func TestSquarePageVariant(t *testing.T) {
	_, tree := sharedTree(t)
	_, text := pageText(t, tree, SquarePage)
	if !strings.Contains(text, "для дат с 2000 года получают третье число иначе — прибавляют к первому 19") {
		t.Errorf("the square page does not describe the +19 variant as §14 does")
	}
	for _, bad := range []string{"после 2000 года", "к числам дат"} {
		if strings.Contains(text, bad) {
			t.Errorf("the square page says %q", bad)
		}
	}
}

// TestFamousPeopleDates checks the life path pages' dates (the review's E12): each person's
// New Style date in full, the Old Style one beside it where the content gives it, and the
// note on how to read them.
func TestFamousPeopleDates(t *testing.T) {
	s, tree := sharedTree(t)
	withOld := 0
	for _, lp := range s.Content.LifePaths {
		_, text := pageText(t, tree, LifePathPage(lp.Number))
		if !strings.Contains(text, "Даты — по новому стилю") {
			t.Errorf("life path %d: no note on the calendar", lp.Number)
		}
		// The bracketed date is the Old Style one reference works give, not a sign of a
		// Julian birthplace: Catherine II (8) was born in Prussia, under the Gregorian
		// calendar (the texts35 read found «Тем, кто родился при юлианском календаре»).
		if strings.Contains(text, "родился при юлианском") {
			t.Errorf("life path %d: the note says every bracketed date is of a birth under the Julian calendar", lp.Number)
		}
		for _, p := range lp.FamousPeople {
			ns, _ := time.Parse(time.DateOnly, p.Born)
			want := strings.ReplaceAll(fmt.Sprintf("%s — %s, род. %d %s %d г.", p.Name, p.Field, ns.Day(), monthsGenitive[ns.Month()-1], ns.Year()), "\u00a0", " ")
			if p.BornOldStyle != "" {
				withOld++
				want += " ("
			}
			if !strings.Contains(text, want) {
				t.Errorf("life path %d: the page lacks %q", lp.Number, want)
			}
		}
		if strings.Count(text, "по старому стилю)") != countOld(lp.FamousPeople) {
			t.Errorf("life path %d: %d Old Style dates on the page, want %d", lp.Number, strings.Count(text, "по старому стилю)"), countOld(lp.FamousPeople))
		}
	}
	if withOld == 0 {
		t.Fatal("no person with an Old Style date: the test checks nothing")
	}
}

// countOld is how many of people have an Old Style date.
func countOld(people []content.Person) int {
	n := 0
	for _, p := range people {
		if p.BornOldStyle != "" {
			n++
		}
	}
	return n
}

// TestBornText checks the date's wording, the year of the Old Style date among it.
func TestBornText(t *testing.T) {
	tests := []struct{ born, old, want string }{
		{"1799-06-06", "1799-05-26", "6\u00a0июня 1799\u00a0г. (26\u00a0мая по старому стилю)"},
		{"1910-01-08", "1909-12-26", "8\u00a0января 1910\u00a0г. (26\u00a0декабря 1909\u00a0г. по старому стилю)"},
		{"1889-04-16", "", "16\u00a0апреля 1889\u00a0г."},
		{"1700-03-11", "1700-02-29", "11\u00a0марта 1700\u00a0г. (29\u00a0февраля по старому стилю)"},
	}
	for _, tt := range tests {
		if got := bornText(content.Person{Born: tt.born, BornOldStyle: tt.old}); got != tt.want {
			t.Errorf("bornText(%s, %s) = %q, want %q", tt.born, tt.old, got, tt.want)
		}
	}
}

// TestCompatibilityPagesCarryTheCaveats checks that every pair's page frames its text as the
// tradition's and says once that fear, humiliation, control or violence are not a matter of
// numbers (the review's §6): in the demanding level's description or, for the other
// levels, in the page's own sentence; and that the list of pairs says it too.
func TestCompatibilityPagesCarryTheCaveats(t *testing.T) {
	s, tree := sharedTree(t)
	const frame, help = "Так традиция описывает сочетание", "есть страх, унижение, контроль или насилие"
	const helpLevel = "в отношениях есть унижение, контроль или насилие"
	for _, p := range s.Content.Compatibility.Pairs {
		_, text := pageText(t, tree, CompatibilityPairPage(p.A, p.B))
		if n := strings.Count(text, frame); n != 1 {
			t.Errorf("%d/%d: the frame appears %d times, want 1", p.A, p.B, n)
		}
		if n := strings.Count(text, help) + strings.Count(text, helpLevel); n != 1 {
			t.Errorf("%d/%d (%s): the sentence on fear and violence appears %d times, want 1", p.A, p.B, p.Level, n)
		}
	}
	_, list := pageText(t, tree, CompatibilityPage)
	if !strings.Contains(list, help) || !strings.Contains(list, "Так традиция описывает сочетания") {
		t.Error("the page of all pairs lacks the frame or the sentence on fear and violence")
	}
}

// helpWords are what every sentence on fear and violence in a relationship names (issue 32,
// §6): the four signs, then the kinds of help, the emergency number last.
var helpWords = []struct{ name, stem string }{
	{"fear", "страх"}, {"humiliation", "униж"}, {"control", "контрол"}, {"violence", "насили"},
	{"a psychologist", "психолог"}, {"a lawyer", "юрист"}, {"a crisis service", "кризисн"},
	{"a helpline", "доверия"}, {"a threat to life", "угроз"}, {"the emergency services", "экстренн"},
	{"their number", "112"},
}

// TestHelpSentencesAgree checks that the four places that say it name the same signs and
// the same help: the pages' sentence (layout.html, compat-help), the compatibility records'
// help (site.yaml, record_help), the demanding level's description and the chart's
// relationship channel. Each says it in its own words; every pair's record carries the help.
func TestHelpSentencesAgree(t *testing.T) {
	s, err := loadTestSite()
	if err != nil {
		t.Fatal(err)
	}
	layout, err := fs.ReadFile(templates.FS(), "layout.html")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)\{\{define "compat-help" -\}\}(.*?)\{\{- end\}\}`).FindSubmatch(layout)
	if block == nil {
		t.Fatal("layout.html defines no compat-help")
	}
	places := map[string]string{"the pages (layout.html, compat-help)": string(block[1])}
	for i, p := range s.Content.Compatibility.Pairs {
		r, ok := s.CompatibilityRecord(p.A, p.B)
		switch {
		case !ok:
			t.Fatalf("no record of %d/%d", p.A, p.B)
		case i == 0:
			places["the compatibility records (site.yaml, record_help)"] = r.Help
		case r.Help != places["the compatibility records (site.yaml, record_help)"]:
			t.Errorf("the record of %d/%d carries another help: %q", p.A, p.B, r.Help)
		}
	}
	if lv, ok := s.Content.Compatibility.Level("demanding"); ok {
		places["the demanding level"] = lv.Description
	}
	for _, z := range s.Content.Chart.Zones {
		if z.Key == "relationship_channel" {
			places["the chart's relationship channel"] = z.Description
		}
	}
	if len(places) != 4 {
		t.Fatalf("found %d of the four places: %v", len(places), slices.Collect(maps.Keys(places)))
	}
	for place, text := range places {
		text = strings.ToLower(strings.ReplaceAll(text, "\u00a0", " "))
		var missing []string
		for _, w := range helpWords {
			if !strings.Contains(text, w.stem) {
				missing = append(missing, w.name)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s does not name %s: %s", place, strings.Join(missing, ", "), text)
		}
	}
}

// dateRouteNames holds, for each route of a date, how the site's texts name what it gives.
var dateRouteNames = map[string]*regexp.Regexp{
	RouteLifePathDate: regexp.MustCompile(`(?i)числ\S* жизненного пути`),
	RouteMatrix:       regexp.MustCompile(`(?i)матриц\S* судьбы`),
	RouteChart:        regexp.MustCompile(`(?i)полн\S* карт`),
	RouteSquare:       regexp.MustCompile(`(?i)квадрат\S* Пифагора`),
	RoutePersonalYear: regexp.MustCompile(`(?i)личн\S* год`),
}

// TestSiteDescriptionsNameEveryDateRoute checks that the texts which sum up the API name
// everything it gives for a date (the texts33 read found the personal year missing): the home
// page's description, lead and dataset paragraph, and the API index's description.
func TestSiteDescriptionsNameEveryDateRoute(t *testing.T) {
	s, tree := sharedTree(t)
	raw, _ := pageText(t, tree, HomePage)
	meta := regexp.MustCompile(`<meta name="description" content="([^"]*)">`).FindStringSubmatch(raw)
	lead := regexp.MustCompile(`(?s)<p class="lead">(.*?)</p>`).FindStringSubmatch(raw)
	dataset := regexp.MustCompile(`(?s)<section id="dataset"[^>]*>.*?<p>(.*?)</p>`).FindStringSubmatch(raw)
	if meta == nil || lead == nil || dataset == nil {
		t.Fatalf("the home page lacks its description, lead or dataset paragraph: %v %v %v", meta != nil, lead != nil, dataset != nil)
	}
	texts := map[string]string{
		"the home page's description":       meta[1],
		"the home page's lead":              lead[1],
		"the home page's dataset paragraph": dataset[1],
		"the API index's description":       s.APIIndex().Description,
	}
	dates := 0
	for _, r := range Routes() {
		if r.Packed == nil {
			continue
		}
		dates++
		re, ok := dateRouteNames[r.Name]
		if !ok {
			t.Errorf("route %s gives a record per date, but dateRouteNames has no name for it", r.Name)
			continue
		}
		for where, text := range texts {
			text = strings.ReplaceAll(html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(text, "")), "\u00a0", " ")
			if !re.MatchString(text) {
				t.Errorf("%s does not name the %s route (%s): %s", where, r.Name, re, text)
			}
		}
	}
	if dates < len(dateRouteNames) {
		t.Errorf("%d routes of a date, %d names: a name for a route that is gone", dates, len(dateRouteNames))
	}
}

// TestDateHintsNameBothFormats checks that every date form's hint names both forms the page
// scripts accept, ДД.ММ.ГГГГ and ГГГГ-ММ-ДД (the texts33 read found the chart's naming one).
func TestDateHintsNameBothFormats(t *testing.T) {
	_, tree := sharedTree(t)
	hintRe := regexp.MustCompile(`(?s)<p class="hint" id="[a-z-]+-date-hint">(.*?)</p>`)
	hints := 0
	err := filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		rel, _ := filepath.Rel(tree, path)
		raw, _ := pageText(t, tree, filepath.ToSlash(rel))
		for _, m := range hintRe.FindAllStringSubmatch(raw, -1) {
			hints++
			for _, f := range []string{"ДД.ММ.ГГГГ", "ГГГГ-ММ-ДД"} {
				if !strings.Contains(m[1], f) {
					t.Errorf("%s: the date hint does not name %s: %s", rel, f, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if hints < 3 {
		t.Errorf("%d date hints found, want those of the matrix, square and chart pages at least", hints)
	}
}

// TestMatrixDetailsHintSaysTheReduction checks the hint under the matrix's diagram: it names
// where each of the square's points comes from, and since the diagram shows R of the day and
// of the year's digit sum (docs/design.md §6), the hint must say that a number above 22 is
// replaced by its digit sum. The texts35 read found «слева — день рождения», false under the
// 7 the diagram shows for a birthday on the 25th.
func TestMatrixDetailsHintSaysTheReduction(t *testing.T) {
	_, tree := sharedTree(t)
	raw, _ := pageText(t, tree, DetailsPage)
	m := regexp.MustCompile(`(?s)<h2 id="diagram-h">.*?<p class="hint">(.*?)</p>`).FindStringSubmatch(raw)
	if m == nil {
		t.Fatal("the matrix's details page has no hint under its diagram's heading")
	}
	hint := strings.ReplaceAll(html.UnescapeString(m[1]), "\u00a0", " ")
	for _, w := range []string{"«Личность»", "«Таланты»", "«Деньги»", "«Кармический урок»", "«Центр»", "больше 22", "суммой его цифр"} {
		if !strings.Contains(hint, w) {
			t.Errorf("the hint does not say %q: %s", w, hint)
		}
	}
	if strings.Contains(hint, "слева — день рождения") {
		t.Errorf("the hint says the left point is the birthday itself: %s", hint)
	}
	if rules.ComputeMatrix(25, 12, 1990)[0] == 25 {
		t.Fatal("R(25) is 25: the premise of this test is wrong")
	}
}
