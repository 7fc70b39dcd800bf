package evaluate

import (
	"bufio"
	"bytes"
	"html"
	"strings"

	gast "github.com/yuin/goldmark/ast"
	ghtml "github.com/yuin/goldmark/renderer/html"

	"measuredbook/parse/ast"
	"measuredbook/view"
)

// Page is one evaluation of a Doc against one set of results: the view of
// every inline value and directive (Views), the claims with their
// verdicts in document order, and the warnings. The Doc is left as Parse
// made it; render.HTMLWith(doc, page.Views, nil) renders the two.
type Page struct {
	Views    *view.Page
	Claims   []Claim
	Warnings []error
	// Sets are the result sets other than the build's own that the page
	// draws on (on(), ref(), machines:, a plot's ref:), found or not,
	// sorted: the other machines it shows, or shows a gap for.
	Sets []string
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
			if out := p.Views.Value(n); out != nil {
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
