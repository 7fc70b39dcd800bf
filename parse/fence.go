package parse

import (
	"bytes"

	gast "github.com/yuin/goldmark/ast"

	"measuredbook/expr"
	"measuredbook/parse/ast"
)

// KindMisspelt: a code block whose info string is one edit away from a
// directive's name (```tabel): shown as code, most likely meant as the
// directive.
const KindMisspelt = "misspelt directive"

// KindUnclosed: a code block whose fence is never closed.
const KindUnclosed = "unclosed code block"

// checkFence reports a fenced block that is never closed, at its fence:
// goldmark makes the rest of the container (most often the chapter) its
// body, and a directive's YAML error would point somewhere below. For a
// directive it is an error (ok is false); a code block is a warning of
// kind KindUnclosed, since CommonMark allows it.
//
// goldmark runs an unclosed block to the end of its container (the
// chapter, a list item, a quote), so the line after its last line is not
// a closing fence: the opening fence's character, at least as many times,
// and nothing else (after the container's indentation or quote marks).
func checkFence(n gast.Node, body []byte, base Offmap, e *Errs, kind string) (ok bool) {
	at := len(body) - len(bytes.TrimLeft(body[n.Pos():], " \t>"))
	k := 0
	for at+k < len(body) && body[at+k] == body[at] {
		k++
	}
	fence := string(body[at : at+k])
	from := at
	if l := n.Lines(); l.Len() > 0 {
		from = l.At(l.Len() - 1).Start
	}
	open := true // when the chapter ends in the block
	if eol := bytes.IndexByte(body[from:], '\n'); eol >= 0 {
		next, _, _ := bytes.Cut(body[from+eol+1:], []byte("\n"))
		next = bytes.TrimLeft(next, " \t>")
		open = !(bytes.HasPrefix(next, []byte(fence)) && len(bytes.Trim(next, fence[:1]+" \t\r")) == 0)
	}
	if open {
		line := e.f.pos(base(n.Pos())).Line
		e.KindAt(kind, base(n.Pos()), "%s opened at line %d is never closed: end the block with a line %s (without one, the block runs to the end of the chapter, or of its list item or quote)", fence, line, fence)
	}
	return !open
}

// misspelt warns about a code block whose language is one edit away from
// a directive's name: ```tabel is shown as code, not as a table.
func misspelt(fb *gast.FencedCodeBlock, body []byte, base Offmap, w *Errs) {
	lang := string(fb.Language(body))
	if lang == "" || fb.Info == nil {
		return
	}
	for _, name := range ast.DirectiveNames {
		if expr.Distance(lang, name) == 1 {
			w.KindAt(KindMisspelt, base(fb.Info.Segment.Start), "code block ```%s is shown as code: did you mean the directive ```%s?", lang, name)
			return
		}
	}
}
