package render

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// codeBlocks colours fenced code as goldmark-highlighting
// (github.com/yuin/goldmark-highlighting/v2, MIT) does with classes and
// its default style, byte for byte, attributes in the info string
// ({hl_lines=[2,3]}, {linenos=table}, …) included: TestHighlightLikeExtension
// and FuzzHighlightLikeExtension hold the two side by side. The extension
// itself is not linked: it imports chroma's styles, whose init parses
// some 70 XML styles at every start of the binary, for one style
// (githubStyle). It also makes a formatter per block, which works out the
// style's classes again each time; a block without attributes here shares
// one formatter with every block of every page. Go is read by goTokens,
// which gives chroma's tokens without chroma's lexer (see tokenise). The
// formatter and style are safe for concurrent use, so the pages rendered
// in parallel share them.
type codeBlocks struct {
	options   []chromahtml.Option
	formatter *chromahtml.Formatter
	style     *chroma.Style
	classes   *classFormatter // formatter's output, faster; nil if it cannot promise it
}

var highlightOptions = []chromahtml.Option{chromahtml.WithClasses(true)}

var (
	sharedCodeBlocks = newCodeBlocks(highlightOptions...)
	// siteCodeBlocks' <pre> is focusable, as Hugo's is.
	siteCodeBlocks = newCodeBlocks(append(slices.Clip(highlightOptions), chromahtml.WithPreWrapper(focusablePre{}))...)
)

// extendCodeBlocks colours m's code blocks; on h's site pages (h may be
// nil) they are focusable.
func extendCodeBlocks(m goldmark.Markdown, h *pageHTML) {
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(codeRenderer{h}, 200)))
}

// codeRenderer colours code blocks, on a site page focusable (they may
// scroll sideways).
type codeRenderer struct{ h *pageHTML }

func (r codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(gast.KindFencedCodeBlock, func(w util.BufWriter, source []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
		if r.h != nil && r.h.site != nil {
			return siteCodeBlocks.render(w, source, n, entering)
		}
		return sharedCodeBlocks.render(w, source, n, entering)
	})
}

func newCodeBlocks(options ...chromahtml.Option) *codeBlocks {
	cb := &codeBlocks{options: options, formatter: chromahtml.New(options...), style: githubStyle}
	cb.classes = newClassFormatter(cb.formatter, cb.style)
	return cb
}

// focusablePre is chroma's pre-wrapper with tabindex="0" on the <pre> of
// the code, so a keyboard reaches a block that scrolls sideways.
type focusablePre struct{}

func (focusablePre) Start(code bool, styleAttr string) string {
	if code {
		return `<pre` + styleAttr + ` tabindex="0"><code>`
	}
	return `<pre` + styleAttr + `>`
}

func (focusablePre) End(code bool) string {
	if code {
		return `</code></pre>`
	}
	return `</pre>`
}

