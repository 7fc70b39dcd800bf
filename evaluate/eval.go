// Package evaluate is the second step of a chapter's flow (see package
// parse): it evaluates every inline value, table, plot, claim and when
// block of a parsed chapter against stored results, into a Page of views
// (package view): figures, tables, plot inputs, verdicts and gaps, with
// the claims for the check report and the warnings. It writes no HTML and
// draws nothing; package render does.
package evaluate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/view"
)

// Results gives the evaluator the stored results. set "" is the build's
// own set; any other name is another set, named by on("NAME", …) (or
// ref), machines: or a plot's ref:. ok=false: no result stored.
type Results interface {
	Lookup(set, id string) (*dataset.Result, bool)
}

// Staleness is what a Results may also know: which stored results of a
// set were measured with other code, params or runs than the chapter now
// asks for (stale), and why. Such results are still shown, marked.
type Staleness interface {
	Stale(set, id string) (why string, stale bool)
}

// Sets is what a Results may also know about the result sets a chapter
// may name. With it, a name that is neither a set present nor a machine
// the book shows is an error at its place (a typo), and machines: book
// means the book's machines; without it, every name is taken as written
// and a set with no data is a gap.
type Sets interface {
	// Own is the name of the build's set, the one "" stands for.
	Own() string
	// Sets lists the sets present.
	Sets() []string
	// Shown lists the machines the book shows beside its own, in order,
	// whether or not their sets are present: what machines: book means.
	Shown() []string
}

// Elsewhere is what a Results may also know: that the build's own set is
// another machine's (the book's, or --machine's), so that what it lacks
// is measured on that machine, not here. Without it, the build's set is
// taken to be this machine's.
type Elsewhere interface {
	Elsewhere() bool
}

// Language is what a Results may also know: the book's language, in
// whose words the page is written. Without it, Korean (the book's own).
type Language interface {
	Words() *view.Words
}

// stale reports whether a set's result of id is stale, and why. set is
// as resolved ("" is the build's own).
func (v *env) stale(set, id string) (string, bool) {
	s, ok := v.res.(Staleness)
	if !ok {
		return "", false
	}
	return s.Stale(set, id)
}

// env is the expr.Env of one evaluation: every experiment of the book and
// the stored results.
type env struct {
	res  Results
	exps map[string]*parse.Experiment
	w    *view.Words // the book's language

	// base is the set that "" stands for: the build's own (""), or
	// another machine's while a claim is decided on it.
	base string
	// own is the name of the build's set, when the Results knows it: a
	// chapter naming it by name means "".
	own string
	// sets lists the names a chapter may use (the sets present, the
	// book's machines and own), nil when the Results does not know them;
	// shown is the book's machines.
	sets, shown []string
	// drawn collects the sets other than own that the page looked a
	// result up in: the machines its figures come from, or whose gaps it
	// shows.
	drawn map[string]bool
	// elsewhere is own when the build's set is another machine's
	// (Elsewhere): a hint names that machine, not a command run here.
	elsewhere string
	// measuredOwn and transcribedOwn record whether the page looked up a
	// measured, or a transcribed, result of the build's own set: the set
	// is a transcribed one when it looked up none measured by this tool.
	// Read off the lookups it makes anyway, so that a page depends on no
	// result it does not show.
	measuredOwn, transcribedOwn bool
}

func newEnv(res Results, exps map[string]*parse.Experiment) *env {
	v := &env{res: res, exps: exps, w: view.Korean, drawn: map[string]bool{}}
	if l, ok := res.(Language); ok {
		v.w = l.Words()
	}
	if s, ok := res.(Sets); ok {
		v.own, v.shown = s.Own(), s.Shown()
		v.sets = append(slices.Clone(s.Sets()), v.shown...)
		if v.own != "" {
			v.sets = append(v.sets, v.own)
		}
		slices.Sort(v.sets)
		v.sets = slices.Compact(v.sets)
	}
	if e, ok := res.(Elsewhere); ok && e.Elsewhere() {
		v.elsewhere = cmp.Or(v.own, "the build's set")
	}
	return v
}

// noteSet is the set a gap's note names: set, or the build's own by its
// name when it is another machine's.
func (v *env) noteSet(set string) string { return cmp.Or(set, v.elsewhere) }

// fillHint is how a set with no result at all gets one: this machine's
// by measuring, another's on that machine or by import.
func (v *env) fillHint(set string) string {
	switch {
	case set != "":
		return "a set is measured on its machine and brought here with go run . import"
	case v.elsewhere != "":
		return fmt.Sprintf("measure it on %s; this machine's numbers: go run . build --here", v.elsewhere)
	}
	return "go run . build --here measures this machine's set"
}

