package cards

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

var update = flag.Bool("update", false, "rewrite the golden card in testdata")

// maxBytes is the largest a card may be (issue 20: ≤ 60 KB).
const maxBytes = 60 << 10

const site = "Открытые данные нумерологии"

// kinds are cards of every shape the site makes: a mark of one and two digits, the star,
// a headline of three lines and one cut, a subtitle cut, none, and a mark of letters.
var kinds = []struct {
	name string
	card Card
}{
	{"life-path-7", Card{Site: site, Title: "Число жизненного пути 7 — Мыслитель", Mark: "7", Footer: "numerology.example",
		Subtitle: "Семёрка — число анализа, глубины и внутреннего поиска. Её путь — задавать точные вопросы, находить собственные ответы и не прятать их от мира."}},
	{"life-path-33", Card{Site: site, Title: "Число жизненного пути 33 — Наставник", Mark: "33", Footer: "numerology.example",
		Subtitle: "Тридцать три — мастер-число бескорыстной заботы и мудрого служения. Его путь — передавать знание и любовь, не требуя ничего взамен и не забывая о себе."}},
	{"home", Card{Site: site, Title: "Числа жизненного пути и матрица судьбы", Footer: "numerology.example",
		Subtitle: "Бесплатный API на русском языке: числа жизненного пути и матрица судьбы для каждой даты рождения с 1900 по 2100 год. JSON, CORS, лицензия CC BY 4.0."}},
	{"arcanum", Card{Site: site, Title: "Аркан XXII — Шут", Mark: "XXII", Subtitle: "Свобода, начало пути, доверие к жизни."}},
	{"no-subtitle", Card{Site: site, Title: "Матрица судьбы"}},
	{"title-only", Card{Title: "Ж"}},
	{"long", Card{Site: site + " " + strings.Repeat("очень длинное название ", 5), Footer: strings.Repeat("очень-длинный-адрес.", 10),
		Title:    strings.Repeat("Совместимость чисел жизненного пути 22 и 33 — ", 4),
		Subtitle: strings.Repeat("Подзаголовок, который не помещается в четыре строки и будет обрезан многоточием. ", 6)}},
	{"blank", Card{Site: " ", Title: "Пробелы", Subtitle: "\n", Mark: " ", Footer: "\t"}},
	{"unbroken", Card{Title: strings.Repeat("Ъ", 80), Subtitle: strings.Repeat("ы", 300)}},
}

// TestRenderKinds checks that a card of every kind is a PNG of Width×Height within
// maxBytes.
func TestRenderKinds(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			b, err := Render(k.card)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got := img.Bounds(); got != image.Rect(0, 0, Width, Height) {
				t.Errorf("size %v, want %dx%d", got.Size(), Width, Height)
			}
			if len(b) > maxBytes {
				t.Errorf("%d bytes, want at most %d", len(b), maxBytes)
			}
			t.Logf("%d bytes", len(b))
		})
	}
}

// TestDeterministic renders every kind twice, the second time on many goroutines with
// other GOMAXPROCS, and wants the same bytes.
func TestDeterministic(t *testing.T) {
	first := make([][]byte, len(kinds))
	for i, k := range kinds {
		b, err := Render(k.card)
		if err != nil {
			t.Fatal(err)
		}
		first[i] = b
	}
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		var wg sync.WaitGroup
		for i, k := range kinds {
			wg.Go(func() {
				b, err := Render(k.card)
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(b, first[i]) {
					t.Errorf("%s: GOMAXPROCS=%d gives other bytes", k.name, procs)
				}
			})
		}
		wg.Wait()
		runtime.GOMAXPROCS(old)
	}
}

// cyrillic is every letter of the Russian alphabet and the signs the site's texts use.
const cyrillic = "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя«»—–…№\u00a0"

