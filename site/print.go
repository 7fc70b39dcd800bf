package site

import (
	"bytes"
	"html"
	"maps"
	"measuredbook/view"
	"net/url"
	"slices"
	"strconv"
	"strings"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// PrintChapter is a chapter as the whole-book page holds it: its body as
// its own page has it.
type PrintChapter struct {
	Title, Slug, Lang string
	Body              []byte
}

// The whole book on one page (print.html) puts every chapter in a
// section whose id is its slug, in order, after the contents (each
// chapter and its h2). An id two chapters use, or that names a chapter
// or the layout, becomes SLUG-ID in the chapter that has it, and every
// link within the book (#ID, SLUG.html, SLUG.html#ID) leads to its place
// on the page, so the page is one document with each id once. It is made
// in steps, each chapter's on its own (ChapterIDs, PrintSection), so that
// a build can make them in parallel and keep them in its cache.

// ChapterIDs are the ids a chapter's body has, in order, each once.
func ChapterIDs(body []byte) ([]string, error) {
	root, err := parseBody(body)
	if err != nil {
		return nil, err
	}
	var ids []string
	seen := map[string]bool{}
	for n := range root.Descendants() {
		if id, ok := attr(n, "id"); ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// PrintNames names on the whole-book page every chapter's ids (ids[i],
// ChapterIDs of chapter i): as they are where only one chapter has them
// (the site's links to them work there too), else with the chapter's
// slug before them.
func PrintNames(w *view.Words, chapters []PrintChapter, ids [][]string) []map[string]string {
	// The ids the page's layout uses itself, in the book's words w, which
	// no chapter's may take there.
	reserved := map[string]bool{"main": true, "print-contents": true, w.ID(w.MachineHead): true}
	for _, c := range chapters {
		reserved[c.Slug] = true
	}
	uses := map[string]int{}
	for _, list := range ids {
		for _, id := range list {
			uses[id]++
		}
	}
	taken := maps.Clone(reserved)
	names := make([]map[string]string, len(chapters))
	for i := range chapters {
		names[i] = map[string]string{}
		for _, id := range ids[i] {
			if uses[id] == 1 && !reserved[id] {
				names[i][id] = id
				taken[id] = true
			}
		}
	}
	for i, c := range chapters {
		for _, id := range ids[i] {
			if _, ok := names[i][id]; ok {
				continue
			}
			n := c.Slug + "-" + id
			for k := 2; taken[n]; k++ {
				n = c.Slug + "-" + id + "-" + strconv.Itoa(k)
			}
			names[i][id] = n
			taken[n] = true
		}
	}
	return names
}

// PrintPart is one chapter on the whole-book page: its section, and its
// h2s for the contents.
type PrintPart struct {
	Section []byte
	Heads   []PrintHead
}

// PrintHead is an h2 of a chapter in the contents.
type PrintHead struct{ ID, Text string }

// PrintSection is chapter i's section of the whole-book page, its ids
// and links as names (PrintNames) has them.
func PrintSection(chapters []PrintChapter, i int, names []map[string]string) (PrintPart, error) {
	c := chapters[i]
	root, err := parseBody(c.Body)
	if err != nil {
		return PrintPart{}, err
	}
	// where is the place on the page a link of the chapter leads to;
	// false for a link out of the book's chapters.
	where := func(href string) (string, bool) {
		u, err := url.Parse(href)
		if err != nil || u.Scheme != "" || u.Host != "" {
			return "", false
		}
		j := i
		if u.Path != "" {
			// Links are few, chapters many: a search costs less than a map per chapter.
			slug := strings.TrimSuffix(u.Path, ".html")
			if j = slices.IndexFunc(chapters, func(c PrintChapter) bool { return c.Slug == slug }); j < 0 {
				return "", false
			}
			if u.Fragment == "" {
				return "#" + chapters[j].Slug, true
			}
		}
		if to, ok := names[j][u.Fragment]; ok {
			return "#" + to, true
		}
		return "", false
	}
	var p PrintPart
	for n := range root.Descendants() {
		rewrite(n, names[i], where)
		if id, ok := attr(n, "id"); ok && n.Type == xhtml.ElementNode && n.DataAtom == atom.H2 {
			p.Heads = append(p.Heads, PrintHead{id, strings.TrimSpace(headingText(n))})
		}
	}
	var out bytes.Buffer
	out.WriteString(`<section class="print-chapter" id="` + html.EscapeString(c.Slug) + `"`)
	if c.Lang != "" {
		out.WriteString(` lang="` + html.EscapeString(c.Lang) + `"`)
	}
	out.WriteString(">\n<h1>" + html.EscapeString(c.Title) + "</h1>\n")
	for n := root.FirstChild; n != nil; n = n.NextSibling {
		if err := xhtml.Render(&out, n); err != nil {
			return p, err
		}
	}
	out.WriteString("</section>\n")
	p.Section = out.Bytes()
	return p, nil
}

// PrintContents is the whole-book page's contents: each chapter, and
// under it its h2s.
func PrintContents(chapters []PrintChapter, parts []PrintPart) []byte {
	var toc bytes.Buffer
	toc.WriteString(`<ol class="toc">` + "\n")
	for i, c := range chapters {
		toc.WriteString(`<li><a href="#` + html.EscapeString(c.Slug) + `">` + html.EscapeString(c.Title) + "</a>")
		if heads := parts[i].Heads; len(heads) > 0 {
			toc.WriteString("\n<ol>")
			for _, h := range heads {
				toc.WriteString(`<li><a href="#` + html.EscapeString(h.ID) + `">` + html.EscapeString(h.Text) + "</a></li>")
			}
			toc.WriteString("</ol>")
		}
		toc.WriteString("</li>\n")
	}
	toc.WriteString("</ol>\n")
	return toc.Bytes()
}

// parseBody parses a page's body, its nodes under a section.
func parseBody(body []byte) (*xhtml.Node, error) {
	nodes, err := xhtml.ParseFragment(bytes.NewReader(body), &xhtml.Node{Type: xhtml.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return nil, err
	}
	root := &xhtml.Node{Type: xhtml.ElementNode, Data: "section", DataAtom: atom.Section}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	return root, nil
}

// idRefs are the attributes that hold a list of ids.
var idRefs = []string{"aria-labelledby", "aria-describedby", "aria-controls", "aria-owns", "for", "headers", "list"}

// rewrite gives n its id on the whole-book page, and its links and
// references to ids theirs; a value's popover links to its experiment on
// this same page (no data-page).
func rewrite(n *xhtml.Node, renamed map[string]string, where func(string) (string, bool)) {
	n.Attr = slices.DeleteFunc(n.Attr, func(a xhtml.Attribute) bool { return a.Namespace == "" && a.Key == "data-page" })
	for k := range n.Attr {
		a := &n.Attr[k]
		switch {
		case a.Namespace != "" && a.Key != "href":
		case a.Key == "id":
			a.Val = renamed[a.Val]
		case a.Key == "href":
			if to, ok := where(a.Val); ok {
				a.Val = to
			}
		case slices.Contains(idRefs, a.Key):
			refs := strings.Fields(a.Val)
			for j, r := range refs {
				if to, ok := renamed[r]; ok {
					refs[j] = to
				}
			}
			a.Val = strings.Join(refs, " ")
		}
	}
}

func attr(n *xhtml.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// headingText is a heading's text without its link to itself.
func headingText(n *xhtml.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == xhtml.TextNode:
			b.WriteString(c.Data)
		case c.DataAtom == atom.A && isAnchor(c):
		default:
			b.WriteString(headingText(c))
		}
	}
	return b.String()
}

func isAnchor(n *xhtml.Node) bool {
	class, _ := attr(n, "class")
	return slices.Contains(strings.Fields(class), "anchor")
}
