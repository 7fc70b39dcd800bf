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
	"regexp"
	"strconv"
	"strings"
)

// Heading is one entry of a chapter's in-page contents.
type Heading struct {
	Level int    // 2 or 3
	ID    string // the heading's id
	Text  string // its text, without markup
}

var (
	tagRE     = regexp.MustCompile(`(?s)<[^>]*>`)
	captionRE = regexp.MustCompile(`(?s)<caption>(.*?)</caption>`)
	titleRE   = regexp.MustCompile(`<title>([^<]*)</title>`)
	fontRE    = regexp.MustCompile(`font-size:([0-9.]+)px`)
)

// series numbers the plot palette's colours (plotsvg's Okabe–Ito order),
// so the stylesheet can give each series a colour per theme.
var series = map[string]int{"0072B2": 1, "D55E00": 2, "009E73": 3, "CC79A7": 4, "E69F00": 5, "56B4E9": 6}

// MinPlotText is the smallest plot text, in CSS pixels, a page shows:
// a plot narrower than that allows scrolls inside its figure instead.
const MinPlotText = 11

// Decorate returns a chapter's body with a link after every h2–h4 to
// itself, every table in a labelled, focusable scroll region, plot series
// coloured from the stylesheet and plots kept wide enough for their text,
// and the h2 and h3 for the in-page contents.
func Decorate(body []byte) ([]byte, []Heading) {
	var toc []Heading
	body = replaceHeadings(body, func(level int, idb, innerb []byte) []byte {
		id, inner := string(idb), string(innerb)
		text := strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(inner, "")))
		if level <= 3 {
			toc = append(toc, Heading{Level: level, ID: html.UnescapeString(id), Text: text})
		}
		return fmt.Appendf(nil, `<h%d id="%s">%s <a class="anchor" href="#%s" aria-label="이 절의 링크: %s">#</a></h%d>`,
			level, id, inner, id, html.EscapeString(text), level)
	})
	body = replaceElements(body, "table", func(t []byte) []byte {
		label := "표"
		if c := captionRE.FindSubmatch(t); c != nil {
			label = "표: " + strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(string(c[1]), "")))
		}
		return fmt.Appendf(nil, `<div class="scroll" role="region" aria-label="%s" tabindex="0">%s</div>`, html.EscapeString(label), t)
	})
	body = recolour(body)
	body = plotWidths(body)
	body = bytes.ReplaceAll(body, []byte(`<pre class="chroma">`), []byte(`<pre class="chroma" tabindex="0">`))
	return body, toc
}

// plotWidths gives each plot a minimum width at which its smallest text
// is MinPlotText pixels, in a labelled region that scrolls below that.
func plotWidths(body []byte) []byte {
	return replaceSVGs(body, func(svg, width []byte) []byte {
		vb, _ := strconv.ParseFloat(string(width), 64)
		small := 0.0
		for _, f := range fontRE.FindAllSubmatch(svg, -1) {
			if v, err := strconv.ParseFloat(string(f[1]), 64); err == nil && v > 0 && (small == 0 || v < small) {
				small = v
			}
		}
		if small > 0 && vb > 0 {
			svg = bytes.Replace(svg, []byte("px;height:auto"), fmt.Appendf(nil, "px;height:auto;min-width:%.0fpx", vb*MinPlotText/small), 1)
		}
		label := "그림"
		if t := titleRE.FindSubmatch(svg); t != nil {
			label = "그림: " + html.UnescapeString(string(t[1]))
		}
		return fmt.Appendf(nil, `<div class="scroll" role="region" aria-label="%s" tabindex="0">%s</div>`, html.EscapeString(label), svg)
	})
}
