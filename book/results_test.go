package book

import (
	"strings"
	"testing"

	"measuredbook/dataset"
	"measuredbook/probe"
	"measuredbook/render"
)

func TestCompareSaysWhyAResultIsStale(t *testing.T) {
	p := probe.Probe{Spec: probe.Spec{Name: "readiness"}}
	e := &render.Experiment{ID: "r", Probe: "readiness", Order: []string{"idle"}, Sweep: map[string][]string{"idle": {"100", "1000"}}, Runs: 3}
	fresh := func() *dataset.Result {
		return &dataset.Result{Probe: "readiness", Hash: p.Hash(), Order: []string{"idle"}, Sweep: map[string][]string{"idle": {"100", "1000"}}, Runs: 3}
	}
	for _, tc := range []struct {
		name  string
		edit  func(r *dataset.Result)
		state State
		why   string
	}{
		{"same", func(*dataset.Result) {}, Fresh, ""},
		{"code", func(r *dataset.Result) { r.Hash = "0000000000000000" }, Stale, "probe code changed"},
		{"sweep", func(r *dataset.Result) { r.Sweep["idle"] = []string{"100"} }, Stale, "idle changed (100 → 100,1000)"},
		{"params", func(r *dataset.Result) { r.Order = []string{"idle", "api"} }, Stale, "params changed"},
		{"runs", func(r *dataset.Result) { r.Runs = 5 }, Stale, "runs changed (5 → 3)"},
		{"failed", func(r *dataset.Result) {
			r.Failures = []dataset.Failure{{Params: probe.Params{"idle": "1000"}, Err: "timed out"}}
		}, Failed, "[idle=1000]: timed out"},
	} {
		r := fresh()
		tc.edit(r)
		state, why := compare(e, p.Hash, r)
		if state != tc.state || !strings.Contains(why, tc.why) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, state, why, tc.state, tc.why)
		}
	}
}

// TestStaleMarks: the statuses a build computed decide which results the
// pages mark as stale (render.Staleness), only in the build's set.
func TestStaleMarks(t *testing.T) {
	var _ render.Staleness = (*Results)(nil)
	res := NewResults(t.TempDir(), "here", nil)
	res.MarkStale([]Status{{ID: "a", State: Stale, Why: "runs changed (3 → 5)"}, {ID: "b", State: Fresh}})
	if why, ok := res.Stale("", "a"); !ok || why != "runs changed (3 → 5)" {
		t.Errorf("Stale(a) = %q, %v", why, ok)
	}
	if _, ok := res.Stale("", "b"); ok {
		t.Error("a fresh result is marked stale")
	}
	if _, ok := res.Stale("m1", "a"); ok {
		t.Error("a reference set's result is marked stale")
	}
}
