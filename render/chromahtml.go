package render

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/yuin/goldmark/util"
)

// classFormatter writes tokens as chroma's HTML formatter with classes
// and no other option (codeBlocks.formatter) does, byte for byte
// (TestClassFormatter, FuzzClassFormatter): each line a span of class
// "line" around one of class "cl", each token escaped and, where chroma
// has a class for its type, in a span of that class. chroma's formatter
// spends most of its time in a fmt.Sprintf per token; this writes the
// bytes straight to the page.
type classFormatter struct {
	start, end string // around the lines: <pre …><code> and </code></pre>
	line, code string // a line's two opening spans
}

// newClassFormatter takes what surrounds the lines from f's own output
// for no tokens, so that a chroma upgrade that changes it is followed
// (and one that changes more fails the tests); nil if that output is not
// as expected.
func newClassFormatter(f *chromahtml.Formatter, style *chroma.Style) *classFormatter {
	var b strings.Builder
	if err := f.Format(&b, style, chroma.Literator()); err != nil {
		return nil
	}
	out := b.String()
	i := strings.Index(out, "</code>")
	if i < 0 {
		return nil
	}
	span := func(t chroma.TokenType) string {
		if cls := tokenClass(t); cls != "" {
			return `<span class="` + cls + `">`
		}
		return "<span>"
	}
	return &classFormatter{start: out[:i], end: out[i:], line: span(chroma.Line), code: span(chroma.CodeLine)}
}

// tokenClass is the class chroma's formatter gives a token type: that of
// the type or its nearest parent in chroma.StandardTypes, "" for none.
func tokenClass(t chroma.TokenType) string {
	for t != 0 {
		if cls, ok := chroma.StandardTypes[t]; ok {
			return cls
		}
		t = t.Parent()
	}
	return chroma.StandardTypes[t]
}

func (f *classFormatter) format(w util.BufWriter, tokens []chroma.Token) {
	w.WriteString(f.start)
	for _, line := range chroma.SplitTokensIntoLines(tokens) {
		w.WriteString(f.line)
		w.WriteString(f.code)
		for _, t := range line {
			cls := tokenClass(t.Type)
			if cls != "" {
				w.WriteString(`<span class="`)
				w.WriteString(cls)
				w.WriteString(`">`)
			}
			writeEscaped(w, t.Value)
			if cls != "" {
				w.WriteString("</span>")
			}
		}
		w.WriteString("</span></span>")
	}
	w.WriteString(f.end)
}

// writeEscaped writes s escaped as html.EscapeString escapes it.
func writeEscaped(w util.BufWriter, s string) {
	for {
		i := strings.IndexAny(s, `&'<>"`)
		if i < 0 {
			w.WriteString(s)
			return
		}
		w.WriteString(s[:i])
		switch s[i] {
		case '&':
			w.WriteString("&amp;")
		case '\'':
			w.WriteString("&#39;")
		case '<':
			w.WriteString("&lt;")
		case '>':
			w.WriteString("&gt;")
		case '"':
			w.WriteString("&#34;")
		}
		s = s[i+1:]
	}
}