// runHint is how a result of the build's set is measured: `go run . run
// ID` here, or on the set's machine.
func (v *env) runHint(id string) string {
	if v.elsewhere == "" {
		return fmt.Sprintf("`go run . run %s`", id)
	}
	return fmt.Sprintf("`go run . run %s` on %s, the set's machine (this machine's numbers: go run . build --here)", id, v.elsewhere)
}

// resolve is the set a name stands for: "" is the base, and the build's
// own set by its name is "".
func (v *env) resolve(set string) string {
	if set = cmp.Or(set, v.base); set == v.own {
		return ""
	}
	return set
}

// checkSet reports a set name that is neither a set present nor a
// machine of the book: a typo, with the closest name.
func (v *env) checkSet(name string) error {
	if v.sets == nil || slices.Contains(v.sets, name) {
		return nil
	}
	return fmt.Errorf("unknown result set %q%s; the sets are %s (a folder of results/, or a machine chapters/book.yaml's machines: names)",
		name, expr.DidYouMean(name, v.sets), strings.Join(v.sets, ", "))
}

// machineName is the short name a set's figures are labelled with: its
// machine's name (the set's folder), else the set's. set is as resolved
// ("" is the build's own).
func (v *env) machineName(set string, r *dataset.Result) string {
	if r != nil && r.Machine.Name != "" {
		return r.Machine.Name
	}
	return cmp.Or(set, v.own, v.w.ThisMachine)
}

func (v *env) experiment(id string) (*parse.Experiment, error) {
	x, ok := v.exps[id]
	if !ok {
		// The book's ids, sorted, only for the suggestion: a chapter
		// evaluated against a book of a thousand experiments must not
		// sort them all.
		ids := slices.Sorted(maps.Keys(v.exps))
		return nil, fmt.Errorf("unknown experiment %q%s", id, expr.DidYouMean(id, ids))
	}
	return x, nil
}

// lookup finds id's result in the set a chapter's name stands for.
func (v *env) lookup(set, id string) (*dataset.Result, bool) { return v.find(v.resolve(set), id) }

// find is lookup in a set already resolved ("" is the build's own: while
// a claim is decided on another machine, resolving it again would give
// that machine's).
func (v *env) find(set, id string) (*dataset.Result, bool) {
	if v.res == nil {
		return nil, false
	}
	if set != "" {
		v.drawn[set] = true
	}
	r, ok := v.res.Lookup(set, id)
	if ok && set == "" {
		v.measuredOwn = v.measuredOwn || r.Measured()
		v.transcribedOwn = v.transcribedOwn || !r.Measured()
	}
	return r, ok
}

// Metric implements expr.Env.
func (v *env) Metric(set, id, metric string) (*expr.Metric, error) {
	x, err := v.experiment(id)
	if err != nil {
		return nil, err
	}
	m, ok := x.Spec.Metric(metric)
	if !ok {
		return nil, fmt.Errorf("experiment %s (probe %s) has no metric %q%s", id, x.Probe, metric, expr.DidYouMean(metric, metricNames(x.Spec)))
	}
	r, ok := v.lookup(set, id)
	if !ok {
		return nil, fmt.Errorf("no result stored for experiment %s in %s", id, v.setName(set))
	}
	out := &expr.Metric{Unit: m.Unit, Labels: m.Labels, Resolution: m.Resolution, Params: x.Order}
	if len(r.Order) > 0 {
		out.Params = r.Order
	}
	// A count that only sizes a run's sample is no coordinate of a point:
	// counts sized per combination differ from row to row.
	out.Params = slices.DeleteFunc(slices.Clone(out.Params), func(k string) bool { return sizesOnly(x, k) })
	for _, row := range r.Rows {
		s, ok := dataset.Summarize(row, metric)
		if !ok {
			continue
		}
		params := resultParams(r, row.Params)
		maps.DeleteFunc(params, func(k, _ string) bool { return sizesOnly(x, k) })
		out.Samples = append(out.Samples, expr.Sample{Params: params, Median: s.Median, Min: s.Min, Max: s.Max, Runs: s.N})
	}
	if len(out.Samples) == 0 {
		return nil, fmt.Errorf("the result of %s in %s has no figures for metric %s", id, v.setName(set), metric)
	}
	return out, nil
}

// Param implements expr.Settings: a setting as the experiment's block
// declares it (the settings the page claims to have measured with; a
// result measured otherwise is stale and marked), except a count that
// only sizes a run's sample (sizesOnly), which is the one the set's result
// ran with: another set's, or a count given as auto, is its own.
func (v *env) Param(set, id, name string) (*expr.Param, error) {
	x, err := v.experiment(id)
	if err != nil {
		return nil, err
	}
	p, ok := x.Spec.Param(name)
	if !ok {
		return nil, fmt.Errorf("experiment %s (probe %s) has no param %q%s", id, x.Probe, name, expr.DidYouMean(name, x.Order))
	}
	vals := x.Sweep[name]
	if sizesOnly(x, name) {
		r, _ := v.lookup(set, id)
		if counts := dataset.Counts(r, name); len(counts) > 0 {
			vals = counts
		} else if probe.IsAuto(vals) {
			return nil, fmt.Errorf("experiment %s's %s is auto, sized per combination when it is measured, and %s has no result of it to say what it was", id, name, v.setName(set))
		}
	}
	return &expr.Param{Kind: p.Kind, Values: vals}, nil
}

