package evaluate

// Several machines in one view: a table, plot or claim with machines:
// shows the build's own set first and each named set beside it, every
// column, series and verdict labelled with its machine's short name, and
// a set with no result as a labelled gap.

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

// machineSets resolves a machines: field to the sets a view shows: the
// build's own ("") first, then each named set that is not the build's, in
// the order given. A name that is neither a set present nor a machine of
// the book is an error at the name; ok is false after an error.
func (ev *eval) machineSets(f *parse.MachinesField) (sets []string, ok bool) {
	names, offs := f.Names, f.Offs
	if f.Book {
		if len(ev.env.shown) == 0 {
			ev.errs.At(f.Off, "machines: book shows the machines chapters/book.yaml names in its machines: field, and it names none; add machines: [NAME, …] there, or list the sets here")
			return nil, false
		}
		names, offs = ev.env.shown, nil
	}
	sets, ok = []string{""}, true
	for i, name := range names {
		if offs != nil {
			if err := ev.env.checkSet(name); err != nil {
				ev.errs.At(offs[i], "machines: %v", err)
				ok = false
				continue
			}
		}
		if set := ev.env.resolve(name); !slices.Contains(sets, set) {
			sets = append(sets, set)
		}
	}
	return sets, ok
}

// machineView is one machine's part of a view over several machines:
// its result (nil: none stored), its short name, and its rows that the
// directive's selection picks, by the values of the free params.
type machineView struct {
	set  string // as resolved: "" for the build's own
	name string
	r    *dataset.Result
	// rows, failed and unavailable are keyed by the free params' values (rowKey);
	// vals lists each free param's values in order: the chapter's sweep
	// for the build's own set, the result's order for another.
	rows        map[string]dataset.Row
	failed      map[string]string
	unavailable map[string]string // combinations the machine cannot measure, and why
	vals        map[string][]string
}

// machineViews is the machines a table or plot shows: the build's own
// set, and the sets its machines: names or the set a plot's ref: names.
// ok is false after an error (an unknown set, a set with two figures for
// one point).
func (ev *eval) machineViews(dir *parse.Directive, x *parse.Experiment, pins probe.Params, where map[string]string, machines *parse.MachinesField, ref string, free []freeParam) (views []machineView, ok bool) {
	sets, field := []string{""}, "ref"
	switch {
	case machines != nil:
		if sets, ok = ev.machineSets(machines); !ok {
			return nil, false
		}
		field = "machines"
	case ref != "":
		if err := ev.env.checkSet(ref); err != nil {
			ev.errs.At(dir.At["ref"], "ref: %v", err)
			return nil, false
		}
		// On a build from the reference set itself there is nothing to
		// overlay: the plot is that set's own lines.
		if ev.env.resolve(ref) != "" {
			sets = append(sets, ref)
		}
	}
	for _, set := range sets {
		mv, err := ev.machineView(set, x, pins, where, free)
		if err != nil {
			ev.errs.At(dir.At[field], "%v", err)
			return nil, false
		}
		views = append(views, mv)
	}
	return views, true
}

// rowKey keys a row by the values of the free params, in their order.
func rowKey(vals ...string) string { return strings.Join(vals, "\x00") }

