package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/plotsvg"
	"measuredbook/probe"
	"measuredbook/render/ast"
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

// rawPoint is a point in base units, before scaling.
type rawPoint struct{ x, y, lo, hi float64 }

type rawSeries struct {
	name   string
	dashed bool
	points []rawPoint
}

// plot builds a plotsvg.Plot from a plot directive: one series per value
// of the series param (one series without it), points at the medians with
// the min–max over the runs, and with ref: the reference set's points as
// dashed series.
func (ev *eval) plot(dir *directive) any {
	p := dir.plot
	if p.cdf {
		return ev.cdf(dir)
	}
	fail := &ast.Error{Msg: "plot could not be evaluated"}
	if p.series != "" && p.series == p.x {
		ev.errs.at(dir.at["series"], "series and x are both %s", p.x)
		return fail
	}
	x, err := ev.env.experiment(p.from)
	if err != nil {
		ev.errs.at(dir.at["from"], "%v", err)
		return fail
	}
	ym, ok := x.Spec.Metric(p.y)
	if !ok {
		ev.errs.at(dir.at["y"], "experiment %s (probe %s) has no metric %q%s", x.ID, x.Probe, p.y, expr.DidYouMean(p.y, metricNames(x.Spec)))
	}
	if xp, known := x.Spec.Param(p.x); known && xp.Kind == probe.String {
		ev.errs.at(dir.at["x"], "x wants a numeric param; %s takes words (%s): make it the series", p.x, strings.Join(x.Sweep[p.x], ", "))
		ok = false
	}
	sel := ev.selectFrom(dir, x, p.where, []freeParam{{"x", p.x}, {"series", p.series}})
	if sel == nil || !ok {
		return fail
	}
	xp, _ := x.Spec.Param(p.x)
	lbl, seriesVals, sp, missing := ev.plotSeries(dir, x, sel)
	if missing != nil {
		return missing
	}
	var all []rawSeries
	var inapplicable []string // combinations the optional metric does not apply to
	ix := indexRows(sel.r)
	for _, sv := range seriesVals {
		s := rawSeries{name: seriesLabel(sp, sv, p.labels)}
		if sv == "" {
			s.name = sel.r.Machine.Name
		}
		for _, xv := range x.Sweep[p.x] {
			row, ok := ix.rows[sel.params(p.x, xv, p.series, sv).Key()]
			if !ok {
				continue
			}
			pt, ok := point(row, xp, xv, ym.Name)
			if ok {
				s.points = append(s.points, pt)
			} else if _, has := dataset.Summarize(row, ym.Name); !has && ym.Optional != "" {
				inapplicable = append(inapplicable, strings.TrimPrefix(seriesNote(p.series, sv)+", ", ", ")+p.x+"="+xv)
			}
		}
		sortPoints(s.points)
		if len(s.points) > 0 {
			all = append(all, s)
		}
	}
	if len(all) == 0 {
		ev.warn.kindAt(KindMissing, dir.off, "the result of %s has no %s figures to plot", x.ID, ym.Name)
		return &ast.Plot{Missing: fmt.Sprintf("측정 없음: %s 결과에 %s 값이 없습니다", x.ID, ym.Name), Caption: p.caption}
	}
	why, _ := ev.env.stale("", x.ID)
	provenance := shortProvenance(sel.r, why)
	if len(inapplicable) > 0 {
		// A point the metric does not apply to is left out, and said so.
		provenance += " · 해당 없음(" + strings.Join(inapplicable, "; ") + "): " + ym.Optional
	}
	if s := unavailableReasons(sel.r); s != "" {
		// So is a series the machine cannot measure (kqueue on Linux).
		provenance += " · " + s
	}
	if p.ref != "" {
		refSeries, rr, err := refPlot(p, sel, xp, sp, ym, ev.env)
		if rr != nil && len(all) == 1 && all[0].name == sel.r.Machine.Name {
			// One series beside a reference set: name both by their set.
			all[0].name = "이 기계 (" + sel.r.Machine.Name + ")"
		}
		switch {
		case err != nil:
			ev.errs.at(dir.at["ref"], "%v", err)
			return fail
		case rr == nil:
			ev.warn.kindAt(KindMissing, dir.at["ref"], "%s", missingMsg(p.ref, x.ID))
		default:
			all = append(all, refSeries...)
			stale, _ := ev.env.stale(p.ref, x.ID)
			provenance += "; 점선: " + shortProvenance(rr, stale)
		}
	}

	var xv, yv []float64
	for _, s := range all {
		for _, pt := range s.points {
			xv = append(xv, pt.x)
			yv = append(yv, pt.y, pt.hi)
		}
	}
	xs := scale{"", 1}
	if xp.Kind == probe.Duration {
		xs = pickScale(probe.Seconds, xv, p.xlog)
	}
	ys := pickScale(ym.Unit, yv, p.ylog)
	title := p.title
	if title == "" {
		title = fmt.Sprintf("%s에 따른 %s", lbl(p.x), lbl(ym.Name))
	}
	pl := plotsvg.Plot{Title: title, XLabel: xs.label(lbl(p.x)), YLabel: ys.label(lbl(ym.Name)), XLog: p.xlog, YLog: p.ylog}
	for _, s := range all {
		ps := plotsvg.Series{Name: s.name, Dashed: s.dashed}
		for _, pt := range s.points {
			ps.Points = append(ps.Points, plotsvg.Point{X: pt.x / xs.div, Y: pt.y / ys.div, Lo: pt.lo / ys.div, Hi: pt.hi / ys.div})
		}
		pl.Series = append(pl.Series, ps)
	}
	svg, err := plotsvg.Render(pl)
	if err != nil {
		ev.errs.at(dir.off, "plot: %v", err)
		return fail
	}
	return &ast.Plot{SVG: svg, Caption: p.caption, Provenance: provenance}
}

