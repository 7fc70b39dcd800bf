package parse

// The book's structure in a chapter: the labels that number its figures,
// tables and sections, the cross-references to them (@fig-NAME) and the
// citations of its sources ([@key]). Parse collects them; package xref
// numbers them over the whole book and checks every reference, before
// anything is measured.

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	gast "github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"measuredbook/parse/ast"
)

// The kinds of labels, the prefix of their names.
const (
	FigLabel = "fig" // a plot, or an image with {#fig-NAME}
	TblLabel = "tbl" // a table directive, or an experiment's table
	SecLabel = "sec" // a heading with {#sec-NAME}, or a chapter (sec-SLUG)
)

// Xref is what the book's cross-references need of a chapter.
type Xref struct {
	Labels []Label // in document order
	Refs   []Use   // @fig-…, @tbl-…, @sec-…, in document order
	Cites  []Use   // every key of every [@…], in document order
}

// Label is a name a chapter gives a figure, a table or a heading.
type Label struct {
	Name  string // fig-handoff
	At    Pos
	Title string `json:",omitempty"` // a heading's text
}

// Kind is the label's kind: FigLabel, TblLabel or SecLabel.
func (l Label) Kind() string { k, _, _ := strings.Cut(l.Name, "-"); return k }

// Use is a reference to a label or a citation of a key, and where.
type Use struct {
	Name string
	At   Pos
}

// labelName is a label as written: a kind, "-" and ASCII words joined by
// "-" or "_". ASCII, so that a Korean particle may follow a reference
// (@fig-handoff의) without becoming part of it.
var labelName = regexp.MustCompile(`^(fig|tbl|sec)-[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*`)

// citeKey is a BibTeX key: ASCII words joined by single punctuation
// marks, as pandoc reads keys (kegel1999, linux:epoll, go/netpoll).
var citeKey = regexp.MustCompile(`^[A-Za-z0-9_]+(?:[:./+-][A-Za-z0-9_]+)*`)

// directiveLabel decodes the label: field of a table, a plot or an
// experiment.
func (d *Doc) directiveLabel(dir *Directive, fs map[string]field, e *Errs) string {
	v, ok := dir.value(fs, "label", e)
	if !ok {
		return ""
	}
	v = strings.TrimSpace(v)
	want := TblLabel
	if dir.Node.Name == "plot" {
		want = FigLabel
	}
	if m := labelName.FindString(v); m != v || !strings.HasPrefix(v, want+"-") {
		e.At(dir.At["label"], "label %q: a %s's label is %s-NAME, NAME ASCII letters, digits, _ and -", v, dir.Node.Name, want)
		return ""
	}
	d.Xref.Labels = append(d.Xref.Labels, Label{Name: v, At: d.Pos(dir.At["label"])})
	return v
}

// collectXref records a node of the body (or of a directive's Markdown,
// whose offsets m maps to the file) that the book's cross-references
// need: a heading's explicit sec- id, a labelled image, a reference, a
// citation.
func (d *Doc) collectXref(n gast.Node, source []byte, m Offmap, e *Errs) {
	switch n := n.(type) {
	case *gast.Heading:
		id, _ := n.AttributeString("id")
		if b, ok := id.([]byte); ok && strings.HasPrefix(string(b), SecLabel+"-") {
			at := m(n.Lines().At(0).Start)
			if labelName.FindString(string(b)) != string(b) {
				e.At(at, "heading id %q: a section's label is sec-NAME, NAME ASCII letters, digits, _ and -", b)
				return
			}
			d.Xref.Labels = append(d.Xref.Labels, Label{Name: string(b), At: d.Pos(at), Title: headingText(n, source)})
		}
	case *ast.Figure:
		d.Xref.Labels = append(d.Xref.Labels, Label{Name: n.Label, At: d.Pos(m(n.At))})
	case *east.Table:
		if c, ok := n.AttributeString(TableCaption); ok && c.(*ast.TableCaption).Label != "" {
			d.Xref.Labels = append(d.Xref.Labels, Label{Name: c.(*ast.TableCaption).Label, At: d.Pos(m(c.(*ast.TableCaption).At))})
		}
	case *gast.Image:
		if id, ok := n.AttributeString("id"); ok {
			if _, fig := n.Parent().(*ast.Figure); !fig {
				e.At(m(urlOff(n, n.Destination, source)), "a numbered figure %s stands alone in its paragraph: put the image and its {#%s} on a line of their own", id, id)
			}
		}
	case *ast.Ref:
		d.Xref.Refs = append(d.Xref.Refs, Use{Name: n.Name, At: d.Pos(m(n.Pos()))})
	case *ast.Cite:
		for _, it := range n.Items {
			d.Xref.Cites = append(d.Xref.Cites, Use{Name: it.Key, At: d.Pos(m(it.Off))})
		}
	}
}

// refParser parses @fig-NAME, @tbl-NAME and @sec-NAME. An @ that follows
// a letter, a digit or one of _ . - + / @ is text (an e-mail address,
// a handle), and so is an @ before anything but a label's name; code
// spans and autolinks are taken by their own parsers first.
type refParser struct{}

func (refParser) Trigger() []byte { return []byte{'@'} }

func (refParser) Parse(parent gast.Node, block text.Reader, pc parser.Context) gast.Node {
	if p := block.PrecendingCharacter(); unicode.IsLetter(p) || unicode.IsDigit(p) || strings.ContainsRune("_.-+/@\\", p) {
		return nil
	}
	line, seg := block.PeekLine()
	name := labelName.Find(line[1:])
	if name == nil {
		return nil
	}
	n := &ast.Ref{Name: string(name), Raw: line[:1+len(name)]}
	n.SetPos(seg.Start)
	block.Advance(1 + len(name))
	return n
}

