// Package site is what the published book adds around the chapters'
// HTML: heading links and the in-page contents, wide tables and plots in
// labelled scroll regions, the contents page's note on chapter numbers,
// the search index, the claims and environment pages, and each
// experiment's raw data for download.
package site

import (
	"bytes"
	"fmt"
	"html"
	"strconv"
	"strings"
)

// Heading is one entry of a chapter's in-page contents.
type Heading struct {
	Level int    // 2 or 3
	ID    string // the heading's id
	Text  string // its text, without markup
}

// series numbers the plot palette's colours (plotsvg's Okabe–Ito order),
// so the stylesheet can give each series a colour per theme.
var series = map[string]int{"0072B2": 1, "D55E00": 2, "009E73": 3, "CC79A7": 4, "E69F00": 5, "56B4E9": 6}

// MinPlotText is the smallest plot text, in CSS pixels, a page shows:
// a plot narrower than that allows scrolls inside its figure instead.
const MinPlotText = 11

// Links are what a chapter's page links to beyond itself.
type Links struct {
	Page   string            // the page's own file name
	Has    map[string]bool   // the experiments whose raw data the site offers
	PageOf map[string]string // the page each experiment is shown on
}

// Decorate returns a page's body with its experiments' provenance linked
// to their raw data, a link after every h2–h4 to itself, every table in a
// labelled, focusable scroll region, plot series coloured from the
// stylesheet and plots kept wide enough for their text, and live
// values linked to the page of their experiment; and
// the h2 and h3 for the in-page contents.
func Decorate(body []byte, links Links) (string, []Heading) {
	var toc []Heading
	p := newPasses(body)
	p.run(func(dst, page []byte) ([]byte, bool) { return linkData(dst, page, links.Has) })
	p.run(func(dst, page []byte) ([]byte, bool) {
		return replaceHeadings(dst, page, func(dst []byte, level int, id, inner []byte) []byte {
			text := strings.TrimSpace(html.UnescapeString(string(stripTags(nil, inner))))
			if level <= 3 {
				toc = append(toc, Heading{Level: level, ID: html.UnescapeString(string(id)), Text: text})
			}
			return fmt.Appendf(dst, `<h%d id="%s">%s <a class="anchor" href="#%s" aria-label="이 절의 링크: %s">#</a></h%d>`,
				level, id, inner, id, html.EscapeString(text), level)
		})
	})
	p.run(func(dst, page []byte) ([]byte, bool) {
		return replaceElements(dst, page, "table", func(dst, t []byte) []byte {
			label := "표"
			if c, ok := caption(t); ok {
				label = "표: " + strings.TrimSpace(html.UnescapeString(string(stripTags(nil, c))))
			}
			return scrollRegion(dst, label, t)
		})
	})
	p.run(recolour)
	p.run(plotWidths)
	p.run(func(dst, page []byte) ([]byte, bool) { return linkExperiments(dst, page, links) })
	return p.done(), toc
}

// scrollRegion appends a labelled, focusable region that scrolls what
// it holds, the parts of content.
func scrollRegion(dst []byte, label string, content ...[]byte) []byte {
	dst = fmt.Appendf(dst, `<div class="scroll" role="region" aria-label="%s" tabindex="0">`, html.EscapeString(label))
	for _, c := range content {
		dst = append(dst, c...)
	}
	return append(dst, "</div>"...)
}

// plotWidths gives each plot a minimum width at which its smallest text
// is MinPlotText pixels, in a labelled region that scrolls below that.
func plotWidths(dst, page []byte) ([]byte, bool) {
	return replaceSVGs(dst, page, func(dst, svg, width []byte) []byte {
		vb, _ := strconv.ParseFloat(string(width), 64)
		small := 0.0
		fontSizes(svg, func(size []byte) {
			if v, err := strconv.ParseFloat(string(size), 64); err == nil && v > 0 && (small == 0 || v < small) {
				small = v
			}
		})
		// The min-width goes after the style's first "px;height:auto".
		var minWidth []byte
		at := len(svg)
		if small > 0 && vb > 0 {
			if k := bytes.Index(svg, []byte("px;height:auto")); k >= 0 {
				at, minWidth = k+len("px;height:auto"), fmt.Appendf(nil, ";min-width:%.0fpx", vb*MinPlotText/small)
			}
		}
		label := "그림"
		if start, end := title(svg); start >= 0 {
			t := string(svg[start:end])
			if minWidth != nil && start < at && at <= end { // the title as written, min-width and all
				t = string(svg[start:at]) + string(minWidth) + string(svg[at:end])
			}
			label = "그림: " + html.UnescapeString(t)
		}
		return scrollRegion(dst, label, svg[:at], minWidth, svg[at:])
	})
}