// TestCyrillicGlyphs checks that each font has a glyph of its own for every Russian letter
// and sign: none is the notdef box a missing glyph is drawn as.
func TestCyrillicGlyphs(t *testing.T) {
	fs, err := loadFonts()
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*sfnt.Font{"regular": fs.regular, "medium": fs.medium, "bold": fs.bold} {
		if m := missingGlyphs(f, cyrillic); len(m) > 0 {
			t.Errorf("%s lacks %q", name, string(m))
		}
		fc := face(f, 64)
		const private = '\ue000' // no font has it: its glyph is notdef
		if m := missingGlyphs(f, string(private)); len(m) != 1 {
			t.Fatalf("%s has a glyph for %U", name, private)
		}
		notdef := glyphMask(t, fc, private)
		for _, r := range cyrillic {
			if r == '\u00a0' {
				continue // a space draws nothing, like notdef would not
			}
			if m := glyphMask(t, fc, r); bytes.Equal(m, notdef) {
				t.Errorf("%s draws %q as the notdef box", name, r)
			} else if bytes.Count(m, []byte{0}) == len(m) {
				t.Errorf("%s draws nothing for %q", name, r)
			}
		}
	}
}

// glyphMask draws r alone on a 100×100 mask and returns its pixels.
func glyphMask(t *testing.T, fc font.Face, r rune) []byte {
	t.Helper()
	m := image.NewAlpha(image.Rect(0, 0, 100, 100))
	d := font.Drawer{Dst: m, Src: image.Opaque, Face: fc, Dot: fixed.P(10, 80)}
	d.DrawString(string(r))
	return m.Pix
}