func point(row dataset.Row, xp probe.Param, xv, metric string) (rawPoint, bool) {
	s, ok := dataset.Summarize(row, metric)
	if !ok {
		return rawPoint{}, false
	}
	xf, err := xValue(xp, xv)
	if err != nil {
		return rawPoint{}, false
	}
	return rawPoint{x: xf, y: s.Median, lo: s.Min, hi: s.Max}, true
}

// refPlot reads the reference set's points. A reference set holds what a
// book reported, not a full sweep: its series are the values of the
// series param it has (kqueue where we have epoll), its points the x
// values it has; params pinned with where must match, and any other param
// is ignored. A nil result means the set has no result for the experiment.
func refPlot(p *plotDir, sel *selection, xp, sp probe.Param, ym probe.Metric, v *env) ([]rawSeries, *dataset.Result, error) {
	rr, ok := v.lookup(p.ref, sel.x.ID)
	if !ok {
		return nil, nil, nil
	}
	byName := map[string]int{}
	var out []rawSeries
	seen := map[string]bool{}
	name := rr.Machine.Name
	if name == "" {
		name = p.ref
	}
rows:
	for _, row := range rr.Rows {
		for k := range p.where {
			if rv, has := row.Params[k]; has && rv != sel.pins[k] {
				continue rows
			}
		}
		sv := row.Params[p.series]
		xv, has := row.Params[p.x]
		if !has {
			continue
		}
		key := sv + "\x00" + xv
		if seen[key] {
			return nil, nil, fmt.Errorf("reference set %q has several figures for %s=%s%s; pin the other params with where", p.ref, p.x, xv, seriesNote(p.series, sv))
		}
		seen[key] = true
		pt, ok := point(row, xp, canonicalOr(xp, xv), ym.Name)
		if !ok {
			continue
		}
		i, ok := byName[sv]
		if !ok {
			i = len(out)
			byName[sv] = i
			label := name
			if sv != "" {
				label = seriesLabel(sp, sv, p.labels) + " · " + name
			}
			out = append(out, rawSeries{name: label, dashed: true})
		}
		out[i].points = append(out[i].points, pt)
	}
	// Points in x order: a hand-written reference file may list them in
	// any order, and a line must not zigzag.
	for _, s := range out {
		sortPoints(s.points)
	}
	return out, rr, nil
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
	return label(labels, p.Name) + "=" + v
}

func seriesNote(series, v string) string {
	if series == "" {
		return ""
	}
	return fmt.Sprintf(", %s=%s", series, v)
}

func canonicalOr(p probe.Param, v string) string {
	if c, err := probe.Canonical(p, v); err == nil {
		return c
	}
	return v
}

func sortPoints(ps []rawPoint) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].x < ps[j-1].x; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// plotSeries is what both kinds of plot need once their selection is made:
// the chapter's labels, and the series param with the values it sweeps
// (one unnamed series without it); or, when the result is not stored, the
// placeholder plot to show instead.
func (ev *eval) plotSeries(dir *directive, x *Experiment, sel *selection) (lbl func(string) string, vals []string, sp probe.Param, missing *ast.Plot) {
	p := dir.plot
	dir.checkLabels(p.labels, x, ev.errs)
	lbl = func(s string) string { return label(p.labels, s) }
	if sel.r == nil {
		ev.warn.kindAt(KindMissing, dir.off, "%s", missingMsg("", x.ID))
		return lbl, nil, sp, &ast.Plot{Missing: missingKo("", x.ID), Caption: p.caption}
	}
	vals = []string{""}
	if p.series != "" {
		vals = x.Sweep[p.series]
		sp, _ = x.Spec.Param(p.series)
	}
	return lbl, vals, sp, nil
}

