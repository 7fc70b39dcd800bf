// Package ast defines the goldmark AST nodes of the measured book's
// Markdown extension: a Directive block for the fenced experiment, table,
// plot, claim and when blocks, a Value inline for {{ EXPR }}, and the
// book's structure: a Ref (@fig-NAME), a Cite ([@key]) and a Figure (a
// labelled image).
//
// A node holds only what the parser found in the source: a parsed chapter
// is never written to again. What evaluation makes of a node is its view
// (package view), kept beside the document.
package ast

import gast "github.com/yuin/goldmark/ast"

// Directive names, the first word of a fenced block's info string.
var DirectiveNames = []string{"experiment", "table", "plot", "claim", "when"}

// KindDirective is the NodeKind of a Directive.
var KindDirective = gast.NewNodeKind("MeasuredDirective")

// Directive is a fenced code block whose info string names a directive.
// Its Lines are the YAML body, as goldmark's code block lines (so each
// segment still points into the source, which keeps positions exact).
type Directive struct {
	gast.BaseBlock
	Name string // experiment, table, plot, claim or when
	Arg  string // the rest of the info string, trimmed (an experiment's id)
	// Info is the byte offset of the info string in the source, for
	// errors about it.
	Info int
}

// Kind implements gast.Node.
func (n *Directive) Kind() gast.NodeKind { return KindDirective }

// IsRaw implements gast.Node: the body is YAML, never inline Markdown.
func (n *Directive) IsRaw() bool { return true }

// Dump implements gast.Node.
func (n *Directive) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{"Name": n.Name, "Arg": n.Arg}, nil)
}

// KindValue is the NodeKind of a Value.
var KindValue = gast.NewNodeKind("MeasuredValue")

// Value is an inline {{ EXPR }}.
type Value struct {
	gast.BaseInline
	// Expr is the text between {{ and }}, with every \| turned into |
	// (the escape GFM asks for inside table cells).
	Expr string
	// Map gives, for each byte offset k of Expr (0 ≤ k ≤ len(Expr)), the
	// offset of that byte in the source the node was parsed from.
	Map []int
	// Raw is the source segment from {{ to }} inclusive.
	Raw []byte
	// Unclosed is set when no }} closed the {{: then Expr is empty and
	// Raw is just "{{".
	Unclosed bool
}

// Kind implements gast.Node.
func (n *Value) Kind() gast.NodeKind { return KindValue }

// Dump implements gast.Node.
func (n *Value) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{"Expr": n.Expr}, nil)
}

// KindRef is the NodeKind of a Ref.
var KindRef = gast.NewNodeKind("MeasuredRef")

// Ref is a cross-reference written @fig-NAME, @tbl-NAME or @sec-NAME: a
// link to a numbered figure or table, a chapter or a heading, anywhere in
// the book.
type Ref struct {
	gast.BaseInline
	Name string // without the @: fig-handoff
	Raw  []byte // the source, @ included
}

// Kind implements gast.Node.
func (n *Ref) Kind() gast.NodeKind { return KindRef }

// Dump implements gast.Node.
func (n *Ref) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{"Name": n.Name}, nil)
}

// KindCite is the NodeKind of a Cite.
var KindCite = gast.NewNodeKind("MeasuredCite")

// Cite is a bracketed citation, [@key], [@key, §3] or [@a; @b], as
// pandoc writes it.
type Cite struct {
	gast.BaseInline
	Items []CiteItem
	Raw   []byte // the source, brackets included
}

// CiteItem is one source a citation names, with its locator (a page or a
// section: "§3"; "" for none) and the offset of its key in the source.
type CiteItem struct {
	Key, Locator string
	Off          int
}

// Kind implements gast.Node.
func (n *Cite) Kind() gast.NodeKind { return KindCite }

// Dump implements gast.Node.
func (n *Cite) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{"Raw": string(n.Raw)}, nil)
}

// KindFigure is the NodeKind of a Figure.
var KindFigure = gast.NewNodeKind("MeasuredFigure")

// Figure is a paragraph that holds a single image with a label,
// ![caption](file.svg){#fig-NAME}: a numbered figure. Its child is the
// image.
type Figure struct {
	gast.BaseBlock
	Label string
	At    int // the offset of its line in the source
}

// Kind implements gast.Node.
func (n *Figure) Kind() gast.NodeKind { return KindFigure }

// Dump implements gast.Node.
func (n *Figure) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{"Label": n.Label}, nil)
}

// CalloutKinds are the kinds of a callout, GitHub's alerts: > [!NOTE] and
// the rest, written in any case.
var CalloutKinds = []string{"NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"}

// KindCallout is the NodeKind of a Callout.
var KindCallout = gast.NewNodeKind("MeasuredCallout")

// Callout is a block quote whose first line is [!KIND]: its children are
// the quote's, that line left out.
type Callout struct {
	gast.BaseBlock
	Name string // one of CalloutKinds
}

// Kind implements gast.Node.
func (n *Callout) Kind() gast.NodeKind { return KindCallout }

// Dump implements gast.Node.
func (n *Callout) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{"Name": n.Name}, nil)
}

// TableCaption is a Markdown table's caption, from the ": text
// {#tbl-NAME}" paragraph after it (Quarto's form): its text, its label
// ("" for none) and the offset of its line in the source.
type TableCaption struct {
	Text, Label string
	At          int
}