// citeParser parses a bracketed citation, [@key], [@key, LOCATOR] or
// [@a; @b, LOCATOR], on one line; anything else (a link [@a](url), a
// bracket of text, a reference [@fig-x]) is left to goldmark's parsers.
type citeParser struct{}

func (citeParser) Trigger() []byte { return []byte{'['} }

func (citeParser) Parse(parent gast.Node, block text.Reader, pc parser.Context) gast.Node {
	line, seg := block.PeekLine()
	end := bytes.IndexByte(line, ']')
	if end < 0 || len(line) < 3 || line[1] != '@' || bytes.IndexByte(line[1:end], '[') >= 0 {
		return nil
	}
	if rest := line[end+1:]; len(rest) > 0 && (rest[0] == '(' || rest[0] == '[') {
		return nil // a link
	}
	n := &ast.Cite{Raw: line[:end+1]}
	for off := 1; off < end; {
		item, _, _ := bytes.Cut(line[off:end], []byte(";"))
		lead := len(item) - len(bytes.TrimLeft(item, " "))
		body := item[lead:]
		key := citeKey.Find(bytes.TrimPrefix(body, []byte("@")))
		if len(body) == 0 || body[0] != '@' || key == nil || labelName.Match(key) {
			return nil
		}
		loc := body[1+len(key):]
		if t := bytes.TrimSpace(loc); len(t) > 0 {
			if loc[0] != ',' {
				return nil
			}
			loc = bytes.TrimSpace(loc[1:])
		}
		if !utf8.Valid(loc) {
			return nil
		}
		n.Items = append(n.Items, ast.CiteItem{Key: string(key), Locator: string(bytes.TrimSpace(loc)), Off: seg.Start + off + lead})
		off += len(item) + 1
	}
	n.SetPos(seg.Start)
	block.Advance(end + 1)
	return n
}

// figureAttr matches the {#fig-NAME} that labels the image before it.
var figureAttr = regexp.MustCompile(`^\{#(fig-[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*)\}`)

// figureTransformer labels every image followed at once by {#fig-NAME}
// (the attribute is taken off the text) and turns a paragraph that holds
// only such an image into a Figure. A labelled image in a paragraph with
// more in it keeps its id and is an error (Parse reports it).
type figureTransformer struct{}

func (figureTransformer) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	var paras []*gast.Paragraph
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		img, ok := n.(*gast.Image)
		if !entering || !ok {
			return gast.WalkContinue, nil
		}
		t, ok := img.NextSibling().(*gast.Text)
		if !ok {
			return gast.WalkSkipChildren, nil
		}
		m := figureAttr.FindSubmatch(t.Segment.Value(source))
		if m == nil {
			return gast.WalkSkipChildren, nil
		}
		img.SetAttributeString("id", m[1])
		t.Segment = t.Segment.WithStart(t.Segment.Start + len(m[0]))
		if t.Segment.Len() == 0 || len(bytes.TrimSpace(t.Segment.Value(source))) == 0 && t.NextSibling() == nil {
			img.Parent().RemoveChild(img.Parent(), t)
		}
		if p, ok := img.Parent().(*gast.Paragraph); ok && p.ChildCount() == 1 {
			paras = append(paras, p)
		}
		return gast.WalkSkipChildren, nil
	})
	for _, p := range paras {
		img := p.FirstChild().(*gast.Image)
		id, _ := img.AttributeString("id")
		f := &ast.Figure{Label: string(id.([]byte)), At: p.Lines().At(0).Start}
		f.SetPos(p.Pos())
		f.SetBlankPreviousLines(p.HasBlankPreviousLines())
		p.RemoveChild(p, img)
		img.RemoveAttributes() // the figure has the id
		f.AppendChild(f, img)
		p.Parent().ReplaceChild(p.Parent(), p, f)
	}
}

// TableCaption is the attribute of a Markdown table that holds its
// caption (an *ast.TableCaption).
const TableCaption = "mb-caption"

// tableCaption matches a table's caption as Quarto writes it: a paragraph
// right after the table, ": text", with an optional {#tbl-NAME} at its end.
var tableCaption = regexp.MustCompile(`^:\s+(.*?)(?:\s*\{#(tbl-[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*)\})?\s*$`)

// tableCaptionTransformer gives a Markdown table the caption in the
// paragraph after it (": text {#tbl-NAME}"), which it takes off the page,
// so that a table written in Markdown is numbered and referred to as a
// table directive is.
type tableCaptionTransformer struct{}

func (tableCaptionTransformer) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		t, ok := n.(*east.Table)
		if !ok {
			continue
		}
		p, ok := t.NextSibling().(*gast.Paragraph)
		if !ok || p.Lines().Len() != 1 {
			continue
		}
		line := p.Lines().At(0)
		m := tableCaption.FindSubmatch(bytes.TrimRight(line.Value(source), "\r\n"))
		if m == nil {
			continue
		}
		t.SetAttributeString(TableCaption, &ast.TableCaption{Text: string(m[1]), Label: string(m[2]), At: line.Start})
		doc.RemoveChild(doc, p)
	}
}

// ReferencesID is the anchor of the list of sources a chapter that cites
// any ends with.
const ReferencesID = "references"
