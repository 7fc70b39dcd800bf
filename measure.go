package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/machine"
	"measuredbook/probe"
	"measuredbook/probes"
	"measuredbook/store"
)

// run, probe and probes: measuring, into this machine's set or ad hoc.

type runFlags struct {
	dirs
	runs       int
	jsonOutput bool
}

var runVerb = verb{name: "run", args: "ID [ID...]", summary: "(re)measure experiments into this machine's set, print a table",
	example:  "go run . run readiness\n  go run . run handoff --runs 5 --json",
	newFlags: func() verbFlags { return new(runFlags) }}

func (f *runFlags) flags(fs *pflag.FlagSet) {
	f.dirs.flags(fs)
	fs.IntVar(&f.runs, "runs", 0, "runs per combination (default: the experiment's own)")
	fs.BoolVar(&f.jsonOutput, "json", false, "print one JSON object per experiment instead of a table")
}

func (f *runFlags) run(ctx context.Context, c *cmd, args []string) error {
	if len(args) == 0 {
		return usagef("run needs at least one experiment id (see go run . status for the list)")
	}
	if f.runs < 0 {
		return usagef("--runs %d: want a positive number of runs", f.runs)
	}
	opts, err := options(f.dirs, setChoice{}, c.stderr)
	if err != nil {
		return err
	}
	r, err := c.probeRunner()
	if err != nil {
		return err
	}
	b, err := book.Load(f.chapters, opts.Probes)
	if err != nil {
		return err
	}
	ids, err := b.Select(args)
	if err != nil {
		return usagef("%v", err)
	}
	res := book.NewResults(f.results, opts.This.Name, opts.Probes)
	res.This = opts.This
	if err := b.Check(res); err != nil {
		return err
	}
	unlock, err := store.Lock(ctx, f.results, c.stderr)
	if err != nil {
		return err
	}
	defer unlock()
	m := &book.Measurer{Runner: r, Probes: opts.Probes, Machine: opts.This, Dir: f.results, Progress: opts.Progress, Runs: f.runs}
	var errs []error
	for i, id := range ids {
		res, err := m.Measure(ctx, b, id)
		if cause := context.Cause(ctx); cause != nil {
			return &book.Interrupted{Cause: cause, Kept: ids[:i], Left: ids[i:]}
		}
		if err != nil {
			errs = append(errs, err)
		}
		if res == nil {
			continue
		}
		p, _ := probe.Lookup(opts.Probes, res.Probe)
		if f.jsonOutput {
			if err := printJSON(c.stdout, p, res); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(c.stdout, "%s (probe %s) → %s\n", id, res.Probe, store.Path(f.results, res.Machine.Name, id))
		printTable(c.stdout, p, res)
	}
	return errors.Join(errs...)
}

var probesVerb = verb{name: "probes", summary: "list every probe with its params and metrics",
	example:  "go run . probes",
	newFlags: func() verbFlags { return probesFlags{} }}

// probesFlags is probes' flags: none.
type probesFlags struct{}

func (probesFlags) flags(*pflag.FlagSet) {}

func (probesFlags) run(ctx context.Context, c *cmd, args []string) error {
	w := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, p := range probes.All() {
		fmt.Fprintf(w, "%s\n  %s\n", p.Name, strings.ReplaceAll(p.Doc, "\n", "\n  "))
		fmt.Fprintf(w, "  params:\n")
		for _, prm := range p.Params {
			def := prm.Default
			if len(prm.Choices) > 0 {
				def += " (one of " + strings.Join(prm.Choices, ", ") + ")"
			}
			doc := prm.Doc
			if prm.Sample {
				doc += " (a sample count: may be auto)"
			}
			fmt.Fprintf(w, "    %s\t%s\tdefault %s\t%s\n", prm.Name, prm.Kind, def, doc)
		}
		fmt.Fprintf(w, "  metrics:\n")
		for _, m := range p.Metrics {
			fmt.Fprintf(w, "    %s\t%s\t%s\n", m.Name, unitName(m.Unit), m.Doc)
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}

func unitName(u probe.Unit) string {
	switch u {
	case probe.Seconds:
		return "seconds"
	case probe.Bytes:
		return "bytes"
	}
	return "count"
}

type probeFlags struct {
	params     []string
	runs       int
	jsonOutput bool
}

var probeVerb = verb{name: "probe", args: "NAME", summary: "measure one probe ad hoc (nothing is stored) and print a table",
	example:  "go run . probe readiness --param api=epoll --param idle=1000\n  go run . probe readiness --param api=poll,epoll --param idle=100,1000 --runs 3 --json",
	newFlags: func() verbFlags { return new(probeFlags) }}

func (f *probeFlags) flags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.params, "param", nil, "k=v (a comma-separated list of values sweeps that param); repeatable")
	fs.IntVar(&f.runs, "runs", 1, "runs per combination, each in its own child process")
	fs.BoolVar(&f.jsonOutput, "json", false, "print one JSON object instead of a table")
}

func (f *probeFlags) run(ctx context.Context, c *cmd, args []string) error {
	if len(args) != 1 {
		return usagef("probe needs exactly one probe name (see go run . probes)")
	}
	if f.runs < 1 {
		return usagef("--runs %d: want at least 1", f.runs)
	}
	if f.runs > probe.MaxRuns {
		return usagef("--runs %d: want at most %d (each run is a child process of its own)", f.runs, probe.MaxRuns)
	}
	all := probes.All()
	p, ok := probe.Lookup(all, args[0])
	if !ok {
		names := make([]string, len(all))
		for i, q := range all {
			names[i] = q.Name
		}
		return usagef("unknown probe %q%s", args[0], expr.DidYouMean(args[0], names))
	}
	sweep, err := f.sweep(p)
	if err != nil {
		return err
	}
	r, err := c.probeRunner()
	if err != nil {
		return err
	}
	order := sweep.Order()
	rows, unavailable, failed := r.Measure(ctx, p, dataset.Combos(order, sweep.Values), f.runs, nil)
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("interrupted (%w): nothing was measured to the end", cause)
	}
	for i := range rows {
		rows[i].PoolKept(p.Metrics)
	}
	// What printTable and printJSON read of a result.
	res := &dataset.Result{Order: order, Sweep: sweep.Values, Machine: machine.Current(), Rows: rows, Unavailable: unavailable}
	var errs []error
	for _, f := range failed {
		errs = append(errs, f)
	}
	if f.jsonOutput {
		if err := printJSON(c.stdout, p, res); err != nil {
			return err
		}
	} else if len(res.Rows)+len(res.Unavailable) > 0 {
		printTable(c.stdout, p, res)
	}
	return errors.Join(errs...)
}

