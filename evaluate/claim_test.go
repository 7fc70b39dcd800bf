package evaluate

import (
	"testing"

	"measuredbook/dataset"
	"measuredbook/expr"
)

type onlyResults map[string]*dataset.Result

func (r onlyResults) Lookup(set, id string) (*dataset.Result, bool) {
	res, ok := r[set+"/"+id]
	return res, ok
}

// Tally counts by verdict, the claims that do not apply apart; MissingRef
// names the first reference without a result.
func TestTallyAndMissingRef(t *testing.T) {
	claims := []Claim{{Verdict: expr.True}, {Verdict: expr.False}, {Verdict: expr.Unknown}, {Verdict: expr.Unknown, Unavailable: "kqueue"}, {Verdict: expr.True}}
	if h, f, u, na := Tally(claims); h != 2 || f != 1 || u != 1 || na != 1 {
		t.Errorf("Tally: %d %d %d %d", h, f, u, na)
	}
	c := Claim{Expect: `readiness.round < 2 && on("m1", handoff.wake) < 1`}
	res := onlyResults{"/readiness": {}}
	if r, ok := c.MissingRef(res); !ok || r.Set != "m1" || r.Experiment != "handoff" {
		t.Errorf("MissingRef: %+v, %v", r, ok)
	}
	res["m1/handoff"] = &dataset.Result{}
	if r, ok := c.MissingRef(res); ok {
		t.Errorf("MissingRef with every result: %+v", r)
	}
}
