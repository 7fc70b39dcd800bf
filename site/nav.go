// Package site is what the published book adds around the chapters'
// pages (which package render writes final, render.SitePage): the
// navigation and in-page contents, the contents page's note on chapter
// numbers, the search index, the claims and environment pages, and each
// experiment's raw data for download.
package site

import (
	"encoding/json"
	"fmt"
	"slices"

	"measuredbook/view"
)

// Chapter is one chapter as the navigation shows it.
type Chapter struct {
	Title, Slug string
	Order       int
	Contents    []view.Heading // the in-page contents, on the current chapter only
}

// Nav is what a page's layout needs to draw its sidebar: the page's file
// name ("index.html" for the contents) and, on a chapter's page, that
// chapter with its in-page contents and its place in the book. The other
// chapters' lines are not in the page: toc.js (TOC) puts them around the
// current one, so that a book of N chapters writes its chapter list once,
// not N times (N² bytes: 3.8 GB for 10,000 small chapters). Without
// JavaScript the sidebar still links to the contents page.
type Nav struct {
	Page    string
	Current *Chapter // nil on a page that is not a chapter
	At      int      // Current's index in the book
}

// NavOf is the navigation of page, given the book's chapters; contents
// is the current chapter's in-page contents (nil on other pages).
func NavOf(page string, chapters []Chapter, at int, contents []view.Heading) Nav {
	if at < 0 || at >= len(chapters) || chapters[at].Slug+".html" != page {
		return Nav{Page: page}
	}
	c := chapters[at]
	c.Contents = contents
	return Nav{Page: page, Current: &c, At: at}
}

// TOC is the script toc.js: the list of every chapter (file name, title)
// as data, then fill, the layouts' code that lays it out in the sidebar
// (templates.TOCScript). A script, not JSON, so that it loads from file://.
func TOC(chapters []Chapter, fill []byte) []byte {
	list := make([][2]string, len(chapters))
	for i, c := range chapters {
		list[i] = [2]string{c.Slug + ".html", c.Title}
	}
	data, err := json.Marshal(list)
	if err != nil {
		panic(err) // strings always marshal
	}
	return slices.Concat([]byte("window.MB_CHAPTERS="), data, []byte(";\n"), fill)
}

// Numbering says, in words w, why the chapter numbers have gaps: the
// book keeps the original book's numbers, and the chapters between are
// not written yet. "" when the numbers run 1, 2, … without a gap.
func Numbering(w *view.Words, orders []int) string {
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
	return slices.DeleteFunc(slices.Clone(headings), func(h view.Heading) bool { return h.Level > 3 })
}
