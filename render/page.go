// Package render is the last step of a chapter's flow (see package
// parse): goldmark's renderer with the measured book's node renderers,
// each a function of its node and its view on the page (package view).
// It draws plots from their inputs and colours code blocks.
package render

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"

	"measuredbook/parse"
	"measuredbook/parse/ast"
	"measuredbook/view"
	"measuredbook/xref"
)

// HTMLWith renders the chapter body of d as an HTML fragment, each value
// and directive from its view on p, with the book's index x: labelled
// figures and tables numbered, references and citations resolved, the
// sources the chapter cites listed at its end. A nil p (or a node p has no
// view of) and a nil x show the source: nothing silently disappears.
func HTMLWith(d *parse.Doc, p *view.Page, x *xref.Index) ([]byte, error) {
	out, _, err := render(d, p, nil, x)
	return out, err
}

// Site is what a page of the published book links to beyond itself.
type Site struct {
	Page   string            // the page's own file name
	Data   map[string]bool   // the experiments whose raw data the site offers
	PageOf map[string]string // the page each experiment is shown on
	Xref   *xref.Index       // the book's labels and sources
}

// SitePage renders the chapter body of d as it shows on page s of the
// site: as HTMLWith does, with a link after every h2–h4 to itself, every
// table and plot in a labelled, focusable scroll region (a plot no
// narrower than keeps its text readable, its series coloured by the
// stylesheet), code blocks focusable, each experiment's provenance linked
// to its raw data and each live value to the page of its experiment. It
// also returns the page's h2–h4, in order.
func SitePage(d *parse.Doc, p *view.Page, s Site) ([]byte, []view.Heading, error) {
	return render(d, p, &s, s.Xref)
}

func render(d *parse.Doc, p *view.Page, s *Site, x *xref.Index) ([]byte, []view.Heading, error) {
	words := p.Words()
	h := pageHTMLs(words).Get().(*pageHTML)
	h.page, h.site, h.xref, h.root = p, s, x, d.Root()
	if d.Front.Slug != "" {
		h.self = d.Front.Slug + ".html"
	}
	h.labels, h.cites = map[*ast.Directive]string{}, map[string]*cited{}
	for _, dir := range d.Directives() {
		if dir.Label != "" {
			h.labels[dir.Node] = dir.Label
		}
	}
	defer func() {
		*h = pageHTML{md: h.md, buf: h.buf[:0]}
		pageHTMLs(words).Put(h)
	}()
	// Rendered into the instance's buffer, kept from page to page, and
	// copied out at its size: no doubling up from nothing for each page.
	b := bytes.NewBuffer(h.buf)
	if err := h.md.Renderer().Render(b, d.Body(), d.Root()); err != nil {
		return nil, nil, err
	}
	h.buf = b.Bytes()
	return bytes.Clone(h.buf), h.headings, nil
}

// pageHTML is the goldmark instance that renders one page: Markdown's,
// with the measured book's node renderers reading the page's views.
type pageHTML struct {
	page     *view.Page
	site     *Site // nil: the body alone, as Markdown renders it
	headings []view.Heading
	md       goldmark.Markdown
	buf      []byte

	xref   *xref.Index
	self   string                    // the chapter's page, for a fragment
	root   gast.Node                 // the page's document: its sources follow it
	labels map[*ast.Directive]string // the label of each labelled directive
	cites  map[string]*cited
	order  []string // the keys cited, in the order of their first citation
}

// pageHTMLs are instances for pages in the language of words, each given
// one page at a time: making one (goldmark.New) costs as much as
// rendering a short page.
func pageHTMLs(words *view.Words) *sync.Pool {
	p, _ := pools.LoadOrStore(words, &sync.Pool{New: func() any { return newPageHTML(words) }})
	return p.(*sync.Pool)
}

var pools sync.Map // *view.Words → *sync.Pool

// newPageHTML configures goldmark for a page in the language of words,
// the one place that is done (see Markdown for what and why). A page
// needs an instance of its own because goldmark's node renderers are
// registered once per instance: this is how they reach the page without
// a global or a view stored on the node.
func newPageHTML(words *view.Words) *pageHTML {
	// goldmark's footnote extension with a back-link a reader can name,
	// in the book's words: its arrow alone says nothing to a screen
	// reader. Its ids (fn:1, fnref:1) hold a colon, which no heading id
	// does, and goldmark numbers a second reference to a note fnref1:1, so
	// they are unique on a page; the links are fragments, so they work
	// from file:// too.
	footnotes := extension.NewFootnote(extension.WithFootnoteBacklinkTitle(words.FootnoteBack))
	h := &pageHTML{}
	h.md = goldmark.New(
		goldmark.WithExtensions(parse.Extensions(footnotes)...),
		goldmark.WithRendererOptions(ghtml.WithUnsafe(), renderer.WithNodeRenderers(util.Prioritized(htmlRenderer{h}, 400))),
	)
	return h
}

// fragment renders a directive's Markdown field with the page.
func (h *pageHTML) fragment(f *view.Fragment) []byte {
	var b bytes.Buffer
	if err := h.md.Renderer().Render(&b, f.Source, f.Root); err != nil {
		return nil
	}
	out := b.Bytes()
	if f.Inline && f.Root.ChildCount() == 1 && f.Root.FirstChild().Kind() == gast.KindParagraph {
		out = bytes.TrimSuffix(bytes.TrimPrefix(out, []byte("<p>")), []byte("</p>\n"))
	}
	return out
}
