// Package site is what the published book adds around the chapters'
// pages (which package render writes final, render.SitePage): the
// navigation and in-page contents, the contents page's note on chapter
// numbers, the search index, the claims and environment pages, and each
// experiment's raw data for download.
package site

import (
	"bytes"
	"fmt"
	"html/template"

	"measuredbook/view"
)

// Chapter is one chapter as the navigation shows it.
type Chapter struct {
	Title, Slug string
	Order       int
	Current     bool           // the page being laid out
	Contents    []view.Heading // the in-page contents, on the current chapter only
}

// Nav is what a page's layout needs to draw the sidebar: the page's file
// name ("index.html" for the contents) and the chapters' lines, laid out.
type Nav struct {
	Page string
	List template.HTML
}

// Sidebar lays out the sidebar's chapter lines for every page of a build.
// Each chapter's line goes through the layouts' "nav-chapter" template
// once; a page's list is the other chapters' lines copied as they are
// and its own, current line with the page's contents. The sidebar lists
// every chapter on every page, so a book of N chapters costs N template
// executions and N² bytes copied, not N² executions (half of a build of
// a thousand chapters).
type Sidebar struct {
	t        *template.Template
	chapters []Chapter
	page     map[string]int // file name → chapter
	lines    []byte         // every chapter's line, none current
	at       []int          // chapter i's line is lines[at[i]:at[i+1]]
}

// NewSidebar lays out the lines of chapters with t's "nav-chapter".
func NewSidebar(t *template.Template, chapters []Chapter) (*Sidebar, error) {
	s := &Sidebar{t: t, chapters: chapters, page: map[string]int{}, at: make([]int, len(chapters)+1)}
	var b bytes.Buffer
	for i, c := range chapters {
		s.page[c.Slug+".html"], s.at[i] = i, b.Len()
		c.Current, c.Contents = false, nil
		if err := t.ExecuteTemplate(&b, "nav-chapter", c); err != nil {
			return nil, err
		}
	}
	s.at[len(chapters)] = b.Len()
	s.lines = b.Bytes()
	return s, nil
}

// Nav is the navigation of page; contents is the current chapter's
// in-page contents (nil on other pages).
func (s *Sidebar) Nav(page string, contents []view.Heading) (Nav, error) {
	i, ok := s.page[page]
	if !ok {
		return Nav{Page: page, List: template.HTML(s.lines)}, nil
	}
	c := s.chapters[i]
	c.Current, c.Contents = true, contents
	var b bytes.Buffer
	b.Grow(len(s.lines) + 4<<10)
	b.Write(s.lines[:s.at[i]])
	if err := s.t.ExecuteTemplate(&b, "nav-chapter", c); err != nil {
		return Nav{}, err
	}
	b.Write(s.lines[s.at[i+1]:])
	return Nav{Page: page, List: template.HTML(b.String())}, nil
}

// Numbering says, in words w, why the chapter numbers have gaps: the
// book keeps the original book's numbers, and the chapters between are
// not written yet. "" when the numbers run 1, 2, … without a gap.
func Numbering(w *view.Words, orders []int) string {
	if len(orders) == 0 {
		return ""
	}
	have := map[int]bool{}
	last := 0
	for _, o := range orders {
		have[o] = true
		last = max(last, o)
	}
	var missing []string
	for o := 1; o < last; o++ {
		if !have[o] {
			missing = append(missing, fmt.Sprintf(w.ChapterFormat, o))
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf(w.NumberingFormat, w.List(missing))
}

// Contents is a page's in-page contents: its h2s and h3s.
func Contents(headings []view.Heading) []view.Heading {
	var toc []view.Heading
	for _, h := range headings {
		if h.Level <= 3 {
			toc = append(toc, h)
		}
	}
	return toc
}
