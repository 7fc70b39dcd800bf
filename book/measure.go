package book

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
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
	rule := m.rule(b, e, p)
	r := *m.Runner
	r.Timeout = cmp.Or(e.Timeout, r.Timeout)
	if Sized(e) {
		r.RunTime = b.Config.RunTime
	}
	prev, perRun := m.previous(id)
	m.Progress.begin(label, rule.expect()*len(e.Combos), perRun)
	start := time.Now()
	rows, unavailable, failed := r.MeasureUntil(ctx, p, e.Combos, rule.more, m.Progress.run)
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
		Runs:       cmp.Or(rule.fixed, rule.rounds),
		Stop:       rule.stop,
		RunTime:    r.RunTime,
		Machine:    m.Machine,
		Start:      start.UTC().Truncate(time.Second),
		Duration:   time.Since(start),
		Source:     "measured",
		Units:      map[string]probe.Unit{},
	}
	for _, metric := range p.Metrics {
		res.Units[metric.Name] = metric.Unit
	}
	for i := range rows {
		rows[i].PoolKept(p.Metrics)
	}
	res.Rows = append(res.Rows, rows...)
	res.Unavailable = unavailable
	for _, f := range failed {
		res.Failures = append(res.Failures, dataset.Failure{Params: f.Params, Err: f.Cause})
	}
	var err error
	if len(failed) > 0 {
		err = fmt.Errorf("%s: experiment %s: %d of %d combinations failed; first: %v", e.Pos, id, len(failed), len(e.Combos), failed[0])
		if prev != nil {
			return nil, fmt.Errorf("%w (the stored result was kept)", err)
		}
	}
	if saveErr := store.Save(store.Path(m.Dir, m.Machine.Name, id), res); saveErr != nil {
		return nil, &SaveError{id, saveErr}
	}
	return res, err
}

// previous is the result stored for id in this machine's set (nil if
// none), and how long one of its runs took (else one of the estimates
// set's; 0 if neither is known).
func (m *Measurer) previous(id string) (*dataset.Result, time.Duration) {
	prev, _ := store.Load(store.Path(m.Dir, m.Machine.Name, id), m.Probes)
	perRun := runLength(prev)
	if perRun == 0 && m.Estimates != "" && store.CheckName("set", m.Estimates) == nil {
		other, _ := store.Load(store.Path(m.Dir, m.Estimates, id), m.Probes)
		perRun = runLength(other)
	}
	return prev, perRun
}

// estimate is how long measuring experiment id should take: the rule's
// rounds of runs as long as the last ones; under runs: auto, as long as
// the last auto measurement took (the fewest runs may outlast the
// budget), else those rounds within the budget (the budget itself when no
// run was ever timed).
func (m *Measurer) estimate(b *Book, id string) time.Duration {
	e := b.Experiments[id]
	p, ok := probe.Lookup(m.Probes, e.Probe)
	if !ok {
		return 0
	}
	prev, perRun := m.previous(id)
	rule := m.rule(b, e, p)
	if rule.fixed == 0 && prev != nil && prev.Stop.Auto && prev.Duration > 0 {
		return prev.Duration
	}
	d := perRun * time.Duration(rule.expect()*len(e.Combos))
	if rule.fixed == 0 && (perRun == 0 || d > rule.budget) {
		d = rule.budget
	}
	return d
}

// runLength is how long one run of a stored result took on average, 0 when
// it is not known.
func runLength(r *dataset.Result) time.Duration {
	if r == nil || r.Duration <= 0 || r.Runs <= 0 || len(r.Rows)+len(r.Failures) == 0 {
		return 0
	}
	return r.Duration / time.Duration(r.Runs*(len(r.Rows)+len(r.Failures)))
}

// runRule decides, before each round of an experiment's runs, whether to
// do another: a fixed count (runs: N, or run --runs N), or runs: auto,
// which stops when the 95 % confidence interval of every headline
// metric's median is within ±precision of the median in every
// combination, or when another round would overrun the budget, and never
// before the interval exists.
type runRule struct {
	fixed     int
	precision float64
	budget    time.Duration
	headline  []probe.Metric
	start     time.Time
	rounds    int
	stop      dataset.Stop
}

// MinAutoRuns is the fewest runs for which benchmath has a 95 % interval
// of the median (6), found by asking it.
var MinAutoRuns = func() int {
	row := dataset.Row{}
	for n := 1; ; n++ {
		row.Runs = append(row.Runs, probe.Values{"x": float64(n)})
		if !math.IsInf(dataset.Interval(row, "x", probe.Seconds), 0) {
			return n
		}
	}
}()

func (m *Measurer) rule(b *Book, e *parse.Experiment, p probe.Probe) *runRule {
	r := &runRule{fixed: e.Runs, start: time.Now()}
	if m.Runs > 0 {
		r.fixed = m.Runs
	}
	if r.fixed > 0 {
		return r
	}
	r.precision = cmp.Or(e.Precision, b.Config.Precision, DefaultPrecision)
	r.budget = cmp.Or(e.Budget, b.Config.Budget, DefaultBudget)
	for _, metric := range p.Metrics {
		if slices.Contains(b.Headline[e.ID], metric.Name) {
			r.headline = append(r.headline, metric)
		}
	}
	if len(r.headline) == 0 {
		// No chapter names a metric: the experiment's own table shows
		// them all.
		r.headline = p.Metrics
	}
	r.stop = dataset.Stop{Auto: true, Precision: r.precision, Interval: math.Inf(1)}
	return r
}

// expect is how many rounds the rule expects, for progress: a fixed count,
// or under runs: auto the fewest, more as the runs ask for them.
func (r *runRule) expect() int {
	if r.fixed > 0 {
		return r.fixed
	}
	return MinAutoRuns
}

// more is runner.MeasureUntil's more; it counts the rounds started.
func (r *runRule) more(round int, rows []dataset.Row) (bool, int) {
	again, n := r.decide(round, rows)
	r.rounds = round
	if again {
		r.rounds++
	}
	return again, n
}

func (r *runRule) decide(round int, rows []dataset.Row) (bool, int) {
	if r.fixed > 0 {
		return round < r.fixed, r.fixed
	}
	if round > 0 {
		r.stop.Interval = 0
		for _, row := range rows {
			for _, metric := range r.headline {
				r.stop.Interval = math.Max(r.stop.Interval, dataset.Interval(row, metric.Name, metric.Unit))
			}
		}
	}
	elapsed := time.Since(r.start)
	switch {
	case round < MinAutoRuns:
		return true, MinAutoRuns
	case r.stop.Interval <= r.precision:
		r.stop.Why = "precision reached"
	case round >= probe.MaxRuns:
		r.stop.Why = fmt.Sprintf("at most %d runs", probe.MaxRuns)
	case elapsed+elapsed/time.Duration(round) > r.budget:
		r.stop.Why = fmt.Sprintf("budget reached (%v)", r.budget)
	default:
		return true, round + 1
	}
	return false, round
}
