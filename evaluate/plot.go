package evaluate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/parse"
	"measuredbook/plotsvg"
	"measuredbook/probe"
	"measuredbook/view"
)

// scale is a display unit: values in base units are divided by div.
type scale struct {
	unit string
	div  float64
}

// pickScale chooses the display unit in which a typical magnitude of a
// plot's values reads between 1 and 1000 (1024 for sizes), so an axis
// says "round (μs)" with ticks 10, 100 rather than 1e-5, 1e-4. On a
// linear axis the typical magnitude is the largest; on a log axis, which
// may span decades, it is the geometric middle of the range.
func pickScale(u probe.Unit, vals []float64, log bool) scale {
	largest, smallest := 0.0, math.Inf(1)
	for _, v := range vals {
		v = math.Abs(v)
		largest = math.Max(largest, v)
		if v > 0 {
			smallest = math.Min(smallest, v)
		}
	}
	if log && largest > 0 {
		largest = math.Sqrt(largest * smallest)
	}
	name, size := expr.DisplayUnit(u, largest)
	return scale{name, size}
}

func (s scale) label(name string) string {
	if s.unit == "" {
		return name
	}
	return name + " (" + s.unit + ")"
}

// xValue converts a param's canonical value to a number on the x axis, in
// base units (seconds for durations).
func xValue(p probe.Param, v string) (float64, error) {
	switch p.Kind {
	case probe.Int, probe.Float:
		return strconv.ParseFloat(v, 64)
	case probe.Duration:
		d, err := time.ParseDuration(v)
		return d.Seconds(), err
	}
	return 0, fmt.Errorf("not a number")
}

// rawPoint is a point in base units, before scaling; fig is the figure
// it shows (its y, or a distribution's x) over the runs, and at what the
// point is at: the x param's value, or a distribution's quantile metric.
type rawPoint struct {
	x, y, lo, hi float64
	fig          expr.Sample
	at           string
}

type rawSeries struct {
	name   string
	set    string // the machine's set, as resolved
	dashed bool
	points []rawPoint
}

// plot builds a plotsvg.Plot from a plot directive: one series per value
// of the series param (one series without it), points at the medians with
// the min–max over the runs; with ref: the reference set's points as
// dashed series beside them, and with machines: every machine's series,
// each labelled with its machine, another machine's dashed; a
// distribution plot's curves are cdf's.
func (ev *eval) plot(dir *parse.Directive) view.View {
	p := dir.Plot
	fail := &view.Error{Msg: "plot could not be evaluated"}
	free := []freeParam{{"x", p.X}, {"series", p.Series}}
	if p.Cdf {
		free = free[1:]
	} else if p.Series != "" && p.Series == p.X {
		ev.errs.At(dir.At["series"], "series and x are both %s", p.X)
		return fail
	}
	x, err := ev.env.experiment(p.From)
	if err != nil {
		ev.errs.At(dir.At["from"], "%v", err)
		return fail
	}
	axes := ev.plotAxes
	if p.Cdf {
		axes = ev.quantileAxes
	}
	ym, ok := axes(dir, x)
	pins := ev.selectFrom(dir, x, p.Where, free)
	if pins == nil || !ok {
		return fail
	}
	views, ok := ev.machineViews(dir, x, pins, p.Where, p.Machines, p.Ref, free)
	if !ok {
		return fail
	}
	// The chapter's labels may name the machines a machines: plot shows.
	var names []string
	if p.Machines != nil {
		for _, mv := range views {
			names = append(names, mv.name)
		}
	}
	dir.CheckLabels(p.Labels, x, ev.errs, names...)
	lbl := func(s string) string { return label(p.Labels, s) }
	if p.Machines != nil {
		ev.machinesMissing(dir, views, x.ID)
	} else if views[0].r == nil {
		ev.warn.KindAt(parse.KindMissing, dir.Off, "%s", missingMsg("", x.ID, ev.env.runHint(x.ID)))
		return &view.Plot{Missing: ev.env.w.MissingNote(ev.env.noteSet(""), x.ID), Caption: p.Caption}
	}
	if p.Cdf {
		return ev.cdf(dir, x, ym.Unit, views, lbl)
	}
	return ev.xyPlot(dir, x, ym, views, lbl)
}