// cdf draws a distribution plot: for each value of the series param (one
// curve without it), the quantile metrics' medians over the runs on x and
// their fractions on y, as a step line (the fraction holds until the next
// quantile). A reference set's curves are dashed.
func (ev *eval) cdf(dir *directive) any {
	p := dir.plot
	fail := &ast.Error{Msg: "plot could not be evaluated"}
	x, err := ev.env.experiment(p.from)
	if err != nil {
		ev.errs.at(dir.at["from"], "%v", err)
		return fail
	}
	var unit probe.Unit
	ok := true
	for i, q := range p.quantiles {
		m, known := x.Spec.Metric(q.metric)
		switch {
		case !known:
			ev.errs.at(q.off, "experiment %s (probe %s) has no metric %q%s", x.ID, x.Probe, q.metric, expr.DidYouMean(q.metric, metricNames(x.Spec)))
			ok = false
		case i > 0 && m.Unit != unit:
			ev.errs.at(q.off, "quantiles: %s is in %s, the others in %s: a distribution has one unit", q.metric, m.Unit, unit)
			ok = false
		default:
			unit = m.Unit
		}
	}
	sel := ev.selectFrom(dir, x, p.where, []freeParam{{"series", p.series}})
	if sel == nil || !ok {
		return fail
	}
	lbl, seriesVals, sp, missing := ev.plotSeries(dir, x, sel)
	if missing != nil {
		return missing
	}
	curve := func(row dataset.Row) []rawPoint {
		var pts []rawPoint
		for _, q := range p.quantiles {
			if s, ok := dataset.Summarize(row, q.metric); ok {
				pts = append(pts, rawPoint{x: s.Median, y: q.frac, lo: q.frac, hi: q.frac})
			}
		}
		sortPoints(pts)
		return pts
	}
	var all []rawSeries
	ix := indexRows(sel.r)
	for _, sv := range seriesVals {
		row, ok := ix.rows[sel.params(p.series, sv).Key()]
		if !ok {
			continue
		}
		s := rawSeries{name: seriesLabel(sp, sv, p.labels), points: curve(row)}
		if sv == "" {
			s.name = sel.r.Machine.Name
		}
		if len(s.points) > 0 {
			all = append(all, s)
		}
	}
	if len(all) == 0 {
		ev.warn.kindAt(KindMissing, dir.off, "the result of %s has none of the quantile metrics to plot", x.ID)
		return &ast.Plot{Missing: fmt.Sprintf("측정 없음: %s 결과에 분포 값이 없습니다", x.ID), Caption: p.caption}
	}
	why, _ := ev.env.stale("", x.ID)
	provenance := shortProvenance(sel.r, why)
	if p.ref != "" {
		rr, has := ev.env.lookup(p.ref, x.ID)
		if !has {
			ev.warn.kindAt(KindMissing, dir.at["ref"], "%s", missingMsg(p.ref, x.ID))
		} else {
			name := rr.Machine.Name
			if name == "" {
				name = p.ref
			}
			n := len(all)
		rows:
			for _, row := range rr.Rows {
				for k := range p.where {
					if v, has := row.Params[k]; has && v != sel.pins[k] {
						continue rows
					}
				}
				label := name
				if sv := row.Params[p.series]; sv != "" {
					label = seriesLabel(sp, sv, p.labels) + " · " + name
				}
				if pts := curve(row); len(pts) > 0 {
					all = append(all, rawSeries{name: label, dashed: true, points: pts})
				}
			}
			if len(all) > n {
				if n == 1 && all[0].name == sel.r.Machine.Name {
					all[0].name = "이 기계 (" + sel.r.Machine.Name + ")"
				}
				provenance += "; 점선: " + shortProvenance(rr, "")
			}
		}
	}
	var xv []float64
	for _, s := range all {
		for _, pt := range s.points {
			xv = append(xv, pt.x)
		}
	}
	xs := pickScale(unit, xv, p.xlog)
	name := p.quantiles[len(p.quantiles)/2].metric
	for _, q := range p.quantiles {
		if q.frac == 0.5 {
			name = q.metric
		}
	}
	title := p.title
	if title == "" {
		title = lbl(name) + "의 분포"
	}
	pl := plotsvg.Plot{Title: title, XLabel: xs.label(lbl(name)), YLabel: "누적 비율", XLog: p.xlog}
	for _, s := range all {
		ps := plotsvg.Series{Name: s.name, Dashed: s.dashed, Step: true}
		for _, pt := range s.points {
			ps.Points = append(ps.Points, plotsvg.Point{X: pt.x / xs.div, Y: pt.y, Lo: pt.y, Hi: pt.y})
		}
		pl.Series = append(pl.Series, ps)
	}
	svg, err := plotsvg.Render(pl)
	if err != nil {
		ev.errs.at(dir.off, "plot: %v", err)
		return fail
	}
	return &ast.Plot{SVG: svg, Caption: p.caption, Provenance: provenance}
}