// machineView picks set's rows of experiment x for a view whose free
// params are free (rows, cols; x, series). The build's own set must have
// every pinned param's value. Another machine's measured set is held to
// the pins its rows carry; a transcribed set holds what the original book
// reported, with the original's settings, so it is held only to the
// params pinned with where. Two rows for one key are an error: the
// directive must pin more.
func (ev *eval) machineView(set string, x *parse.Experiment, pins probe.Params, where map[string]string, free []freeParam) (machineView, error) {
	mv := machineView{set: ev.env.resolve(set), rows: map[string]dataset.Row{}, failed: map[string]string{}, unavailable: map[string]string{}, vals: map[string][]string{}}
	mv.r, _ = ev.env.find(mv.set, x.ID)
	mv.name = ev.env.machineName(mv.set, mv.r)
	free = slices.DeleteFunc(slices.Clone(free), func(f freeParam) bool { return f.param == "" })
	if mv.set == "" {
		for _, f := range free {
			mv.vals[f.param] = x.Sweep[f.param]
		}
	}
	if mv.r == nil {
		return mv, nil
	}
	picks := func(p probe.Params) (string, bool) {
		for k, v := range pins {
			// A count that only sizes a run's sample is not a pin unless
			// where: names it: the set's runs had counts of their own
			// (sized, or another set's).
			_, w := where[k]
			if have, ok := p[k]; ok && (mv.r.Measured() && !sizesOnly(x, k) || w) && have != v {
				return "", false
			}
		}
		var key []string
		for _, f := range free {
			v := p[f.param]
			if prm, ok := x.Spec.Param(f.param); ok && v != "" {
				if c, err := probe.Canonical(prm, v); err == nil {
					v = c
				}
			}
			key = append(key, v)
			if mv.set != "" && !slices.Contains(mv.vals[f.param], v) {
				mv.vals[f.param] = append(mv.vals[f.param], v)
			}
		}
		return rowKey(key...), true
	}
	for _, row := range mv.r.Rows {
		key, ok := picks(resultParams(mv.r, row.Params))
		if !ok {
			continue
		}
		if _, dup := mv.rows[key]; dup {
			var at []string
			vals := strings.Split(key, "\x00")
			for i, f := range free {
				at = append(at, f.param+"="+vals[i])
			}
			return mv, fmt.Errorf("set %s has several results of %s for %s; pin the other params with where", mv.name, x.ID, strings.Join(at, ", "))
		}
		mv.rows[key] = row
	}
	for _, f := range mv.r.Failures {
		if key, ok := picks(resultParams(mv.r, f.Params)); ok {
			mv.failed[key] = f.Err
		}
	}
	for _, u := range mv.r.Unavailable {
		if key, ok := picks(resultParams(mv.r, u.Params)); ok {
			mv.unavailable[key] = u.Reason
		}
	}
	return mv, nil
}

// resultParams is a row's params with the result's fixed params added: a
// transcribed result may list a fixed param once, not on every row.
func resultParams(r *dataset.Result, p probe.Params) probe.Params {
	out := probe.Params{}
	for k, vals := range r.Sweep {
		if len(vals) == 1 {
			out[k] = vals[0]
		}
	}
	maps.Copy(out, p)
	return out
}

// machinesProvenance is the line under a view over several machines: each
// machine's short provenance, or that it has no result.
func (ev *eval) machinesProvenance(views []machineView, id string) string {
	var parts []string
	for _, mv := range views {
		if mv.r == nil {
			parts = append(parts, fmt.Sprintf(ev.env.w.NoResultOnFormat, mv.name))
			continue
		}
		why, _ := ev.env.stale(mv.set, id)
		parts = append(parts, shortProvenance(ev.env.w, mv.r, why))
	}
	return strings.Join(parts, "; ")
}

// machinesMissing warns about each machine of a view with no result: the
// build's own at the directive, another's at its machines: field.
func (ev *eval) machinesMissing(dir *parse.Directive, views []machineView, id string) {
	for _, mv := range views {
		if mv.r != nil {
			continue
		}
		off := dir.Off
		if mv.set != "" {
			off = dir.At["machines"]
		}
		ev.warn.KindAt(parse.KindMissing, off, "%s", missingMsg(mv.set, id, ev.env.runHint(id)))
	}
}

// machinesTable is a table over several machines: a column of the metric
// per machine, or with cols a column per machine and value of cols (each
// machine's own values: the build's sweep, the values another set has).
// Rows are every value any machine has; a figure a machine lacks is a
// gap, and every cell's hover names its machine.
func (ev *eval) machinesTable(dir *parse.Directive, x *parse.Experiment, m probe.Metric, pins probe.Params) view.View {
	t := dir.Table
	views, ok := ev.machineViews(dir, x, pins, t.Where, t.Machines, "", []freeParam{{"rows", t.Rows}, {"cols", t.Cols}})
	if !ok {
		return &view.Error{Msg: "table could not be evaluated"}
	}
	var names []string
	for _, mv := range views {
		names = append(names, mv.name)
	}
	dir.CheckLabels(t.Labels, x, ev.errs, names...)
	ev.machinesMissing(dir, views, x.ID)
	tab := &view.Table{Caption: t.Caption}
	var cols []machineColumn
	cols, tab.Head = machineColumns(ev.env.w, t, x, m, views)
	for _, rv := range unionRows(views, t.Rows) {
		var row []view.Cell
		if t.Rows != "" {
			row = append(row, view.Cell{Text: paramText(x.Spec, t.Rows, rv, t.Labels), Head: true})
		}
		for _, c := range cols {
			cell, err := ev.machineCell(dir, x, m, c, rv)
			if err != nil {
				return &view.Error{Msg: err.Error()}
			}
			row = append(row, cell)
		}
		tab.Rows = append(tab.Rows, row)
	}
	return &view.TableView{Table: tab, Provenance: ev.machinesProvenance(views, x.ID)}
}