// xyPlot draws a plot's series as plot read them: a point at each value
// of its x param.
func (ev *eval) xyPlot(dir *parse.Directive, x *parse.Experiment, ym probe.Metric, views []machineView, lbl func(string) string) view.View {
	p := dir.Plot
	xp, _ := x.Spec.Param(p.X)
	var inapplicable []string // combinations the optional metric does not apply to
	all, own := ev.machineSeries(dir, x, views, func(mv machineView, sv string) []rawPoint {
		pts, na := xyPoints(mv, p, xp, ym, sv)
		inapplicable = append(inapplicable, na...)
		return pts
	})
	if len(all) == 0 {
		if views[0].r == nil {
			return &view.Plot{Missing: ev.env.w.MissingNote(ev.env.noteSet(""), x.ID), Caption: p.Caption}
		}
		ev.warn.KindAt(parse.KindMissing, dir.Off, "the result of %s has no %s figures to plot", x.ID, ym.Name)
		return &view.Plot{Missing: fmt.Sprintf(ev.env.w.NoFiguresFormat, x.ID, ym.Name), Caption: p.Caption}
	}
	provenance := ev.plotProvenance(dir, views, x.ID)
	if len(inapplicable) > 0 {
		// A point the metric does not apply to is left out, and said so.
		provenance += " · " + ev.env.w.NotApplicable(strings.Join(inapplicable, "; "), ym.Optional)
	}
	if own0 := legendName(p, views[0], views); p.Ref != "" && len(views) > 1 && views[1].r != nil && own == 1 && all[0].name == own0 {
		// One series beside a reference set: name both by their machine.
		all[0].name = ev.env.w.ThisMachine + " (" + own0 + ")"
	}
	pl := xyInput(ev.env.w, p, all, xp, ym, lbl)
	at := func(v string) string { return paramValue(xp, v, p.Labels) }
	return &view.Plot{Input: pl, Caption: p.Caption, Provenance: provenance, At: ev.d.Pos(dir.Off).String(),
		Exp: x.ID, XName: lbl(p.X), YName: lbl(ym.Name), Points: ev.plotPoints(all, x.ID, ym.Unit, at)}
}

// plotAxes checks a plot's y metric and x param against its experiment's
// probe, reporting both before the selection's errors; ok is false after
// an error.
func (ev *eval) plotAxes(dir *parse.Directive, x *parse.Experiment) (ym probe.Metric, ok bool) {
	p := dir.Plot
	ym, ok = x.Spec.Metric(p.Y)
	if !ok {
		ev.errs.At(dir.At["y"], "experiment %s (probe %s) has no metric %q%s", x.ID, x.Probe, p.Y, expr.DidYouMean(p.Y, metricNames(x.Spec)))
	}
	if xp, known := x.Spec.Param(p.X); known && xp.Kind == probe.String {
		ev.errs.At(dir.At["x"], "x wants a numeric param; %s takes words (%s): make it the series", p.X, strings.Join(x.Sweep[p.X], ", "))
		ok = false
	}
	return ym, ok
}

// machineSeries is the series of every machine with a result, in the
// views' order, each value of the series param's points read by points;
// a series without points is left out. own counts the build's own series,
// which come first.
func (ev *eval) machineSeries(dir *parse.Directive, x *parse.Experiment, views []machineView, points func(mv machineView, sv string) []rawPoint) (all []rawSeries, own int) {
	sp, _ := x.Spec.Param(dir.Plot.Series) // named only with a series param
	for _, mv := range views {
		if mv.r == nil {
			continue
		}
		svs := []string{""} // one unnamed series without a series param
		if dir.Plot.Series != "" {
			svs = mv.vals[dir.Plot.Series]
		}
		for _, sv := range svs {
			pts := points(mv, sv)
			if len(pts) == 0 {
				continue
			}
			all = append(all, rawSeries{name: ev.seriesName(dir, mv, legendName(dir.Plot, mv, views), sp, sv), set: mv.set, dashed: mv.set != "", points: pts})
			if mv.set == "" {
				own++
			}
		}
	}
	return all, own
}

