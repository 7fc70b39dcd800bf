package plotsvg

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
)

// fontFamily is set once on the root <svg>; every <text> inherits it.
//
// Layout is measured with Liberation Sans, so it comes first, then Arial and
// Helvetica, which have the same metrics (Liberation was drawn to match
// Arial). None of them has Hangul; the browser falls back glyph by glyph to
// the first Korean font it has in the list, and at worst to its sans-serif.
// Being a presentation attribute, a stylesheet rule on svg text overrides it.
const fontFamily = `'Liberation Sans', Arial, Helvetica, 'Apple SD Gothic Neo', ` +
	`'Noto Sans KR', 'Noto Sans CJK KR', 'Malgun Gothic', NanumGothic, sans-serif`

// textFont matches the font-family declaration vgsvg writes into each
// <text>'s style (the family name read from the font file, unquoted).
var textFont = regexp.MustCompile(`font-family:[^;"]*;?`)

// finish turns vgsvg's standalone document into an element for inline HTML:
// the XML prolog and comment go; the start tag is rewritten with the same
// viewBox, a width of 100% (the height follows from the viewBox's aspect
// ratio) up to the natural size, role="img", fill="currentColor" (which
// text inherits) and the font list; <title> is its first child. Black
// strokes and fills become currentColor and the grey grid a faint
// currentColor.
//
// vgsvg writes no ids, random or otherwise, and formats every number with
// a fixed precision, so its bytes are already a function of the input; this
// step keeps it so.
func finish(doc []byte, title, seriesVar string, minWidth float64) ([]byte, error) {
	i := bytes.Index(doc, []byte("<svg"))
	if i < 0 {
		return nil, fmt.Errorf("plotsvg: vgsvg output has no <svg> element")
	}
	j := bytes.IndexByte(doc[i:], '>')
	if j < 0 {
		return nil, fmt.Errorf("plotsvg: vgsvg output has an unterminated <svg> tag")
	}
	body := textFont.ReplaceAll(doc[i+j+1:], nil)
	// A style attribute that held only the font family is now empty.
	body = bytes.ReplaceAll(body, []byte("\n\tstyle=\"\""), nil)
	// Black (text, axes, ticks, the black series) follows the page's text
	// colour, and the grid is a faint version of it.
	body = bytes.ReplaceAll(body, []byte("stroke:#000000"), []byte("stroke:currentColor"))
	body = bytes.ReplaceAll(body, []byte("fill:#000000"), []byte("fill:currentColor"))
	body = bytes.ReplaceAll(body, []byte("stroke:#E0E0E0"), []byte("stroke:currentColor;stroke-opacity:0.15"))
	if seriesVar != "" {
		for i, c := range palette[:len(palette)-1] { // the last, black, is currentColor
			hex := fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B)
			v := fmt.Sprintf("var(%s%d)", seriesVar, i+1)
			body = bytes.ReplaceAll(body, []byte("stroke:"+hex), []byte("stroke:"+v))
			body = bytes.ReplaceAll(body, []byte("fill:"+hex), []byte("fill:"+v))
		}
	}
	body = groupStyles(body)
	// Points in the viewBox; at its natural size a point is 4/3 CSS pixels.
	b := fmt.Appendf(make([]byte, 0, len(body)+512), `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.5g %.5g" `+
		`width="100%%" style="max-width:%.5gpx;height:auto`, width, height, width*4/3)
	if minWidth > 0 { // in CSS pixels; 0: none
		b = fmt.Appendf(b, ";min-width:%.0fpx", minWidth)
	}
	b = fmt.Appendf(b, `" role="img" fill="currentColor" font-family="%s">`, fontFamily)
	b = append(b, "<title>"+html.EscapeString(title)+"</title>"...)
	return append(b, body...), nil
}

// groupStyles moves the style shared by consecutive elements (the ticks,
// the grid, a series' error bars and glyphs, the labels) onto one <g>
// around them: a plot's style attributes were most of its bytes, on every
// page that shows it. Every property vgsvg writes (fill, stroke and their
// opacity, width and dashes; font-variant, -weight, -style and -size)
// is inherited, and a child without a style inherits the rest from the
// same parent as before, so every element is painted as it was, in the
// same order.
func groupStyles(body []byte) []byte {
	out := make([]byte, 0, len(body))
	var run []styled // consecutive elements of one style
	flush := func() {
		switch {
		case len(run) == 1:
			out = append(out, run[0].whole...)
		case len(run) > 1:
			out = append(out, `<g style="`...)
			out = append(out, run[0].style...)
			out = append(out, "\">\n"...)
			for _, e := range run {
				out = append(out, e.head...)
				out = append(out, e.tail...)
			}
			out = append(out, "</g>\n"...)
		}
		run = run[:0]
	}
	for len(body) > 0 {
		e, ok := nextStyled(body)
		if !ok {
			flush()
			_, rest, _ := bytes.Cut(body, []byte("\n"))
			out, body = append(out, body[:len(body)-len(rest)]...), rest
			continue
		}
		if len(run) > 0 && !bytes.Equal(run[0].style, e.style) {
			flush()
		}
		run = append(run, e)
		body = body[len(e.whole):]
	}
	flush()
	return out
}

// styled is one element as vgsvg writes it, from its line's start: a
// <path> on one line, a <text> with its style on a second line.
type styled struct {
	whole, head, style, tail []byte // whole is head, ` style="`, style, `"` and tail
}

// nextStyled reads the element body starts with, if it is a <path> or a
// <text> with a style.
func nextStyled(body []byte) (e styled, ok bool) {
	if !bytes.HasPrefix(body, []byte("<path ")) && !bytes.HasPrefix(body, []byte("<text ")) {
		return e, false
	}
	end := bytes.IndexByte(body, '\n')
	sep := []byte(` style="`)
	if body[1] == 't' && end >= 0 && bytes.HasPrefix(body[end+1:], []byte("\tstyle=\"")) {
		next := bytes.IndexByte(body[end+1:], '\n')
		if next < 0 {
			return e, false
		}
		end, sep = end+1+next, []byte("\n\tstyle=\"")
	}
	if end < 0 {
		return e, false
	}
	line := body[:end+1]
	head, rest, ok := bytes.Cut(line, sep)
	if !ok {
		return e, false
	}
	style, tail, ok := bytes.Cut(rest, []byte(`"`))
	if !ok {
		return e, false
	}
	return styled{whole: line, head: head, style: style, tail: tail}, true
}
