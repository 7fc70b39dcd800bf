package parse

// The goldmark syntax of the measured book, in goldmark's own order: the
// node kinds (package parse/ast), the parsers (a transformer that turns
// directive code blocks into Directive nodes, an inline parser for
// {{ EXPR }}, heading ids) and the Extender that adds them.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"measuredbook/parse/ast"
)

// syntax adds the measured book's parsers to a goldmark instance:
// directives, inline values, callouts, heading ids (an explicit {#sec-NAME}
// kept), cross-references, citations and labelled images. A renderer adds
// its own node renderers beside it.
type syntax struct{}

func (syntax) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		// A citation is tried before goldmark's link (200) at the same '['.
		parser.WithInlineParsers(util.Prioritized(valueParser{}, 500), util.Prioritized(refParser{}, 500), util.Prioritized(citeParser{}, 199)),
		parser.WithASTTransformers(util.Prioritized(directiveTransformer{}, 500), util.Prioritized(figureTransformer{}, 500), util.Prioritized(tableCaptionTransformer{}, 500), util.Prioritized(calloutTransformer{}, 550), util.Prioritized(HeadingIDs, 600)),
		parser.WithHeadingAttribute(),
	)
}

// docParser is the book's parser, shared by every Doc: goldmark's parsers
// keep their state in the parse's context, so one serves every chapter,
// in parallel, and is made once instead of once per chapter. GFM's tables,
// strikethrough and task lists are in, with footnotes and definition
// lists; GFM's autolinks are not (see package render's Markdown).
var docParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(Extensions(extension.Footnote)...)).Parser()
})

// Extensions are the goldmark extensions the book is parsed and rendered
// with, in one list for both: footnote is the footnote extension, whose
// options only its renderer reads.
func Extensions(footnote goldmark.Extender) []goldmark.Extender {
	return []goldmark.Extender{extension.Table, extension.Strikethrough, extension.TaskList, extension.DefinitionList, footnote, syntax{}}
}

// directiveTransformer replaces every fenced code block whose info
// string's first word names a directive by an ast.Directive holding the
// same lines.
type directiveTransformer struct{}

func (directiveTransformer) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	var blocks []*gast.FencedCodeBlock
	for n := range nodes(doc) {
		fb, ok := n.(*gast.FencedCodeBlock)
		if ok && slices.Contains(ast.DirectiveNames, string(fb.Language(source))) {
			blocks = append(blocks, fb)
		}
	}
	for _, fb := range blocks {
		info := fb.Info.Segment
		name, arg, _ := strings.Cut(strings.TrimSpace(string(info.Value(source))), " ")
		d := &ast.Directive{Name: name, Arg: strings.TrimSpace(arg), Info: info.Start}
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

// headingIDs gives every heading an id a reader can link to, made from its
// text so it reads in the address bar in any script: letters and digits
// (Hangul included) kept, lower-cased, runs of anything else one "-";
// "1장. 1만 개의 연결" is "1장-1만-개의-연결". A repeated id gets "-2",
// "-3"; a heading with no letter or digit is "section".
type headingIDs struct{}

// HeadingIDs is the transformer that gives headings their ids.
var HeadingIDs parser.ASTTransformer = headingIDs{}

func (headingIDs) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	seen := map[string]int{}
	for n := range nodes(doc) {
		h, ok := n.(*gast.Heading)
		if !ok {
			continue
		}
		if id, ok := h.AttributeString("id"); ok {
			seen[string(id.([]byte))]++
			continue
		}
		id := HeadingID(headingText(h, source))
		seen[id]++
		if k := seen[id]; k > 1 {
			id += "-" + strconv.Itoa(k)
		}
		h.SetAttributeString("id", []byte(id))
	}
}

// HeadingID is the id of a heading whose text is s (before de-duplication).
func HeadingID(s string) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	return cmp.Or(strings.Join(words, "-"), "section")
}

// headingText is n's text as a reader sees it, values as their source.
func headingText(n gast.Node, source []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *gast.Text:
			b.Write(c.Segment.Value(source))
		case *gast.String:
			b.Write(c.Value)
		default:
			b.WriteString(headingText(c, source))
		}
	}
	return b.String()
}
