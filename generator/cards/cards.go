// Package cards renders the share cards of the site's pages: the 1200×630 PNG pictures that
// Open Graph and Twitter card tags name, so that a shared link previews with the page's
// title. It is pure: text in, PNG bytes out, with Go's own fonts (which cover Cyrillic)
// embedded, no I/O.
//
// A card is drawn in the colours of templates/assets/site.css on a palette image: the
// anti-aliased edges use a few blends of each pair of colours, so a card stays small (a few
// tens of kilobytes) and its bytes depend only on its text.
package cards

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// Width and Height are a card's size in pixels: the 1.91:1 picture of Open Graph's
// recommendation, which Facebook, X, Telegram and VK show without cropping.
const (
	Width  = 1200
	Height = 630
)

// Card is what a share card shows.
type Card struct {
	Site     string // the site's name, in the header
	Title    string // the page's headline, large; required
	Subtitle string // a sentence or two under the headline, cut with "…" when too long
	Mark     string // a short text (a number) in the circle on the right; a star when empty
	Footer   string // a short line at the bottom, such as the site's address
}

// Colours of templates/assets/site.css.
var (
	colorBg         = rgb(0xfbf9f4) // --bg
	colorText       = rgb(0x1f1d2b) // --text
	colorMuted      = rgb(0x565266) // --muted
	colorAccent     = rgb(0x4b2e9a) // --accent
	colorAccentSoft = rgb(0xefeafb) // --accent-soft
	colorLine       = rgb(0xddd7ea) // --line
)

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// Layout, in pixels.
const (
	marginX      = 80
	headerBase   = 100 // baseline of the site's name
	headerSize   = 34
	ruleY        = 136 // the line under the header
	bodyTop      = 166 // the headline and subtitle are centred between bodyTop and bodyBottom
	bodyBottom   = 536
	footerBase   = 572
	footerSize   = 28
	bandY        = 606 // the accent band at the bottom
	circleX      = 1004
	circleY      = 331
	circleR      = 116
	textRight    = circleX - circleR - 56 // the headline and subtitle wrap before the circle
	subtitleSize = 30
	subtitleLead = 41 // line height of the subtitle
	titleGap     = 20 // between the headline's last line and the subtitle
	maxTitle     = 3  // lines of the headline; two when a smaller size allows
	maxSubtitle  = 4  // lines of the subtitle
	ellipsis     = "…"
)

// titleSizes are the headline's font sizes, largest first: the headline takes the largest
// at which it fits in two lines, else in maxTitle lines, else the smallest, cut.
var titleSizes = []float64{64, 56, 48}

// markSizes are the mark's font sizes, tried in order until it fits in the circle.
var markSizes = []float64{132, 108, 88, 68}

// Render draws c and encodes it as a PNG of Width×Height. It fails when c has no title,
// when a text has a character Go's fonts lack (it would show as an empty box) or when the
// mark does not fit the circle.
//
// The PNG of a card is kept for the life of the process and handed out again for an equal
// Card (the bytes depend only on its fields): a process that generates several trees of the
// same content, as the tests do, draws and compresses each card once. Callers must not
// modify the bytes.
func Render(c Card) ([]byte, error) {
	if b, ok := rendered.Load(c); ok {
		return b.([]byte), nil
	}
	b, err := render(c)
	if err != nil {
		return nil, err
	}
	rendered.Store(c, b)
	return b, nil
}

// rendered maps a Card to its PNG.
var rendered sync.Map

func render(c Card) ([]byte, error) {
	img, err := draw(c)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	// zlib's fastest level: measured on the life path card, 16% larger than the default
	// level's (28 against 24 KB; the largest card, 35 KB, is well within 60 KB) in 0.38× its
	// time. At the default level the cards were 13% of generate's CPU.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("card %q: encode png: %w", c.Title, err)
	}
	return b.Bytes(), nil
}

// fontSet holds the parsed fonts; sfnt.Font is safe for concurrent use.
type fontSet struct{ regular, medium, bold *sfnt.Font }

var loadFonts = sync.OnceValues(func() (*fontSet, error) {
	var fs fontSet
	for _, f := range []struct {
		dst  **sfnt.Font
		name string
		ttf  []byte
	}{{&fs.regular, "Go Regular", goregular.TTF}, {&fs.medium, "Go Medium", gomedium.TTF}, {&fs.bold, "Go Bold", gobold.TTF}} {
		font, err := opentype.Parse(f.ttf)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", f.name, err)
		}
		*f.dst = font
	}
	return &fs, nil
})

// face returns a face of f at size pixels. A face is not safe for concurrent use, so each
// rendering makes its own.
func face(f *sfnt.Font, size float64) font.Face {
	// NewFace fails only on options it does not take; these are fixed.
	fc, _ := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	return fc
}

// Drawable reports whether the cards' fonts have a glyph for r: Go Regular, Medium and Bold
// cover the same 709 characters (Latin, Greek, Cyrillic and common punctuation and symbols;
// not U+202F, U+2011, combining marks or emoji). The content loader checks the fields a card
// shows with it (generator.ContentRules).
func Drawable(r rune) bool {
	fs, err := loadFonts()
	if err != nil {
		return false
	}
	var buf sfnt.Buffer
	for _, f := range []*sfnt.Font{fs.regular, fs.medium, fs.bold} {
		if x, err := f.GlyphIndex(&buf, r); err != nil || x == 0 {
			return false
		}
	}
	return true
}

