// Package ast defines the goldmark AST nodes of the measured book's
// Markdown extension: a Directive block for the fenced experiment, table,
// plot, claim and when blocks, and a Value inline for {{ EXPR }}.
//
// A node holds only what the parser found in the source: a parsed chapter
// is never written to again. The views below are what package render's
// evaluation gives each node; they live in a render.Page, keyed by node,
// beside the document, so one document can be evaluated against several
// result sets. The HTML renderer is a pure function of a node and its
// view; no view renders as the unevaluated source.
package ast

import (
	gast "github.com/yuin/goldmark/ast"

	"measuredbook/expr"
	"measuredbook/plotsvg"
)

// Directive names, the first word of a fenced block's info string.
var DirectiveNames = []string{"experiment", "table", "plot", "claim", "when"}

// IsDirective reports whether name is the first word of a directive's info string.
func IsDirective(name string) bool {
	for _, n := range DirectiveNames {
		if n == name {
			return true
		}
	}
	return false
}

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
	// errors about it; -1 if unknown.
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

// NewDirective returns a Directive with the given name and argument.
func NewDirective(name, arg string) *Directive {
	return &Directive{Name: name, Arg: arg, Info: -1}
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

// Out is an evaluated inline value.
type Out struct {
	Class string // "mb-value", "mb-value mb-ref", "mb-missing" or "mb-error"
	Text  string // what the reader sees
	Title string // shown on hover: interval, runs, machine
	// Data is the figure's provenance for the page's popover, written as
	// data-KEY attributes: "exp" (experiment id), "range", "runs",
	// "machine", "date" (YYYY-MM-DD), "ref" (a set not measured here).
	Data map[string]string
}

// Kind implements gast.Node.
func (n *Value) Kind() gast.NodeKind { return KindValue }

// Dump implements gast.Node.
func (n *Value) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{"Expr": n.Expr}, nil)
}

// Cell is one cell of a table view.
type Cell struct {
	Text   string
	Title  string // hover text, "" for none
	Head   bool   // a <th>
	Class  string // extra class, e.g. "mb-missing"
	Number bool   // right-aligned figure
}

// Table is a table view: an experiment's results or a table directive.
type Table struct {
	Caption string
	Head    []Cell   // the header row
	Rows    [][]Cell // the body
}

// Experiment is the view of an experiment directive.
type Experiment struct {
	ID         string
	Table      *Table // nil for show: none, or when no result is stored
	Fixed      string // the params with one value, "rounds=2000, …"
	Provenance string // "✅ 실측 · machine (…) · date · runs · spread"
	SpreadNote string // the provenance's hover: what the spread means
	Measured   bool   // false for a transcribed set
	Missing    string // set when no result is stored: what to run
	Hidden     bool   // show: none
}

// TableView is the view of a table directive.
type TableView struct {
	Table      *Table
	Missing    string // set when no result is stored
	Provenance string // short: machine, date, runs
}

// Plot is the view of a plot directive.
type Plot struct {
	SVG        []byte       // an inline <svg> element
	Input      plotsvg.Plot // what SVG draws: its title, axes and points
	Caption    string
	Provenance string
	Missing    string
}

// Fragment is Markdown held in a directive's field (a claim's text, a when
// block's branch), parsed with its own source; its values are evaluated
// with the rest of the document and it is rendered with the page.
type Fragment struct {
	Source []byte
	Root   gast.Node
	// Inline drops the paragraph around a one-paragraph text.
	Inline bool
}

// Claim is the view of a claim directive.
type Claim struct {
	Verdict expr.Truth // holds, fails or inconclusive
	Text    *Fragment  // the claim's text, rendered inline
	Expect  string     // the expression's source
	Explain string     // the comparison with measured values substituted
	Rule    bool       // basis: rule: a probe decides it by rule, not by measurement
	// Machines names the machines whose figures decided Verdict when any
	// is not the build's own (on("m1", …)); nil otherwise.
	Machines []string
	// On is the claim's verdict on each machine its machines: field
	// names, the build's own first; nil without machines:.
	On []MachineVerdict
	// Unavailable: why the claim does not apply to this machine (it is
	// about what the machine cannot measure); "" when it applies.
	Unavailable string
}

// MachineVerdict is a claim's verdict on one machine.
type MachineVerdict struct {
	Machine string     // its short name
	Verdict expr.Truth // holds, fails or inconclusive
	Explain string     // the values it was decided on, or what it lacks
	// Unavailable: why the claim does not apply to that machine; "" when
	// it applies.
	Unavailable string
}

// When is the view of a when directive: the chosen branch.
type When struct {
	Branch string    // "then", "else", "unsure", or "missing" (a gap: no data decides it)
	Body   *Fragment // the branch shown; nil when missing
	// Missing is the gap's text when no data decides the condition.
	Missing string
}

// Error is the view of a directive that could not be evaluated.
type Error struct {
	Msg string
}
