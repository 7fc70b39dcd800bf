package parse

import (
	"bytes"

	gast "github.com/yuin/goldmark/ast"
)

// unsafeSchemes are the URL schemes that run code when a link is followed.
var unsafeSchemes = [][]byte{[]byte("javascript:"), []byte("vbscript:"), []byte("data:")}

// CheckSafe reports, at its place, everything of the chapter that reaches
// the page as markup the author wrote rather than Markdown: raw HTML
// (blocks and inline tags, which may hold scripts) and links whose URL
// runs code (javascript:, vbscript:, data:). A book that takes chapters it
// does not trust builds with --safe (or book.yaml's safe: true), which
// calls this; otherwise a chapter is trusted as the site's own code.
func (d *Doc) CheckSafe() error {
	e := d.Errs()
	bodyOff := len(d.f.src) - len(d.body)
	for n := range nodes(d.root) {
		switch n := n.(type) {
		case *gast.HTMLBlock:
			if n.Lines().Len() > 0 {
				e.At(bodyOff+n.Lines().At(0).Start, "raw HTML is refused in safe mode (--safe, or safe: true in book.yaml): write it in Markdown")
			}
		case *gast.RawHTML:
			if n.Segments.Len() > 0 {
				e.At(bodyOff+n.Segments.At(0).Start, "raw HTML is refused in safe mode (--safe, or safe: true in book.yaml): write it in Markdown")
			}
		case *gast.Link:
			d.checkScheme(n, n.Destination, bodyOff, e)
		case *gast.Image:
			d.checkScheme(n, n.Destination, bodyOff, e)
		case *gast.AutoLink:
			d.checkScheme(n, n.URL(d.body), bodyOff, e)
		}
	}
	return e.Err()
}

// checkScheme refuses a URL that runs code, at the URL in the source (or
// its block's start, should the source spell it otherwise).
func (d *Doc) checkScheme(n gast.Node, dest []byte, bodyOff int, e *Errs) {
	url := bytes.ToLower(bytes.TrimSpace(dest))
	for _, s := range unsafeSchemes {
		if !bytes.HasPrefix(url, s) {
			continue
		}
		from := blockStart(n)
		if at := bytes.Index(d.body[from:], dest); at >= 0 {
			from += at
		}
		e.At(bodyOff+from, "a %s URL runs code when followed; it is refused in safe mode (--safe, or safe: true in book.yaml)", s[:len(s)-1])
		return
	}
}
