package evaluate

import (
	"testing"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/parse"
	"measuredbook/probe"
)

// A transcribed set's figure counts for a chapter's point when the two
// differ only in a count that sizes the sample (the original's 2,000
// rounds against the chapter's 1,000), not when they differ in what is
// measured (pinned against unpinned).
func TestHoldsIgnoresSampleCounts(t *testing.T) {
	spec := probe.Spec{Name: "p", Params: []probe.Param{
		{Name: "api", Kind: probe.String},
		{Name: "rounds", Kind: probe.Int, Sample: true},
		{Name: "cpus", Kind: probe.String},
	}}
	x := &parse.Experiment{ID: "e", Spec: spec, Combos: []probe.Params{{"api": "poll", "rounds": "1000", "cpus": "same"}}}
	res := func(rounds, cpus string) *dataset.Result {
		return &dataset.Result{Sweep: map[string][]string{"api": {"poll"}, "rounds": {rounds}, "cpus": {cpus}},
			Rows: []dataset.Row{{Params: probe.Params{"api": "poll"}, Runs: []probe.Values{{"round": 5}}}}}
	}
	r := expr.Ref{Experiment: "e", Metric: "round"}
	if !holds(res("2000", "same"), r, x, true) {
		t.Error("a figure measured with another rounds count is not found")
	}
	if holds(res("1000", "any"), r, x, true) {
		t.Error("a figure measured unpinned is taken for the pinned one")
	}
}