// Machine implements expr.Settings: the fingerprint of the machine that
// measured the set, from its most recent result (the newest fingerprint;
// ties go to the first experiment id in sorted order, so that the same
// results always give the same answer).
func (v *env) Machine(set string) (expr.Machine, error) {
	var newest *dataset.Result
	for _, id := range sortedKeys(v.exps) {
		if r, ok := v.lookup(set, id); ok && (newest == nil || r.Start.After(newest.Start)) {
			newest = r
		}
	}
	if newest == nil {
		return expr.Machine{}, fmt.Errorf("no result stored in %s, so no machine to read", v.setName(set))
	}
	f := newest.Machine
	return expr.Machine{Name: f.Name, Cores: f.Cores, Memory: f.Memory, Virtual: f.Virtual, Transcribed: !newest.Measured(), OS: f.GOOS(), Limits: f.Limits}, nil
}

func (v *env) setName(set string) string {
	if set = v.resolve(set); set == "" {
		return "the build's result set"
	}
	return fmt.Sprintf("result set %q", set)
}

func metricNames(s probe.Spec) []string {
	var out []string
	for _, m := range s.Metrics {
		out = append(out, m.Name)
	}
	return out
}

// gap is a reference the page cannot show: the warning, of kind
// (parse.KindMissing, …), that says what is missing and what measures
// it, and the note the page shows in its place. unavailable is why the
// set's machine cannot measure it, for a gap of kind
// parse.KindUnavailable.
type gap struct {
	kind, msg, note, unavailable string
}

// missing returns the first reference of x whose experiment is known but
// whose result is not stored, or whose selector could pick a combination
// that failed; unknown experiments are left for Eval to report as errors.
func (v *env) missing(x *expr.Expr) (gap, bool) {
	for _, r := range x.Refs() {
		if g, miss := v.missingRef(r); miss {
			return g, true
		}
	}
	// A machine fact the set's fingerprint does not hold (a transcribed
	// set, or results older than the fact's record) is a gap too.
	for _, fact := range x.Facts() {
		f, err := v.Machine(fact.Set)
		if err != nil {
			// A set with no result at all (a machine that has measured
			// nothing yet) is a gap, not a mistake in the chapter.
			set := v.resolve(fact.Set)
			return gap{kind: parse.KindMissing, note: fmt.Sprintf(v.w.NoRecordFormat, v.machineName(set, nil), fact.Field),
				msg: fmt.Sprintf("machine.%s has no value: %s holds no result to read its machine from (%s)", fact.Field, v.setName(fact.Set), v.fillHint(set))}, true
		}
		if !expr.Recorded(f, fact.Field) && !expr.Condition(fact.Field) {
			return gap{kind: parse.KindMissing, note: fmt.Sprintf(v.w.NoRecordFormat, f.Name, fact.Field),
				msg: fmt.Sprintf("machine %s did not record machine.%s (a transcribed set, or results measured before it was recorded; measuring the set again records it)", f.Name, fact.Field)}, true
		}
	}
	return gap{}, false
}