// sweep is the --param values as a chapter's params: would sweep them,
// checked alike; the params not given take their defaults.
func (f *probeFlags) sweep(p probe.Probe) (*probe.Sweep, error) {
	sweep := p.NewSweep(expr.DidYouMean)
	for _, kv := range f.params {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usagef("--param wants k=v, got %q", kv)
		}
		prm, err := sweep.Param(k)
		if err != nil {
			return nil, usagef("%v", err)
		}
		for _, one := range strings.Split(v, ",") {
			if err := sweep.Add(prm, one); err != nil {
				return nil, usagef("%v", err)
			}
		}
	}
	if err := sweep.Fill(); err != nil {
		return nil, err
	}
	if err := sweep.CheckSize(); err != nil {
		return nil, usagef("probe %s: %v", p.Name, err)
	}
	return sweep, nil
}

// printTable prints one row per combination: its params, then each metric
// as median (min–max over runs) in the metric's display format.
func printTable(w io.Writer, p probe.Probe, res *dataset.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	varying := slices.DeleteFunc(slices.Clone(res.Order), func(k string) bool { return len(res.Sweep[k]) < 2 })
	if len(res.Rows) > 0 {
		for _, k := range varying {
			fmt.Fprintf(tw, "%s\t", k)
		}
		for _, m := range p.Metrics {
			fmt.Fprintf(tw, "%s\t", m.Name)
		}
		fmt.Fprintln(tw, "runs\t")
	}
	for _, row := range res.Rows {
		for _, k := range varying {
			fmt.Fprintf(tw, "%s\t", row.Params[k])
		}
		n := 0
		for _, m := range p.Metrics {
			s, ok := dataset.Summarize(row, m.Name)
			if !ok {
				fmt.Fprint(tw, "—\t")
				continue
			}
			n = s.N
			fmt.Fprintf(tw, "%s\t", display(m, s))
		}
		fmt.Fprintf(tw, "%d\t\n", n)
	}
	tw.Flush()
	// A combination this machine cannot measure is a result: its reason.
	for _, u := range res.Unavailable {
		fmt.Fprintf(w, "[%s]: not measured: %s\n", u.Params.Key(), u.Reason)
	}
	var fixed []string
	for _, k := range res.Order {
		switch counts := dataset.Counts(res, k); {
		case probe.IsAuto(res.Sweep[k]) && len(counts) > 0:
			// Sized per combination: the counts they ran with.
			fixed = append(fixed, k+"="+counts[0]+strings.Repeat("–"+counts[len(counts)-1], min(1, len(counts)-1)))
		case len(res.Sweep[k]) == 1:
			fixed = append(fixed, k+"="+res.Sweep[k][0])
		}
	}
	if len(fixed) > 0 {
		fmt.Fprintf(w, "(%s; %s)\n", strings.Join(fixed, " "), res.Machine.Name)
	}
}

