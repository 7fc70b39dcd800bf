package site

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
)

// The per-page work as it was first written, with regular expressions:
// what the scans of scan.go must match byte for byte.

var (
	refTagRE        = regexp.MustCompile(`(?s)<[^>]*>`)
	refCaptionRE    = regexp.MustCompile(`(?s)<caption>(.*?)</caption>`)
	refTitleRE      = regexp.MustCompile(`<title>([^<]*)</title>`)
	refFontRE       = regexp.MustCompile(`font-size:([0-9.]+)px`)
	refSectionRE    = regexp.MustCompile(`<h[2-4] id="([^"]+)">`)
	refExperimentRE = regexp.MustCompile(`<figure class="mb-experiment" id="experiment-([^"]+)">`)
)

// refPage is a chapter's per-page work as first written: the page, its
// contents and its search sections.
func refPage(body []byte, title, slug string, l Links) (string, []Heading, []Section) {
	body, toc := refDecorate(refLinkData(body, l.Has))
	body = refLinkExperiments(body, l.Page, l.PageOf)
	return string(body), toc, refSections(title, slug, body, toc)
}

// refReplace replaces every match of re in b by f(its submatches).
func refReplace(re *regexp.Regexp, b []byte, f func(g [][]byte) []byte) []byte {
	var out []byte
	last := 0
	for _, loc := range re.FindAllSubmatchIndex(b, -1) {
		g := make([][]byte, len(loc)/2)
		for i := range g {
			if loc[2*i] >= 0 {
				g[i] = b[loc[2*i]:loc[2*i+1]]
			}
		}
		out = append(append(out, b[last:loc[0]]...), f(g)...)
		last = loc[1]
	}
	return append(out, b[last:]...)
}

func refDecorate(body []byte) ([]byte, []Heading) {
	var toc []Heading
	body = refReplace(headRE, body, func(g [][]byte) []byte {
		level, id, inner := int(g[1][0]-'0'), string(g[2]), string(g[3])
		text := strings.TrimSpace(html.UnescapeString(refTagRE.ReplaceAllString(inner, "")))
		if level <= 3 {
			toc = append(toc, Heading{Level: level, ID: html.UnescapeString(id), Text: text})
		}
		return fmt.Appendf(nil, `<h%d id="%s">%s <a class="anchor" href="#%s" aria-label="이 절의 링크: %s">#</a></h%d>`,
			level, id, inner, id, html.EscapeString(text), level)
	})
	body = refReplace(tableRE, body, func(g [][]byte) []byte {
		label := "표"
		if c := refCaptionRE.FindSubmatch(g[0]); c != nil {
			label = "표: " + strings.TrimSpace(html.UnescapeString(refTagRE.ReplaceAllString(string(c[1]), "")))
		}
		return fmt.Appendf(nil, `<div class="scroll" role="region" aria-label="%s" tabindex="0">%s</div>`, html.EscapeString(label), g[0])
	})
	body = refReplace(colourRE, body, func(g [][]byte) []byte {
		return fmt.Appendf(nil, "%s:var(--mb-s%d)", g[1], series[string(g[2])])
	})
	body = refReplace(svgRE, body, func(g [][]byte) []byte {
		svg := g[0]
		vb, _ := strconv.ParseFloat(string(g[1]), 64)
		small := 0.0
		for _, f := range refFontRE.FindAllSubmatch(svg, -1) {
			if v, err := strconv.ParseFloat(string(f[1]), 64); err == nil && v > 0 && (small == 0 || v < small) {
				small = v
			}
		}
		if small > 0 && vb > 0 {
			svg = bytes.Replace(svg, []byte("px;height:auto"), fmt.Appendf(nil, "px;height:auto;min-width:%.0fpx", vb*MinPlotText/small), 1)
		}
		label := "그림"
		if t := refTitleRE.FindSubmatch(svg); t != nil {
			label = "그림: " + html.UnescapeString(string(t[1]))
		}
		return fmt.Appendf(nil, `<div class="scroll" role="region" aria-label="%s" tabindex="0">%s</div>`, html.EscapeString(label), svg)
	})
	return body, toc
}

func refSections(title, slug string, body []byte, toc []Heading) []Section {
	byID := map[string]string{}
	for _, h := range toc {
		byID[h.ID] = h.Text
	}
	s := dropRE.ReplaceAllString(string(body), " ")
	var out []Section
	add := func(url, head, part string) {
		text := strings.TrimSpace(spaceRE.ReplaceAllString(html.UnescapeString(refTagRE.ReplaceAllString(part, " ")), " "))
		if text != "" {
			out = append(out, Section{Chapter: title, URL: url, Title: head, Text: text})
		}
	}
	start, url, head := 0, slug+".html", title
	for _, l := range refSectionRE.FindAllStringSubmatchIndex(s, -1) {
		add(url, head, s[start:l[0]])
		id := html.UnescapeString(s[l[2]:l[3]])
		start, url, head = l[0], slug+".html#"+id, byID[id]
		if head == "" {
			head = title
		}
	}
	add(url, head, s[start:])
	return out
}

func refLinkData(body []byte, has map[string]bool) []byte {
	var out bytes.Buffer
	for {
		loc := refExperimentRE.FindSubmatchIndex(body)
		if loc == nil {
			out.Write(body)
			return out.Bytes()
		}
		end := bytes.Index(body[loc[1]:], []byte("</figure>"))
		if end < 0 {
			out.Write(body)
			return out.Bytes()
		}
		fig := body[:loc[1]+end]
		caption := bytes.LastIndex(fig, []byte("</figcaption>"))
		id := html.UnescapeString(string(body[loc[2]:loc[3]]))
		if caption < loc[1] || !has[id] {
			out.Write(fig)
			body = body[len(fig):]
			continue
		}
		cut := caption
		if bytes.HasSuffix(fig[:cut], []byte("</span>")) {
			cut -= len("</span>")
		}
		e := html.EscapeString(id)
		out.Write(fig[:cut])
		fmt.Fprintf(&out, ` <span class="mb-data">원자료 <a href="data/%s.csv" download>CSV</a> · <a href="data/%s.json" download>JSON</a></span>`, e, e)
		out.Write(fig[cut:])
		body = body[len(fig):]
	}
}

func refLinkExperiments(body []byte, page string, pageOf map[string]string) []byte {
	return refReplace(attrRE, body, func(g [][]byte) []byte {
		id := html.UnescapeString(string(g[1]))
		if p, ok := pageOf[id]; ok && p != page {
			return fmt.Appendf(nil, `%s data-page="%s"`, g[0], html.EscapeString(p))
		}
		return g[0]
	})
}