// missingRef is missing for one reference, of an experiment known or not.
func (v *env) missingRef(r expr.Ref) (gap, bool) {
	x, known := v.exps[r.Experiment]
	if !known {
		return gap{}, false
	}
	set, id := v.resolve(r.Set), r.Experiment
	res, stored := v.find(set, id)
	if !stored {
		return gap{kind: parse.KindMissing, msg: missingMsg(set, id, v.runHint(id)), note: v.w.MissingNote(v.noteSet(set), id)}, true
	}
	for _, f := range res.Failures {
		if selects(r.Selector, f.Params) {
			what := "[" + f.Params.Key() + "]"
			msg := fmt.Sprintf("experiment %s failed for %s: %s; measure it again with %s", id, what, f.Err, v.runHint(id))
			if set != "" {
				msg = fmt.Sprintf("experiment %s failed for %s: %s in set %s (measured on that machine)", id, what, f.Err, set)
			}
			return gap{kind: parse.KindFailed, msg: msg, note: v.w.FailedNote(set, what, f.Err)}, true
		}
	}
	// A combination the machine cannot measure (kqueue on Linux) is
	// a result: a gap with its reason, whatever else is stored.
	for _, u := range res.Unavailable {
		if selects(r.Selector, u.Params) {
			what := "[" + u.Params.Key() + "]"
			note := v.w.UnavailableNote(u.Reason)
			if set != "" {
				note = v.w.FailedNote(set, what, "")
			}
			return gap{kind: parse.KindUnavailable, note: note, unavailable: u.Reason,
				msg: fmt.Sprintf("experiment %s has no figure for %s, which its machine cannot measure: %s", id, what, u.Reason)}, true
		}
	}
	// A stale result measured without a value the chapter now sweeps
	// has no figure for it: a gap until it is measured again, not an
	// error in the chapter.
	if why, stale := v.stale(set, id); stale {
		lacks := func(what, run string) gap {
			return gap{kind: parse.KindMissing, note: v.w.StaleLacksNote(what, why),
				msg: fmt.Sprintf("the stored result of experiment %s has no %s (%s): measure it again with %s", id, what, why, run)}
		}
		for _, sel := range r.Selector {
			if !slices.ContainsFunc(res.Sweep[sel.Key], func(have string) bool { return expr.ValueMatches(sel.Value, have) }) {
				return lacks(sel.Key+"="+sel.Value, v.runHint(id)), true
			}
		}
		// Nor has it a metric the probe has recorded only since.
		if !slices.ContainsFunc(res.Rows, func(row dataset.Row) bool { _, has := dataset.Summarize(row, r.Metric); return has }) {
			return lacks(r.Metric, fmt.Sprintf("`go run . run %s`", id)), true
		}
	}
	// A transcribed set holds the figures the original book reported,
	// not every combination and metric a chapter asks for: what it
	// lacks is a gap on the page, not an error in the chapter.
	if !res.Measured() && !holds(res, r, x, set == "") {
		in := set // "m1 ", or none for the build's
		if in != "" {
			in += " "
		}
		return gap{kind: parse.KindMissing, note: fmt.Sprintf(v.w.NotInOriginalFormat, refText(r)),
			msg: fmt.Sprintf("no result of experiment %s for %s: the transcribed set %sholds no such figure", id, refText(r), in)}, true
	}
	// An optional metric a selected combination does not have: the
	// expression has no value there, not a zero.
	if m, ok := x.Spec.Metric(r.Metric); ok && m.Optional != "" {
		for _, row := range res.Rows {
			if _, has := dataset.Summarize(row, r.Metric); !has && selects(r.Selector, row.Params) {
				what := "[" + row.Params.Key() + "]"
				return gap{kind: parse.KindNotApplicable, note: v.w.NotApplicable(what, m.Optional),
					msg: fmt.Sprintf("%s.%s does not apply to %s, so the expression has no value: %s", id, r.Metric, what, m.Optional)}, true
			}
		}
	}
	return gap{}, false
}

// holds reports whether res has a figure of r's metric in a row r's
// selector may pick and, when every combination counts (the build's own
// set is transcribed, so a growth over a sweep needs each point of the
// chapter's sweep), a figure for every combination of x it may pick.
func holds(res *dataset.Result, r expr.Ref, x *parse.Experiment, every bool) bool {
	var have []probe.Params
	for _, row := range res.Rows {
		if _, ok := dataset.Summarize(row, r.Metric); !ok {
			continue
		}
		if p := resultParams(res, row.Params); selects(r.Selector, p) {
			have = append(have, p)
		}
	}
	if len(have) == 0 {
		return false
	}
	if !every {
		return true
	}
	for _, c := range x.Combos {
		if !selects(r.Selector, c) {
			continue
		}
		// A transcribed set measured each point with counts of its own
		// (the original book's rounds and calls): those size its sample,
		// the point is the same.
		var want []expr.Sel
		for k, v := range c {
			if !sizesOnly(x, k) {
				want = append(want, expr.Sel{Key: k, Value: v})
			}
		}
		if !slices.ContainsFunc(have, func(p probe.Params) bool { return selects(want, p) }) {
			return false
		}
	}
	return true
}

// refText names a reference for a reader: experiment.metric, and the
// selector's params after it when it has any ("handoff.handoff (sleeping=0)").
func refText(r expr.Ref) string {
	var sel []string
	for _, s := range r.Selector {
		sel = append(sel, s.Key+"="+s.Value)
	}
	if len(sel) == 0 {
		return r.Experiment + "." + r.Metric
	}
	return r.Experiment + "." + r.Metric + " (" + strings.Join(sel, ", ") + ")"
}

// selects reports whether a selector may pick combination p: every key it
// names that p has carries p's value. A selector that leaves a param free
// (growth, slope, min over a sweep) needs every combination, failed ones too.
func selects(sel []expr.Sel, p probe.Params) bool {
	for _, s := range sel {
		if v, ok := p[s.Key]; ok && !expr.ValueMatches(s.Value, v) {
			return false
		}
	}
	return true
}

