package view

import "measuredbook/parse/ast"

// Page is the views of one evaluation of a document, keyed by node: the
// document is left as it was parsed, so it may be evaluated again, and
// the renderer reads each node's view here.
type Page struct {
	values map[*ast.Value]*Out
	views  map[*ast.Directive]View
	words  *Words
	// Transcribed: the page is built from a transcribed set (the original
	// book's M1 figures), so the prose's MeasuredMark reads as
	// TranscribedMark: those figures were not measured by this build.
	Transcribed bool
}

// NewPage returns a page with no views, in the words of w.
func NewPage(w *Words) *Page {
	return &Page{values: map[*ast.Value]*Out{}, views: map[*ast.Directive]View{}, words: w}
}

// Words is the page's language: the words its renderer writes; Korean
// when p is nil.
func (p *Page) Words() *Words {
	if p == nil || p.words == nil {
		return Korean
	}
	return p.words
}

// Value is the view of an inline value; nil when it was not evaluated (it
// failed to parse, or p is nil).
func (p *Page) Value(n *ast.Value) *Out {
	if p == nil {
		return nil
	}
	return p.values[n]
}

// View is the view of a directive; nil when it was not evaluated.
func (p *Page) View(n *ast.Directive) View {
	if p == nil {
		return nil
	}
	return p.views[n]
}

// SetValue sets the view of an inline value.
func (p *Page) SetValue(n *ast.Value, o *Out) { p.values[n] = o }

// SetView sets the view of a directive.
func (p *Page) SetView(n *ast.Directive, v View) { p.views[n] = v }

// Heading is one h2–h4 of a rendered page, in order: h2 and h3 make its
// in-page contents, and each starts a searchable section.
type Heading struct {
	Level int    // 2, 3 or 4
	ID    string // the heading's id
	Text  string // its text, without markup
}
