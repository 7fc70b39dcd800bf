package evaluate

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/view"
)

// rowIndex indexes a result's rows, failures and the combinations its
// machine cannot measure by their params' Key, leaving out the fixed
// params that only size a run's sample (sizesOnly): another set's figure
// measured with other rounds or calls is the same point's. A param the
// result does not record (a transcribed set's, older than the param) is
// left out too, as a selector leaves it free (selects).
type rowIndex struct {
	x           *parse.Experiment
	known       map[string]bool // the params the result records
	rows        map[string]dataset.Row
	failures    map[string]string
	unavailable map[string]string
}

func indexRows(r *dataset.Result, x *parse.Experiment) rowIndex {
	ix := rowIndex{x: x, known: map[string]bool{}, rows: map[string]dataset.Row{}, failures: map[string]string{}, unavailable: map[string]string{}}
	for k := range r.Sweep {
		ix.known[k] = true
	}
	for _, row := range r.Rows {
		for k := range row.Params {
			ix.known[k] = true
		}
	}
	for _, row := range r.Rows {
		ix.rows[ix.key(row.Params)] = row
	}
	for _, f := range r.Failures {
		ix.failures[ix.key(f.Params)] = f.Err
	}
	for _, u := range r.Unavailable {
		ix.unavailable[ix.key(u.Params)] = u.Reason
	}
	return ix
}

// key is p's Key without the params that only size its sample or that
// the result does not record.
func (ix rowIndex) key(p probe.Params) string {
	point := maps.Clone(p)
	maps.DeleteFunc(point, func(k, _ string) bool { return !ix.known[k] || sizesOnly(ix.x, k) })
	return point.Key()
}

// sizesOnly reports whether x's param k only sizes a run's sample
// (probe.Param.Sample) and is fixed in x: a count of rounds or calls a
// chapter sweeps picks points of its own.
func sizesOnly(x *parse.Experiment, k string) bool {
	prm, _ := x.Spec.Param(k)
	return prm.Sample && len(x.Sweep[k]) <= 1
}

// thinTail reports whether metric m of row is a tail quantile taken from
// too few samples (probe.Metric.ThinTail), and how many: every run's
// pooled, when the row pooled them, else the count one run ran with.
func thinTail(m probe.Metric, row dataset.Row) (int, bool) {
	if p, ok := row.Pool[m.Name]; ok {
		return p.N, m.ThinTail(p.N)
	}
	n, err := strconv.Atoi(row.Params[m.Samples])
	return n, m.Samples != "" && err == nil && m.ThinTail(n)
}

// fixedParams is the line of x's params that take one value, "rounds=2,000,
// …": the chapter's value, except for a count that only sizes a run's
// sample (sizesOnly), which is the one r ran with (nil: no result), since
// another set's copy, or a count given as auto, ran with counts of its
// own; a count r does not record (a transcribed set's) is left out.
func fixedParams(w *view.Words, x *parse.Experiment, r *dataset.Result) string {
	var fixed []string
	for _, name := range x.Order {
		if len(x.Sweep[name]) != 1 {
			continue
		}
		// A transcribed set may have run with other values than the
		// chapter asks for: the line says what the result ran with.
		value := x.Sweep[name][0]
		if r != nil && len(r.Sweep[name]) == 1 {
			value = r.Sweep[name][0]
		}
		text := paramText(x.Spec, name, value, x.Labels)
		if sizesOnly(x, name) {
			counts := dataset.Counts(r, name)
			switch {
			case len(counts) == 0 && probe.IsAuto(x.Sweep[name]):
				text = w.SizedCount
			case len(counts) == 0:
				continue
			case len(counts) == 1:
				text = paramText(x.Spec, name, counts[0], x.Labels)
			default:
				text = paramText(x.Spec, name, counts[0], x.Labels) + "–" + paramText(x.Spec, name, counts[len(counts)-1], x.Labels)
			}
		}
		fixed = append(fixed, label(x.Labels, name)+"="+text)
	}
	return strings.Join(fixed, ", ")
}