// missingMsg is the warning for a missing result of id in set: run
// (env.runHint) measures the build's own; another set's is imported.
func missingMsg(set, id, run string) string {
	if set != "" {
		return fmt.Sprintf("no result of experiment %s in set %q (results/%s/%s.txt; a set is measured on its machine and brought here with go run . import)", id, set, set, id)
	}
	return fmt.Sprintf("no result of experiment %s: measure it with %s", id, run)
}

// eval is one evaluation of a document: its environment, the page it
// fills, errors and warnings.
type eval struct {
	d    *parse.Doc
	p    *Page
	env  *env
	errs *parse.Errs
	warn *parse.Errs
}

// Evaluate evaluates every inline value, table, plot, claim and when block
// of d against res. experiments is every experiment of the whole book by
// id (references may cross chapters); d's own experiments are added to it
// when missing, and a nil map means d's experiments only. Errors (unknown
// id, metric or param value, an ambiguous selector, a unit mismatch, a
// format that does not fit) are *PosError, joined. The warnings are
// *PosError too: inconclusive conditions and claims, and figures whose
// result is not stored (rendered as a visible placeholder); they are the
// page's Warnings.
//
// Evaluate never changes d: it may be called again, with other results,
// and each call returns a page of its own. On an error the page is still
// returned, with the failing parts marked.
func Evaluate(d *parse.Doc, res Results, experiments map[string]*parse.Experiment) (*Page, error) {
	// The book's map as it is: copying it for every chapter made a book
	// of N chapters cost N² (a tenth of a 10,000-chapter build). Only a
	// chapter whose experiments it lacks (one rendered alone) gets a copy
	// with them added, the caller's map unchanged.
	exps, copied := experiments, false
	for _, x := range d.Experiments {
		if _, ok := exps[x.ID]; ok {
			continue
		}
		if !copied {
			exps, copied = maps.Clone(experiments), true
			if exps == nil {
				exps = map[string]*parse.Experiment{}
			}
		}
		exps[x.ID] = x
	}
	env := newEnv(res, exps)
	p := &Page{Views: view.NewPage(env.w)}
	ev := &eval{d: d, p: p, env: env, errs: d.Errs(), warn: d.Warned()}
	for _, v := range d.Values() {
		ev.value(v)
	}
	for _, dir := range d.Directives() {
		var v view.View
		switch {
		case dir.Exp != nil:
			v = ev.experiment(dir)
		case dir.Table != nil:
			v = ev.table(dir)
		case dir.Plot != nil:
			v = ev.plot(dir)
		case dir.Claim != nil:
			v = ev.claim(dir)
		case dir.When != nil:
			v = ev.when(dir)
		default:
			continue
		}
		p.Views.SetView(dir.Node, v)
	}
	p.Views.Transcribed = ev.env.transcribedOwn && !ev.env.measuredOwn
	p.Sets = sortedKeys(ev.env.drawn)
	p.Warnings = ev.warn.Sorted()
	return p, ev.errs.Err()
}

// value evaluates one inline value into its view on the page.
func (ev *eval) value(v *parse.InlineValue) {
	out := ev.inline(v)
	out.TitleInData = titleInData(ev.env.w, out)
	ev.p.Views.SetValue(v.Node, out)
}

// inline evaluates an inline value for display: the text, with a title
// giving its interval, runs and machine.
func (ev *eval) inline(v *parse.InlineValue) *view.Out {
	x, m := v.E, v.M
	if !ev.grounded(x, m, "{{ "+strings.TrimSpace(x.String())+" }}", true) || !ev.knownSets(x, m) {
		return &view.Out{State: view.Failed, Text: "{{" + x.String() + "}}", Title: "no measurement"}
	}
	if g, miss := ev.env.missing(x); miss {
		ev.warn.KindAt(g.kind, v.At, "%s", g.msg)
		return &view.Out{State: view.Missing, Text: view.NoFigure, Title: g.note}
	}
	val, err := x.Eval(ev.env)
	var text string
	if err == nil {
		ev.inconclusive(val, v.At)
		// A verdict shows as its word, a string as it is, a number in the
		// value's format.
		switch val.Kind {
		case expr.Bool:
			text = ev.env.w.Verdict(view.VerdictOf(val.Truth, ""))
		case expr.String:
			text = val.Str
		default:
			text, err = val.Format(x.Format())
		}
	}
	if err != nil {
		ev.errs.Expr(m, err)
		return &view.Out{State: view.Failed, Text: "{{" + x.String() + "}}", Title: err.Error()}
	}
	out := &view.Out{Text: text}
	ev.inlineProvenance(out, x, val)
	pooled, isPooled, thin, isThin := ev.tails(x)
	if isPooled {
		out.Title = strings.TrimPrefix(out.Title+" · "+ev.env.w.PooledNote(pooled), " · ")
	}
	if isThin {
		// The quantile's own figure carries the mark; a ratio made of it
		// and words chosen by ?: only the note.
		suffix, note := ev.env.w.ThinTail(thin)
		if val.Kind == expr.Number && !val.Ratio {
			out.Text += suffix
		}
		out.Title = strings.TrimPrefix(out.Title+" · "+note, " · ")
	}
	// Words chosen by ?: flow like prose; numbers never break.
	out.Words = val.Kind == expr.String
	return out
}

