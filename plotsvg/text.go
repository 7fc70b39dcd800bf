package plotsvg

import (
	"math"
	"strings"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// wideHandler is text.Plain with one change: a rune that the measuring font
// (Liberation Sans) has no glyph for is counted as one em wide.
//
// gonum/plot measures text with the Liberation fonts to place it (centre the
// title, right-align tick labels, size the legend). Liberation has no Hangul,
// so plain measuring charges each Hangul syllable the advance of the .notdef
// glyph, noticeably narrower than the browser's Korean font (whose syllables
// are about 0.92–1 em), and centred Korean titles would drift right and
// overflow. One em is the widest common Hangul advance, so the estimate errs
// on the side of leaving room. The SVG itself carries the text as <text>, so
// the browser draws it with its own fonts; only the layout uses this estimate.
//
// Laying out one plot measures the same few strings many times over (tick
// labels for every candidate padding, a title for every trial width while
// it is wrapped), in a few fonts, so a handler remembers its measures and
// its fonts' faces and extents: one handler serves one plot, on one
// goroutine.
type wideHandler struct {
	text.Plain
	widths map[measured]vg.Length
	faces  []face      // the fonts looked up so far: a handful per plot
	buf    sfnt.Buffer // for looking glyphs up without allocating
}

type measured struct {
	fnt font.Font
	txt string
}

// face is a font of a given size, looked up in the handler's cache.
type face struct {
	fnt  font.Font
	face font.Face
	ext  font.Extents
}

// newHandler returns a handler for one plot.
func newHandler() *wideHandler {
	return &wideHandler{Plain: text.Plain{Fonts: font.DefaultCache}, widths: map[measured]vg.Length{}}
}

// face looks fnt up, as text.Plain does at every measure.
func (h *wideHandler) face(fnt font.Font) face {
	for _, f := range h.faces {
		// The size first: it is what tells this plot's fonts apart.
		if f.fnt.Size == fnt.Size && f.fnt == fnt {
			return f
		}
	}
	f := face{fnt: fnt, face: h.Fonts.Lookup(fnt, fnt.Size)}
	f.ext = f.face.Extents()
	h.faces = append(h.faces, f)
	return f
}

// Extents implements text.Handler.
func (h *wideHandler) Extents(fnt font.Font) font.Extents { return h.face(fnt).ext }

// Box implements text.Handler: text.Plain.Box with the width from width.
func (h *wideHandler) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	ext := h.face(fnt).ext
	return h.width(txt, fnt), ext.Ascent, ext.Descent
}

// width is the estimated advance of one line of txt.
func (h *wideHandler) width(txt string, fnt font.Font) vg.Length {
	if w, ok := h.widths[measured{fnt, txt}]; ok {
		return w
	}
	face := h.face(fnt).face
	var (
		total vg.Length
		run   = -1 // where the runes the font has begin, measured together for kerning
	)
	for i, r := range txt {
		idx, err := face.Face.GlyphIndex(&h.buf, r)
		if err == nil && idx != 0 {
			if run < 0 {
				run = i
			}
			continue
		}
		if run >= 0 {
			total += face.Width(txt[run:i])
			run = -1
		}
		total += fnt.Size
	}
	if run >= 0 {
		total += face.Width(txt[run:])
	}
	h.widths[measured{fnt, txt}] = total
	return total
}

// Draw implements text.Handler. It is text.Plain.Draw with the line width
// for alignment taken from width instead of the font's own measure.
func (h *wideHandler) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if len(txt) == 0 {
		return
	}

	f := h.face(sty.Font)
	c.SetColor(sty.Color)

	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}

	sin64, cos64 := math.Sincos(sty.Rotation)
	cos := vg.Length(cos64)
	sin := vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin

	lines := h.Lines(txt)
	ht := sty.Height(txt)
	pt.Y += ht*vg.Length(sty.YAlign) - f.ext.Ascent
	for i, line := range lines {
		xoffs := vg.Length(sty.XAlign) * h.width(line, sty.Font)
		n := vg.Length(len(lines) - i)
		c.FillString(f.face, pt.Add(vg.Point{X: xoffs, Y: n * sty.Font.Size}), line)
	}

	if sty.Rotation != 0 {
		c.Pop()
	}
}

// wrap breaks txt at spaces into lines no wider than max (as estimated by
// sty), joined with "\n". The lines are balanced: of the ways to break into
// the fewest lines, the one with the narrowest widest line, so that a long
// title does not leave one word dangling. A single word wider than max
// stays on its own line.
func wrap(sty text.Style, txt string, max vg.Length) string {
	if sty.Width(txt) <= max {
		return txt
	}
	b := breaker{sty: sty, words: strings.Fields(txt), widths: map[[2]int]vg.Length{}}
	n := len(b.greedy(max)) + 1
	// The greedy break at a narrower limit keeps n lines down to the
	// balanced width; bisect for it.
	lo, hi := max/vg.Length(n), max
	for range 20 {
		mid := (lo + hi) / 2
		if len(b.greedy(mid))+1 <= n {
			hi = mid
		} else {
			lo = mid
		}
	}
	var lines []string
	start := 0
	for _, k := range append(b.greedy(hi), len(b.words)) {
		lines = append(lines, strings.Join(b.words[start:k], " "))
		start = k
	}
	return strings.Join(lines, "\n")
}

// breaker breaks words into lines. The bisection in wrap tries the same
// lines at each of its limits, so a breaker measures each run of words
// once.
type breaker struct {
	sty    text.Style
	words  []string
	widths map[[2]int]vg.Length // of words[i..j] joined by spaces, at [i, j]
}

// greedy fills each line with as many words as fit in max, and returns
// where each line but the first begins.
func (b *breaker) greedy(max vg.Length) (breaks []int) {
	start := 0
	for k := 1; k < len(b.words); k++ {
		if !(b.width(start, k) <= max) {
			breaks = append(breaks, k)
			start = k
		}
	}
	return breaks
}

// width is the width of words[i..j] joined by spaces.
func (b *breaker) width(i, j int) vg.Length {
	if w, ok := b.widths[[2]int{i, j}]; ok {
		return w
	}
	w := b.sty.Width(strings.Join(b.words[i:j+1], " "))
	b.widths[[2]int{i, j}] = w
	return w
}