// display formats a summary as the book would: "5.25 ms (5.1–5.4 ms)".
func display(m probe.Metric, s dataset.Summary) string {
	v, err := expr.FromSample(&expr.Metric{Unit: m.Unit, Labels: m.Labels}, expr.Sample{Median: s.Median, Min: s.Min, Max: s.Max, Runs: s.N})
	if err != nil {
		return fmt.Sprint(s.Median)
	}
	med, err := v.Format("")
	if err != nil {
		return fmt.Sprint(s.Median)
	}
	if s.N < 2 || s.Min == s.Max {
		return med
	}
	rng, err := v.Format("range")
	if err != nil {
		return med
	}
	return med + " (" + rng + ")"
}

type jsonMetric struct {
	Unit   string  `json:"unit"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Runs   int     `json:"runs"`
}

type jsonRow struct {
	Params  map[string]string     `json:"params"`
	Metrics map[string]jsonMetric `json:"metrics"`
	// Unavailable, for a combination this machine cannot measure, is why
	// (its metrics are empty).
	Unavailable string `json:"unavailable,omitempty"`
}

// printJSON prints the contract's object: probe, machine, rows with each
// metric's median/min/max in base units.
func printJSON(w io.Writer, p probe.Probe, res *dataset.Result) error {
	out := struct {
		Probe   string              `json:"probe"`
		Machine dataset.Fingerprint `json:"machine"`
		Rows    []jsonRow           `json:"rows"`
	}{Probe: p.Name, Machine: res.Machine, Rows: []jsonRow{}}
	for _, row := range res.Rows {
		jr := jsonRow{Params: row.Params, Metrics: map[string]jsonMetric{}}
		for _, m := range p.Metrics {
			if s, ok := dataset.Summarize(row, m.Name); ok {
				jr.Metrics[m.Name] = jsonMetric{Unit: unitName(m.Unit), Median: s.Median, Min: s.Min, Max: s.Max, Runs: s.N}
			}
		}
		out.Rows = append(out.Rows, jr)
	}
	for _, u := range res.Unavailable {
		out.Rows = append(out.Rows, jsonRow{Params: u.Params, Metrics: map[string]jsonMetric{}, Unavailable: u.Reason})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