// inlineProvenance fills an inline value's hover and data: its interval
// and runs, the machines it draws on, the settings and fingerprints it
// names, and what is stale; out.Ref says whether any of it comes from
// another set than the build's own.
func (ev *eval) inlineProvenance(out *view.Out, x *expr.Expr, val expr.Value) {
	var title, machines []string
	ref, transcribed := false, false
	sets := ev.sets(x)
	for _, s := range sets {
		r, _ := ev.env.find(s.set, s.id)
		ref = ref || s.set != ""
		transcribed = transcribed || !r.Measured()
		machines = append(machines, ev.machineNote(s.set, r))
	}
	if len(sets) > 0 {
		out.Data = ev.provenanceData(sets)
	}
	if len(sets) > 1 {
		// Figures of several machines in one value: never silent.
		title = append(title, fmt.Sprintf(ev.env.w.MixedFormat, len(sets)))
	}
	stale := ev.staleNotes(x)
	if val.Runs > 0 {
		if r := rangeText(val); r != "" {
			title = append(title, r)
		}
		// A transcribed set holds one figure per combination: its "runs"
		// would count lines, not the original's runs.
		if !transcribed {
			title = append(title, ev.env.w.RunsOf(val.Runs, val.Runs))
		}
		if out.Data != nil && !transcribed {
			out.Data["range"], out.Data["runs"] = rangeText(val), fmt.Sprint(val.Runs)
		}
	}
	title = append(title, machines...)
	for _, p := range x.Params() {
		title = append(title, fmt.Sprintf(ev.env.w.SettingFormat, p.Experiment, p.Name))
	}
	fingerprints, factRef := ev.fingerprintNotes(x)
	title = append(title, fingerprints...)
	title = append(title, stale...)
	out.Ref, out.Stale = ref || factRef, len(stale) > 0
	out.Title = strings.Join(title, " · ")
}

// tails reports whether a figure an expression refers to is a quantile
// pooled over its runs (dataset.Row.Pool), and the fewest values pooled
// among the rows it selects; and whether one is a tail quantile taken
// from too few samples per run (see the table's thinTail), and the fewest
// samples per run among those rows.
func (ev *eval) tails(x *expr.Expr) (pooled int, isPooled bool, thin int, isThin bool) {
	for _, ref := range x.Refs() {
		r, ok := ev.env.lookup(ref.Set, ref.Experiment)
		if !ok {
			continue
		}
		e, known := ev.env.exps[ref.Experiment]
		var m probe.Metric
		if known {
			m, _ = e.Spec.Metric(ref.Metric)
		}
		for _, row := range r.Rows {
			if !selects(ref.Selector, row.Params) {
				continue
			}
			if p, has := row.Pool[ref.Metric]; has && (!isPooled || p.N < pooled) {
				pooled, isPooled = p.N, true
			}
			if n, t := thinTail(m, row); known && t && (!isThin || n < thin) {
				thin, isThin = n, true
			}
		}
	}
	return pooled, isPooled, thin, isThin
}

// staleNotes says, once each, why the results an expression refers to
// are stale.
func (ev *eval) staleNotes(x *expr.Expr) []string {
	var stale []string
	for _, r := range x.Refs() {
		if why, ok := ev.env.stale(ev.env.resolve(r.Set), r.Experiment); ok && !slices.Contains(stale, ev.env.w.StaleNote(why)) {
			stale = append(stale, ev.env.w.StaleNote(why))
		}
	}
	return stale
}

// fingerprintNotes names, once each, the machines whose facts an
// expression states; ref is whether any is another set than the build's.
func (ev *eval) fingerprintNotes(x *expr.Expr) (notes []string, ref bool) {
	for _, fact := range x.Facts() {
		if f, err := ev.env.Machine(fact.Set); err == nil && !slices.Contains(notes, fmt.Sprintf(ev.env.w.FingerprintFormat, f.Name)) {
			notes = append(notes, fmt.Sprintf(ev.env.w.FingerprintFormat, f.Name))
		}
		ref = ref || ev.env.resolve(fact.Set) != ""
	}
	return notes, ref
}