// TestCardDrawsText checks that the text of a card is drawn: a Cyrillic headline puts
// pixels of the text colour on the card, a different headline gives a different card.
func TestCardDrawsText(t *testing.T) {
	a, err := draw(Card{Title: "Жизнь"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := draw(Card{Title: "Щедрость"})
	if err != nil {
		t.Fatal(err)
	}
	text := 0
	for _, i := range a.Pix {
		if a.Palette[i] == color.Color(colorText) {
			text++
		}
	}
	if text < 1000 {
		t.Errorf("%d pixels of the text colour, want the headline drawn", text)
	}
	if bytes.Equal(a.Pix, b.Pix) {
		t.Error("two headlines give the same picture")
	}
}

// TestRenderErrors checks the cards Render refuses, and that the error says why.
func TestRenderErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		card Card
		want []string
	}{
		{"no title", Card{Site: site, Title: " "}, []string{"no title"}},
		{"missing glyph", Card{Title: "Звезда ✦ и 漢"}, []string{`title: Go Bold has no glyph for U+2726 '✦'`, `U+6F22 '漢'`}},
		{"missing glyph in the footer", Card{Title: "Матрица", Footer: "漢"}, []string{`footer: Go Medium has no glyph for U+6F22`}},
		{"wide mark", Card{Title: "Аркан", Mark: "XVIII XVIII"}, []string{`mark "XVIII XVIII" does not fit the circle`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Render(tc.card)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestWrap checks line breaking: lines fit, a cut ends with "…", a dash never starts a
// line, a one- or two-letter word never ends one, and a no-break space holds.
func TestWrap(t *testing.T) {
	fs, err := loadFonts()
	if err != nil {
		t.Fatal(err)
	}
	fc := face(fs.regular, 30)
	width := fixed.I(300)
	for _, tc := range []struct {
		name, text string
		max        int
		want       []string
		cut        bool
	}{
		{"fits", "Матрица судьбы", 3, []string{"Матрица судьбы"}, false},
		{"dash stays with the word before", "Число жизненного пути 22 — Мастер-строитель", 3,
			[]string{"Число жизненного", "пути 22 —", "Мастер-строитель"}, false},
		{"preposition and number stay with the word after", "Расчёт по дате рождения с 1900 по 2100 год", 3,
			[]string{"Расчёт по дате", "рождения", "с 1900 по 2100 год"}, false},
		{"number stays with its noun", "Матрица для даты рождения: 12 позиций", 3,
			[]string{"Матрица для даты", "рождения:", "12 позиций"}, false},
		{"no-break space breaks only when a unit is wider than a line", "число\u00a0жизненного\u00a0пути", 3, []string{"число\u00a0жизненного\u00a0пу", "ти"}, false},
		{"cut", "Один два три четыре пять шесть семь восемь девять десять одиннадцать", 2,
			[]string{"Один два три четыре", "пять шесть семь…"}, true},
		{"cut drops the comma", "Первое, второе, третье, четвёртое, пятое, шестое", 1, []string{"Первое, второе…"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := wrap(fc, tc.text, width, tc.max)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || cut != tc.cut {
				t.Errorf("wrap = %q, %v; want %q, %v", got, cut, tc.want, tc.cut)
			}
			for _, l := range got {
				if font.MeasureString(fc, l) > width {
					t.Errorf("line %q is wider than %d px", l, width.Round())
				}
			}
		})
	}
}

// FuzzWrap checks that any text wraps into at most max lines, each within the width
// unless it is a single character wider than it, and that a cut ends with "…".
func FuzzWrap(f *testing.F) {
	for _, k := range kinds {
		f.Add(k.card.Title, 2)
		f.Add(k.card.Subtitle, 4)
	}
	f.Add("— — и и и с", 1)
	f.Add("\u00a0 \xff\xfe ааа", 3)
	fs, err := loadFonts()
	if err != nil {
		f.Fatal(err)
	}
	width := fixed.I(300)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = 1 + (max&0xff)%5
		fc := face(fs.regular, 30)
		lines, cut := wrap(fc, s, width, max)
		if len(lines) > max {
			t.Fatalf("%d lines, max %d", len(lines), max)
		}
		for _, l := range lines {
			if font.MeasureString(fc, l) > width && utf8.RuneCountInString(l) > 1 && !(cut && utf8.RuneCountInString(l) == 2) {
				t.Errorf("line %q is wider than %d px", l, width.Round())
			}
		}
		if cut && !strings.HasSuffix(lines[len(lines)-1], ellipsis) {
			t.Errorf("cut, but the last line %q has no ellipsis", lines[len(lines)-1])
		}
	})
}

// FuzzRender checks that any card either renders as a PNG of Width×Height or is refused
// with an error, and never panics.
func FuzzRender(f *testing.F) {
	for _, k := range kinds {
		f.Add(k.card.Site, k.card.Title, k.card.Subtitle, k.card.Mark, k.card.Footer)
	}
	f.Fuzz(func(t *testing.T, site, title, subtitle, mark, footer string) {
		b, err := Render(Card{Site: site, Title: title, Subtitle: subtitle, Mark: mark, Footer: footer})
		if err != nil {
			return
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Width != Width || cfg.Height != Height {
			t.Errorf("%dx%d", cfg.Width, cfg.Height)
		}
	})
}

// TestGolden compares the card of life path 7 with testdata/life-path-7.png. The vector
// rasterizer may round an edge pixel differently on another CPU, so a few pixels may
// differ; `go test -update` rewrites the file, to be looked at.
func TestGolden(t *testing.T) {
	b, err := Render(kinds[0].card)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "life-path-7.png")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if bytes.Equal(b, want) {
		return
	}
	gi, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	wi, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if gi.Bounds() != wi.Bounds() {
		t.Fatalf("size %v, golden %v", gi.Bounds(), wi.Bounds())
	}
	diff := 0
	for y := 0; y < Height; y++ {
		for x := 0; x < Width; x++ {
			if !sameColor(gi.At(x, y), wi.At(x, y)) {
				diff++
			}
		}
	}
	// Rounding moves an edge pixel by a step of coverage; a changed layout moves thousands.
	if limit := Width * Height / 500; diff > limit {
		t.Errorf("%d pixels differ from %s (limit %d); go test -update rewrites it", diff, path, limit)
	}
}

// sameColor reports whether a and b are within one step of coverage of each other.
func sameColor(a, b color.Color) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	const step = 0xffff / (levels - 1) * 2
	d := func(x, y uint32) uint32 {
		if x > y {
			return x - y
		}
		return y - x
	}
	return d(ar, br) <= step && d(ag, bg) <= step && d(ab, bb) <= step
}

// BenchmarkRender renders the card of a life path number.
func BenchmarkRender(b *testing.B) {
	for b.Loop() {
		if _, err := Render(kinds[0].card); err != nil {
			b.Fatal(err)
		}
	}
}
