// Package view defines what evaluation makes of each node of a parsed
// chapter: an inline value's Out and a directive's View, one of a closed
// set of types. Views are data (figures, tables, plot inputs, verdicts);
// the renderer turns them into HTML. They live in a Page, keyed by node,
// beside the document, so one document can be evaluated against several
// result sets.
package view

import (
	gast "github.com/yuin/goldmark/ast"

	"measuredbook/expr"
	"measuredbook/plotsvg"
)

// View is the view of a directive: *Experiment, *TableView, *Plot, *Claim,
// *When or *Error.
type View interface{ view() }

func (*Experiment) view() {}
func (*TableView) view()  {}
func (*Plot) view()       {}
func (*Claim) view()      {}
func (*When) view()       {}
func (*Error) view()      {}

// Out is an evaluated inline value.
type Out struct {
	State OutState
	// Ref: the value draws on a set other than the build's own; Stale: on
	// a stale result; Words: it is words (chosen by ?:), not a number.
	Ref, Stale, Words bool
	Text              string // what the reader sees
	Title             string // shown on hover: interval, runs, machine
	// Data is the figure's provenance for the page's popover, written as
	// data-KEY attributes: "exp" (experiment id), "range", "runs",
	// "machine", "date" (YYYY-MM-DD), "ref" (a set not measured here).
	Data map[string]string
	// TitleInData: Title says nothing Data does not, so the popover shows
	// it and the value needs no title attribute.
	TitleInData bool
}

// OutState says what an inline value's Text is.
type OutState int

const (
	Figure      OutState = iota // a value of the results
	Missing                     // a gap: no figure, Title says why
	Failed                      // an error: the expression, Title says what went wrong
	Unevaluated                 // the source, not evaluated
)

// Cell is one cell of a table view.
type Cell struct {
	Text   string
	Title  string // hover text, "" for none
	Head   bool   // a <th>
	Gap    CellGap
	Number bool // right-aligned figure
}

// CellGap says why a cell holds no figure.
type CellGap int

const (
	NoGap      CellGap = iota
	GapMissing         // no figure: not measured, not applicable or not measurable
	GapFailed          // the combination failed to measure
)

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
	Rerun      Rerun
}

// Rerun is how an experiment is measured, for a reader to measure it
// again on their own machine: its probe and the probe's method, the
// chapter's params, the runs rule, and the set the page's figures come
// from, to compare with.
type Rerun struct {
	Probe, Method string
	Params        []RerunParam // in the probe's order
	Runs          int          // runs: N; 0 is runs: auto
	Precision     float64      // runs: auto's ± of the median's interval, as a fraction; 0: not known
	BookSet       string       // "": not known (no compare command)
}

// RerunParam is one param as the chapter sets it: its values (several:
// a sweep) and what it means.
type RerunParam struct{ Name, Values, Doc string }

// TableView is the view of a table directive.
type TableView struct {
	Table      *Table
	Missing    string // set when no result is stored
	Provenance string // short: machine, date, runs
}

// Plot is the view of a plot directive.
type Plot struct {
	Input      plotsvg.Plot // what the renderer draws: its title, axes and points
	Caption    string
	Provenance string
	Missing    string
	// At is the directive's FILE:LINE:COL, for an error drawing Input.
	At string
	// Exp is the experiment plotted, whose raw data the page may link.
	Exp string
	// Points are Input's points as a reader reads them, Points[i][k]
	// being Input.Series[i].Points[k]; XName and YName head the table
	// of them: what X says (the x param, or a distribution's share) and
	// what a point's figure is.
	Points       [][]PlotPoint
	XName, YName string
}

// PlotPoint is one point of a plot: its series' name, where it is (its
// x param's value, or a distribution's share), and its figure with the
// provenance an inline value has.
type PlotPoint struct {
	Series, X string
	Value     *Out
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

// When is the view of a when directive: the chosen branch (then, else or
// unsure), or a gap when no data decides it.
type When struct {
	Body *Fragment // the branch shown; nil when missing or left out
	// Missing is the gap's text when no data decides the condition; ""
	// with no Body: the block was left out (its unless: held).
	Missing string
}

// Error is the view of a directive that could not be evaluated.
type Error struct {
	Msg string
}