// xyPoints is one series of a machine, a point at each x it has, sorted
// by x; na names the build's own combinations the optional metric does
// not apply to, so the provenance can say why they are not drawn.
func xyPoints(mv machineView, p *parse.PlotDir, xp probe.Param, ym probe.Metric, sv string) (pts []rawPoint, na []string) {
	for _, xv := range mv.vals[p.X] {
		key := []string{xv}
		if p.Series != "" {
			key = append(key, sv)
		}
		row, ok := mv.rows[rowKey(key...)]
		if !ok {
			continue
		}
		s, has := dataset.Summarize(row, ym.Name)
		xf, err := xValue(xp, xv)
		switch {
		case has && err == nil:
			pts = append(pts, rawPoint{x: xf, y: s.Median, lo: s.Min, hi: s.Max, fig: expr.Sample{Median: s.Median, Min: s.Min, Max: s.Max, Runs: s.N}, at: xv})
		case !has && ym.Optional != "" && mv.set == "":
			what := p.X + "=" + xv
			if p.Series != "" {
				what = p.Series + "=" + sv + ", " + what
			}
			na = append(na, what)
		}
	}
	slices.SortStableFunc(pts, func(a, b rawPoint) int { return cmp.Compare(a.x, b.x) })
	return pts, na
}

// xyInput scales a plot's series into display units, one scale per axis
// for all of them, and titles and labels its axes.
func xyInput(w *view.Words, p *parse.PlotDir, all []rawSeries, xp probe.Param, ym probe.Metric, lbl func(string) string) plotsvg.Plot {
	var xv, yv []float64
	for _, s := range all {
		for _, pt := range s.points {
			xv = append(xv, pt.x)
			yv = append(yv, pt.y, pt.hi)
		}
	}
	xs := scale{"", 1}
	if xp.Kind == probe.Duration {
		xs = pickScale(probe.Seconds, xv, p.XLog)
	}
	ys := pickScale(ym.Unit, yv, p.YLog)
	title := cmp.Or(p.Title, fmt.Sprintf(w.PlotTitleFormat, lbl(p.X), lbl(ym.Name)))
	return plotsvg.Plot{Title: title, XLabel: xs.label(lbl(p.X)), YLabel: ys.label(lbl(ym.Name)), XLog: p.XLog, YLog: p.YLog, Series: scaled(all, xs, ys)}
}

// scaled is a plot's series in display units: x over xs, y over ys.
func scaled(all []rawSeries, xs, ys scale) []plotsvg.Series {
	var out []plotsvg.Series
	for _, s := range all {
		ps := plotsvg.Series{Name: s.name, Dashed: s.dashed}
		for _, pt := range s.points {
			ps.Points = append(ps.Points, plotsvg.Point{X: pt.x / xs.div, Y: pt.y / ys.div, Lo: pt.lo / ys.div, Hi: pt.hi / ys.div})
		}
		out = append(out, ps)
	}
	return out
}

// seriesLabel names a series in the legend: a labelled value by its
// label, a word by itself ("epoll"), a number with its param's name or
// label ("sleeping=100").
func seriesLabel(p probe.Param, v string, labels map[string]string) string {
	if l, ok := labels[v]; ok {
		return l
	}
	if p.Kind == probe.String || p.Name == "" {
		return v
	}
	return label(labels, p.Name) + "=" + paramValue(p, v, labels)
}

// seriesName names a series in the legend: by its value, and on a plot
// over several machines by its machine too; a reference set's series
// carry the set's name.
func (ev *eval) seriesName(dir *parse.Directive, mv machineView, name string, sp probe.Param, sv string) string {
	p := dir.Plot
	switch {
	case sv == "" && mv.set == "" && p.Machines == nil && name == mv.name:
		return ev.env.w.ThisMachine
	case sv == "":
		return name
	case mv.set == "" && p.Machines == nil:
		return seriesLabel(sp, sv, p.Labels)
	}
	return seriesLabel(sp, sv, p.Labels) + " · " + name
}

