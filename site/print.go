package site

import (
	"bytes"
	"html"
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

// PrintIDs are the ids the whole-book page's layout uses itself, which
// no chapter's may take there.
var PrintIDs = []string{"main", "print-contents", "측정한-기계"}

// PrintBook puts every chapter on one page (print.html): each a section
// whose id is its slug, in order, with the contents (each chapter and
// its h2) to put before them. An id two chapters use, or that names a
// chapter or the layout, becomes SLUG-ID in the chapter that has it,
// and every link within the book (#ID, SLUG.html, SLUG.html#ID) leads to
// its place on this page, so the page is one document with ids unique.
func PrintBook(chapters []PrintChapter) (contents, body []byte, err error) {
	reserved := map[string]bool{}
	for _, id := range PrintIDs {
		reserved[id] = true
	}
	slugOf := map[string]int{}
	for i, c := range chapters {
		reserved[c.Slug] = true
		slugOf[c.Slug] = i
	}
	roots := make([]*xhtml.Node, len(chapters))
	ids := make([][]string, len(chapters)) // each chapter's ids, in order, each once
	uses := map[string]int{}               // id → chapters that have it
	for i, c := range chapters {
		nodes, err := xhtml.ParseFragment(bytes.NewReader(c.Body), &xhtml.Node{Type: xhtml.ElementNode, Data: "body", DataAtom: atom.Body})
		if err != nil {
			return nil, nil, err
		}
		root := &xhtml.Node{Type: xhtml.ElementNode, Data: "section", DataAtom: atom.Section}
		for _, n := range nodes {
			root.AppendChild(n)
		}
		roots[i] = root
		seen := map[string]bool{}
		walk(root, func(n *xhtml.Node) {
			if id, ok := attr(n, "id"); ok && !seen[id] {
				seen[id] = true
				ids[i] = append(ids[i], id)
				uses[id]++
			}
		})
	}
	// Ids that are unique stay as they are (the site's links to them work
	// here too); then the others take their chapter's prefix.
	taken := map[string]bool{}
	for id := range reserved {
		taken[id] = true
	}
	renamed := make([]map[string]string, len(chapters))
	for i := range chapters {
		renamed[i] = map[string]string{}
		for _, id := range ids[i] {
			if uses[id] == 1 && !reserved[id] {
				renamed[i][id] = id
				taken[id] = true
			}
		}
	}
	for i, c := range chapters {
		for _, id := range ids[i] {
			if _, ok := renamed[i][id]; ok {
				continue
			}
			n := c.Slug + "-" + id
			for k := 2; taken[n]; k++ {
				n = c.Slug + "-" + id + "-" + strconv.Itoa(k)
			}
			renamed[i][id] = n
			taken[n] = true
		}
	}
	// where is the place on this page a link of chapter i leads to; false
	// for a link out of the book's chapters.
	where := func(i int, href string) (string, bool) {
		u, err := url.Parse(href)
		if err != nil || u.Scheme != "" || u.Host != "" {
			return "", false
		}
		j := i
		if u.Path != "" {
			slug, ok := strings.CutSuffix(u.Path, ".html")
			if j, ok = slugOf[slug]; !ok {
				return "", false
			}
			if u.Fragment == "" {
				return "#" + chapters[j].Slug, true
			}
		}
		if to, ok := renamed[j][u.Fragment]; ok {
			return "#" + to, true
		}
		return "", false
	}
	var toc, out bytes.Buffer
	toc.WriteString(`<ol class="toc">` + "\n")
	for i, c := range chapters {
		var heads []string
		walk(roots[i], func(n *xhtml.Node) {
			rewrite(n, renamed[i], func(href string) (string, bool) { return where(i, href) })
			if id, ok := attr(n, "id"); ok && n.Type == xhtml.ElementNode && n.DataAtom == atom.H2 {
				heads = append(heads, `<li><a href="#`+html.EscapeString(id)+`">`+html.EscapeString(strings.TrimSpace(headingText(n)))+"</a></li>")
			}
		})
		toc.WriteString(`<li><a href="#` + html.EscapeString(c.Slug) + `">` + html.EscapeString(c.Title) + "</a>")
		if len(heads) > 0 {
			toc.WriteString("\n<ol>" + strings.Join(heads, "") + "</ol>")
		}
		toc.WriteString("</li>\n")
		out.WriteString(`<section class="print-chapter" id="` + html.EscapeString(c.Slug) + `"`)
		if c.Lang != "" {
			out.WriteString(` lang="` + html.EscapeString(c.Lang) + `"`)
		}
		out.WriteString(">\n<h1>" + html.EscapeString(c.Title) + "</h1>\n")
		for n := roots[i].FirstChild; n != nil; n = n.NextSibling {
			if err := xhtml.Render(&out, n); err != nil {
				return nil, nil, err
			}
		}
		out.WriteString("</section>\n")
	}
	toc.WriteString("</ol>\n")
	return toc.Bytes(), out.Bytes(), nil
}

// idRefs are the attributes that hold a list of ids.
var idRefs = []string{"aria-labelledby", "aria-describedby", "aria-controls", "aria-owns", "for", "headers", "list"}

// rewrite gives n its id on the whole-book page, and its links and
// references to ids theirs; a value's popover links to its experiment on
// this same page (no data-page).
func rewrite(n *xhtml.Node, renamed map[string]string, where func(string) (string, bool)) {
	for k := 0; k < len(n.Attr); k++ {
		a := &n.Attr[k]
		switch {
		case a.Namespace != "" && a.Key != "href":
		case a.Key == "id":
			a.Val = renamed[a.Val]
		case a.Key == "href":
			if to, ok := where(a.Val); ok {
				a.Val = to
			}
		case a.Key == "data-page":
			n.Attr = append(n.Attr[:k], n.Attr[k+1:]...)
			k--
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

// walk calls f on n's descendants, in document order.
func walk(n *xhtml.Node, f func(*xhtml.Node)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		f(c)
		walk(c, f)
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
