package render

import (
	"bytes"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// codeBlocks colours fenced code as goldmark-highlighting does with
// classes and its default style, byte for byte, but with one formatter
// and one style for every block of every page: a new formatter per block
// (what the extension does) works out the style's classes again each
// time. A block whose info string carries attributes ({hl_lines=…},
// {linenos}…), or whose language chroma does not know, is left to the
// extension. Go is read by goTokens, which gives chroma's tokens without
// chroma's lexer (see tokenise). The formatter and style are safe for
// concurrent use, so the pages rendered in parallel share them.
type codeBlocks struct {
	formatter *chromahtml.Formatter
	style     *chroma.Style
	fallback  renderer.NodeRendererFunc
}

var highlightOptions = []chromahtml.Option{chromahtml.WithClasses(true)}

var sharedCodeBlocks = newCodeBlocks()

func newCodeBlocks() *codeBlocks {
	ext := highlighting.NewHTMLRenderer(highlighting.WithFormatOptions(highlightOptions...))
	var reg funcs
	ext.RegisterFuncs(&reg)
	return &codeBlocks{
		formatter: chromahtml.New(highlightOptions...),
		style:     styles.Get(highlighting.NewConfig().Style),
		fallback:  reg[gast.KindFencedCodeBlock],
	}
}

func extendCodeBlocks(m goldmark.Markdown) {
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(sharedCodeBlocks, 200)))
}

// funcs keeps what a node renderer registers.
type funcs map[gast.NodeKind]renderer.NodeRendererFunc

func (f *funcs) Register(k gast.NodeKind, fn renderer.NodeRendererFunc) {
	if *f == nil {
		*f = funcs{}
	}
	(*f)[k] = fn
}

func (cb *codeBlocks) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(gast.KindFencedCodeBlock, cb.render)
}

func (cb *codeBlocks) render(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	n := node.(*gast.FencedCodeBlock)
	if !entering {
		return gast.WalkContinue, nil
	}
	language := n.Language(source)
	if language == nil || n.Attributes() != nil || (n.Info != nil && bytes.IndexByte(n.Info.Segment.Value(source), '{') > 0) {
		return cb.fallback(w, source, node, entering)
	}
	lexer := lexers.Get(string(language))
	if lexer == nil {
		return cb.fallback(w, source, node, entering)
	}
	var code bytes.Buffer
	lines := n.Lines()
	for i := range lines.Len() {
		line := lines.At(i)
		code.Write(line.Value(source))
	}
	iterator, err := tokenise(lexer, code.String())
	if err != nil {
		return cb.fallback(w, source, node, entering)
	}
	_ = cb.formatter.Format(w, cb.style, iterator)
	return gast.WalkContinue, nil
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
