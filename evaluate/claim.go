package evaluate

import (
	"measuredbook/expr"
	"measuredbook/parse"
	"measuredbook/view"
)

// Claim is an evaluated claim, for the check report.
type Claim struct {
	Pos     parse.Pos
	Text    string     // the claim's text as plain text, values substituted
	Expect  string     // the expression
	Verdict expr.Truth // holds, fails or inconclusive
	Explain string     // the comparison with the measured values substituted
	Basis   string     // "" when measured; "rule" when a probe decides it by rule
	// Machines names the machines whose figures decided Verdict: the
	// build's own, and any that on() names.
	Machines []string
	// On is the verdict on each machine the claim's machines: field
	// names, the build's own first (whose verdict is Verdict); nil
	// without machines:. Only Verdict decides check and --strict.
	On []MachineVerdict
	// Unavailable, when set, is why the claim does not apply to the set's
	// machine: its figures are of a combination the machine cannot
	// measure (kqueue on Linux). Its Verdict is then Unknown.
	Unavailable string
}

// MachineVerdict is a claim's verdict on one machine.
type MachineVerdict = view.MachineVerdict

// Shown is the claim's verdict as a page shows it.
func (c Claim) Shown() view.Verdict { return view.VerdictOf(c.Verdict, c.Unavailable) }
