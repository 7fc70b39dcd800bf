package expr

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"measuredbook/probe"
)

// Env gives an expression its data.
type Env interface {
	// Metric returns one metric of one experiment in a data set ("" = the
	// build's set; "m1" = the reference set). Its errors (unknown
	// experiment/metric, result missing) already carry a "did you mean"
	// suggestion; Eval wraps them positioned at the reference.
	Metric(set, experiment, metric string) (*Metric, error)
}

// Settings is an Env that can also answer reads of an experiment's
// settings (ID.param.NAME) and of the fingerprint of the machine that
// measured a data set (machine.FIELD). An Env without it makes such reads
// an error.
type Settings interface {
	// Param returns one param of one experiment as the chapter's block
	// declares it (set is as for Metric: the values are the block's, the
	// set only decides which machine answers machine.FIELD).
	Param(set, experiment, name string) (*Param, error)
	// Machine returns the facts of the machine a data set was measured
	// on.
	Machine(set string) (Machine, error)
}

// Machine is what an expression may read of the machine that measured a
// data set (machine.FIELD): the facts of its fingerprint. A zero or empty
// field was not recorded.
type Machine struct {
	Name    string            // the set's machine, for messages
	Cores   int               // logical CPUs
	Memory  uint64            // bytes
	Virtual string            // "yes" or "no"
	OS      string            // its kernel's GOOS: "linux", "darwin" or "freebsd"
	Limits  map[string]string // "nofile": "1024/20000", "threads-max": "62459", ...

	// Transcribed: the set's figures were transcribed from a publication
	// (the original book's M1), not measured.
	Transcribed bool
}

// Param is an experiment's setting: its kind and its canonical values (one
// for a fixed param, several for a swept one, in the sweep's order).
type Param struct {
	Kind   probe.Kind
	Values []string
}

// Metric is one metric of one experiment: every parameter combination's
// summary over its runs.
type Metric struct {
	Unit   probe.Unit // Seconds "s", Bytes "B", Count "1"
	Labels []string   // names of code values (Labels[i] names value i), may be nil
	// Resolution is probe.Metric's: the step within which two values
	// cannot be told apart (1 for a count of things), 0 for none.
	Resolution float64
	Params     []string // the experiment's param names, in declared order
	Samples    []Sample // one per parameter combination
}

// Sample is one parameter combination's summary.
type Sample struct {
	Params           map[string]string // canonical text values ("10000", "500µs", "epoll")
	Median, Min, Max float64           // over the runs, in base units
	Runs             int
}

// Eval evaluates the expression against env. Errors are *Error positioned
// at the culprit. When the expression has a format, Eval also checks that
// the format fits the value, so that "bytes of a duration" is reported with
// the expression's position rather than later by whoever formats it.
func (e *Expr) Eval(env Env) (Value, error) {
	ev := &evaluator{env: env, src: e.src, metrics: map[[3]string]*Metric{}}
	v, err := ev.eval(e.root)
	if err != nil {
		return Value{}, err
	}
	if f := e.Format(); f != "" {
		if _, err := v.Format(f); err != nil {
			return Value{}, errAt(e.format, "%v", err)
		}
	}
	return v, nil
}

type evaluator struct {
	env     Env
	src     string
	metrics map[[3]string]*Metric // one lookup per reference target per Eval
}

func errAt(n node, format string, args ...any) *Error {
	off, end := n.span()
	return &Error{Off: off, Len: end - off, Msg: fmt.Sprintf(format, args...)}
}

func (ev *evaluator) text(n node) string {
	off, end := n.span()
	return ev.src[off:end]
}

func (ev *evaluator) eval(n node) (Value, error) {
	switch n := n.(type) {
	case *numNode:
		return point(n.v, n.dim), nil
	case *strNode:
		return Value{Kind: String, Str: n.s}, nil
	case *refNode:
		return ev.ref(n)
	case *setNode:
		return ev.eval(n.x)
	case *unaryNode:
		return ev.unary(n)
	case *binaryNode:
		return ev.binary(n)
	case *condNode:
		return ev.cond(n)
	case *paramNode:
		return ev.param(n)
	case *factNode:
		return ev.fact(n)
	case *callNode:
		return ev.call(n)
	}
	panic(fmt.Sprintf("expr: unknown node %T", n))
}