// missingGlyphs returns the runes of s (besides spaces a line breaks at) that f has no
// glyph for.
func missingGlyphs(f *sfnt.Font, s string) []rune {
	var buf sfnt.Buffer
	var out []rune
	for _, r := range s {
		if isBreak(r) {
			continue
		}
		if x, err := f.GlyphIndex(&buf, r); err != nil || x == 0 {
			out = append(out, r)
		}
	}
	return out
}

// checkGlyphs fails when a text of c has a character its font lacks.
func checkGlyphs(c Card, fs *fontSet) error {
	var errs []error
	for _, t := range []struct {
		field, name, text string
		font              *sfnt.Font
	}{
		{"site", "Go Bold", c.Site, fs.bold},
		{"title", "Go Bold", c.Title + ellipsis, fs.bold},
		{"subtitle", "Go Regular", c.Subtitle + ellipsis, fs.regular},
		{"mark", "Go Bold", c.Mark, fs.bold},
		{"footer", "Go Medium", c.Footer, fs.medium},
	} {
		for _, r := range missingGlyphs(t.font, t.text) {
			errs = append(errs, fmt.Errorf("%s: %s has no glyph for %U %q", t.field, t.name, r, r))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("card %q: %w", c.Title, err)
	}
	return nil
}

// draw lays c out on a new palette image.
func draw(c Card) (*image.Paletted, error) {
	if strings.TrimSpace(c.Title) == "" {
		return nil, errors.New("card: no title")
	}
	fs, err := loadFonts()
	if err != nil {
		return nil, err
	}
	if err := checkGlyphs(c, fs); err != nil {
		return nil, err
	}
	cv := newCanvas(Width, Height, colorBg)

	// Header: a star and the site's name, a thin line under them.
	star(cv, marginX+17, headerBase-13, 20, colorAccent)
	if strings.TrimSpace(c.Site) != "" {
		site := face(fs.bold, headerSize)
		line, _ := wrap(site, c.Site, fixed.I(Width-2*marginX-48), 1)
		cv.text(site, line[0], marginX+48, headerBase, colorText)
	}
	cv.fill(image.Rect(marginX, ruleY, Width-marginX, ruleY+2), colorLine)

	// The circle on the right with the mark, or a large star.
	circle(cv, circleX, circleY, circleR, colorAccentSoft)
	if c.Mark != "" {
		if err := mark(cv, fs.bold, c.Mark); err != nil {
			return nil, fmt.Errorf("card %q: %w", c.Title, err)
		}
	} else {
		star(cv, circleX, circleY, 70, colorAccent)
	}

	// The headline at the largest size that fits, then as much of the subtitle as fits,
	// the two centred together in the body.
	width := fixed.I(textRight - marginX)
	title, titleLines, titleLead := fitTitle(fs.bold, c.Title, width)
	height := len(titleLines) * titleLead
	var subLines []string
	sub := face(fs.regular, subtitleSize)
	if room := min(maxSubtitle, (bodyBottom-bodyTop-height-titleGap)/subtitleLead); room > 0 {
		subLines, _ = wrap(sub, c.Subtitle, width, room)
	}
	if len(subLines) > 0 {
		height += titleGap + len(subLines)*subtitleLead
	}
	// Baselines sit about 0.8 of a line below the line's top.
	y := bodyTop + (bodyBottom-bodyTop-height)/2
	for _, l := range titleLines {
		cv.text(title, l, marginX, y+titleLead*4/5, colorText)
		y += titleLead
	}
	if len(subLines) > 0 {
		y += titleGap
		for _, l := range subLines {
			cv.text(sub, l, marginX, y+subtitleLead*4/5, colorMuted)
			y += subtitleLead
		}
	}

	if strings.TrimSpace(c.Footer) != "" {
		foot := face(fs.medium, footerSize)
		line, _ := wrap(foot, c.Footer, fixed.I(Width-2*marginX), 1)
		cv.text(foot, line[0], marginX, footerBase, colorAccent)
	}
	cv.fill(image.Rect(0, bandY, Width, Height), colorAccent)
	return cv.img, cv.err
}

// fitTitle chooses the headline's size (see titleSizes) and breaks it into lines; lead is
// the line height.
func fitTitle(f *sfnt.Font, s string, width fixed.Int26_6) (fc font.Face, lines []string, lead int) {
	for _, max := range []int{2, maxTitle} {
		for _, size := range titleSizes {
			fc = face(f, size)
			if lines, cut := wrap(fc, s, width, max); !cut {
				return fc, lines, int(size*1.14 + 0.5)
			}
		}
	}
	size := titleSizes[len(titleSizes)-1]
	lines, _ = wrap(fc, s, width, maxTitle)
	return fc, lines, int(size*1.14 + 0.5)
}

// mark draws s centred in the circle, at the largest size at which it fits.
func mark(cv *canvas, f *sfnt.Font, s string) error {
	for _, size := range markSizes {
		fc := face(f, size)
		b, _ := font.BoundString(fc, s)
		w, h := (b.Max.X - b.Min.X).Ceil(), (b.Max.Y - b.Min.Y).Ceil()
		// The text's box must fit inside the circle: its half-diagonal within the radius,
		// with a margin.
		if w*w+h*h > 4*(circleR-18)*(circleR-18) {
			continue
		}
		x := circleX - (b.Min.X+b.Max.X).Round()/2
		y := circleY - (b.Min.Y+b.Max.Y).Round()/2
		cv.text(fc, s, x, y, colorAccent)
		return nil
	}
	return fmt.Errorf("mark %q does not fit the circle", s)
}

// wrap breaks s into lines no wider than width, at spaces but not inside a unit (see
// units), and at characters only inside a unit wider than a line. Past max lines the last
// line ends with "…", and cut is true.
func wrap(fc font.Face, s string, width fixed.Int26_6, max int) (lines []string, cut bool) {
	fits := func(t string) bool { return font.MeasureString(fc, t) <= width }
	var line string
	for _, word := range units(strings.FieldsFunc(s, isBreak)) {
		switch {
		case line == "":
		case fits(line + " " + word):
			line += " " + word
			continue
		default:
			lines = append(lines, line)
		}
		line = word
		for !fits(line) {
			n := longestPrefix(line, fits)
			lines = append(lines, line[:n])
			line = line[n:]
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	if len(lines) <= max {
		return lines, false
	}
	lines = lines[:max]
	last := lines[max-1]
	for last != "" && !fits(last+ellipsis) {
		if i := strings.LastIndexFunc(last, isBreak); i > 0 {
			last = last[:i]
		} else {
			last = last[:longestPrefix(last, func(t string) bool { return fits(t + ellipsis) })]
		}
	}
	lines[max-1] = strings.TrimRight(last, " ,;:—–-") + ellipsis
	return lines, true
}

// units joins the words that Russian typography keeps on one line: a dash stays with the
// word before it, a word of one or two letters (a preposition or a conjunction: «и», «с»,
// «на») and a number with the word after it. A no-break space already holds its words
// together.
func units(words []string) []string {
	var out []string
	glue := false // the previous word holds on to this one
	for _, w := range words {
		if len(out) > 0 && (glue || w == "—" || w == "–") {
			out[len(out)-1] += " " + w
		} else {
			out = append(out, w)
		}
		glue = utf8.RuneCountInString(w) <= 2 && all(w, unicode.IsLetter) || all(w, unicode.IsDigit)
	}
	return out
}

// all reports whether is holds for every rune of s.
func all(s string, is func(rune) bool) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !is(r) }) < 0
}

