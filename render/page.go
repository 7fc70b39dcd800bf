package render

import (
	"bufio"
	"bytes"
	"html"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	ghtml "github.com/yuin/goldmark/renderer/html"

	"measuredbook/render/ast"
	"measuredbook/view"
)

// Page is one evaluation of a Doc against one set of results: the view of
// every inline value and directive, keyed by its node, the claims with
// their verdicts in document order, and the warnings. The Doc is left as
// Parse made it; HTML(doc, page) renders the two.
type Page struct {
	Claims   []Claim
	Warnings []error
	// Sets are the result sets other than the build's own that the page
	// draws on (on(), ref(), machines:, a plot's ref:), found or not,
	// sorted: the other machines it shows, or shows a gap for.
	Sets []string

	values map[*ast.Value]*view.Out
	views  map[*ast.Directive]view.View // *view.Experiment, *view.TableView, *view.Plot, *view.Claim, *view.When or *view.Error
}

// Value is the view of an inline value; nil when it was not evaluated (it
// failed to parse, or p is nil).
func (p *Page) Value(n *ast.Value) *view.Out {
	if p == nil {
		return nil
	}
	return p.values[n]
}

// View is the view of a directive: one of *view.Experiment, *view.TableView,
// *view.Plot, *view.Claim, *view.When or *view.Error; nil when it was not
// evaluated.
func (p *Page) View(n *ast.Directive) view.View {
	if p == nil {
		return nil
	}
	return p.views[n]
}

// HTML renders the chapter body of d as an HTML fragment, each value and
// directive from its view on p. A nil p (or a node p has no view of) shows
// the source: nothing silently disappears.
func HTML(d *Doc, p *Page) ([]byte, error) {
	h := pageHTMLs.Get().(*pageHTML)
	h.page = p
	defer func() {
		h.page, h.buf = nil, h.buf[:0]
		pageHTMLs.Put(h)
	}()
	// Rendered into the instance's buffer, kept from page to page, and
	// copied out at its size: no doubling up from nothing for each page.
	b := bytes.NewBuffer(h.buf)
	if err := h.md.Renderer().Render(b, d.body, d.root); err != nil {
		return nil, err
	}
	h.buf = b.Bytes()
	return bytes.Clone(h.buf), nil
}

// pageHTML is the goldmark instance that renders one page: Markdown's,
// with the measured book's node renderers reading the page's views.
type pageHTML struct {
	page *Page
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
func newPageHTML(p *Page) *pageHTML {
	h := &pageHTML{page: p}
	h.md = goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extender{h}, Site),
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

// plain is a fragment's text without markup, for reports and warnings: the
// text a reader sees (escapes and entities resolved, code as written,
// images left out), values as their text on the page.
func (p *Page) plain(f *view.Fragment) string {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	_ = gast.Walk(f.Root, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			// A block of text ends its line; blank lines between blocks
			// are the HTML's, not the text's.
			if n.Type() == gast.TypeBlock && (n.FirstChild() == nil || n.FirstChild().Type() == gast.TypeInline) {
				w.WriteByte('\n')
			}
			return gast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *gast.Text:
			ghtml.DefaultWriter.Write(w, n.Segment.Value(f.Source))
			if n.SoftLineBreak() || n.HardLineBreak() {
				w.WriteByte('\n')
			}
		case *gast.String:
			ghtml.DefaultWriter.Write(w, n.Value)
		case *gast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*gast.Text); ok {
					ghtml.DefaultWriter.RawWrite(w, t.Segment.Value(f.Source))
				}
			}
			return gast.WalkSkipChildren, nil
		case *ast.Value:
			if out := p.Value(n); out != nil {
				w.WriteString(html.EscapeString(out.Text))
			} else {
				w.WriteString(html.EscapeString(string(n.Raw)))
			}
			return gast.WalkSkipChildren, nil
		case *gast.AutoLink:
			w.WriteString(html.EscapeString(string(n.Label(f.Source))))
		case *gast.Image, *gast.RawHTML:
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	w.Flush()
	return strings.TrimSpace(html.UnescapeString(b.String()))
}
