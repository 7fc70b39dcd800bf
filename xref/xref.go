// Package xref numbers the book's figures and tables and resolves its
// cross-references and citations, over every chapter at once: a chapter
// may refer to a figure of another, and a renumbering (a chapter moved, a
// figure added) changes the pages that refer to it. New checks every
// reference and citation against the labels and the bibliography, so a
// build reports an unknown or duplicated label before it measures.
package xref

import (
	"fmt"
	"maps"
	"slices"

	"measuredbook/bib"
	"measuredbook/expr"
	"measuredbook/parse"
)

// Target is what a label names: a numbered figure or table, a heading, or
// a chapter (sec-SLUG).
type Target struct {
	Kind    string    // parse.FigLabel, parse.TblLabel or parse.SecLabel
	Page    string    // the chapter's page (SLUG.html); "" for a document without a slug
	Chapter int       // the chapter's order (front matter); 0 for none
	N       int       // its place among the chapter's figures or tables, from 1; 0 for a section
	Title   string    `json:",omitempty"` // a heading's text, a chapter's title
	Whole   bool      `json:",omitempty"` // the chapter itself, not a place on its page
	At      parse.Pos `json:"-"`          // where it is defined, for errors: no part of a page, so no part of the render cache's key
}

// Index is the book's labels, by name, and its bibliography.
type Index struct {
	Targets map[string]Target
	Bib     *bib.Bib `json:",omitempty"`
}

// New numbers the labels of docs, in book order, and checks that each is
// defined once and that every reference names a label and every citation
// a key of b (nil: there is no bibliography). The errors are at the
// culprits' positions, joined.
func New(docs []*parse.Doc, b *bib.Bib) (*Index, error) {
	x := &Index{Targets: map[string]Target{}, Bib: b}
	var errs []*parse.PosError
	fail := func(at parse.Pos, format string, args ...any) {
		errs = append(errs, &parse.PosError{Pos: at, Msg: fmt.Sprintf(format, args...)})
	}
	add := func(name string, t Target) {
		if first, dup := x.Targets[name]; dup {
			fail(t.At, "duplicate label %s (first at %s)", name, first.At)
			return
		}
		x.Targets[name] = t
	}
	for _, d := range docs {
		page := ""
		if d.Front.Slug != "" {
			page = d.Front.Slug + ".html"
			add(parse.SecLabel+"-"+d.Front.Slug, Target{Kind: parse.SecLabel, Page: page, Chapter: d.Front.Order, Title: d.Front.Title, Whole: true, At: d.Front.SlugAt})
		}
		count := map[string]int{}
		for _, l := range d.Xref.Labels {
			t := Target{Kind: l.Kind(), Page: page, Chapter: d.Front.Order, Title: l.Title, At: l.At}
			if t.Kind != parse.SecLabel {
				count[t.Kind]++
				t.N = count[t.Kind]
			}
			add(l.Name, t)
		}
	}
	names := slices.Sorted(maps.Keys(x.Targets))
	keys := b.Keys()
	for _, d := range docs {
		for _, r := range d.Xref.Refs {
			if _, ok := x.Targets[r.Name]; !ok {
				fail(r.At, "unknown label @%s%s", r.Name, expr.DidYouMean(r.Name, names))
			}
		}
		for _, c := range d.Xref.Cites {
			switch _, ok := b.Lookup(c.Name); {
			case b == nil:
				fail(c.At, "citation @%s, but the book has no references.bib beside its chapters", c.Name)
			case !ok:
				fail(c.At, "unknown citation key @%s%s", c.Name, expr.DidYouMean(c.Name, keys))
			}
		}
	}
	return x, parse.JoinSorted(errs)
}

// Lookup returns the target of a label.
func (x *Index) Lookup(name string) (Target, bool) {
	if x == nil {
		return Target{}, false
	}
	t, ok := x.Targets[name]
	return t, ok
}

// Href is the link to name's target from page (the page's file name; ""
// for a lone document).
func (t Target) Href(name, page string) string {
	switch {
	case t.Whole && (t.Page == page || t.Page == ""):
		return "#"
	case t.Whole:
		return t.Page
	case t.Page == page || t.Page == "":
		return "#" + name
	}
	return t.Page + "#" + name
}
