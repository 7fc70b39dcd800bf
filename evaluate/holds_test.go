package evaluate

import (
	"testing"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/view"
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

// A table finds the row of another count of rounds when the chapter fixes
// its rounds, and keeps the points apart when it sweeps them.
func TestRowIndexIgnoresFixedSampleCounts(t *testing.T) {
	spec := probe.Spec{Name: "p", Params: []probe.Param{{Name: "rounds", Kind: probe.Int, Sample: true}}}
	res := &dataset.Result{Rows: []dataset.Row{{Params: probe.Params{"rounds": "2000"}, Runs: []probe.Values{{"round": 5}}}}}
	m := probe.Metric{Name: "round", Unit: probe.Count}
	fixed := &parse.Experiment{Spec: spec, Sweep: map[string][]string{"rounds": {"1000"}}}
	if c, _ := indexRows(res, fixed).cell(view.Korean, probe.Params{"rounds": "1000"}, m, "", nil); c.Gap != view.NoGap {
		t.Errorf("fixed rounds: the other count's row is not found (%+v)", c)
	}
	swept := &parse.Experiment{Spec: spec, Sweep: map[string][]string{"rounds": {"1000", "2000"}}}
	if c, _ := indexRows(res, swept).cell(view.Korean, probe.Params{"rounds": "1000"}, m, "", nil); c.Gap == view.NoGap {
		t.Error("swept rounds: the 2,000-round figure is shown for the 1,000-round point")
	}
}

// A param the result does not record (a transcribed set older than the
// param) leaves the row found, as a selector leaves it free.
func TestRowIndexIgnoresUnrecordedParams(t *testing.T) {
	spec := probe.Spec{Name: "p", Params: []probe.Param{{Name: "cap", Kind: probe.Int}, {Name: "pids_limit", Kind: probe.Int}}}
	res := &dataset.Result{Sweep: map[string][]string{"cap": {"20000"}}, Rows: []dataset.Row{{Params: probe.Params{"cap": "20000"}, Runs: []probe.Values{{"threads": 4068}}}}}
	x := &parse.Experiment{Spec: spec, Sweep: map[string][]string{"cap": {"20000"}, "pids_limit": {"0"}}}
	m := probe.Metric{Name: "threads", Unit: probe.Count}
	if c, _ := indexRows(res, x).cell(view.Korean, probe.Params{"cap": "20000", "pids_limit": "0"}, m, "", nil); c.Gap != view.NoGap {
		t.Errorf("a row without pids_limit is not found (%+v)", c)
	}
	if c, _ := indexRows(res, x).cell(view.Korean, probe.Params{"cap": "100", "pids_limit": "0"}, m, "", nil); c.Gap == view.NoGap {
		t.Error("a row is found for a cap it was not measured with")
	}
}

// The fixed-params line of a transcribed set says what its result ran
// with (the original left the threads unpinned), not what the chapter asks.
func TestFixedParamsFollowTheResult(t *testing.T) {
	spec := probe.Spec{Name: "p", Params: []probe.Param{{Name: "cpus", Kind: probe.String}, {Name: "api", Kind: probe.String}}}
	x := &parse.Experiment{Spec: spec, Order: []string{"cpus", "api"}, Sweep: map[string][]string{"cpus": {"same"}, "api": {"poll"}}}
	res := &dataset.Result{Sweep: map[string][]string{"cpus": {"any"}}}
	if got, want := fixedParams(view.Korean, x, res), "cpus=any, api=poll"; got != want {
		t.Errorf("fixed line %q, want %q", got, want)
	}
	if got, want := fixedParams(view.Korean, x, nil), "cpus=same, api=poll"; got != want {
		t.Errorf("without a result: fixed line %q, want %q", got, want)
	}
}