// legendName is how a plot's legend names machine mv: by its label (of
// a plot with machines:), else by its CPU, shortened ("Intel(R) Xeon(R)
// Processor": "Intel Xeon"), when no other machine of the plot has the
// same, else by its set's name. A set's name is exact but long
// ("linux-amd64-intel-r-xeon-r-processor-2c"); the provenance line under
// the plot gives it in full.
func legendName(p *parse.PlotDir, mv machineView, views []machineView) string {
	if l, ok := p.Labels[mv.name]; ok && p.Machines != nil {
		return l
	}
	cpu := shortCPU(mv.r)
	if cpu == "" || slices.ContainsFunc(views, func(o machineView) bool { return o.name != mv.name && shortCPU(o.r) == cpu }) {
		return mv.name
	}
	return cpu
}

// shortCPU is a result's CPU model without its trademarks, "CPU",
// "Processor" and clock ("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz":
// "Intel Xeon Platinum 8375C"); "" when it has none.
func shortCPU(r *dataset.Result) string {
	if r == nil {
		return ""
	}
	cpu, _, _ := strings.Cut(r.Machine.CPU, " @ ")
	words := strings.Fields(strings.NewReplacer("(R)", "", "(r)", "", "(TM)", "", "(tm)", "").Replace(cpu))
	return strings.Join(slices.DeleteFunc(words, func(w string) bool { return w == "CPU" || w == "Processor" }), " ")
}

// plotProvenance is the line under a plot: its own set's provenance and,
// after "점선:", the dashed machines'. A reference set with no result is
// a warning at ref: (the plot shows the build's figures alone).
func (ev *eval) plotProvenance(dir *parse.Directive, views []machineView, id string) string {
	line := ev.machinesProvenance(views[:1], id)
	// A series a machine cannot measure (kqueue on Linux) is left out,
	// and said so beside that machine's part of the line.
	if r := views[0].r; r != nil && unavailableReasons(ev.env.w, r) != "" {
		line += " · " + unavailableReasons(ev.env.w, r)
	}
	switch {
	case len(views) == 1:
	case dir.Plot.Machines == nil && views[1].r == nil:
		ev.warn.KindAt(parse.KindMissing, dir.At["ref"], "%s", missingMsg(views[1].set, id, ev.env.runHint(id)))
	default:
		line += ev.env.w.DashedNote + ev.machinesProvenance(views[1:], id)
	}
	return line
}

// cdf draws a distribution plot: for each value of the series param (one
// curve without it), the quantile metrics' medians over the runs on x and
// their fractions on y, as a line through the quantile points (steps
// would say that no value fell between two quantiles). A reference set's
// curves are dashed.
func (ev *eval) cdf(dir *parse.Directive, x *parse.Experiment, unit probe.Unit, views []machineView, lbl func(string) string) view.View {
	p := dir.Plot
	all, own := ev.machineSeries(dir, x, views, func(mv machineView, sv string) []rawPoint {
		row, ok := mv.rows[rowKey(sv)]
		if !ok {
			return nil
		}
		return quantilePoints(row, p.Quantiles)
	})
	if len(all) == 0 {
		if views[0].r == nil {
			return &view.Plot{Missing: ev.env.w.MissingNote(ev.env.noteSet(""), x.ID), Caption: p.Caption}
		}
		ev.warn.KindAt(parse.KindMissing, dir.Off, "the result of %s has none of the quantile metrics to plot", x.ID)
		return &view.Plot{Missing: fmt.Sprintf(ev.env.w.NoDistFormat, x.ID), Caption: p.Caption}
	}
	provenance := ev.plotProvenance(dir, views, x.ID)
	if own0 := legendName(p, views[0], views); p.Ref != "" && len(all) > own && own == 1 && all[0].name == own0 {
		all[0].name = ev.env.w.ThisMachine + " (" + own0 + ")"
	}
	pl := cdfInput(ev.env.w, p, all, unit, lbl)
	frac := map[string]string{}
	for _, q := range p.Quantiles {
		frac[q.Metric] = fmt.Sprintf("%g", q.Frac)
	}
	return &view.Plot{Input: pl, Caption: p.Caption, Provenance: provenance, At: ev.d.Pos(dir.Off).String(),
		Exp: x.ID, XName: ev.env.w.CumulativeShare, YName: pl.XLabel, Points: ev.plotPoints(all, x.ID, unit, func(m string) string { return frac[m] })}
}

