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
// it is wrapped), so a handler remembers its measures: one handler serves
// one plot, on one goroutine.
type wideHandler struct {
	text.Plain
	m *measures
}

type measures struct {
	widths map[measured]vg.Length
	buf    sfnt.Buffer // for looking glyphs up without allocating
}

type measured struct {
	fnt font.Font
	txt string
}

var _ text.Handler = wideHandler{}

// newHandler returns a handler for one plot.
func newHandler() wideHandler {
	return wideHandler{text.Plain{Fonts: font.DefaultCache}, &measures{widths: map[measured]vg.Length{}}}
}

// Box implements text.Handler: text.Plain.Box with the width from width.
func (h wideHandler) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	face := h.Fonts.Lookup(fnt, fnt.Size)
	ext := face.Extents()
	return h.width(txt, fnt), ext.Ascent, ext.Descent
}

// width is the estimated advance of one line of txt.
func (h wideHandler) width(txt string, fnt font.Font) vg.Length {
	if w, ok := h.m.widths[measured{fnt, txt}]; ok {
		return w
	}
	face := h.Fonts.Lookup(fnt, fnt.Size)
	var (
		total vg.Length
		run   strings.Builder // consecutive runes the font has, measured together for kerning
	)
	for _, r := range txt {
		idx, err := face.Face.GlyphIndex(&h.m.buf, r)
		if err == nil && idx != 0 {
			run.WriteRune(r)
			continue
		}
		if run.Len() > 0 {
			total += face.Width(run.String())
			run.Reset()
		}
		total += fnt.Size
	}
	if run.Len() > 0 {
		total += face.Width(run.String())
	}
	h.m.widths[measured{fnt, txt}] = total
	return total
}

// Draw implements text.Handler. It is text.Plain.Draw with the line width
// for alignment taken from width instead of the font's own measure.
func (h wideHandler) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if len(txt) == 0 {
		return
	}

	fnt := h.Fonts.Lookup(sty.Font, sty.Font.Size)
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
	pt.Y += ht*vg.Length(sty.YAlign) - fnt.Extents().Ascent
	for i, line := range lines {
		xoffs := vg.Length(sty.XAlign) * h.width(line, sty.Font)
		n := vg.Length(len(lines) - i)
		c.FillString(fnt, pt.Add(vg.Point{X: xoffs, Y: n * sty.Font.Size}), line)
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
	words := strings.Fields(txt)
	n := len(greedy(sty, words, max))
	// The greedy break at a narrower limit keeps n lines down to the
	// balanced width; bisect for it.
	lo, hi := max/vg.Length(n), max
	for range 20 {
		mid := (lo + hi) / 2
		if len(greedy(sty, words, mid)) <= n {
			hi = mid
		} else {
			lo = mid
		}
	}
	return strings.Join(greedy(sty, words, hi), "\n")
}

// greedy fills each line with as many words as fit in max.
func greedy(sty text.Style, words []string, max vg.Length) []string {
	var lines []string
	line := ""
	for _, word := range words {
		switch {
		case line == "":
			line = word
		case sty.Width(line+" "+word) <= max:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}
