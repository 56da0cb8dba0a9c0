package cards

import (
	"errors"
	"image"
	"image/color"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// levels is the number of coverage steps an anti-aliased edge is drawn with: the two
// colours and levels-2 blends between them. 16 steps look smooth at card size and keep the
// palette small.
const levels = 16

// canvas is a palette image that grows its palette as colours are drawn: each solid
// colour once, and for each pair of a colour drawn over another the levels-2 blends of
// its edges. The same drawing calls make the same palette, so a card's bytes depend only
// on what it shows.
type canvas struct {
	img   *image.Paletted
	ramps [256][256]uint8 // [under][over] → palette index of the first blend, 0 if none yet
	err   error
}

func newCanvas(w, h int, bg color.RGBA) *canvas {
	return &canvas{img: image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{bg})}
}

var errPalette = errors.New("card: more than 256 colours")

// add appends c to the palette and returns its index.
func (cv *canvas) add(c color.Color) uint8 {
	if len(cv.img.Palette) == 256 {
		cv.err = errPalette
		return 0
	}
	cv.img.Palette = append(cv.img.Palette, c)
	return uint8(len(cv.img.Palette) - 1)
}

// index returns the palette index of c, adding it when new.
func (cv *canvas) index(c color.RGBA) uint8 {
	for i, p := range cv.img.Palette {
		if p == color.Color(c) {
			return uint8(i)
		}
	}
	return cv.add(c)
}

// blend returns the palette index of the step-th blend (1 ≤ step ≤ levels-2) from the
// colour of index under towards the colour of index over.
func (cv *canvas) blend(under, over uint8, step int) uint8 {
	// Index 0 is the background, drawn first, so no ramp starts there.
	base := cv.ramps[under][over]
	if base == 0 {
		u := cv.img.Palette[under].(color.RGBA)
		o := cv.img.Palette[over].(color.RGBA)
		mix := func(a, b uint8, k int) uint8 {
			return uint8((int(a)*(levels-1-k) + int(b)*k + (levels-1)/2) / (levels - 1))
		}
		for k := 1; k <= levels-2; k++ {
			i := cv.add(color.RGBA{R: mix(u.R, o.R, k), G: mix(u.G, o.G, k), B: mix(u.B, o.B, k), A: 0xff})
			if k == 1 {
				base = i
			}
		}
		cv.ramps[under][over] = base
	}
	return base + uint8(step-1)
}

// fill paints the rectangle r with c.
func (cv *canvas) fill(r image.Rectangle, c color.RGBA) {
	i := cv.index(c)
	r = r.Intersect(cv.img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := cv.img.Pix[cv.img.PixOffset(r.Min.X, y):cv.img.PixOffset(r.Max.X, y)]
		for x := range row {
			row[x] = i
		}
	}
}

// paint draws c through the coverage mask m: full coverage is c, partial coverage one of
// the blends from the colour already there.
func (cv *canvas) paint(m *image.Alpha, c color.RGBA) {
	over := cv.index(c)
	r := m.Rect.Intersect(cv.img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			a := int(m.Pix[m.PixOffset(x, y)])
			step := (a*(levels-1) + 127) / 255
			if step == 0 {
				continue
			}
			p := cv.img.PixOffset(x, y)
			if step == levels-1 {
				cv.img.Pix[p] = over
			} else {
				cv.img.Pix[p] = cv.blend(cv.img.Pix[p], over, step)
			}
		}
	}
}

// shape paints the path of z with c, the rasterizer's top left corner at at.
func (cv *canvas) shape(z *vector.Rasterizer, at image.Point, c color.RGBA) {
	m := image.NewAlpha(z.Bounds().Add(at))
	z.Draw(m, m.Rect, image.Opaque, image.Point{})
	cv.paint(m, c)
}

// text draws s with fc, its baseline starting at (x, y).
func (cv *canvas) text(fc font.Face, s string, x, y int, c color.RGBA) {
	dot := fixed.P(x, y)
	b, _ := font.BoundString(fc, s)
	r := image.Rect(b.Min.X.Floor(), b.Min.Y.Floor(), b.Max.X.Ceil(), b.Max.Y.Ceil()).Add(image.Pt(x, y))
	m := image.NewAlpha(r.Intersect(cv.img.Rect))
	d := font.Drawer{Dst: m, Src: image.Opaque, Face: fc, Dot: dot}
	d.DrawString(s)
	cv.paint(m, c)
}
