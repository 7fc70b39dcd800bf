package render

// The renderers of the measured book's nodes (package parse/ast), each a
// function of its node and its view on the page. With no page, each
// directive shows its YAML and each value its expression.

import (
	"bytes"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"

	"measuredbook/parse/ast"
	"measuredbook/view"
)

// Markdown returns the goldmark instance the book parses with, rendering
// with no page (each directive and value shows its source): CommonMark
// with raw HTML passed through (the chapters are ours), GFM tables,
// strikethrough and task lists, and the measured book's directives and
// inline values, configured in one place (newPageHTML).
//
// GFM's autolink extension (Linkify) is left out on purpose: it changes
// the output of five CommonMark spec examples (bare URLs become links, and
// a line ending in spaces before a break keeps them), and the book promises
// that standard Markdown renders exactly as plain goldmark renders it. The
// other GFM extensions leave every spec example untouched (see
// TestCommonMarkSpec).
func Markdown() goldmark.Markdown { return newPageHTML(nil).md }

// htmlRenderer renders Directive and Value nodes from their views on a
// page (none: each shows its source).
type htmlRenderer struct{ h *pageHTML }

func (r htmlRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindDirective, r.renderDirective)
	reg.Register(ast.KindValue, r.renderValue)
	reg.Register(gast.KindImage, r.renderImage)
}

// defaultImage is goldmark's own image renderer (with the options of
// Markdown), used for every image whose alt text holds no value.
var defaultImage = func() renderer.NodeRendererFunc {
	var c captureImage
	ghtml.NewRenderer(ghtml.WithUnsafe()).RegisterFuncs(&c)
	return c.f
}()

type captureImage struct{ f renderer.NodeRendererFunc }

func (c *captureImage) Register(k gast.NodeKind, f renderer.NodeRendererFunc) {
	if k == gast.KindImage {
		c.f = f
	}
}

// renderImage renders an image as goldmark does, except that a value in
// its alt text shows its text (goldmark's alt keeps only plain text, so
// the value would vanish).
func (r htmlRenderer) renderImage(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	n := node.(*gast.Image)
	if !entering || !hasValue(n) {
		return defaultImage(w, source, node, entering)
	}
	w.WriteString(`<img src="`)
	w.Write(util.EscapeHTML(util.URLEscape(n.Destination, true)))
	w.WriteString(`" alt="`)
	var alt strings.Builder
	r.altText(&alt, source, n)
	w.WriteString(html.EscapeString(alt.String()))
	w.WriteString(`"`)
	if n.Title != nil {
		w.WriteString(` title="`)
		ghtml.DefaultWriter.Write(w, n.Title)
		w.WriteString(`"`)
	}
	if n.Attributes() != nil {
		ghtml.RenderAttributes(w, n, ghtml.ImageAttributeFilter)
	}
	w.WriteString(">")
	return gast.WalkSkipChildren, nil
}

func hasValue(n gast.Node) bool {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if _, ok := c.(*ast.Value); ok || hasValue(c) {
			return true
		}
	}
	return false
}

// altText is the plain text of an image's description, values as their
// text.
func (r htmlRenderer) altText(b *strings.Builder, source []byte, n gast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *gast.Text:
			b.Write(c.Segment.Value(source))
			if c.SoftLineBreak() {
				b.WriteByte('\n')
			}
		case *gast.String:
			b.Write(c.Value)
		case *ast.Value:
			if out := r.h.page.Value(c); out != nil {
				b.WriteString(out.Text)
			} else {
				b.Write(c.Raw)
			}
		default:
			r.altText(b, source, c)
		}
	}
}

func (r htmlRenderer) renderValue(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	n := node.(*ast.Value)
	out := r.h.page.Value(n)
	if out == nil {
		// Not evaluated (plain Markdown().Convert, or an error): show the
		// source so nothing silently disappears.
		out = &view.Out{State: view.Unevaluated, Text: string(n.Raw)}
	}
	writeSpan(w, out)
	return gast.WalkSkipChildren, nil
}

func writeSpan(w util.BufWriter, out *view.Out) {
	w.WriteString(`<span class="`)
	w.WriteString(outClass(out))
	w.WriteString(`"`)
	if out.Title != "" && !out.TitleInData {
		w.WriteString(` title="`)
		w.WriteString(html.EscapeString(out.Title))
		w.WriteString(`"`)
	}
	writeData(w, out)
	w.WriteString(">")
	w.WriteString(html.EscapeString(out.Text))
	w.WriteString("</span>")
}

func (r htmlRenderer) renderDirective(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	n := node.(*ast.Directive)
	var b bytes.Buffer
	switch v := r.h.page.View(n).(type) {
	case *view.Experiment:
		writeExperiment(&b, v)
	case *view.TableView:
		writeTableView(&b, v)
	case *view.Plot:
		if err := writePlot(&b, v); err != nil {
			return gast.WalkStop, err
		}
	case *view.Claim:
		writeClaim(&b, v, r.h.fragment(v.Text))
	case *view.When:
		if v.Body == nil {
			b.WriteString(`<p class="mb-missing">` + esc(v.Missing) + "</p>\n")
		} else {
			b.Write(r.h.fragment(v.Body))
		}
	case *view.Error:
		b.WriteString(`<div class="mb-error">`)
		b.WriteString(html.EscapeString(v.Msg))
		b.WriteString("</div>\n")
	default:
		// Unevaluated: the YAML, as the code block it is in the source.
		b.WriteString(`<pre class="mb-directive" data-directive="`)
		b.WriteString(html.EscapeString(n.Name))
		b.WriteString(`"><code>`)
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			b.WriteString(html.EscapeString(string(seg.Value(source))))
		}
		b.WriteString("</code></pre>\n")
	}
	w.Write(b.Bytes())
	return gast.WalkSkipChildren, nil
}

// extender adds the renderers of the measured book's nodes to a goldmark
// instance, each from h's page, and colours code blocks at build time with
// classes, not inline styles, so the site's light and dark themes both
// apply.
type extender struct{ h *pageHTML }

func (x extender) Extend(m goldmark.Markdown) {
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(htmlRenderer{x.h}, 500)))
	extendCodeBlocks(m)
}