// unionRows is the values of the rows param that any machine has, in the
// order the machines first have them; one unnamed row without it.
func unionRows(views []machineView, rows string) []string {
	if rows == "" {
		return []string{""}
	}
	var vals []string
	for _, mv := range views {
		for _, v := range mv.vals[rows] {
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
	}
	return vals
}

// machineColumn is a column of a table over several machines: a
// machine's, and the value of cols it shows ("" without cols).
type machineColumn struct {
	mv  *machineView
	val string
}

// machineColumns is a table's columns over its machines and its head
// row, the corner naming the rows param (and cols) first.
func machineColumns(w *view.Words, t *parse.TableDir, x *parse.Experiment, m probe.Metric, views []machineView) (cols []machineColumn, head []view.Cell) {
	head = corner(t)
	for i := range views {
		mv := &views[i]
		vals := mv.vals[t.Cols]
		if t.Cols == "" || len(vals) == 0 {
			vals = []string{""}
		}
		for _, v := range vals {
			cols = append(cols, machineColumn{mv, v})
			h := label(t.Labels, mv.name)
			if v != "" {
				h = paramText(x.Spec, t.Cols, v, t.Labels) + " · " + h
			}
			head = append(head, view.Cell{Text: h, Head: true, Title: w.HeadTitle(m.Doc), Number: true})
		}
	}
	return cols, head
}

// machineCell is column c's cell in the row of rv: its machine's figure,
// or a gap that says why, its hover naming the machine. A figure the
// table's format cannot show is an error, reported at format:.
func (ev *eval) machineCell(dir *parse.Directive, x *parse.Experiment, m probe.Metric, c machineColumn, rv string) (view.Cell, error) {
	t := dir.Table
	var key []string
	if t.Rows != "" {
		key = append(key, rv)
	}
	if t.Cols != "" {
		key = append(key, c.val)
	}
	cell := view.Cell{Text: view.NoFigure, Title: ev.env.w.MissingNote(ev.env.noteSet(c.mv.set), x.ID), Gap: view.GapMissing}
	if c.mv.r != nil {
		k := rowKey(key...)
		found, has := c.mv.rows[k]
		var err error
		if cell, err = figureCell(ev.env.w, found, has, c.mv.failed[k], c.mv.unavailable[k], m, t.Format, t.Labels); err != nil {
			ev.errs.At(cmp.Or(dir.At["format"], dir.Off), "%v", err)
			return cell, err
		}
		switch {
		case !has && c.mv.failed[k] == "" && c.mv.unavailable[k] == "" && c.mv.set != "":
			cell.Title = fmt.Sprintf(ev.env.w.NotOnFormat, c.mv.name)
		case has && !c.mv.r.Measured():
			// One figure per combination: its "runs" would
			// count lines, not the original's runs.
			cell.Title = ev.env.w.TranscribedCell
		}
	}
	cell.Title += " · " + c.mv.name
	return cell, nil
}

// claimOn decides a claim on each of the other machines its machines:
// field names, after the build's own (own, already decided). On another machine the
// chapter's references mean that machine's set (an on() keeps its own).
// A figure that machine lacks leaves its verdict open, and so does an
// error there (the chapter was checked against the build's own set, and
// another set may have been measured with another sweep): each is a
// warning naming the machine.
func (ev *eval) claimOn(dir *parse.Directive, plain string, own view.MachineVerdict, others []string) []view.MachineVerdict {
	out := []view.MachineVerdict{own}
	for _, set := range others {
		on := *ev.env // in which "" stands for set
		on.base = ev.env.resolve(set)
		other := &eval{d: ev.d, p: ev.p, env: &on, errs: ev.d.Errs(), warn: ev.d.Errs()}
		v, ok := other.decide(dir, plain)
		v.Machine = ev.env.machineName(set, nil)
		ev.warn.Relay(other.warn, "on "+v.Machine+": ", "")
		if !ok {
			ev.warn.Relay(other.errs, "on "+v.Machine+": claim not decided: ", parse.KindMissing)
			v = view.MachineVerdict{Machine: v.Machine, Verdict: expr.Unknown, Explain: strings.Join(other.errs.Msgs(), "; ")}
		}
		out = append(out, v)
	}
	return out
}