// machineNote names the machine a set (as resolved) draws its figures
// from; a transcribed set, or another machine's, says that its figures
// were not measured for this build.
func (ev *eval) machineNote(set string, r *dataset.Result) string {
	name := ev.env.machineName(set, r)
	if r.Machine.CPU != "" {
		name += " (" + r.Machine.CPU + ")"
	}
	if !r.Measured() {
		return fmt.Sprintf(ev.env.w.TranscribedFormat, name) + fmt.Sprintf(ev.env.w.NotHereFormat, r.Source)
	}
	if set != "" {
		return fmt.Sprintf(ev.env.w.OtherSetFormat, name, set)
	}
	return name
}

type setID struct{ set, id string }

// sets returns the distinct (set, experiment) pairs an expression draws
// on, one per set as resolved (the machine of a set is the same for all
// its results, so the first experiment stands for the set), in order of
// appearance.
func (ev *eval) sets(x *expr.Expr) []setID {
	var out []setID
	for _, r := range x.Refs() {
		set := ev.env.resolve(r.Set)
		if slices.ContainsFunc(out, func(s setID) bool { return s.set == set }) {
			continue
		}
		if _, ok := ev.env.find(set, r.Experiment); !ok {
			continue
		}
		out = append(out, setID{set, r.Experiment})
	}
	return out
}

// knownSets reports every set the expression names that is neither
// present nor a machine of the book, at the name: a typo must fail the
// build, not turn into a gap.
func (ev *eval) knownSets(x *expr.Expr, m parse.Offmap) bool {
	ok := true
	for _, s := range x.Sets() {
		if err := ev.env.checkSet(s.Name); err != nil {
			ev.errs.At(m(s.Off+1), "%v", err) // the name, inside its quotes
			ok = false
		}
	}
	return ok
}

// grounded reports whether an expression draws on the data: a measured
// result (or a reference set's), or, where settings may stand (inline
// values and when), a setting or a machine fact. {{ 5 * 3 }} and
// expect: 1 < 2 state nothing measured: an error at the expression.
func (ev *eval) grounded(x *expr.Expr, m parse.Offmap, what string, settings bool) bool {
	if len(x.Refs()) > 0 || settings && (len(x.Params()) > 0 || len(x.Facts()) > 0) {
		return true
	}
	if settings {
		ev.errs.At(m(0), "%s refers to nothing measured: use a result (ID.METRIC[…]), a setting (ID.param.NAME) or a machine fact (machine.FIELD), or write the text as prose", what)
	} else {
		ev.errs.At(m(0), "%s refers to no measured result: a claim must test a figure (ID.METRIC[…])", what)
	}
	return false
}

// inconclusive warns about every ?: without ~ whose condition the runs
// left undecided: the sentence took its else branch on a coin toss.
func (ev *eval) inconclusive(val expr.Value, at int) {
	for _, c := range val.Inconclusive {
		ev.warn.KindAt(parse.KindInconclusive, at, "inconclusive condition %s: the runs disagree, so the else branch was taken; add an unsure branch (COND ? A : B ~ UNSURE)", c)
	}
}

// condition evaluates a claim's or when's condition. ok is false after an
// error; a missing result gives Unknown and the gap, with the warning
// already made.
func (ev *eval) condition(what string, x *expr.Expr, m parse.Offmap) (val expr.Value, missing *gap, ok bool) {
	field := map[string]string{"when": "when's if", "unless": "when's unless", "claim": "claim's expect"}[what]
	if !ev.grounded(x, m, field+" "+strings.TrimSpace(x.String()), what != "claim") || !ev.knownSets(x, m) {
		return val, nil, false
	}
	if g, miss := ev.env.missing(x); miss {
		verb := "not decided"
		if g.kind == parse.KindUnavailable && what == "claim" {
			verb = "does not apply"
		}
		ev.warn.KindAt(g.kind, m(0), "%s %s: %s", what, verb, g.msg)
		return expr.Value{Kind: expr.Bool, Truth: expr.Unknown}, &g, true
	}
	val, err := x.Eval(ev.env)
	if err != nil {
		ev.errs.Expr(m, err)
		return val, nil, false
	}
	if val.Kind != expr.Bool {
		ev.errs.At(m(0), "%s wants a condition (a comparison such as a < b), got %s", what, val.Describe())
		return val, nil, false
	}
	ev.inconclusive(val, m(0))
	return val, nil, true
}

