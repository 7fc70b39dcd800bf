package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"measuredbook/view"
)

// Section is one searchable part of a chapter: the text under one
// heading, up to the next.
type Section struct {
	Chapter string `json:"c"` // the chapter's title
	URL     string `json:"u"` // page.html#id, relative, so it works from file:// and any sub-path
	Title   string `json:"t"` // the heading's text (the chapter's title for its opening)
	Text    string `json:"x"` // the plain text
}

// Sections splits a chapter's page body (render.SitePage's) into its
// searchable sections, one from each of its h2–h4 (headings, in order).
func Sections(title, slug, body string, headings []view.Heading) []Section {
	hiddenBuf, textBuf := scratch.Get().(*[]byte), scratch.Get().(*[]byte)
	defer scratch.Put(hiddenBuf)
	defer scratch.Put(textBuf)
	s := dropHidden((*hiddenBuf)[:0], body)
	// Every section's text goes into one buffer, and that into one string.
	type part struct {
		url, head  string
		start, end int // in text
	}
	var parts []part
	text := plainText{out: (*textBuf)[:0]}
	start, url, head := 0, slug+".html", title
	add := func(end int) {
		n := len(text.out)
		text.add(s[start:end])
		parts = append(parts, part{url, head, n, len(text.out)})
	}
	for _, h := range headings {
		// A section starts at its heading's start tag, as the renderer
		// wrote it; none in what a reader does not read (a script's text).
		j := bytes.Index(s[start:], fmt.Appendf(nil, `<h%d id="%s">`, h.Level, html.EscapeString(h.ID)))
		if j < 0 {
			continue
		}
		add(start + j)
		start, url, head = start+j, slug+".html#"+h.ID, h.Text
		if h.Level > 3 || h.Text == "" { // not in the contents: the section goes by the chapter's title
			head = title
		}
	}
	add(len(s))
	*hiddenBuf, *textBuf = s, text.out
	all := string(text.out)
	var out []Section
	for _, p := range parts {
		if t := strings.TrimSpace(all[p.start:p.end]); t != "" {
			out = append(out, Section{Chapter: title, URL: p.url, Title: p.head, Text: t})
		}
	}
	return out
}

// SearchEntries is one chapter's part of the search index: its sections
// as JSON array elements, comma-separated (empty for none). A build keeps
// these, not the sections, until it writes the index.
func SearchEntries(sections []Section) []byte {
	if len(sections) == 0 {
		return nil
	}
	b, err := json.Marshal(sections)
	if err != nil {
		panic(err) // a struct of strings always marshals
	}
	return b[1 : len(b)-1]
}

// SearchIndex is the script that hands the search page its index, the
// chapters' entries in order: a script, not a JSON file, so it loads
// from file:// too.
func SearchIndex(entries [][]byte) []byte {
	size := 32
	for _, e := range entries {
		size += len(e) + 1
	}
	b := append(make([]byte, 0, size), "window.MB_SEARCH=["...)
	n := 0
	for _, e := range entries {
		if len(e) == 0 {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
		n++
	}
	if n == 0 {
		return []byte("window.MB_SEARCH=null;\n") // what json.Marshal makes of no sections
	}
	return append(b, "];\n"...)
}
