package render

// The renderers of the measured book's nodes (package parse/ast), each a
// function of its node and its view on the page. With no page, each
// directive shows its YAML and each value its expression.

import (
	"bufio"
	"bytes"
	"cmp"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"measuredbook/parse"
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
func Markdown() goldmark.Markdown { return newPageHTML(view.Korean).md }

// htmlRenderer renders Directive and Value nodes from their views on a
// page (none: each shows its source).
type htmlRenderer struct{ h *pageHTML }

func (r htmlRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindDirective, r.renderDirective)
	reg.Register(ast.KindValue, r.renderValue)
	reg.Register(gast.KindImage, r.renderImage)
	reg.Register(gast.KindHeading, r.renderHeading)
	reg.Register(east.KindTable, r.renderTable)
	reg.Register(gast.KindText, r.renderText)
	reg.Register(ast.KindRef, r.renderRef)
	reg.Register(ast.KindCite, r.renderCite)
	reg.Register(ast.KindFigure, r.renderFigure)
	reg.Register(gast.KindDocument, r.renderDocument)
	reg.Register(ast.KindCallout, r.renderCallout)
	reg.Register(gast.KindFencedCodeBlock, renderCode)
}

// renderCallout renders a callout as a note titled with its kind, in the
// book's words, as GitHub does (its title a paragraph, not a heading, so
// it stays out of the page's contents).
func (r htmlRenderer) renderCallout(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	n := node.(*ast.Callout)
	if entering {
		w.WriteString(`<div class="mb-callout mb-callout-` + strings.ToLower(n.Name) + `" role="note">` + "\n")
		w.WriteString(`<p class="mb-callout-title">` + esc(r.h.page.Words().CalloutTitles[n.Name]) + "</p>\n")
	} else {
		w.WriteString("</div>\n")
	}
	return gast.WalkContinue, nil
}

// The renderers goldmark's own, with the options of Markdown, would use
// for images, headings and tables: the measured book's write what a site
// page adds around them.
var (
	defaultImage   = goldmarkFunc(ghtml.NewRenderer(ghtml.WithUnsafe()), gast.KindImage)
	defaultHeading = goldmarkFunc(ghtml.NewRenderer(ghtml.WithUnsafe()), gast.KindHeading)
	defaultTable   = goldmarkFunc(extension.NewTableHTMLRenderer(), east.KindTable)
	defaultText    = goldmarkFunc(ghtml.NewRenderer(ghtml.WithUnsafe()), gast.KindText)
)

// renderText renders text as goldmark does, except on a page built from a
// transcribed set (view.Page.Transcribed), where the prose's mark of a
// measured fact (view.MeasuredMark) says what its figures are
// (view.TranscribedMark): rendered from a copy of the text with the mark
// replaced, so escaping and line breaks stay goldmark's.
func (r htmlRenderer) renderText(w util.BufWriter, source []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
	t := n.(*gast.Text)
	value := t.Segment.Value(source)
	if !entering || r.h.page == nil || !r.h.page.Transcribed || t.IsRaw() || !bytes.Contains(value, []byte(r.h.page.Words().MeasuredMark)) {
		return defaultText(w, source, n, entering)
	}
	replaced := bytes.ReplaceAll(value, []byte(r.h.page.Words().MeasuredMark), []byte(r.h.page.Words().TranscribedMark))
	c := gast.NewTextSegment(text.NewSegment(0, len(replaced)))
	c.SetSoftLineBreak(t.SoftLineBreak())
	c.SetHardLineBreak(t.HardLineBreak())
	return defaultText(w, replaced, c, entering)
}

// goldmarkFunc is the function r renders nodes of kind k with.
func goldmarkFunc(r renderer.NodeRenderer, k gast.NodeKind) renderer.NodeRendererFunc {
	c := capture{kind: k}
	r.RegisterFuncs(&c)
	return c.f
}

type capture struct {
	kind gast.NodeKind
	f    renderer.NodeRendererFunc
}

func (c *capture) Register(k gast.NodeKind, f renderer.NodeRendererFunc) {
	if k == c.kind {
		c.f = f
	}
}

// renderHeading renders a heading as goldmark does; on a site page an
// h2–h4 ends with a link to itself and is recorded for the page's
// contents.
func (r htmlRenderer) renderHeading(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	n := node.(*gast.Heading)
	id, ok := n.AttributeString("id")
	switch {
	case r.h.site == nil || n.Level < 2 || n.Level > 4 || !ok:
	case entering:
		var text strings.Builder
		r.plainText(&text, source, n, false)
		r.h.headings = append(r.h.headings, view.Heading{Level: n.Level, ID: string(id.([]byte)), Text: strings.TrimSpace(text.String())})
	default:
		h := r.h.headings[len(r.h.headings)-1]
		w.WriteString(" " + HeadingLink(r.h.page.Words(), h.ID, h.Text))
	}
	return defaultHeading(w, source, node, entering)
}