func (ev *eval) claim(dir *parse.Directive) view.View {
	c := dir.Claim
	text := ev.sub(c.Text, true)
	plain := ev.p.plain(text)
	cl := Claim{Pos: ev.d.Pos(dir.Off), Text: plain, Expect: c.Src, Basis: c.Basis}
	var sets []string
	setsOK := true
	if c.Machines != nil {
		sets, setsOK = ev.machineSets(c.Machines)
	}
	own, ok := ev.decide(dir, plain)
	if !ok || !setsOK {
		return &view.Error{Msg: "claim could not be evaluated: " + c.Src}
	}
	cl.Verdict, cl.Explain, cl.Unavailable = own.Verdict, own.Explain, own.Unavailable
	out := &view.Claim{Verdict: cl.Verdict, Text: text, Expect: c.Src, Explain: cl.Explain, Rule: c.Basis == "rule", Unavailable: cl.Unavailable}
	for _, s := range ev.sets(c.Expect) {
		r, _ := ev.env.find(s.set, s.id)
		cl.Machines = append(cl.Machines, ev.env.machineName(s.set, r))
		if s.set != "" {
			out.Machines = cl.Machines // named on the page: not the build's own alone
		}
	}
	if c.Machines != nil {
		own.Machine = ev.env.machineName("", nil)
		cl.On = ev.claimOn(dir, plain, own, sets[1:])
		out.On = cl.On
	}
	ev.p.Claims = append(ev.p.Claims, cl)
	return out
}

// decide decides a claim against ev's environment: its verdict and the
// values it was decided on, or the gap that leaves it open. ok is false
// after an error.
func (ev *eval) decide(dir *parse.Directive, plain string) (v view.MachineVerdict, ok bool) {
	c := dir.Claim
	val, missing, ok := ev.condition("claim", c.Expect, c.M)
	if !ok {
		return v, false
	}
	v = view.MachineVerdict{Verdict: val.Truth}
	if missing != nil {
		// A claim about what the machine cannot measure (kqueue on
		// Linux) does not apply to it: neither held nor undecided.
		v.Explain, v.Unavailable = missing.note, missing.unavailable
		return v, true
	}
	v.Explain = c.Expect.Explain(ev.env)
	if v.Verdict == expr.Unknown {
		ev.warn.KindAt(parse.KindInconclusiveClaim, dir.Off, "claim inconclusive (the runs disagree): %s: %s", plain, v.Explain)
	}
	return v, true
}

// when shows the branch its condition picks. Every branch is evaluated, so
// an error in one this machine does not take is still reported; but only
// the branch shown warns about its gaps: a branch about kqueue, not taken
// on Linux, has no figures there and shows none.
func (ev *eval) when(dir *parse.Directive) view.View {
	w := dir.When
	skip := false
	if w.Unless != nil {
		u, missing, ok := ev.condition("unless", w.Unless, w.UM)
		if !ok {
			return &view.Error{Msg: "when could not be evaluated: unless " + strings.TrimSpace(w.Unless.String())}
		}
		// The block does not apply to this set (a comparison with M1 on
		// M1's own page): left out, its mistakes found all the same.
		skip = missing == nil && u.Truth == expr.True
	}
	warn := ev.warn
	if skip {
		ev.warn = ev.d.Errs()
	}
	val, missing, ok := ev.condition("when", w.Cond, w.M)
	ev.warn = warn
	branch := "else"
	switch {
	case skip:
		branch = "none"
	case !ok:
		branch = ""
	case missing != nil:
		branch = "missing"
	case val.Truth == expr.True:
		branch = "then"
	case val.Truth == expr.Unknown && w.Unsure != nil:
		branch = "unsure"
	case val.Truth == expr.Unknown:
		ev.warn.KindAt(parse.KindInconclusive, w.M(0), "inconclusive condition %s: the runs disagree, so the else branch was shown; add an unsure: branch", w.Cond.Explain(ev.env))
	}
	body := map[string]*view.Fragment{}
	subs := map[string]*parse.Subdoc{"then": w.Then, "else": w.Else, "unsure": w.Unsure}
	for _, name := range []string{"then", "else", "unsure"} { // a fixed order: the errors' order
		if s := subs[name]; s != nil {
			body[name] = ev.subShown(s, name == branch)
		}
	}
	switch branch {
	case "none":
		return &view.When{}
	case "":
		return &view.Error{Msg: "when could not be evaluated: " + w.Src}
	case "missing":
		// No data decides it: a gap, never a branch stated as fact.
		return &view.When{Missing: missing.note}
	}
	return &view.When{Body: body[branch]}
}

// subShown is sub for a fragment that may not be shown: its errors are
// reported all the same, its warnings only when it is shown.
func (ev *eval) subShown(s *parse.Subdoc, shown bool) *view.Fragment {
	if !shown {
		warn := ev.warn
		ev.warn = ev.d.Errs()
		defer func() { ev.warn = warn }()
	}
	return ev.sub(s, false)
}

// sub evaluates the values of a Markdown field; the fragment is rendered
// with the page. inline drops the paragraph around a one-paragraph text.
func (ev *eval) sub(s *parse.Subdoc, inline bool) *view.Fragment {
	for _, v := range s.Values {
		ev.value(v)
	}
	return &view.Fragment{Source: s.Src, Root: s.Root, Inline: inline}
}