func (ev *evaluator) unary(n *unaryNode) (Value, error) {
	x, err := ev.eval(n.x)
	if err != nil {
		return Value{}, err
	}
	if n.op == tNot {
		if x.Kind != Bool {
			return Value{}, errAt(n, "! needs a condition, found %s", x.Describe())
		}
		x.Truth = not(x.Truth)
		return x, nil
	}
	if err := numbers("- needs a number", x, x); err != nil {
		return Value{}, errAt(n, "%v", err)
	}
	return negate(x), nil
}

// binary evaluates both operands first, even for && and || whose left side
// may already decide: a misspelt reference on the right must fail the build
// on every machine, not only on those whose numbers reach it.
func (ev *evaluator) binary(n *binaryNode) (Value, error) {
	x, err := ev.eval(n.x)
	if err != nil {
		return Value{}, err
	}
	y, err := ev.eval(n.y)
	if err != nil {
		return Value{}, err
	}
	var v Value
	switch {
	case n.op.kind == tAnd || n.op.kind == tOr:
		for i, side := range []Value{x, y} {
			if side.Kind != Bool {
				return Value{}, errAt([]node{n.x, n.y}[i], "%s joins conditions such as a < b, found %s", n.op.text, side.Describe())
			}
		}
		t := and(x.Truth, y.Truth)
		if n.op.kind == tOr {
			t = or(x.Truth, y.Truth)
		}
		return merge(Value{Kind: Bool, Truth: t}, x, y), nil
	case isComparison(n.op.kind):
		v, err = compare(n.op.kind, x, y)
	default:
		v, err = arith(n.op.kind, x, y)
	}
	switch {
	case err == nil:
		return v, nil
	case n.op.kind == tSlash && x.Kind == Number && y.Kind == Number && y.Lo <= 0 && y.Hi >= 0:
		return Value{}, errAt(n.y, "%v", err) // the divisor is the culprit
	}
	return Value{}, errAt(n.op, "%v", err)
}

// cond evaluates every branch (see binary) and returns the one the
// condition picks. An inconclusive condition picks the unsure branch; with
// none, it picks the else branch and leaves the condition, explained with
// its operands' values, in Inconclusive.
func (ev *evaluator) cond(n *condNode) (Value, error) {
	c, err := ev.eval(n.c)
	if err != nil {
		return Value{}, err
	}
	if c.Kind != Bool {
		return Value{}, errAt(n.c, "the condition before ? must be a comparison such as a < b, found %s", c.Describe())
	}
	a, err := ev.eval(n.a)
	if err != nil {
		return Value{}, err
	}
	b, err := ev.eval(n.b)
	if err != nil {
		return Value{}, err
	}
	var u Value
	if n.u != nil {
		if u, err = ev.eval(n.u); err != nil {
			return Value{}, err
		}
	}
	v := b
	switch {
	case c.Truth == True:
		v = a
	case c.Truth == Unknown && n.u != nil:
		v = u
	}
	v = merge(v, c, v)
	if c.Truth == Unknown && n.u == nil {
		v.Inconclusive = unionStrings(v.Inconclusive, []string{ev.explain(n.c)})
	}
	return v, nil
}

func (ev *evaluator) settings(n node) (Settings, error) {
	s, ok := ev.env.(Settings)
	if !ok {
		return nil, errAt(n, "no settings to read %s from", ev.text(n))
	}
	return s, nil
}

// param is a setting's value: a point for a fixed param (a string for a
// word), every value for a swept one (List, with the interval min–max).
func (ev *evaluator) param(n *paramNode) (Value, error) {
	env, err := ev.settings(n)
	if err != nil {
		return Value{}, err
	}
	p, err := env.Param(n.ref.Set, n.ref.Experiment, n.ref.Name)
	if err != nil {
		return Value{}, errAt(n, "%v", err)
	}
	if len(p.Values) == 0 {
		return Value{}, errAt(n, "%s has no value", ev.text(n))
	}
	if p.Kind == probe.String {
		return Value{Kind: String, Str: strings.Join(p.Values, ", ")}, nil
	}
	var nums []float64
	dim := Dimensionless
	for _, s := range p.Values {
		f, err := strconv.ParseFloat(s, 64)
		if p.Kind == probe.Duration {
			var d time.Duration
			d, err = time.ParseDuration(s)
			f, dim = d.Seconds(), Duration
		}
		if err != nil {
			return Value{}, errAt(n, "%s: %v", ev.text(n), err)
		}
		nums = append(nums, f)
	}
	v := point(nums[0], dim)
	if len(nums) > 1 {
		v.List = nums
		v.Lo, v.Hi = slices.Min(nums), slices.Max(nums)
		v.Num = v.Lo
	}
	return v, nil
}

