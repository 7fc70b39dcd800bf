package view

import "measuredbook/expr"

// Verdict is a claim's verdict as a page shows it.
type Verdict int

// The verdicts a page shows.
const (
	Holds Verdict = iota
	Fails
	Inconclusive
	Unavailable // the claim is about what the machine cannot measure: no verdict
)

// verdicts gives each verdict its class (mb-CLASS), mark and word.
var verdicts = [...]struct{ class, mark, word string }{
	Holds:        {"holds", "✓", "성립"},
	Fails:        {"fails", "✗", "불성립"},
	Inconclusive: {"inconclusive", "?", "판정 보류"},
	Unavailable:  {"unavailable", "–", "해당 없음"},
}

// VerdictOf is the verdict shown for t, or Unavailable when unavailable
// (why the claim does not apply) is set.
func VerdictOf(t expr.Truth, unavailable string) Verdict {
	switch {
	case unavailable != "":
		return Unavailable
	case t == expr.True:
		return Holds
	case t == expr.False:
		return Fails
	}
	return Inconclusive
}

// Class is the verdict's CSS class without its mb- prefix.
func (v Verdict) Class() string { return verdicts[v].class }

// Word is the verdict in the book's language.
func (v Verdict) Word() string { return verdicts[v].word }

// String is the verdict's mark and word, as a page shows it.
func (v Verdict) String() string { return verdicts[v].mark + " " + verdicts[v].word }

// UnavailableNote is the text where the set's machine cannot measure a
// combination: the probe's own reason ("kqueue is not available on linux").
func UnavailableNote(reason string) string { return "이 기계에서는 잴 수 없음: " + reason }
