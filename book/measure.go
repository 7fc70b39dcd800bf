package book

import (
	"context"
	"fmt"
	"io"
	"time"

	"measuredbook/machine"
	"measuredbook/probe"
	"measuredbook/probes"
	"measuredbook/render"
	"measuredbook/runner"
	"measuredbook/store"
)

// Measurer measures experiments on this machine and stores them in its set.
type Measurer struct {
	Runner  *runner.Runner
	Probes  []probe.Probe
	Machine machine.Fingerprint
	Dir     string    // the results folder
	Log     io.Writer // progress, one line per run
	Runs    int       // overrides every experiment's runs when > 0
}

// Measure runs every combination of experiment id and stores the result in
// results/MACHINE/ID.txt. A failed combination is reported; it replaces a
// previously stored result only when there was none, so a crash never
// loses good numbers.
func (m *Measurer) Measure(ctx context.Context, b *Book, id string) (*store.Result, error) {
	e := b.Experiments[id]
	p, ok := probes.Lookup(m.Probes, e.Probe)
	if !ok {
		return nil, &render.PosError{Pos: e.Pos, Msg: fmt.Sprintf("unknown probe %q", e.Probe)}
	}
	runs := e.Runs
	if m.Runs > 0 {
		runs = m.Runs
	}
	r := m.Runner
	if e.Timeout > 0 {
		copy := *m.Runner
		copy.Timeout = e.Timeout
		r = &copy
	}
	start := time.Now()
	rows, failed := r.Measure(ctx, p, e.Combos, runs, func(done, total int, params probe.Params) {
		if m.Log != nil {
			fmt.Fprintf(m.Log, "measure %s: run %d/%d [%s]\n", id, done, total, params.Key())
		}
	})
	res := &store.Result{
		Experiment: id,
		Probe:      p.Name,
		Hash:       p.Hash(),
		Order:      e.Order,
		Sweep:      e.Sweep,
		Runs:       runs,
		Machine:    m.Machine,
		Start:      start.UTC().Truncate(time.Second),
		Duration:   time.Since(start),
		Source:     "measured",
		Units:      map[string]probe.Unit{},
	}
	for _, metric := range p.Metrics {
		res.Units[metric.Name] = metric.Unit
	}
	for _, row := range rows {
		res.Rows = append(res.Rows, store.Row{Params: row.Params, Runs: row.Runs})
	}
	for _, f := range failed {
		res.Failures = append(res.Failures, store.Failure{Params: f.Params, Err: f.Cause})
	}
	path := store.Path(m.Dir, m.Machine.Name, id)
	if len(failed) > 0 {
		err := fmt.Errorf("%s: experiment %s: %d of %d combinations failed; first: %v", e.Pos, id, len(failed), len(e.Combos), failed[0])
		if _, loadErr := store.Load(path); loadErr == nil {
			return nil, fmt.Errorf("%w (the stored result was kept)", err)
		}
		if saveErr := store.Save(path, res); saveErr != nil {
			return nil, saveErr
		}
		return res, err
	}
	if err := store.Save(path, res); err != nil {
		return nil, err
	}
	return res, nil
}