// factNames are the machine facts an expression may read, in the order
// the manual lists them.
var factNames = []string{"cores", "memory", "virtual", "transcribed", "linux", "darwin", "freebsd", "threads_max", "pid_max", "pids_max", "nofile_soft", "nofile_hard", "nproc_soft", "nproc_hard"}

// fact is one fact of the fingerprint of the machine that measured the
// set: a count, or memory in bytes. A limit the machine did not record,
// or records as unlimited, is an error: no sentence can state it as a
// number.
func (ev *evaluator) fact(n *factNode) (Value, error) {
	env, err := ev.settings(n)
	if err != nil {
		return Value{}, err
	}
	f, err := env.Machine(n.set)
	if err != nil {
		return Value{}, errAt(n, "%v", err)
	}
	if Condition(n.field) && !Recorded(f, n.field) {
		// Not recorded (a transcribed set, older results): not known,
		// so a condition on it takes its unsure branch.
		return Value{Kind: Bool, Truth: Unknown}, nil
	}
	switch n.field {
	case "cores":
		return point(float64(f.Cores), Dimensionless), nil
	case "memory":
		return point(float64(f.Memory), Bytes), nil
	case "virtual":
		return truth(f.Virtual == "yes"), nil
	case "transcribed":
		return truth(f.Transcribed), nil
	case "linux", "darwin", "freebsd":
		return truth(f.OS == n.field), nil
	}
	key, half := limitKey(n.field)
	text, ok := f.Limits[key]
	if !ok {
		return Value{}, errAt(n, "machine %s did not record %s", f.Name, ev.text(n))
	}
	if soft, hard, pair := strings.Cut(text, "/"); pair {
		text = soft
		if half == "hard" {
			text = hard
		}
	}
	x, err := strconv.ParseUint(strings.TrimSpace(text), 10, 64)
	if err != nil || x >= 1<<62 {
		return Value{}, errAt(n, "%s is %q on machine %s, not a number", ev.text(n), text, f.Name)
	}
	return point(float64(x), Dimensionless), nil
}

// limitKey is the fingerprint's Limits key of a limit fact, and which half
// of a soft/hard pair it reads ("soft", "hard", or "" for a single value).
func limitKey(field string) (key, half string) {
	key, half, _ = strings.Cut(field, "_")
	if half == "max" {
		key = field
	}
	return strings.ReplaceAll(key, "_", "-"), half
}

// Recorded reports whether the fingerprint f holds the fact field. Results
// measured before a fact was recorded, and transcribed sets, lack some: a
// page shows a gap there rather than failing the build, except for a
// condition (Condition), which is then not known, as a claim whose runs
// disagree.
func Recorded(f Machine, field string) bool {
	switch field {
	case "cores":
		return f.Cores > 0
	case "memory":
		return f.Memory > 0
	case "virtual":
		return f.Virtual == "yes" || f.Virtual == "no"
	case "transcribed":
		return true
	case "linux", "darwin", "freebsd":
		return f.OS != ""
	}
	key, _ := limitKey(field)
	_, ok := f.Limits[key]
	return ok
}

// Condition reports whether the fact field is a condition (machine.virtual,
// machine.linux, …): one a fingerprint that lacks it leaves not known.
func Condition(field string) bool {
	return slices.Contains([]string{"virtual", "transcribed", "linux", "darwin", "freebsd"}, field)
}

// metric looks a reference's metric up in the environment, once per Eval.
func (ev *evaluator) metric(r *refNode) (*Metric, error) {
	key := [3]string{r.ref.Set, r.ref.Experiment, r.ref.Metric}
	if m, ok := ev.metrics[key]; ok {
		return m, nil
	}
	if ev.env == nil {
		return nil, errAt(r, "no data to evaluate %s.%s against", r.ref.Experiment, r.ref.Metric)
	}
	m, err := ev.env.Metric(r.ref.Set, r.ref.Experiment, r.ref.Metric)
	if err != nil {
		return nil, errAt(r, "%v", err)
	}
	if m == nil {
		return nil, errAt(r, "no result for %s.%s", r.ref.Experiment, r.ref.Metric)
	}
	ev.metrics[key] = m
	return m, nil
}

