package render

import "measuredbook/expr"

// Tally counts claims by verdict; a claim about what the set's machine
// cannot measure (Unavailable) is counted apart, as not applicable.
func Tally(claims []Claim) (holds, fails, unsure, na int) {
	for _, c := range claims {
		switch {
		case c.Unavailable != "":
			na++
		case c.Verdict == expr.True:
			holds++
		case c.Verdict == expr.False:
			fails++
		default:
			unsure++
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
