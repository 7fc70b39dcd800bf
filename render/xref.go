package render

// The book's structure on a page: numbered figures and tables, the
// cross-references to them, citations and the chapter's sources at its
// end. Each is rendered from the book's index (package xref); without one
// (Markdown's plain rendering) a reference or a citation shows its source.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"

	"measuredbook/bib"
	"measuredbook/parse"
	"measuredbook/parse/ast"
	"measuredbook/view"
)

// cited is a source a page cites: its number (in the order of first
// citation) and how many places cite it.
type cited struct {
	n, uses int
	entry   *bib.Entry
}

// numberOf is the number of the table or figure labelled label.
func (h *pageHTML) numberOf(label string) number {
	t, ok := h.xref.Lookup(label)
	if !ok || t.N == 0 {
		return number{}
	}
	w := h.page.Words()
	word := w.PlotWord
	if t.Kind == parse.TblLabel {
		word = w.TableWord
	}
	return number{id: label, text: w.Numbered(word, t.Chapter, t.N)}
}

// refText is what a reference reads, "" when its label is unknown.
func (h *pageHTML) refText(name string) (text, href string) {
	t, ok := h.xref.Lookup(name)
	if !ok {
		return "", ""
	}
	href = t.Href(name, h.pageName())
	switch {
	case t.N > 0:
		return h.numberOf(name).text, href
	case t.Whole:
		return h.page.Words().ChapterRef(t.Chapter, t.Title), href
	}
	return h.page.Words().SectionRef(t.Chapter, t.Page != h.pageName(), t.Title), href
}

// pageName is the page's file name: the site's, or the chapter's own for
// a fragment.
func (h *pageHTML) pageName() string {
	if h.site == nil {
		return h.self
	}
	return h.site.Page
}

func (r htmlRenderer) renderRef(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	n := node.(*ast.Ref)
	if text, href := r.h.refText(n.Name); text == "" {
		w.Write(util.EscapeHTML(n.Raw))
	} else {
		w.WriteString(`<a class="mb-xref" href="` + esc(href) + `">` + esc(text) + `</a>`)
	}
	return gast.WalkContinue, nil
}

// renderCite writes [1] or [1, §3; 2], each number a link to its source
// at the chapter's end, with an id its back-link returns to.
func (r htmlRenderer) renderCite(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	n := node.(*ast.Cite)
	var out strings.Builder
	sep := ", "
	if slices.ContainsFunc(n.Items, func(it ast.CiteItem) bool { return it.Locator != "" }) {
		sep = "; "
	}
	out.WriteString(`<span class="mb-cite">[`)
	for i, it := range n.Items {
		c := r.h.cite(it.Key)
		if c == nil {
			w.Write(util.EscapeHTML(n.Raw))
			return gast.WalkContinue, nil
		}
		if i > 0 {
			out.WriteString(sep)
		}
		out.WriteString(`<a href="#ref-` + esc(it.Key) + `" id="` + esc(citeID(it.Key, c.uses)) + `">` + strconv.Itoa(c.n) + `</a>`)
		if it.Locator != "" {
			out.WriteString(", " + esc(it.Locator))
		}
	}
	out.WriteString("]</span>")
	w.WriteString(out.String())
	return gast.WalkContinue, nil
}

func citeID(key string, use int) string { return "cite-" + key + "-" + strconv.Itoa(use) }

// cite counts a citation of key and returns its source, nil when the
// index has no such key.
func (h *pageHTML) cite(key string) *cited {
	if c, ok := h.cites[key]; ok {
		c.uses++
		return c
	}
	var b *bib.Bib
	if h.xref != nil {
		b = h.xref.Bib
	}
	e, ok := b.Lookup(key)
	if !ok {
		return nil
	}
	c := &cited{n: len(h.order) + 1, uses: 1, entry: e}
	h.cites[key] = c
	h.order = append(h.order, key)
	return c
}

