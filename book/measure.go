package book

import (
	"context"
	"errors"
	"fmt"
	"time"

	"measuredbook/dataset"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/probe/codehash"
	"measuredbook/runner"
	"measuredbook/store"
)

// Measurer measures experiments on this machine and stores them in its set.
type Measurer struct {
	Runner   *runner.Runner
	Probes   []probe.Probe
	Machine  dataset.Fingerprint
	Dir      string    // the results folder
	Progress *Progress // nil: silent
	Runs     int       // overrides every experiment's runs when > 0
	// Estimates names a set whose stored durations estimate a run's
	// length when this machine's set has none yet (the book's set).
	Estimates string
}

// SaveError is a measurement that could not be stored (a full disk, a
// read-only folder): unlike a probe's failure it stops the build.
type SaveError struct {
	ID  string
	Err error
}

func (e *SaveError) Error() string {
	return fmt.Sprintf("experiment %s: its result could not be saved: %v", e.ID, e.Err)
}

func (e *SaveError) Unwrap() error { return e.Err }

// Measure runs every combination of experiment id and stores the result in
// results/MACHINE/ID.txt. A failed combination is reported; it replaces a
// previously stored result only when there was none, so a crash never
// loses good numbers. An interrupted measurement (ctx cancelled) stores
// nothing and returns the context's cause: the next build measures it
// again, and the experiments measured before it are kept.
func (m *Measurer) Measure(ctx context.Context, b *Book, id string) (*dataset.Result, error) {
	return m.measure(ctx, b, id, id)
}

func (m *Measurer) measure(ctx context.Context, b *Book, id, label string) (*dataset.Result, error) {
	e := b.Experiments[id]
	p, ok := probe.Lookup(m.Probes, e.Probe)
	if !ok {
		return nil, &parse.PosError{Pos: e.Pos, Msg: fmt.Sprintf("unknown probe %q", e.Probe)}
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
	path := store.Path(m.Dir, m.Machine.Name, id)
	prev, _ := store.Load(path, m.Probes)
	perRun := runLength(prev)
	if perRun == 0 && m.Estimates != "" && store.CheckName("set", m.Estimates) == nil {
		other, _ := store.Load(store.Path(m.Dir, m.Estimates, id), m.Probes)
		perRun = runLength(other)
	}
	total := runs * len(e.Combos)
	m.Progress.begin(label, total, perRun)
	start := time.Now()
	rows, unavailable, failed := r.Measure(ctx, p, e.Combos, runs, m.Progress.run)
	if err := context.Cause(ctx); err != nil {
		m.Progress.end(err)
		return nil, err
	}
	m.Progress.end(nil)
	res := &dataset.Result{
		Experiment: id,
		Probe:      p.Name,
		Hash:       codehash.Of(p),
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
	res.Rows = append(res.Rows, rows...)
	res.Unavailable = unavailable
	for _, f := range failed {
		res.Failures = append(res.Failures, dataset.Failure{Params: f.Params, Err: f.Cause})
	}
	if len(failed) > 0 {
		err := fmt.Errorf("%s: experiment %s: %d of %d combinations failed; first: %v", e.Pos, id, len(failed), len(e.Combos), failed[0])
		if prev != nil {
			return nil, fmt.Errorf("%w (the stored result was kept)", err)
		}
		if saveErr := store.Save(path, res); saveErr != nil {
			return nil, &SaveError{id, saveErr}
		}
		return res, err
	}
	if err := store.Save(path, res); err != nil {
		return nil, &SaveError{id, err}
	}
	return res, nil
}

// isSaveError reports whether err stops the build rather than being one
// probe's failure.
func isSaveError(err error) bool {
	var se *SaveError
	return errors.As(err, &se)
}

// runLength is how long one run of a stored result took on average, 0 when
// it is not known.
func runLength(r *dataset.Result) time.Duration {
	if r == nil || r.Duration <= 0 || r.Runs <= 0 || len(r.Rows)+len(r.Failures) == 0 {
		return 0
	}
	return r.Duration / time.Duration(r.Runs*(len(r.Rows)+len(r.Failures)))
}