// unavailableReasons are the distinct reasons r's machine gives for the
// combinations it cannot measure, in order, for a provenance line.
func unavailableReasons(w *view.Words, r *dataset.Result) string {
	var reasons []string
	for _, u := range r.Unavailable {
		if !slices.Contains(reasons, u.Reason) {
			reasons = append(reasons, u.Reason)
		}
	}
	if len(reasons) == 0 {
		return ""
	}
	return w.UnavailableNote(strings.Join(reasons, "; "))
}

// cell shows one metric of one combination: see figureCell.
func (ix rowIndex) cell(w *view.Words, p probe.Params, m probe.Metric, format string, labels map[string]string) (view.Cell, error) {
	key := ix.key(p)
	row, ok := ix.rows[key]
	return figureCell(w, row, ok, ix.failures[key], ix.unavailable[key], m, format, labels)
}

// figureCell shows one metric of a row: the median in the metric's
// default format (or format), with "min–max, N회 실행" on hover; or, when
// the row is not found, that it failed (failed says why), that its
// machine cannot measure it (unavailable says why) or that it was not
// measured. A code shown by its name takes the directive's label for that
// name, if any.
func figureCell(w *view.Words, row dataset.Row, found bool, failed, unavailable string, m probe.Metric, format string, labels map[string]string) (view.Cell, error) {
	if !found {
		if failed != "" {
			return view.Cell{Text: w.FailedCell, Title: failed, Gap: view.GapFailed}, nil
		}
		if unavailable != "" {
			return view.Cell{Text: view.NoFigure, Title: w.UnavailableNote(unavailable), Gap: view.GapMissing}, nil
		}
		return view.Cell{Text: view.NoFigure, Title: w.NotMeasured, Gap: view.GapMissing}, nil
	}
	s, ok := dataset.Summarize(row, m.Name)
	if !ok {
		why := w.NoSuchMetric
		if m.Optional != "" {
			why = w.NotApplicable("", m.Optional)
		}
		return view.Cell{Text: view.NoFigure, Title: why, Gap: view.GapMissing}, nil
	}
	// The same Value a reference to this cell would evaluate to, so a
	// table and an inline value show a figure alike.
	v, err := expr.FromSample(&expr.Metric{Unit: m.Unit, Labels: m.Labels}, expr.Sample{Median: s.Median, Min: s.Min, Max: s.Max, Runs: s.N})
	if err != nil {
		return view.Cell{}, err
	}
	if format == "" && len(m.Labels) > 0 {
		format = "label"
	}
	text, err := v.Format(format)
	if err != nil {
		return view.Cell{}, err
	}
	title := w.RunsOf(s.N, s.N)
	if r := rangeText(v); r != "" && format != "label" {
		title = r + ", " + title
	}
	if p, ok := row.Pool[m.Name]; ok {
		title += ", " + w.PooledNote(p.N)
	}
	if n, thin := thinTail(m, row); thin {
		suffix, note := w.ThinTail(n)
		text, title = text+suffix, title+", "+note
	}
	if format == "label" {
		text = label(labels, text)
	}
	return view.Cell{Text: text, Title: title, Number: true}, nil
}

// rerun is how experiment x is measured, as its chapter says, for a
// reader to measure it again; book is the set the page's figures come
// from.
func rerun(x *parse.Experiment, book string) view.Rerun {
	rr := view.Rerun{Probe: x.Probe, Method: x.Spec.Doc, Runs: x.Runs, Precision: x.Precision, BookSet: book}
	for _, name := range x.Order {
		p, _ := x.Spec.Param(name)
		rr.Params = append(rr.Params, view.RerunParam{Name: name, Values: strings.Join(x.Sweep[name], ", "), Doc: p.Doc})
	}
	return rr
}

