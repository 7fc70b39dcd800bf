package parse

import (
	"regexp"
	"slices"
	"strings"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"measuredbook/expr"
	"measuredbook/parse/ast"
)

// KindCallout: a quote that starts [!KIND] with a kind no callout has
// (> [!NOTES]): shown as the quote it is.
const KindCallout = "unknown callout"

// calloutLine is a callout's first line: [!KIND] alone.
var calloutLine = regexp.MustCompile(`^\[!([A-Za-z]+)\][ \t]*\r?\n?$`)

// calloutMark is the kind a quote's first line names, as written ("" when
// the quote does not start with such a line), the kind of callout that is
// ("" if none) and the offset of its [ in source.
func calloutMark(q *gast.Blockquote, source []byte) (mark, kind string, off int) {
	p, isPara := q.FirstChild().(*gast.Paragraph)
	if !isPara || p.Lines().Len() == 0 {
		return "", "", 0
	}
	first := p.Lines().At(0)
	m := calloutLine.FindSubmatch(first.Value(source))
	if m == nil {
		return "", "", 0
	}
	if kind = strings.ToUpper(string(m[1])); !slices.Contains(ast.CalloutKinds, kind) {
		kind = ""
	}
	return string(m[1]), kind, first.Start
}

// calloutTransformer replaces each quote whose first line names a kind of
// callout by a Callout holding the rest of the quote.
type calloutTransformer struct{}

func (calloutTransformer) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	var quotes []*gast.Blockquote
	for n := range nodes(doc) {
		if q, ok := n.(*gast.Blockquote); ok {
			if _, kind, _ := calloutMark(q, source); kind != "" {
				quotes = append(quotes, q)
			}
		}
	}
	for _, q := range quotes {
		_, kind, _ := calloutMark(q, source)
		c := &ast.Callout{Name: kind}
		c.SetBlankPreviousLines(q.HasBlankPreviousLines())
		p := q.FirstChild().(*gast.Paragraph)
		dropFirstLine(p)
		if p.ChildCount() == 0 {
			q.RemoveChild(q, p)
		}
		for q.FirstChild() != nil {
			c.AppendChild(c, q.FirstChild())
		}
		q.Parent().ReplaceChild(q.Parent(), q, c)
	}
}

// dropFirstLine removes a paragraph's first line: its inline nodes (the
// text of [!KIND]) and its segment.
func dropFirstLine(p *gast.Paragraph) {
	end := p.Lines().At(0).Stop
	for c := p.FirstChild(); c != nil; {
		next := c.NextSibling()
		t, ok := c.(*gast.Text)
		if !ok || t.Segment.Start >= end {
			break
		}
		p.RemoveChild(p, c)
		c = next
	}
	p.Lines().SetSliced(1, p.Lines().Len())
}

// unknownCallout warns about a quote whose first line is [!KIND] of a kind
// no callout has.
func unknownCallout(q *gast.Blockquote, body []byte, base Offmap, w *Errs) {
	mark, kind, off := calloutMark(q, body)
	if mark == "" || kind != "" {
		return
	}
	kinds := "[!" + strings.Join(ast.CalloutKinds, "], [!") + "]"
	msg := "unknown callout [!%s]: shown as a quote; a callout is one of %s"
	if near := expr.Closest(strings.ToUpper(mark), ast.CalloutKinds); near != "" {
		msg = "unknown callout [!%s]: shown as a quote; did you mean [!" + near + "]? (a callout is one of %s)"
	}
	w.KindAt(KindCallout, base(off), msg, mark, kinds)
}