// isBreak reports whether a line may break at r. A no-break space is not a break.
func isBreak(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// longestPrefix is the byte length of the longest prefix of s, whole runes and at least
// one, for which ok holds.
func longestPrefix(s string, ok func(string) bool) int {
	n := 0
	for n < len(s) {
		_, size := utf8.DecodeRuneInString(s[n:])
		if n > 0 && !ok(s[:n+size]) {
			break
		}
		n += size
	}
	return n
}

// circle draws a filled circle of radius r centred at (cx, cy).
func circle(cv *canvas, cx, cy int, r float32, c color.RGBA) {
	const k = 0.5522848 // the control distance of a cubic Bézier quarter circle, per radius
	z, o := rasterizer(r)
	z.MoveTo(o+r, o)
	z.CubeTo(o+r, o+k*r, o+k*r, o+r, o, o+r)
	z.CubeTo(o-k*r, o+r, o-r, o+k*r, o-r, o)
	z.CubeTo(o-r, o-k*r, o-k*r, o-r, o, o-r)
	z.CubeTo(o+k*r, o-r, o+r, o-k*r, o+r, o)
	z.ClosePath()
	cv.shape(z, image.Pt(cx-int(o), cy-int(o)), c)
}

// star draws the site's four-pointed star (the ✦ of its header), its points r from
// (cx, cy).
func star(cv *canvas, cx, cy int, r float32, c color.RGBA) {
	const waist = 0.16 // how far the curved sides come in towards the centre, per radius
	w := waist * r
	z, o := rasterizer(r)
	z.MoveTo(o, o-r)
	z.QuadTo(o+w, o-w, o+r, o)
	z.QuadTo(o+w, o+w, o, o+r)
	z.QuadTo(o-w, o+w, o-r, o)
	z.QuadTo(o-w, o-w, o, o-r)
	z.ClosePath()
	cv.shape(z, image.Pt(cx-int(o), cy-int(o)), c)
}

// rasterizer returns a rasterizer just large enough for a shape within r of its centre,
// and the centre's coordinate on it (a whole pixel): covering the shape's square, not the
// card, it is quick.
func rasterizer(r float32) (*vector.Rasterizer, float32) {
	o := int(math.Ceil(float64(r))) + 1
	return vector.NewRasterizer(2*o+1, 2*o+1), float32(o)
}
