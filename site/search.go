package site

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
)

// Section is one searchable part of a chapter: the text under one
// heading, up to the next.
type Section struct {
	Chapter string `json:"c"` // the chapter's title
	URL     string `json:"u"` // page.html#id, relative, so it works from file:// and any sub-path
	Title   string `json:"t"` // the heading's text (the chapter's title for its opening)
	Text    string `json:"x"` // the plain text
}

var sectionRE = regexp.MustCompile(`<h[2-4] id="([^"]+)">`)

// Sections splits a decorated chapter body (Decorate's output) into its
// searchable sections.
func Sections(title, slug string, body []byte, toc []Heading) []Section {
	byID := map[string]string{}
	for _, h := range toc {
		byID[h.ID] = h.Text
	}
	s := dropHidden(string(body))
	var out []Section
	add := func(url, head, part string) {
		text := strings.TrimSpace(collapseSpace(html.UnescapeString(stripTags(part))))
		if text != "" {
			out = append(out, Section{Chapter: title, URL: url, Title: head, Text: text})
		}
	}
	locs := sectionRE.FindAllStringSubmatchIndex(s, -1)
	start, url, head := 0, slug+".html", title
	for _, l := range locs {
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

// SearchEntries is one chapter's part of the search index: its sections
// as JSON array elements, comma-separated (empty for none). A build keeps
// these, not the sections, until it writes the index.
func SearchEntries(sections []Section) ([]byte, error) {
	if len(sections) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(sections)
	if err != nil {
		return nil, err
	}
	return b[1 : len(b)-1], nil
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
