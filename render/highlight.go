package render

import (
	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	gast "github.com/yuin/goldmark/ast"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// codeFormatter writes chroma's classes, which the site's stylesheet
// colours in its light and dark themes; a style's colours would never
// reach the page, so an empty style serves. The formatter is safe for
// concurrent use, so the pages rendered in parallel share it.
var (
	codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithPreWrapper(focusablePre{}))
	codeStyle     = chroma.MustNewStyle("classes", chroma.StyleEntries{})
)

// focusablePre is chroma's <pre><code> with tabindex="0", so that a
// reader on a keyboard can scroll a block wider than the page.
type focusablePre struct{}

func (focusablePre) Start(code bool, styleAttr string) string {
	if code {
		return `<pre` + styleAttr + ` tabindex="0"><code>`
	}
	return `<pre` + styleAttr + ` tabindex="0">`
}

func (focusablePre) End(code bool) string {
	if code {
		return "</code></pre>"
	}
	return "</pre>"
}

// renderCode renders the fenced code blocks that are not directives
// (those are parse's nodes): coloured by chroma's lexer for the block's
// language, or as goldmark writes them when chroma knows none.
func renderCode(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkContinue, nil
	}
	n := node.(*gast.FencedCodeBlock)
	code := n.Lines().Value(source)
	language := n.Language(source)
	if language != nil {
		if lexer := lexers.Get(string(language)); lexer != nil {
			if tokens, err := chroma.Coalesce(lexer).Tokenise(nil, string(code)); err == nil {
				return gast.WalkContinue, codeFormatter.Format(w, codeStyle, tokens)
			}
		}
	}
	_, _ = w.WriteString("<pre><code")
	if language != nil {
		_, _ = w.WriteString(` class="language-`)
		ghtml.DefaultWriter.Write(w, language)
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
	ghtml.DefaultWriter.RawWrite(w, code)
	_, _ = w.WriteString("</code></pre>\n")
	return gast.WalkContinue, nil
}
