package render

// The goldmark extension, in goldmark's own order: the node kinds (package
// render/ast), the parsers (a transformer that turns directive code blocks
// into Directive nodes, an inline parser for {{ EXPR }}), the renderer and
// the Extender. It is pure syntax: it knows nothing of probes or results, so
// Markdown().Convert on a chapter shows each directive's YAML and each
// value's expression; Parse and Evaluate give them meaning.

import (
	"bytes"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"measuredbook/render/ast"
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

// directiveTransformer replaces every fenced code block whose info
// string's first word names a directive by an ast.Directive holding the
// same lines.
type directiveTransformer struct{}

func (directiveTransformer) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	var blocks []*gast.FencedCodeBlock
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		if fb, ok := n.(*gast.FencedCodeBlock); ok {
			if ast.IsDirective(string(fb.Language(source))) {
				blocks = append(blocks, fb)
			}
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	for _, fb := range blocks {
		info := fb.Info.Segment
		name, arg, _ := strings.Cut(strings.TrimSpace(string(info.Value(source))), " ")
		d := ast.NewDirective(name, strings.TrimSpace(arg))
		d.Info = info.Start
		d.SetLines(fb.Lines())
		d.SetPos(fb.Pos())
		d.SetBlankPreviousLines(fb.HasBlankPreviousLines())
		fb.Parent().ReplaceChild(fb.Parent(), fb, d)
	}
}

// valueParser parses {{ EXPR }}. It is triggered by '{' and declines
// unless a second '{' follows, so a single brace is text. goldmark's
// inline loop never triggers a parser on an escaped character, so \{{ is a
// literal "{{" (the backslash escape makes the first brace text, and the
// second brace is not followed by another). Code spans, autolinks and raw
// HTML are consumed by their own parsers before a '{' inside them is seen.
//
// The closing }} is searched outside double-quoted strings, across the
// lines of the paragraph, so a long expression may wrap. Inside a GFM
// table cell the format bar must be written \| (GFM splits cells at every
// unescaped pipe); the parser turns every \| into | and keeps a map from
// the expression's bytes back to the source for error positions. A string
// in a cell needs \| for a pipe too; expr strings know no such escape, so
// \| is always the cell's pipe.
type valueParser struct{}

func (valueParser) Trigger() []byte { return []byte{'{'} }

func (valueParser) Parse(parent gast.Node, block text.Reader, pc parser.Context) gast.Node {
	line, seg := block.PeekLine()
	if len(line) < 2 || line[0] != '{' || line[1] != '{' {
		return nil
	}
	source := block.Source()
	start := seg.Start
	l, pos := block.Position()
	var expr []byte
	var offs []int
	inString, escaped := false, false
	skip := 2 // the opening braces
	for {
		line, seg = block.PeekLine()
		if line == nil {
			break
		}
		// A line's padding is spaces standing for part of a tab: they are
		// in line but not in the source.
		at := func(i int) int { return seg.Start + max(i-seg.Padding, 0) }
		for i := skip; i < len(line); i++ {
			c := line[i]
			if c == '\\' && i+1 < len(line) && line[i+1] == '|' && !escaped {
				continue // drop the backslash of \|, in a string too
			}
			if inString {
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
				}
			} else if c == '"' {
				inString = true
			} else if c == '}' && i+1 < len(line) && line[i+1] == '}' {
				offs = append(offs, at(i))
				block.Advance(i + 2)
				n := &ast.Value{Expr: string(expr), Map: offs, Raw: source[start : at(i)+2]}
				n.SetPos(start)
				return n
			}
			expr = append(expr, c)
			offs = append(offs, at(i))
		}
		skip = 0
		block.AdvanceLine()
	}
	// No }}: rewind to just after the opening braces and report them;
	// the rest of the paragraph is parsed as usual.
	block.SetPosition(l, pos)
	block.Advance(2)
	n := &ast.Value{Unclosed: true, Raw: source[start : start+2], Map: []int{start}}
	n.SetPos(start)
	return n
}

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
		out = &view.Out{Class: "mb-unevaluated", Text: string(n.Raw)}
	}
	writeSpan(w, out)
	return gast.WalkSkipChildren, nil
}

func writeSpan(w util.BufWriter, out *view.Out) {
	w.WriteString(`<span class="`)
	w.WriteString(html.EscapeString(out.Class))
	w.WriteString(`"`)
	if out.Title != "" && !titleInData(out) {
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

// extender adds the measured book's directives and inline values to a
// goldmark instance, rendered from h's page.
type extender struct{ h *pageHTML }

// Extension is the goldmark Extender of the measured book: directives and
// inline values, rendered unevaluated (their source). It is exported for
// tools that build their own goldmark instance.
var Extension goldmark.Extender = extender{&pageHTML{}}

func (x extender) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithInlineParsers(util.Prioritized(valueParser{}, 500)),
		parser.WithASTTransformers(util.Prioritized(directiveTransformer{}, 500)),
	)
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(htmlRenderer{x.h}, 500)))
}
