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

// Tally counts claims by the verdict a page shows; a claim about what the
// set's machine cannot measure is counted apart, as not applicable.
func Tally(claims []Claim) (holds, fails, unsure, na int) {
	for _, c := range claims {
		switch c.Shown() {
		case view.Holds:
			holds++
		case view.Fails:
			fails++
		case view.Inconclusive:
			unsure++
		case view.Unavailable:
			na++
		}
	}
	return
}

// MissingRef is the first reference of the claim's expression whose
// result res lacks: why an inconclusive claim cannot be decided. ok is
// false when all its data is there (its runs disagree).
func (c Claim) MissingRef(res Results) (ref expr.Ref, ok bool) {
	x, err := expr.Parse(c.Expect)
	if err != nil {
		return expr.Ref{}, false
	}
	for _, r := range x.Refs() {
		if _, found := res.Lookup(r.Set, r.Experiment); !found {
			return r, true
		}
	}
	return expr.Ref{}, false
}
