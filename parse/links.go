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

// links collects what the links check of a book needs of d: its links
// and images in document order, and the anchors its page has (each
// heading's id, experiment-ID for each experiment, each figure's and
// table's label).
func (d *Doc) links(base Offmap) {
	_ = gast.Walk(d.root, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *gast.Heading:
			if id, ok := n.AttributeString("id"); ok {
				if b, ok := id.([]byte); ok {
					d.Anchors = append(d.Anchors, string(b))
				}
			}
		case *gast.Link:
			d.Links = append(d.Links, Link{Dest: string(n.Destination), At: d.f.pos(base(urlOff(n, n.Destination, d.body)))})
		case *gast.Image:
			d.Links = append(d.Links, Link{Dest: string(n.Destination), Image: true, At: d.f.pos(base(urlOff(n, n.Destination, d.body)))})
		}
		return gast.WalkContinue, nil
	})
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