// paramNames returns the metric's declared params, or those its samples
// carry when the environment did not declare them.
func paramNames(m *Metric) []string {
	if len(m.Params) > 0 {
		return m.Params
	}
	var names []string
	for _, s := range m.Samples {
		names = slices.AppendSeq(names, maps.Keys(s.Params))
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// values returns the distinct values of param among samples, in the order
// the results list them (the order of the experiment's sweep).
func values(samples []Sample, param string) []string {
	var vs []string
	for _, s := range samples {
		if v, ok := s.Params[param]; ok && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return vs
}

// ValueMatches compares a selector value with a stored canonical one: as
// text, as numbers (1e4 = 10000), or as durations (0.5ms = 500us = 500µs).
// time.ParseDuration accepts us, µs (U+00B5) and μs (U+03BC) alike.
func ValueMatches(want, have string) bool {
	if want == have {
		return true
	}
	if a, err := strconv.ParseFloat(want, 64); err == nil {
		if b, err := strconv.ParseFloat(have, 64); err == nil {
			return a == b
		}
	}
	if a, err := time.ParseDuration(want); err == nil {
		if b, err := time.ParseDuration(have); err == nil {
			return a == b
		}
	}
	return false
}

// match returns the samples a reference's selector picks, checking every
// key against the declared params and every value against the stored ones.
func (ev *evaluator) match(r *refNode, m *Metric) ([]Sample, error) {
	names := paramNames(m)
	for _, s := range r.ref.Selector {
		if !slices.Contains(names, s.Key) {
			msg := fmt.Sprintf("%s has no param %q", r.ref.Experiment, s.Key) + suggest(s.Key, names, "its params are")
			if len(names) == 0 {
				msg += "; it has no params, so write " + r.ref.Experiment + "." + r.ref.Metric + "[]"
			}
			return nil, &Error{Off: s.Off, Len: len(s.Key), Msg: msg}
		}
		known := values(m.Samples, s.Key)
		if !slices.ContainsFunc(known, func(v string) bool { return ValueMatches(s.Value, v) }) {
			msg := fmt.Sprintf("no result has %s=%s", s.Key, s.Value)
			// Suggest a spelling only for words: "did you mean 0?" for
			// sleeping=5 would point at a neighbour, not a typo.
			if _, err := strconv.ParseFloat(s.Value, 64); err != nil {
				msg += DidYouMean(s.Value, known)
			}
			return nil, &Error{Off: s.ValOff, Len: len(s.Value),
				Msg: msg + fmt.Sprintf("; %s is one of %s", s.Key, listValues(known))}
		}
	}
	out := slices.DeleteFunc(slices.Clone(m.Samples), func(smp Sample) bool {
		return slices.ContainsFunc(r.ref.Selector, func(s Sel) bool { return !ValueMatches(s.Value, smp.Params[s.Key]) })
	})
	if len(out) == 0 {
		return nil, errAt(r, "no result for %s: that combination was not measured", ev.text(r))
	}
	return out, nil
}

func listValues(vs []string) string {
	const most = 12
	if len(vs) > most {
		return strings.Join(vs[:most], ", ") + fmt.Sprintf(", … (%d in all)", len(vs))
	}
	if len(vs) == 0 {
		return "(none)"
	}
	return strings.Join(vs, ", ")
}

// freeParams describes the params other than except that still vary among
// samples, as "api=select|poll|epoll, idle=100|1000": what to add.
func freeParams(m *Metric, samples []Sample, except string) []string {
	var free []string
	for _, p := range paramNames(m) {
		if p == except {
			continue
		}
		if vs := values(samples, p); len(vs) > 1 {
			if len(vs) > 8 {
				vs = append(vs[:8:8], "…")
			}
			free = append(free, p+"="+strings.Join(vs, "|"))
		}
	}
	return free
}

// ref is the value of the single sample a reference picks.
func (ev *evaluator) ref(r *refNode) (Value, error) {
	m, err := ev.metric(r)
	if err != nil {
		return Value{}, err
	}
	samples, err := ev.match(r, m)
	if err != nil {
		return Value{}, err
	}
	if len(samples) > 1 {
		msg := fmt.Sprintf("selector matches %d combinations", len(samples))
		if free := freeParams(m, samples, ""); len(free) > 0 {
			msg += "; add one of " + strings.Join(free, ", ")
		}
		return Value{}, errAt(r, "%s", msg)
	}
	v, err := FromSample(m, samples[0])
	if err != nil {
		return Value{}, errAt(r, "%s.%s: %v", r.ref.Experiment, r.ref.Metric, err)
	}
	return v, nil
}

func (ev *evaluator) call(n *callNode) (Value, error) {
	switch n.name {
	case "growth":
		return ev.growth(n)
	case "slope":
		return ev.slope(n)
	case "min", "max":
		return ev.minmax(n)
	case "abs":
		x, err := ev.eval(n.args[0])
		if err != nil {
			return Value{}, err
		}
		if err := numbers("abs needs a number", x, x); err != nil {
			return Value{}, errAt(n.args[0], "%v", err)
		}
		return absValue(x), nil
	}
	panic("expr: unknown function " + n.name)
}

// sweep is a reference's samples along one param, ordered by it.
type sweep struct {
	metric  *Metric
	xs      []string  // the param's values, ordered
	xnum    []float64 // their numeric value (durations in seconds), when ordered as numbers
	samples []Sample  // samples[i] has param = xs[i]
}

// sweepOf checks growth's and slope's arguments: the selector must leave
// exactly the swept param free, so that the result compares like with like.
func (ev *evaluator) sweepOf(n *callNode) (sweep, error) {
	r := n.args[0].(*refNode)
	p := n.args[1].(*identNode)
	m, err := ev.metric(r)
	if err != nil {
		return sweep{}, err
	}
	names := paramNames(m)
	if !slices.Contains(names, p.name) {
		return sweep{}, errAt(p, "%s has no param %q%s", r.ref.Experiment, p.name, suggest(p.name, names, "its params are"))
	}
	for _, s := range r.ref.Selector {
		if s.Key == p.name {
			return sweep{}, &Error{Off: s.Off, Len: s.ValOff + len(s.Value) - s.Off,
				Msg: fmt.Sprintf("%s sweeps %s, so the selector must not fix it: remove %s=%s", n.name, p.name, s.Key, s.Value)}
		}
	}
	samples, err := ev.match(r, m)
	if err != nil {
		return sweep{}, err
	}
	if free := freeParams(m, samples, p.name); len(free) > 0 {
		return sweep{}, errAt(r, "%s needs every param but %s fixed; add one of %s", n.name, p.name, strings.Join(free, ", "))
	}
	sw := sweep{metric: m, samples: samples}
	for _, s := range samples {
		v, ok := s.Params[p.name]
		if !ok {
			return sweep{}, errAt(r, "a result of %s lacks param %s", r.ref.Experiment, p.name)
		}
		if slices.Contains(sw.xs, v) {
			return sweep{}, errAt(r, "%s has two results with %s=%s", r.ref.Experiment, p.name, v)
		}
		sw.xs = append(sw.xs, v)
	}
	if len(sw.xs) < 2 {
		return sweep{}, errAt(p, "%s has a single value (%s) in the results; %s needs at least two", p.name, sw.xs[0], n.name)
	}
	// Order as numbers if every value is one, else as durations, else
	// keep the results' order (the sweep as declared).
	nums, secs := map[string]float64{}, map[string]float64{}
	for _, x := range sw.xs {
		if f, err := strconv.ParseFloat(x, 64); err == nil && !math.IsNaN(f) {
			nums[x] = f
		}
		if d, err := time.ParseDuration(x); err == nil {
			secs[x] = d.Seconds()
		}
	}
	if len(nums) < len(sw.xs) {
		nums = secs
	}
	if len(nums) == len(sw.xs) {
		slices.SortStableFunc(sw.samples, func(a, b Sample) int {
			return cmp.Compare(nums[a.Params[p.name]], nums[b.Params[p.name]])
		})
		for i, s := range sw.samples {
			sw.xs[i] = s.Params[p.name]
			sw.xnum = append(sw.xnum, nums[sw.xs[i]])
		}
	}
	return sw, nil
}

// growth is the last sample over the first, by interval division: its
// interval runs from the smallest quotient the runs allow (last.Min /
// first.Max) to the largest (last.Max / first.Min).
func (ev *evaluator) growth(n *callNode) (Value, error) {
	sw, err := ev.sweepOf(n)
	if err != nil {
		return Value{}, err
	}
	first, err := FromSample(sw.metric, sw.samples[0])
	if err != nil {
		return Value{}, errAt(n, "%v", err)
	}
	last, err := FromSample(sw.metric, sw.samples[len(sw.samples)-1])
	if err != nil {
		return Value{}, errAt(n, "%v", err)
	}
	first.Labels, last.Labels = nil, nil
	v, err := arith(tSlash, last, first)
	if err != nil {
		return Value{}, errAt(n, "growth from %s=%s: %v", n.args[1].(*identNode).name, sw.xs[0], err)
	}
	v.Dim, v.Ratio = Dimensionless, true
	return v, nil
}

// slope fits log(median) = a + slope·log(x) by least squares. The slope is
// linear in the log values, slope = Σ wᵢ·log yᵢ with wᵢ = (uᵢ-ū)/Σ(uⱼ-ū)²,
// uᵢ = log xᵢ, so its exact extremes over the run intervals put each point
// at its min or max according to the sign of its weight. The median fit
// lies between them.
func (ev *evaluator) slope(n *callNode) (Value, error) {
	sw, err := ev.sweepOf(n)
	if err != nil {
		return Value{}, err
	}
	p := n.args[1].(*identNode)
	if sw.xnum == nil {
		return Value{}, errAt(p, "slope needs a param whose values are numbers or durations; %s is %s", p.name, strings.Join(sw.xs, ", "))
	}
	k := len(sw.xs)
	u := make([]float64, k)
	var ubar float64
	for i, x := range sw.xnum {
		if x <= 0 {
			return Value{}, errAt(p, "slope takes logarithms, but %s=%s is not positive", p.name, sw.xs[i])
		}
		u[i] = math.Log(x)
		ubar += u[i] / float64(k)
	}
	var sxx float64
	for _, ui := range u {
		sxx += (ui - ubar) * (ui - ubar)
	}
	v := Value{Kind: Number, Dim: Dimensionless}
	for i, s := range sw.samples {
		if s.Median <= 0 || s.Min <= 0 {
			return Value{}, errAt(n, "slope takes logarithms, but a run at %s=%s is not positive", p.name, sw.xs[i])
		}
		lo, hi := math.Log(math.Min(s.Min, s.Median)), math.Log(math.Max(s.Max, s.Median))
		w := (u[i] - ubar) / sxx
		v.Num += w * math.Log(s.Median)
		if w < 0 {
			lo, hi = hi, lo
		}
		v.Lo += w * lo
		v.Hi += w * hi
		v.Runs = fewestRuns(v.Runs, s.Runs)
	}
	// Summation order can leave the median a rounding error outside.
	v.Lo, v.Hi = math.Min(v.Lo, v.Num), math.Max(v.Hi, v.Num)
	return v, nil
}

// minmax is min or max of several values of one kind, or of every sample a
// single reference's selector leaves free. The interval of a minimum is the
// minimum of the Los to the minimum of the His: every value the minimum can
// take when each operand ranges over its interval.
func (ev *evaluator) minmax(n *callNode) (Value, error) {
	var vals []Value
	var nodes []node
	if r, ok := n.args[0].(*refNode); ok && len(n.args) == 1 {
		m, err := ev.metric(r)
		if err != nil {
			return Value{}, err
		}
		samples, err := ev.match(r, m)
		if err != nil {
			return Value{}, err
		}
		for _, s := range samples {
			v, err := FromSample(m, s)
			if err != nil {
				return Value{}, errAt(r, "%v", err)
			}
			vals, nodes = append(vals, v), append(nodes, r)
		}
	} else {
		for _, a := range n.args {
			v, err := ev.eval(a)
			if err != nil {
				return Value{}, err
			}
			vals, nodes = append(vals, v), append(nodes, a)
		}
		if len(vals) == 1 && vals[0].List != nil {
			// min or max of a swept setting: over its values.
			list, a := vals[0], nodes[0]
			vals, nodes = nil, nil
			for _, x := range list.List {
				vals, nodes = append(vals, point(x, list.Dim)), append(nodes, a)
			}
		}
	}
	pick := math.Min
	if n.name == "max" {
		pick = math.Max
	}
	out := vals[0]
	for i, v := range vals {
		if v.Kind != Number {
			return Value{}, errAt(nodes[i], "%s needs numbers, found %s", n.name, v.Describe())
		}
		if v.Dim != out.Dim {
			return Value{}, errAt(nodes[i], "unit mismatch: %s of %s and %s", n.name, out.dimName(), v.dimName())
		}
		if i == 0 {
			continue
		}
		out.Num, out.Lo, out.Hi = pick(out.Num, v.Num), pick(out.Lo, v.Lo), pick(out.Hi, v.Hi)
		out.Ratio = out.Ratio || v.Ratio
		out = merge(out, out, v)
		if !slices.Equal(out.Labels, v.Labels) {
			out.Labels = nil
		}
	}
	return out, nil
}