// experiment renders an experiment directive: every combination × metric,
// and the provenance line.
func (ev *eval) experiment(dir *parse.Directive) view.View {
	x := dir.Exp
	out := &view.Experiment{ID: x.ID, Hidden: x.Show == "none"}
	r, ok := ev.env.lookup("", x.ID)
	out.Fixed = fixedParams(ev.env.w, x, r)
	out.Rerun = rerun(x, ev.env.own)
	if ok && out.Rerun.Runs == 0 && out.Rerun.Precision == 0 && r.Stop.Auto {
		out.Rerun.Precision = r.Stop.Precision // the book's, as the result was measured
	}
	if !ok {
		out.Missing = ev.env.w.MissingNote(ev.env.noteSet(""), x.ID)
		if !out.Hidden {
			ev.warn.KindAt(parse.KindMissing, dir.Off, "%s", missingMsg("", x.ID, ev.env.runHint(x.ID)))
		}
		return out
	}
	why, stale := ev.env.stale("", x.ID)
	if stale {
		ev.warn.KindAt(parse.KindStale, dir.Off, "experiment %s is stale (%s): its figures are shown, marked; measure it again with %s", x.ID, why, ev.env.runHint(x.ID))
	}
	out.Provenance = provenance(ev.env.w, r, x.Spec.Metrics, func(s string) string { return label(x.Labels, s) }, why)
	out.SpreadNote = ev.env.w.SpreadNote
	out.Measured = r.Measured()
	if out.Hidden {
		return out
	}
	t, err := ev.experimentTable(dir, r)
	if err != nil {
		return err
	}
	for _, f := range r.Failures {
		ev.warn.KindAt(parse.KindFailed, dir.Off, "experiment %s: combination [%s] failed: %s", x.ID, f.Params.Key(), f.Err)
	}
	out.Table = t
	return out
}

