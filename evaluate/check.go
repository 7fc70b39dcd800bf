package evaluate

import (
	"measuredbook/dataset"
	"measuredbook/parse"
	"measuredbook/probe"
)

// Check evaluates d as Evaluate does, but wherever the build's own set in
// res holds no usable result of an experiment (none is stored, or its id
// is in unusable: stale or unreadable) against the experiment's shape:
// the rows its sweep makes, each with every metric its probe's spec
// declares, in the metric's unit. A typo in a chapter whose experiment
// was never measured (an unknown metric or param, a value not swept, an
// ambiguous selector, a format or a unit that does not fit) is then the
// same error, at the same place, as after the measurement, and is found
// before anything is measured. The shape's figures are placeholders and
// never reach a page: Check returns only the errors.
//
// unusable lists the ids of the build's own set whose stored result is
// not to be trusted for the check (stale or unreadable); nil: none.
func Check(d *parse.Doc, res Results, experiments map[string]*parse.Experiment, unusable map[string]bool) error {
	exps := experiments
	if exps == nil {
		exps = map[string]*parse.Experiment{}
		for _, x := range d.Experiments {
			exps[x.ID] = x
		}
	}
	s := &shapes{res: res, exps: exps, unusable: unusable, made: map[string]*dataset.Result{}}
	var shaped Results = s
	if sets, ok := res.(Sets); ok {
		shaped = namedShapes{s, sets}
	}
	_, err := Evaluate(d, shaped, experiments)
	return err
}

// shapes is the Results of Check: res's, or an experiment's shape where
// res has no usable result.
type shapes struct {
	res      Results // nil: none
	exps     map[string]*parse.Experiment
	unusable map[string]bool
	made     map[string]*dataset.Result // id → its shape, made once
}

// namedShapes is shapes of a Results that knows its sets.
type namedShapes struct {
	*shapes
	sets Sets
}

func (n namedShapes) Own() string     { return n.sets.Own() }
func (n namedShapes) Sets() []string  { return n.sets.Sets() }
func (n namedShapes) Shown() []string { return n.sets.Shown() }

// Lookup implements Results.
func (s *shapes) Lookup(set, id string) (*dataset.Result, bool) {
	if !s.substituted(set, id) {
		if s.res == nil {
			return nil, false
		}
		return s.res.Lookup(set, id)
	}
	x, ok := s.exps[id]
	if !ok {
		return nil, false
	}
	r := s.made[id]
	if r == nil {
		r = shape(x)
		s.made[id] = r
	}
	return r, true
}

// substituted reports whether id's result in set is its shape: only in
// the build's own set, since another machine's (a reference set, m1) may
// have measured another sweep, and lacking it is a gap, not a mistake.
func (s *shapes) substituted(set, id string) bool {
	if set != "" {
		return false
	}
	if s.res == nil || s.unusable[id] {
		return true
	}
	_, ok := s.res.Lookup(set, id)
	return !ok
}

// Stale implements Staleness: a shape is never stale.
func (s *shapes) Stale(set, id string) (string, bool) {
	st, ok := s.res.(Staleness)
	if !ok || s.substituted(set, id) {
		return "", false
	}
	return st.Stale(set, id)
}

// shape is the result x's sweep and its probe's spec describe. Its
// figures differ from row to row and metric to metric, and are positive,
// so that a ratio, a growth or a slope over them is defined; a metric
// whose values are codes takes its first code.
func shape(x *parse.Experiment) *dataset.Result {
	r := &dataset.Result{Experiment: x.ID, Probe: x.Probe, Order: x.Order, Sweep: x.Sweep, Runs: 1, Units: map[string]probe.Unit{}}
	scale := map[probe.Unit]float64{probe.Seconds: 1e-6, probe.Bytes: 1024, probe.Count: 1}
	for _, m := range x.Spec.Metrics {
		r.Units[m.Name] = m.Unit
	}
	for i, c := range x.Combos {
		v := probe.Values{}
		for j, m := range x.Spec.Metrics {
			if len(m.Labels) > 0 {
				v[m.Name] = 0
				continue
			}
			v[m.Name] = (float64(i+1) + float64(j)/8) * scale[m.Unit]
		}
		// A count given as probe.Auto is at its probe's default, as a
		// measurement would record some count.
		params := probe.Params{}
		for k, val := range c {
			if p, _ := x.Spec.Param(k); val == probe.Auto {
				val = p.Default
			}
			params[k] = val
		}
		r.Rows = append(r.Rows, dataset.Row{Params: params, Runs: []probe.Values{v}})
	}
	return r
}
