package evaluate

import (
	"measuredbook/expr"
	"measuredbook/view"
)

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