// experimentTable is an experiment's own table, a row per combination;
// a metric that cannot be shown is reported and its error view returned.
func (ev *eval) experimentTable(dir *parse.Directive, r *dataset.Result) (*view.Table, *view.Error) {
	x := dir.Exp
	t, swept, sized := ev.experimentHead(x, r)
	ix := indexRows(r, x)
	for _, c := range x.Combos {
		var row []view.Cell
		for _, name := range swept {
			row = append(row, view.Cell{Text: paramText(x.Spec, name, c[name], x.Labels), Head: true})
		}
		for _, name := range sized {
			cell := view.Cell{Text: view.NoFigure, Title: ev.env.w.NotMeasured, Gap: view.GapMissing}
			if found, ok := ix.rows[ix.key(c)]; ok {
				cell = view.Cell{Text: paramText(x.Spec, name, found.Params[name], x.Labels), Number: true}
			}
			row = append(row, cell)
		}
		for _, m := range x.Spec.Metrics {
			cell, err := ix.cell(ev.env.w, c, m, "", x.Labels)
			if err != nil {
				ev.errs.At(dir.Off, "experiment %s, metric %s: %v", x.ID, m.Name, err)
				return nil, &view.Error{Msg: err.Error()}
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// experimentHead is the head row of an experiment's table: a column per
// swept param, per count sized per combination that differs from row to
// row (what each row ran with), and per metric.
func (ev *eval) experimentHead(x *parse.Experiment, r *dataset.Result) (t *view.Table, swept, sized []string) {
	t = &view.Table{Caption: x.Caption}
	for _, name := range x.Order {
		if len(x.Sweep[name]) > 1 {
			swept = append(swept, name)
			t.Head = append(t.Head, view.Cell{Text: label(x.Labels, name), Head: true, Title: paramDoc(ev.env.w, x.Spec, name)})
		}
	}
	for _, name := range x.Order {
		if sizesOnly(x, name) && len(dataset.Counts(r, name)) > 1 {
			sized = append(sized, name)
			t.Head = append(t.Head, view.Cell{Text: label(x.Labels, name), Head: true, Title: paramDoc(ev.env.w, x.Spec, name), Number: true})
		}
	}
	for _, m := range x.Spec.Metrics {
		head := view.Cell{Text: label(x.Labels, m.Name), Head: true, Title: ev.env.w.HeadTitle(m.Doc), Number: true}
		// A metric named like a swept param ("goroutines": asked for and
		// counted) would head a second column of the same words.
		for i := range swept {
			if t.Head[i].Text == head.Text {
				t.Head[i].Text, head.Text = fmt.Sprintf(ev.env.w.SettingHeadFmt, head.Text), fmt.Sprintf(ev.env.w.MeasuredHdFmt, head.Text)
			}
		}
		t.Head = append(t.Head, head)
	}
	return t, swept, sized
}

func paramDoc(w *view.Words, s probe.Spec, name string) string {
	p, _ := s.Param(name)
	return w.HeadTitle(p.Doc)
}

// provenance is the line under an experiment: who measured, when, how
// often (the runs stored, not the runs asked for) and how much the runs of
// each metric spread (see spreads), and a mark when the result is stale.
func provenance(w *view.Words, r *dataset.Result, metrics []probe.Metric, name func(string) string, stale string) string {
	machine := r.Machine.Name
	if sum := w.MachineSummary(r.Machine); sum != "" {
		machine += " (" + sum + ")"
	}
	parts := []string{w.MeasuredMark, machine}
	if !r.Measured() {
		parts[0] = w.TranscribedMark
	}
	if !r.Start.IsZero() {
		parts = append(parts, r.Start.UTC().Format("2006-01-02"))
	}
	if s := runsText(w, r); s != "" {
		parts = append(parts, s)
	}
	if s := spreads(w, r, metrics, name); s != "" {
		parts = append(parts, fmt.Sprintf(w.SpreadFormat, s))
	}
	if n := len(r.Failures); n > 0 {
		parts = append(parts, w.Failures.Of(n))
	}
	if s := unavailableReasons(w, r); s != "" {
		parts = append(parts, s)
	}
	if stale != "" {
		parts = append(parts, w.StaleNote(stale))
	}
	if !r.Measured() {
		parts = append(parts, r.Source)
	}
	return strings.Join(parts, " · ")
}

// spreads is the spread of each metric shown, "ready_read ±13%, sndbuf
// ±2%": half the widest (max−min)/median over the combinations with two
// runs or more. A count whose median is below 1 (0 or 0.002 context
// switches per read) has no meaningful relative spread and is left out,
// so a near-zero count never stands for the experiment; so are codes
// (metrics with labels). Metrics whose runs agree exactly are named
// together at the end ("그 밖은 실행마다 같음").
func spreads(w *view.Words, r *dataset.Result, metrics []probe.Metric, name func(string) string) string {
	var out []string
	same := false
	for _, m := range metrics {
		if len(m.Labels) > 0 {
			continue
		}
		worst, any := 0.0, false
		for _, row := range r.Rows {
			s, ok := dataset.Summarize(row, m.Name)
			if !ok || s.N < 2 || s.Median == 0 || m.Unit == probe.Count && math.Abs(s.Median) < 1 {
				continue
			}
			worst, any = math.Max(worst, (s.Max-s.Min)/math.Abs(s.Median)), true
		}
		switch {
		case !any:
		case worst == 0:
			same = true
		case worst/2 < 0.0005:
			out = append(out, fmt.Sprintf(w.BelowTenthFormat, name(m.Name)))
		default:
			out = append(out, name(m.Name)+" ±"+percent(worst/2))
		}
	}
	switch {
	case same && len(out) == 0:
		return w.SameEachRun
	case same:
		out = append(out, w.RestSameEachRun)
	}
	return strings.Join(out, ", ")
}

// shortProvenance is the line under a table or plot: machine, date, runs
// stored, and a mark when the result is stale.
func shortProvenance(w *view.Words, r *dataset.Result, stale string) string {
	parts := []string{"✅ " + r.Machine.Name}
	if !r.Measured() {
		parts[0] = fmt.Sprintf(w.TranscribedMachine, r.Machine.Name)
	}
	if !r.Start.IsZero() {
		parts = append(parts, r.Start.UTC().Format("2006-01-02"))
	}
	if s := runsText(w, r); s != "" {
		parts = append(parts, s)
	}
	if stale != "" {
		parts = append(parts, w.StaleNote(stale))
	}
	return strings.Join(parts, " · ")
}

// runsText counts the runs stored, not the header's: a transcribed set
// holds one figure per combination, so its runs are what its source says.
// Under runs: auto it adds the widest 95 % interval of a headline
// median, and says so when that missed the precision asked.
func runsText(w *view.Words, r *dataset.Result) string {
	lo, hi := r.StoredRuns()
	if !r.Measured() || hi == 0 {
		return ""
	}
	s := w.RunsOf(lo, hi)
	if st := r.Stop; st.Auto {
		interval := ""
		if !math.IsInf(st.Interval, 0) {
			interval = strings.TrimSuffix(percent(st.Interval), "%")
		}
		s += w.Interval(interval, st.Reached(), 100*st.Precision, st.Why)
	}
	return s
}

// percent formats a fraction: one decimal below 10%, none above.
func percent(f float64) string {
	p := f * 100
	if p < 10 {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", p), ".0") + "%"
	}
	return fmt.Sprintf("%.0f%%", math.Round(p))
}

// freeParam is a directive field naming a param left free (rows, cols,
// x, series), in the order the fields are suggested in messages.
type freeParam struct{ field, param string }

// selectFrom resolves the free params and where against experiment x.
// Every other param must have one value: it returns those params, pinned
// to their values, or nil after reporting an error.
func (ev *eval) selectFrom(dir *parse.Directive, x *parse.Experiment, where map[string]string, free []freeParam) probe.Params {
	ok := true
	isFree := map[string]string{}
	var fields []string
	for _, f := range free {
		fields = append(fields, f.field)
		if f.param == "" {
			continue
		}
		if _, known := x.Spec.Param(f.param); !known {
			ev.errs.At(dir.At[f.field], "experiment %s (probe %s) has no param %q%s", x.ID, x.Probe, f.param, expr.DidYouMean(f.param, x.Order))
			ok = false
			continue
		}
		isFree[f.param] = f.field
	}
	pins := probe.Params{}
	for _, name := range sortedKeys(where) {
		prm, known := x.Spec.Param(name)
		if !known {
			ev.errs.At(dir.At["where."+name], "experiment %s (probe %s) has no param %q%s", x.ID, x.Probe, name, expr.DidYouMean(name, x.Order))
			ok = false
			continue
		}
		pins[name] = where[name] // even when wrong: it is not left free
		if field, dup := isFree[name]; dup {
			ev.errs.At(dir.At["where."+name], "where pins %s, which is already %s", name, field)
			ok = false
			continue
		}
		c, err := probe.Canonical(prm, where[name])
		if err != nil {
			ev.errs.At(dir.At["where="+name], "%v", err)
			ok = false
			continue
		}
		if !slices.Contains(x.Sweep[name], c) {
			ev.errs.At(dir.At["where="+name], "experiment %s does not measure %s=%s (it measures %s)", x.ID, name, c, strings.Join(x.Sweep[name], ", "))
			ok = false
			continue
		}
		pins[name] = c
	}
	if !ok {
		// Do not go on to blame params that a misspelt field would have
		// covered.
		return nil
	}
	for _, name := range x.Order {
		_, free := isFree[name]
		if _, pinned := pins[name]; free || pinned {
			continue
		}
		vals := x.Sweep[name]
		if len(vals) != 1 {
			ev.errs.At(dir.Off, "%s from %s: param %s takes %d values (%s); make it %s, or pin it with where: {%s: %s}",
				dir.Node.Name, x.ID, name, len(vals), strings.Join(vals, ", "), strings.Join(fields, " or "), name, vals[0])
			ok = false
			continue
		}
		pins[name] = vals[0]
	}
	if !ok {
		return nil
	}
	return pins
}

// table renders a table directive: rows × cols of one metric.
func (ev *eval) table(dir *parse.Directive) view.View {
	t := dir.Table
	fail := &view.Error{Msg: "table could not be evaluated"}
	if t.Rows != "" && t.Rows == t.Cols {
		ev.errs.At(dir.At["cols"], "rows and cols are both %s", t.Rows)
		return fail
	}
	x, err := ev.env.experiment(t.From)
	if err != nil {
		ev.errs.At(dir.At["from"], "%v", err)
		return fail
	}
	m, mok := x.Spec.Metric(t.Value)
	if !mok {
		ev.errs.At(dir.At["value"], "experiment %s (probe %s) has no metric %q%s", x.ID, x.Probe, t.Value, expr.DidYouMean(t.Value, metricNames(x.Spec)))
	}
	pins := ev.selectFrom(dir, x, t.Where, []freeParam{{"rows", t.Rows}, {"cols", t.Cols}})
	if pins == nil || !mok {
		return fail
	}
	if t.Machines != nil {
		return ev.machinesTable(dir, x, m, pins)
	}
	return ev.ownTable(dir, x, m, pins)
}

// ownTable is a table of the build's own set: a row per value of rows
// and a column per value of cols, from the chapter's sweep.
func (ev *eval) ownTable(dir *parse.Directive, x *parse.Experiment, m probe.Metric, pins probe.Params) view.View {
	t := dir.Table
	dir.CheckLabels(t.Labels, x, ev.errs)
	r, _ := ev.env.lookup("", x.ID)
	if r == nil {
		ev.warn.KindAt(parse.KindMissing, dir.Off, "%s", missingMsg("", x.ID, ev.env.runHint(x.ID)))
		return &view.TableView{Missing: ev.env.w.MissingNote(ev.env.noteSet(""), x.ID)}
	}
	rowVals, colVals := []string{""}, []string{""}
	if t.Rows != "" {
		rowVals = x.Sweep[t.Rows]
	}
	if t.Cols != "" {
		colVals = x.Sweep[t.Cols]
	}
	tab := &view.Table{Caption: t.Caption, Head: corner(t)}
	for _, c := range colVals {
		name := paramText(x.Spec, t.Cols, c, t.Labels)
		if t.Cols == "" {
			name = label(t.Labels, m.Name)
		}
		tab.Head = append(tab.Head, view.Cell{Text: name, Head: true, Title: ev.env.w.HeadTitle(m.Doc), Number: true})
	}
	ix := indexRows(r, x)
	for _, rv := range rowVals {
		var row []view.Cell
		if t.Rows != "" {
			row = append(row, view.Cell{Text: paramText(x.Spec, t.Rows, rv, t.Labels), Head: true})
		}
		for _, cv := range colVals {
			p := maps.Clone(pins)
			if t.Rows != "" {
				p[t.Rows] = rv
			}
			if t.Cols != "" {
				p[t.Cols] = cv
			}
			cell, err := ix.cell(ev.env.w, p, m, t.Format, t.Labels)
			if err != nil {
				ev.errs.At(cmp.Or(dir.At["format"], dir.Off), "%v", err)
				return &view.Error{Msg: err.Error()}
			}
			row = append(row, cell)
		}
		tab.Rows = append(tab.Rows, row)
	}
	why, _ := ev.env.stale("", x.ID)
	return &view.TableView{Table: tab, Provenance: shortProvenance(ev.env.w, r, why)}
}

// corner is the head cell over a table's rows, naming its rows param (and
// cols); none without rows.
func corner(t *parse.TableDir) []view.Cell {
	if t.Rows == "" {
		return nil
	}
	text := label(t.Labels, t.Rows)
	if t.Cols != "" {
		text += " \\ " + label(t.Labels, t.Cols)
	}
	return []view.Cell{{Text: text, Head: true}}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// rangeText is a number's run interval, "298–1,207 ns", or "" when its
// ends read the same (one run, or runs that agree to 3 digits).
func rangeText(v expr.Value) string {
	if v.Kind != expr.Number || v.Lo == v.Hi {
		return ""
	}
	lo, hi := v, v
	lo.Num, lo.Hi = v.Lo, v.Lo
	hi.Num, hi.Lo = v.Hi, v.Hi
	a, err1 := lo.Format("")
	b, err2 := hi.Format("")
	if err1 != nil || err2 != nil || a == b {
		return ""
	}
	r, _ := v.Format("range") // "" when it fails
	return r
}

// paramText shows value v of param name as prose would: by its label if
// it has one, a whole number grouped ("4,000"), anything else as written.
func paramText(s probe.Spec, name, v string, labels map[string]string) string {
	p, _ := s.Param(name)
	return paramValue(p, v, labels)
}

// paramValue is paramText's value of param p.
func paramValue(p probe.Param, v string, labels map[string]string) string {
	if l, ok := labels[v]; ok {
		return l
	}
	if p.Kind == probe.Int {
		return view.Grouped(v)
	}
	return v
}

// label is name's label, or name itself (parse refuses an empty label).
func label(labels map[string]string, name string) string { return cmp.Or(labels[name], name) }