func (cb *codeBlocks) render(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	n := node.(*gast.FencedCodeBlock)
	if !entering {
		return gast.WalkContinue, nil
	}
	language := n.Language(source)
	attrs := blockAttributes(n, source)
	var options []chromahtml.Option
	nohl := false
	if attrs != nil {
		options, nohl = attributeOptions(attrs)
	}
	var lexer chroma.Lexer
	if language != nil {
		lexer = lexers.Get(string(language))
	}
	var code bytes.Buffer
	lines := n.Lines()
	for i := range lines.Len() {
		line := lines.At(i)
		code.Write(line.Value(source))
	}
	if !nohl && lexer != nil {
		if iterator, err := tokenise(lexer, code.String()); err == nil {
			switch {
			case attrs != nil:
				_ = chromahtml.New(append(slices.Clip(cb.options), options...)...).Format(w, cb.style, iterator)
			case cb.classes != nil:
				cb.classes.format(w, iterator.Tokens())
			default:
				_ = cb.formatter.Format(w, cb.style, iterator)
			}
			return gast.WalkContinue, nil
		}
	}
	// Not coloured: the extension writes the code as goldmark's own
	// renderer would, with its default writer.
	_, _ = w.WriteString("<pre><code")
	if language != nil {
		_, _ = w.WriteString(` class="language-`)
		ghtml.DefaultWriter.Write(w, language)
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
	ghtml.DefaultWriter.RawWrite(w, code.Bytes())
	_, _ = w.WriteString("</code></pre>\n")
	return gast.WalkContinue, nil
}

// blockAttributes returns what holds a block's attributes, as the
// extension finds them: the node's own, or those written in braces after
// the info string's first character ("go {linenos=true}"); nil if there
// are none or the braces do not parse. The holder is a node because the
// extension asks one (ast.Node.Attribute): of a name given twice in
// braces, the last value counts.
func blockAttributes(n *gast.FencedCodeBlock, source []byte) gast.Node {
	if n.Attributes() != nil {
		return n
	}
	if n.Info == nil {
		return nil
	}
	info := n.Info.Segment.Value(source)
	i := bytes.IndexByte(info, '{')
	if i <= 0 {
		return nil
	}
	attrs, ok := parser.ParseAttributes(text.NewReader(info[i:]))
	if !ok {
		return nil
	}
	holder := gast.NewTextBlock()
	for _, a := range attrs {
		holder.SetAttribute(a.Name, a.Value)
	}
	return holder
}

// attributeOptions turns a block's attributes into the formatter options
// the extension adds for them, in its order, and reports nohl (any
// value: the block is not coloured). The extension also reads hl_style,
// a style by name; with classes the style never reaches the HTML (the
// formatter writes class names, and CSS only through WriteCSS), so it
// is left out here, and with it chroma's registry of styles.
func attributeOptions(attrs gast.Node) (options []chromahtml.Option, nohl bool) {
	base := 1
	if v, ok := attrs.AttributeString("linenostart"); ok {
		if start, ok := v.(float64); ok {
			base = int(start)
			options = append(options, chromahtml.BaseLineNumber(base))
		}
	}
	if v, ok := attrs.AttributeString("hl_lines"); ok {
		if lines, ok := v.([]any); ok {
			options = append(options, chromahtml.HighlightLines(highlightRanges(lines, base)))
		}
	}
	if _, ok := attrs.AttributeString("nohl"); ok {
		nohl = true
	}
	if v, ok := attrs.AttributeString("linenos"); ok {
		switch v := v.(type) {
		case bool:
			options = append(options, chromahtml.WithLineNumbers(v))
		case []byte:
			// An empty string ("") parses to nil: no line numbers then.
			if v != nil {
				options = append(options, chromahtml.WithLineNumbers(true))
			}
			switch string(v) {
			case "table":
				options = append(options, chromahtml.LineNumbersInTable(true))
			case "inline":
				options = append(options, chromahtml.LineNumbersInTable(false))
			}
		}
	}
	return options, nohl
}

// highlightRanges reads hl_lines: numbers and "FROM-TO" strings, counted
// from 1 however the lines are numbered (linenostart=base); an entry
// that does not parse is skipped.
func highlightRanges(lines []any, base int) [][2]int {
	var ranges [][2]int
	for _, l := range lines {
		if line, ok := l.(float64); ok {
			ranges = append(ranges, [2]int{int(line) + base - 1, int(line) + base - 1})
		}
		if r, ok := l.([]byte); ok {
			ends := strings.Split(string(r), "-") // "1-2-3" reads as 1-2
			lhs, err := strconv.Atoi(ends[0])
			if err != nil {
				continue
			}
			rhs := lhs
			if len(ends) > 1 {
				if rhs, err = strconv.Atoi(ends[1]); err != nil {
					continue
				}
			}
			ranges = append(ranges, [2]int{lhs + base - 1, rhs + base - 1})
		}
	}
	return ranges
}

// tokenise is chroma.Coalesce(lexer).Tokenise, but Go is read by goTokens
// where it can promise chroma's tokens: chroma's Go lexer tries a list of
// backtracking regular expressions in turn at every token, which makes it
// the dearest part of a page with Go code (BenchmarkGoTokens compares the
// two).
func tokenise(lexer chroma.Lexer, code string) (chroma.Iterator, error) {
	if lexer == lexers.Go {
		if tokens, ok := goTokens(code); ok {
			return chroma.Literator(tokens...), nil
		}
	}
	return chroma.Coalesce(lexer).Tokenise(nil, code)
}