// quantileAxes checks a distribution plot's quantile metrics against its
// experiment's probe and returns their one unit, as a metric's (a
// distribution has no y metric); ok is false after an error, every
// quantile's reported.
func (ev *eval) quantileAxes(dir *parse.Directive, x *parse.Experiment) (ym probe.Metric, ok bool) {
	ok = true
	for i, q := range dir.Plot.Quantiles {
		m, known := x.Spec.Metric(q.Metric)
		switch {
		case !known:
			ev.errs.At(q.Off, "experiment %s (probe %s) has no metric %q%s", x.ID, x.Probe, q.Metric, expr.DidYouMean(q.Metric, metricNames(x.Spec)))
			ok = false
		case i > 0 && m.Unit != ym.Unit:
			ev.errs.At(q.Off, "quantiles: %s is in %s, the others in %s: a distribution has one unit", q.Metric, m.Unit, ym.Unit)
			ok = false
		default:
			ym.Unit = m.Unit
		}
	}
	return ym, ok
}

// quantilePoints is one curve: each quantile's median over the runs at
// its fraction, sorted by value; a quantile the row lacks is left out.
func quantilePoints(row dataset.Row, qs []parse.Quantile) []rawPoint {
	var pts []rawPoint
	for _, q := range qs {
		if s, ok := dataset.Summarize(row, q.Metric); ok {
			pts = append(pts, rawPoint{x: s.Median, y: q.Frac, lo: q.Frac, hi: q.Frac, fig: expr.Sample{Median: s.Median, Min: s.Min, Max: s.Max, Runs: s.N}, at: q.Metric})
		}
	}
	slices.SortStableFunc(pts, func(a, b rawPoint) int { return cmp.Compare(a.x, b.x) })
	return pts
}

// cdfInput scales a distribution plot's curves into one display unit and
// names the x axis after its median quantile (the middle one without it).
func cdfInput(w *view.Words, p *parse.PlotDir, all []rawSeries, unit probe.Unit, lbl func(string) string) plotsvg.Plot {
	var xv []float64
	for _, s := range all {
		for _, pt := range s.points {
			xv = append(xv, pt.x)
		}
	}
	xs := pickScale(unit, xv, p.XLog)
	name := p.Quantiles[len(p.Quantiles)/2].Metric
	for _, q := range p.Quantiles {
		if q.Frac == 0.5 {
			name = q.Metric
		}
	}
	title := cmp.Or(p.Title, fmt.Sprintf(w.DistTitleFormat, lbl(name)))
	return plotsvg.Plot{Title: title, XLabel: xs.label(lbl(name)), YLabel: w.CumulativeShare, XLog: p.XLog, Series: scaled(all, xs, scale{"", 1})}
}

// plotPoints is every point of a plot as a reader reads it, series by
// series in the order drawn: its series, where it is (at names it) and
// its figure in unit, with the provenance an inline value's popover
// shows.
func (ev *eval) plotPoints(all []rawSeries, id string, unit probe.Unit, at func(string) string) [][]view.PlotPoint {
	out := make([][]view.PlotPoint, len(all))
	for i, s := range all {
		r, _ := ev.env.find(s.set, id)
		for _, pt := range s.points {
			v, err := expr.FromSample(&expr.Metric{Unit: unit}, pt.fig)
			text := view.NoFigure
			if t, ferr := v.Format(""); err == nil && ferr == nil {
				text = t
			}
			fig := &view.Out{Text: text, Data: ev.provenanceData([]setID{{s.set, id}})}
			if r.Measured() {
				fig.Data["range"], fig.Data["runs"] = rangeText(v), strconv.Itoa(pt.fig.Runs)
			}
			out[i] = append(out[i], view.PlotPoint{Series: s.name, X: at(pt.at), Value: fig})
		}
	}
	return out
}
