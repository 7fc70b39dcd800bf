package epub

import (
	"bytes"
	"fmt"
	"html"
	"measuredbook/view"
	"net/url"
	"path"
	"slices"
	"strings"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// converter turns one page's HTML body into the XHTML of an EPUB content
// document: parsed as HTML5 parses it and written back as XML (void
// elements closed, entities as characters, SVG in its namespace), with
// what an EPUB cannot use taken out (scripts, the headings' links to
// themselves, links to the site's other pages and raw data) and what the
// site shows on hover written out (each figure's provenance as an
// endnote, a claim's explanation beside it).
type converter struct {
	words    view.EPUBWords
	chapters []Chapter         // the book's, which a link may lead to
	files    map[string][]byte // the site's files an image may show
	used     map[string]bool   // the files shown, filled in
	top      bool              // the document is beside nav.xhtml, not in chapters/

	svg      bool           // the document has inline SVG (a manifest property)
	headings []view.Heading // its h2–h4 with an id, in order
	notes    []string       // its endnotes' HTML, in order
	noteOf   map[string]int
}

var bodyContext = &xhtml.Node{Type: xhtml.ElementNode, Data: "body", DataAtom: atom.Body}

// convert returns body as XHTML.
func (x *converter) convert(body []byte) ([]byte, error) {
	nodes, err := xhtml.ParseFragment(bytes.NewReader(body), bodyContext)
	if err != nil {
		return nil, err
	}
	root := &xhtml.Node{Type: xhtml.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	x.children(root)
	var b bytes.Buffer
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		if err := xhtml.Render(&b, c); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

func (x *converter) children(n *xhtml.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		x.node(c)
		c = next
	}
}

// node converts n and what it holds.
func (x *converter) node(n *xhtml.Node) {
	if n.Type != xhtml.ElementNode {
		return
	}
	isHTML := n.Namespace == ""
	switch {
	case isHTML && (n.Data == "script" || n.Data == "noscript"),
		isHTML && n.Data == "a" && hasClass(n, "anchor"),
		isHTML && hasClass(n, "mb-data"):
		n.Parent.RemoveChild(n)
		return
	case n.Namespace == "svg" && n.Data == "svg" && n.Parent.Namespace != "svg":
		x.svg = true
		setAttr(n, "xmlns", "http://www.w3.org/2000/svg")
	}
	x.children(n)
	if !isHTML {
		return
	}
	switch n.Data {
	case "h2", "h3", "h4":
		if id, ok := getAttr(n, "id"); ok {
			x.headings = append(x.headings, view.Heading{Level: int(n.Data[1] - '0'), ID: id, Text: strings.TrimSpace(text(n))})
		}
	case "a":
		if h, ok := getAttr(n, "href"); ok {
			if to, ok := x.link(h); ok {
				setAttr(n, "href", to)
			} else {
				unwrap(n)
			}
		}
		n.Attr = slices.DeleteFunc(n.Attr, func(a xhtml.Attribute) bool { return a.Namespace == "" && a.Key == "download" })
	case "img":
		x.image(n)
	case "span":
		if hasClass(n, "mb-value") {
			x.valueNote(n)
		}
	case "div", "figcaption", "li":
		x.showTitle(n)
	}
}

// link is where href leads in the EPUB: a place in a chapter, or another
// site; false when it leads to what the EPUB does not hold (the site's
// other pages, raw data, a file).
func (x *converter) link(href string) (string, bool) {
	u, err := url.Parse(href)
	switch {
	case err != nil:
		return "", false
	case u.Scheme != "" || u.Host != "":
		return href, u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "mailto"
	case u.Path == "":
		return href, u.Fragment != ""
	}
	slug, ok := strings.CutSuffix(u.Path, ".html")
	// Links are few, chapters many: a search costs less than a set per chapter.
	if !ok || !slices.ContainsFunc(x.chapters, func(c Chapter) bool { return c.Slug == slug }) {
		return "", false
	}
	to := url.PathEscape(slug) + ".xhtml"
	if x.top {
		to = chapters + to
	}
	if u.Fragment != "" {
		to += "#" + escapeFragment(u.Fragment)
	}
	return to, true
}

// image keeps an image of the site's files (the EPUB holds it too), and
// puts its description in place of any other.
func (x *converter) image(n *xhtml.Node) {
	src, _ := getAttr(n, "src")
	u, err := url.Parse(src)
	if err == nil && u.Scheme == "" && u.Host == "" {
		p := path.Clean(u.Path)
		if _, ok := x.files[p]; ok && mediaType(p) != "" {
			x.used[p] = true
			if x.top {
				setAttr(n, "src", hrefOf(chapters+p))
			}
			return
		}
	}
	alt, _ := getAttr(n, "alt")
	n.Parent.InsertBefore(&xhtml.Node{Type: xhtml.TextNode, Data: alt}, n)
	n.Parent.RemoveChild(n)
}

// valueNote follows a live value with a reference to an endnote that
// says what the site's popover says: the median or text, its range,
// runs, machine and date, and which experiment it comes from. Values
// with the same note share it.
func (x *converter) valueNote(n *xhtml.Node) {
	a := attrs(n)
	if a["data-runs"] == "" && a["data-machine"] == "" && a["data-ref"] == "" && a["data-range"] == "" && a["title"] == "" {
		return
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Data == "a" {
			return // a link cannot hold the note's link
		}
	}
	w := x.words
	value := strings.TrimSpace(text(n))
	head := value
	switch {
	case a["data-mixed"] != "":
		head += " " + fmt.Sprintf(w.MixedFormat, a["data-mixed"])
	case a["data-ref"] != "":
		head += " " + w.Reference
	case a["data-runs"] != "":
		head += " " + w.Median
	}
	var rows []string
	row := func(k, v string) {
		if v != "" {
			rows = append(rows, html.EscapeString(k+": "+v))
		}
	}
	if r := a["data-range"]; r != "" {
		row(w.Range, r+" "+w.MinMax)
	}
	if r := a["data-runs"]; r != "" {
		row(w.Runs, fmt.Sprintf(w.RunsFormat, r))
	}
	row(w.Machine, a["data-machine"])
	row(w.Date, a["data-date"])
	switch ref := a["data-ref"]; {
	case ref == "transcribed":
		row(w.Source, w.Transcribed)
	case ref != "":
		row(w.Source, fmt.Sprintf(w.OtherSetFormat, ref))
	}
	if note := a["title"]; note != "" {
		rows = append(rows, html.EscapeString(note)) // it names itself ("설정: …")
	}
	body := "<strong>" + html.EscapeString(head) + "</strong>"
	if len(rows) > 0 {
		body += " — " + strings.Join(rows, "; ")
	}
	if exp := a["data-exp"]; exp != "" {
		to := "#experiment-" + exp
		if page := a["data-page"]; page != "" {
			if l, ok := x.link(page + to); ok {
				to = l
			}
		}
		body += fmt.Sprintf(` <a href="%s">%s</a>`, html.EscapeString(to), html.EscapeString(fmt.Sprintf(w.ExperimentFormat, exp)))
	}
	num, seen := x.noteOf[body]
	if !seen {
		x.notes = append(x.notes, body)
		num = len(x.notes)
		x.noteOf[body] = num
	}
	ref := &xhtml.Node{Type: xhtml.ElementNode, Data: "a", DataAtom: atom.A, Attr: []xhtml.Attribute{
		{Key: "epub:type", Val: "noteref"}, {Key: "role", Val: "doc-noteref"}, {Key: "class", Val: "mb-noteref"},
		{Key: "href", Val: fmt.Sprintf("#mb-note-%d", num)}}}
	if !seen {
		ref.Attr = append(ref.Attr, xhtml.Attribute{Key: "id", Val: fmt.Sprintf("mb-noteref-%d", num)})
	}
	ref.AppendChild(&xhtml.Node{Type: xhtml.TextNode, Data: fmt.Sprint(num)})
	sup := &xhtml.Node{Type: xhtml.ElementNode, Data: "sup", DataAtom: atom.Sup}
	sup.AppendChild(ref)
	n.Parent.InsertBefore(sup, n.NextSibling)
}

// writeNotes writes the document's endnotes, if it has any.
func (x *converter) writeNotes(b *bytes.Buffer) {
	if len(x.notes) == 0 {
		return
	}
	b.WriteString(`<section epub:type="endnotes" role="doc-endnotes" class="mb-notes">` + "\n<h2>" + html.EscapeString(x.words.Notes) + "</h2>\n<ol>\n")
	for i, n := range x.notes {
		fmt.Fprintf(b, `<li id="mb-note-%d" epub:type="endnote" role="doc-endnote"><p>%s <a href="#mb-noteref-%d" role="doc-backlink" aria-label="%s">↩</a></p></li>`+"\n",
			i+1, n, i+1, html.EscapeString(x.words.Back))
	}
	b.WriteString("</ol>\n</section>\n")
}

// showTitle writes out a title the site shows on hover: a claim's
// explanation, a verdict's on one machine, an experiment's spread.
func (x *converter) showTitle(n *xhtml.Node) {
	title, ok := getAttr(n, "title")
	if !ok || title == "" || !(hasClass(n, "mb-claim") || hasClass(n, "mb-provenance") || n.Parent != nil && hasClass(n.Parent, "mb-on")) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Data == "code" || hasClass(c, "mb-explain") {
			return // it shows it already
		}
	}
	tag, a := "span", atom.Span
	if n.Data == "div" {
		tag, a = "div", atom.Div
	}
	e := &xhtml.Node{Type: xhtml.ElementNode, Data: tag, DataAtom: a, Attr: []xhtml.Attribute{{Key: "class", Val: "mb-explain"}}}
	e.AppendChild(&xhtml.Node{Type: xhtml.TextNode, Data: title})
	if tag == "span" {
		n.AppendChild(&xhtml.Node{Type: xhtml.TextNode, Data: " "})
	}
	n.AppendChild(e)
}

// unwrap puts n's children in its place.
func unwrap(n *xhtml.Node) {
	for c := n.FirstChild; c != nil; c = n.FirstChild {
		n.RemoveChild(c)
		n.Parent.InsertBefore(c, n)
	}
	n.Parent.RemoveChild(n)
}

// text is the text n shows, without the notes' references.
func text(n *xhtml.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == xhtml.TextNode:
			b.WriteString(c.Data)
		case c.Data == "sup" && c.FirstChild != nil && hasClass(c.FirstChild, "mb-noteref"):
		default:
			b.WriteString(text(c))
		}
	}
	return b.String()
}

func getAttr(n *xhtml.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func attrs(n *xhtml.Node) map[string]string {
	m := map[string]string{}
	for _, a := range n.Attr {
		if a.Namespace == "" {
			m[a.Key] = a.Val
		}
	}
	return m
}

func setAttr(n *xhtml.Node, key, val string) {
	for i, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, xhtml.Attribute{Key: key, Val: val})
}

func hasClass(n *xhtml.Node, class string) bool {
	c, _ := getAttr(n, "class")
	return slices.Contains(strings.Fields(c), class)
}

// escapeFragment writes an id as a fragment: as it is (an IRI), but for
// what would end or break the reference.
func escapeFragment(id string) string {
	return strings.NewReplacer("%", "%25", " ", "%20", "#", "%23", `"`, "%22").Replace(id)
}
