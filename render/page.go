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
	ghtml "github.com/yuin/goldmark/renderer/html"

	"measuredbook/parse"
	"measuredbook/view"
)

// HTML renders the chapter body of d as an HTML fragment, each value and
// directive from its view on p. A nil p (or a node p has no view of) shows
// the source: nothing silently disappears.
func HTML(d *parse.Doc, p *view.Page) ([]byte, error) {
	h := pageHTMLs.Get().(*pageHTML)
	h.page = p
	defer func() {
		h.page, h.buf = nil, h.buf[:0]
		pageHTMLs.Put(h)
	}()
	// Rendered into the instance's buffer, kept from page to page, and
	// copied out at its size: no doubling up from nothing for each page.
	b := bytes.NewBuffer(h.buf)
	if err := h.md.Renderer().Render(b, d.Body(), d.Root()); err != nil {
		return nil, err
	}
	h.buf = b.Bytes()
	return bytes.Clone(h.buf), nil
}

// pageHTML is the goldmark instance that renders one page: Markdown's,
// with the measured book's node renderers reading the page's views.
type pageHTML struct {
	page *view.Page
	md   goldmark.Markdown
	buf  []byte
}

// pageHTMLs are instances for HTML, each given one page at a time: making
// one (goldmark.New) costs as much as rendering a short page.
var pageHTMLs = sync.Pool{New: func() any { return newPageHTML(nil) }}

// newPageHTML configures goldmark for p, the one place that is done (see
// Markdown for what and why). A page needs an instance of its own because
// goldmark's node renderers are registered once per instance: this is how
// they reach the page without a global or a view stored on the node.
func newPageHTML(p *view.Page) *pageHTML {
	h := &pageHTML{page: p}
	h.md = goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, parse.Syntax, extender{h}),
		goldmark.WithRendererOptions(ghtml.WithUnsafe()),
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
