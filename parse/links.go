package parse

import (
	"bytes"
	"fmt"

	gast "github.com/yuin/goldmark/ast"
)

// KindLink: a link, an image or an anchor that leads nowhere: a file the
// chapters folder lacks, a page or a heading the book does not have. A
// strict build fails on it.
const KindLink = "broken link"

// Link is a link or an image of a chapter, as written, and where.
type Link struct {
	Dest  string
	Image bool
	At    Pos
}

// LinkWarning is a warning of kind KindLink at a link.
func LinkWarning(at Pos, format string, args ...any) error {
	return &PosError{Pos: at, Msg: fmt.Sprintf(format, args...), kind: KindLink}
}

// link records a link or an image of the body (Links) and rejects {{ }}
// in its URL or title: it would be left there literally (a URL is not
// prose, so no value is evaluated in it). The error points at the URL,
// found after the start of the paragraph holding the link (or anywhere,
// for a reference).
func (d *Doc) link(n gast.Node, dest, title []byte, base Offmap, e *Errs) {
	_, image := n.(*gast.Image)
	d.Links = append(d.Links, Link{Dest: string(dest), Image: image, At: d.f.pos(base(urlOff(n, dest, d.body)))})
	what := "a link's"
	if image {
		what = "an image's"
	}
	for _, part := range [][]byte{dest, title} {
		if bytes.Contains(part, []byte("{{")) {
			e.At(base(urlOff(n, part, d.body)), "{{ }} in %s URL or title is not evaluated; a URL must be written out", what)
		}
	}
}

// anchors completes the anchors d's page has (Parse adds each heading's
// id), as the links check of a book needs them: experiment-ID for each
// experiment, the list of sources, each figure's and table's label.
func (d *Doc) anchors() {
	for _, x := range d.Experiments {
		d.Anchors = append(d.Anchors, "experiment-"+x.ID)
	}
	if len(d.Xref.Cites) > 0 {
		d.Anchors = append(d.Anchors, ReferencesID)
	}
	for _, l := range d.Xref.Labels {
		if l.Kind() != SecLabel { // a heading's id is in already
			d.Anchors = append(d.Anchors, l.Name)
		}
	}
}

// urlOff finds where part of a link's or an image's URL or title is
// written: after the start of the paragraph holding it, or anywhere (a
// reference definition).
func urlOff(n gast.Node, part, body []byte) int {
	from := blockStart(n)
	at := bytes.Index(body[from:], part)
	if at < 0 {
		return max(bytes.Index(body, part), 0)
	}
	return from + at
}