// renderFigure writes a labelled image as a numbered figure, its alt text
// the caption.
func (r htmlRenderer) renderFigure(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	n := node.(*ast.Figure)
	if entering {
		w.WriteString(`<figure class="mb-figure" id="` + esc(n.Label) + `">` + "\n")
		return gast.WalkContinue, nil
	}
	var alt strings.Builder
	if img, ok := n.FirstChild().(*gast.Image); ok {
		r.plainText(&alt, source, img, true)
	}
	w.WriteString("\n<figcaption>" + r.h.numberOf(n.Label).captionHTML(alt.String()) + "</figcaption>\n</figure>\n")
	return gast.WalkContinue, nil
}

// renderDocument writes, after the page's own body, the sources it cites.
func (r htmlRenderer) renderDocument(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	if entering || node != r.h.root || len(r.h.order) == 0 {
		return gast.WalkContinue, nil
	}
	words := r.h.page.Words()
	w.WriteString(`<section class="mb-references" aria-labelledby="` + parse.ReferencesID + `">` + "\n")
	w.WriteString(`<h2 id="` + parse.ReferencesID + `">` + esc(words.ReferencesHeading))
	if r.h.site != nil {
		w.WriteString(" " + HeadingLink(words, parse.ReferencesID, words.ReferencesHeading))
		r.h.headings = append(r.h.headings, view.Heading{Level: 2, ID: parse.ReferencesID, Text: words.ReferencesHeading})
	}
	w.WriteString("</h2>\n<ol>\n")
	for _, key := range r.h.order {
		c := r.h.cites[key]
		w.WriteString(`<li id="ref-` + esc(key) + `">`)
		writeSource(w, words, c.entry)
		for u := 1; u <= c.uses; u++ {
			mark := "↩"
			if c.uses > 1 {
				mark += strconv.Itoa(u)
			}
			w.WriteString(` <a class="mb-backref" href="#` + esc(citeID(key, u)) + `" aria-label="` + esc(words.BackToText+" "+strconv.Itoa(u)) + `">` + mark + `</a>`)
		}
		w.WriteString("</li>\n")
	}
	w.WriteString("</ol>\n</section>\n")
	return gast.WalkContinue, nil
}

// writeSource writes a source as a list of sources shows it: its authors,
// its title, where it appeared, its year, its address.
func writeSource(b util.BufWriter, words *view.Words, e *bib.Entry) {
	f := e.Fields
	var parts []string
	who := cmp.Or(f["author"], f["editor"])
	if who != "" {
		parts = append(parts, esc(authors(who)))
	}
	if t := f["title"]; t != "" {
		parts = append(parts, "<cite>"+esc(t)+"</cite>")
	}
	for _, k := range []string{"journal", "booktitle", "howpublished", "publisher", "institution", "organization"} {
		if v := f[k]; v != "" && v != who {
			parts = append(parts, esc(v))
		}
	}
	for _, k := range []string{"note", "year"} {
		if v := f[k]; v != "" {
			parts = append(parts, esc(v))
		}
	}
	b.WriteString(strings.Join(parts, ". "))
	if len(parts) > 0 {
		b.WriteString(".")
	}
	if u := f["url"]; u != "" {
		b.WriteString(` <a href="` + esc(u) + `">` + esc(u) + `</a>`)
		if d := f["urldate"]; d != "" {
			b.WriteString(" (" + esc(words.Accessed) + " " + esc(d) + ")")
		}
	}
}

// authors is a BibTeX name list as a reader reads it: "Kegel, Dan and
// Jonathan Lemon" is "Dan Kegel, Jonathan Lemon".
func authors(list string) string {
	names := strings.Split(list, " and ")
	for i, n := range names {
		if last, first, ok := strings.Cut(n, ", "); ok {
			n = strings.TrimSpace(first) + " " + strings.TrimSpace(last)
		}
		names[i] = strings.TrimSpace(n)
	}
	return strings.Join(names, ", ")
}