// renderTable renders a table as goldmark does, on a site page in a
// scroll region.
func (r htmlRenderer) renderTable(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	c, _ := node.AttributeString(parse.TableCaption)
	caption, _ := c.(*ast.TableCaption)
	if !entering {
		if r.h.site == nil {
			return defaultTable(w, source, node, entering)
		}
		w.WriteString("</table></div>\n")
		return gast.WalkContinue, nil
	}
	var num number
	if caption != nil && caption.Label != "" {
		num = r.h.numberOf(caption.Label)
		node.SetAttributeString("id", []byte(caption.Label))
	}
	if r.h.site != nil {
		var text string
		if caption != nil {
			text = caption.Text
		}
		w.WriteString(RegionStart(num.tableLabel(r.h.page.Words(), text)))
	}
	status, err := defaultTable(w, source, node, entering)
	if caption != nil {
		w.WriteString("<caption>" + num.captionHTML(caption.Text) + "</caption>\n")
	}
	return status, err
}

// plainText is the text a reader reads in n, values as their text. alt
// is the text of an image's description as goldmark's alt has it, values
// added: text as written, without links' and references' text.
func (r htmlRenderer) plainText(b *strings.Builder, source []byte, n gast.Node, alt bool) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *gast.Text:
			value := c.Segment.Value(source)
			if !alt {
				// As goldmark writes it (escapes and entities resolved), unescaped.
				var t bytes.Buffer
				w := bufio.NewWriter(&t)
				ghtml.DefaultWriter.Write(w, value)
				w.Flush()
				value = []byte(html.UnescapeString(t.String()))
			}
			b.Write(value)
			if c.SoftLineBreak() {
				b.WriteByte('\n')
			}
		case *gast.String:
			b.Write(c.Value)
		case *gast.AutoLink:
			if !alt {
				b.Write(c.Label(source))
			}
		case *ast.Value:
			if out := r.h.page.Value(c); out != nil {
				b.WriteString(out.Text)
			} else {
				b.Write(c.Raw)
			}
		case *gast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*gast.Text); ok {
					b.Write(t.Segment.Value(source))
				}
			}
		case *ast.Ref:
			if !alt {
				text, _ := r.h.refText(c.Name)
				b.WriteString(cmp.Or(text, string(c.Raw)))
			}
		case *gast.RawHTML, *gast.Image:
			if alt {
				r.plainText(b, source, c, alt)
			}
		default:
			r.plainText(b, source, c, alt)
		}
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
	var alt strings.Builder
	r.plainText(&alt, source, n, true)
	w.WriteString(`" alt="` + esc(alt.String()) + `"`)
	if n.Title != nil {
		w.WriteString(` title="`)
		ghtml.DefaultWriter.Write(w, n.Title)
		w.WriteString(`"`)
	}
	ghtml.RenderAttributes(w, n, ghtml.ImageAttributeFilter)
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
	w.WriteString(`<span class="` + outClass(out) + `"`)
	if out.Title != "" && !out.TitleInData {
		w.WriteString(` title="` + esc(out.Title) + `"`)
	}
	writeData(w, r.h.site, out)
	w.WriteString(">" + esc(out.Text) + "</span>")
	return gast.WalkSkipChildren, nil
}

func (r htmlRenderer) renderDirective(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	n := node.(*ast.Directive)
	num := r.h.numberOf(r.h.labels[n])
	switch v := r.h.page.View(n).(type) {
	case *view.Experiment:
		writeExperiment(w, r.h.site, r.h.page.Words(), v, num)
	case *view.TableView:
		writeTableView(w, r.h.site, r.h.page.Words(), v, num)
	case *view.Plot:
		if err := writePlot(w, r.h.site, r.h.page.Words(), v, num); err != nil {
			return gast.WalkStop, err
		}
	case *view.Claim:
		writeClaim(w, r.h.page.Words(), v, r.h.fragment(v.Text))
	case *view.When:
		switch {
		case v.Body != nil:
			w.Write(r.h.fragment(v.Body))
		case v.Missing != "":
			w.WriteString(`<p class="mb-missing">` + esc(v.Missing) + "</p>\n")
		} // neither: the block was left out (unless:)
	case *view.Error:
		w.WriteString(`<div class="mb-error">` + esc(v.Msg) + "</div>\n")
	default:
		// Unevaluated: the YAML, as the code block it is in the source.
		w.WriteString(`<pre class="mb-directive" data-directive="` + esc(n.Name) + `"><code>`)
		w.WriteString(esc(string(n.Lines().Value(source))))
		w.WriteString("</code></pre>\n")
	}
	return gast.WalkSkipChildren, nil
}
