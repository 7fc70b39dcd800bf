package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/dataset"
	"measuredbook/evaluate"
	"measuredbook/expr"
	"measuredbook/machine"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/probes"
	"measuredbook/render"
	"measuredbook/runner"
	"measuredbook/store"
)

type verb struct {
	name, args, summary, example string
	run                          func(ctx context.Context, env *cliEnv, args []string) error
	flags                        func(fs *pflag.FlagSet, env *cliEnv)
}

// cliEnv holds one invocation's flags and outputs; nothing is global.
type cliEnv struct {
	stdin                     io.Reader
	stdout, stderr            io.Writer
	chapters, results, out    string
	machineName               string
	here, verbose             bool
	fresh, strict, jsonOutput bool
	only, params              []string
	runs                      int
	addr                      string
	measure                   bool
	force                     bool
	noCache                   bool
	runner                    *runner.Runner // made on first use, closed when the verb ends
}

// probeRunner is the invocation's runner: its runs start a binary of the
// probes alone, built on the first run (runner.Light).
func (e *cliEnv) probeRunner() (*runner.Runner, error) {
	if e.runner == nil {
		r, err := runner.Light(probes.All(), e.stderr)
		if err != nil {
			return nil, err
		}
		e.runner = r
	}
	return e.runner, nil
}

var verbs = []verb{
	{name: "build", args: "", summary: "write the site to out/ from the book's set, or this machine's (--here), measuring what that set lacks when it is this machine's",
		example: "go run . build\n  go run . build --here\n  go run . build --here --fresh --only readiness\n  go run . build --machine m1",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			bookFlags(fs, e)
			setFlags(fs, e)
			fs.StringVar(&e.out, "out", "out", "where the site is written: an empty folder or a site a build wrote (replaced atomically)")
			fs.BoolVar(&e.fresh, "fresh", false, "measure every experiment (or those of --only) anew into this machine's set")
			fs.StringSliceVar(&e.only, "only", nil, "measure only these experiment ids (comma-separated); every page is still built")
			fs.BoolVar(&e.strict, "strict", false, "fail on a failing or undecidable claim, a missing figure, or any result that would have to be measured")
			fs.BoolVarP(&e.verbose, "verbose", "v", false, "list every warning, not one line per kind")
			fs.BoolVar(&e.noCache, "no-cache", false, "evaluate and lay out every page anew, without reading or filling the render cache ("+book.CacheDir+"/ beside the chapters folder)")
		}, run: runBuild},
	{name: "run", args: "ID [ID...]", summary: "(re)measure experiments into this machine's set, print a table",
		example: "go run . run readiness\n  go run . run handoff --runs 5 --json",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			bookFlags(fs, e)
			fs.IntVar(&e.runs, "runs", 0, "runs per combination (default: the experiment's own)")
			fs.BoolVar(&e.jsonOutput, "json", false, "print one JSON object per experiment instead of a table")
		}, run: runRun},
	{name: "probes", summary: "list every probe with its params and metrics",
		example: "go run . probes", run: runProbes},
	{name: "probe", args: "NAME", summary: "measure one probe ad hoc (nothing is stored) and print a table",
		example: "go run . probe readiness --param api=epoll --param idle=1000\n  go run . probe readiness --param api=poll,epoll --param idle=100,1000 --runs 3 --json",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			fs.StringArrayVar(&e.params, "param", nil, "k=v (a comma-separated list of values sweeps that param); repeatable")
			fs.IntVar(&e.runs, "runs", 1, "runs per combination, each in its own child process")
			fs.BoolVar(&e.jsonOutput, "json", false, "print one JSON object instead of a table")
		}, run: runProbe},
	{name: "status", summary: "say for every experiment whether its stored result is fresh, stale (why), missing or failed",
		example: "go run . status\n  go run . status --here\n  go run . status --machine m1",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			bookFlags(fs, e)
			setFlags(fs, e)
		}, run: runStatus},
	{name: "check", summary: "evaluate every claim and print a report; exit 1 if one fails or cannot be decided",
		example: "go run . check\n  go run . check --here",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			bookFlags(fs, e)
			setFlags(fs, e)
			fs.BoolVarP(&e.verbose, "verbose", "v", false, "list every warning, not one line per kind")
		}, run: runCheck},
	{name: "render", args: "FILE|-", summary: "render one Markdown document to an HTML fragment on stdout (never measures)",
		example: "go run . render chapters/02-select-to-epoll.md\n  echo '# hi' | go run . render -",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			bookFlags(fs, e)
			setFlags(fs, e)
			fs.BoolVarP(&e.verbose, "verbose", "v", false, "list every warning, not one line per kind")
		}, run: runRender},
	{name: "adopt", summary: "make this machine the book's machine (sets machine: in book.yaml) once its set is complete",
		example: "go run . build --here && go run . adopt",
		flags:   bookFlags, run: runAdopt},
	serveVerb(),
	bundleVerb(),
	importVerb(),
	compareVerb(),
}

// hereEnv makes --here the default of a working copy: an author who works
// on one machine all day sets it once (in the shell's profile) instead of
// editing the committed book.yaml.
const hereEnv = "MBOOK_HERE"

func bookFlags(fs *pflag.FlagSet, e *cliEnv) {
	fs.StringVar(&e.chapters, "chapters", "chapters", "the chapters folder (with book.yaml)")
	fs.StringVar(&e.results, "results", "results", "the results folder (one set per machine)")
}

// setFlags pick the result set of the verbs that read one.
func setFlags(fs *pflag.FlagSet, e *cliEnv) {
	fs.BoolVar(&e.here, "here", false, "use this machine's result set (measuring what it lacks, for build); default when "+hereEnv+"=1")
	fs.StringVar(&e.machineName, "machine", "", "use this existing result set (see go run . status for the list)")
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return usagef("a verb is required")
		}
		return errHelp
	}
	for _, v := range verbs {
		if v.name != args[0] {
			continue
		}
		env := &cliEnv{stdin: stdin, stdout: stdout, stderr: stderr}
		defer func() {
			if env.runner != nil {
				env.runner.Close()
			}
		}()
		fs := pflag.NewFlagSet(v.name, pflag.ContinueOnError)
		fs.SetOutput(stderr)
		if v.flags != nil {
			v.flags(fs, env)
		}
		fs.Usage = func() {
			fmt.Fprintf(stdout, "usage: go run . %s %s[flags]\n\n%s\n\nexample:\n  %s\n\nflags:\n%s", v.name, argsSpace(v.args), v.summary, v.example, fs.FlagUsages())
		}
		if err := fs.Parse(args[1:]); err != nil {
			if errors.Is(err, pflag.ErrHelp) {
				return errHelp
			}
			return usagef("%s: %v (see go run . %s --help)", v.name, err, v.name)
		}
		return v.run(ctx, env, fs.Args())
	}
	names := make([]string, len(verbs))
	for i, v := range verbs {
		names[i] = v.name
	}
	return usagef("unknown verb %q%s; verbs: %s", args[0], expr.DidYouMean(args[0], names), strings.Join(names, ", "))
}

func argsSpace(a string) string {
	if a == "" {
		return ""
	}
	return a + " "
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: go run . VERB [flags]\n\nverbs:")
	for _, v := range verbs {
		fmt.Fprintf(w, "  %-7s %s\n", v.name, v.summary)
	}
	fmt.Fprintln(w, "\n'go run . VERB --help' shows a verb's flags and an example.")
}

func (e *cliEnv) options() (book.Options, error) {
	if e.here && e.machineName != "" {
		return book.Options{}, usagef("--here and --machine both pick the result set: give one")
	}
	if e.machineName != "" {
		if err := store.CheckName("--machine", e.machineName); err != nil {
			return book.Options{}, usagef("%v", err)
		}
	} else if os.Getenv(hereEnv) == "1" {
		e.here = true
	}
	this := machine.Current()
	if err := store.CheckName("this machine's name (MBOOK_MACHINE)", this.Name); err != nil {
		return book.Options{}, usagef("%v", err)
	}
	r, err := e.probeRunner()
	if err != nil {
		return book.Options{}, err
	}
	return book.Options{Chapters: e.chapters, Results: e.results, Out: e.out, Machine: e.machineName, Here: e.here,
		Fresh: e.fresh, Only: e.only, Strict: e.strict, Probes: probes.All(), Runner: r,
		This: this, Log: e.stderr, Progress: progressTo(e.stderr)}, nil
}

// cache is the render cache's folder for build and serve: CacheDir beside
// the chapters folder, "" with --no-cache.
func (e *cliEnv) cache() string {
	if e.noCache {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Clean(e.chapters)), book.CacheDir)
}

// progressTo reports measurements on w: a status line kept up to date on
// a terminal, plain lines elsewhere (a log, CI).
func progressTo(w io.Writer) *book.Progress {
	tty := false
	if f, ok := w.(*os.File); ok && os.Getenv("TERM") != "dumb" {
		if fi, err := f.Stat(); err == nil {
			tty = fi.Mode()&os.ModeCharDevice != 0
		}
	}
	return &book.Progress{W: w, Terminal: tty}
}

// load reads the chapters with this invocation's options and picks the
// result set (--machine must exist).
func (e *cliEnv) load() (book.Options, *book.Book, string, error) {
	opts, err := e.options()
	if err != nil {
		return opts, nil, "", err
	}
	b, err := book.Load(e.chapters, opts.Probes)
	if err != nil {
		return opts, nil, "", err
	}
	set, err := book.ChooseSet(b.Config, opts)
	return opts, b, set, err
}

// renderGC makes a build collect less often than Go would: laying out
// pages makes much short-lived garbage around a small live heap. Nothing
// is collected until the heap reaches startHeap, as the Go compiler lets
// its heap reach 128 MiB first: a book of a hundred chapters allocates
// about 100 MiB in all and never collects. Past it the heap grows to three
// times what is live before each collection, not Go's two, so that a
// 1,000-chapter book still peaks near 300 MiB (Hugo: ~480). A GOGC or
// GOMEMLIMIT set by the user wins. The probes run in child processes,
// which this does not touch.
func renderGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(startHeap)
	// The first collection frees the sentinel, and its cleanup hands the
	// heap to GOGC.
	runtime.AddCleanup(new([64]byte), func(struct{}) {
		debug.SetGCPercent(200)
		debug.SetMemoryLimit(math.MaxInt64)
	}, struct{}{})
}

const startHeap = 128 << 20

// printWarnings prints the warnings one line per kind, at the first place
// with a count of the others, or every one of them when verbose. Warnings
// for which skip holds are left out unless verbose: build and check leave
// out what their summary line counts (book.Summed): the gaps, with the
// command that fills them, and what the machine cannot measure at all.
func printWarnings(w io.Writer, warnings []error, verbose bool, skip func(error) bool) {
	var order []string
	first := map[string]string{}
	more := map[string]int{}
	for _, warn := range warnings {
		if verbose {
			fmt.Fprintf(w, "warning: %s\n", warn)
			continue
		}
		if skip != nil && skip(warn) {
			continue
		}
		k := book.WarningKind(warn)
		if _, seen := first[k]; seen {
			more[k]++
			continue
		}
		first[k] = warn.Error()
		order = append(order, k)
	}
	for _, k := range order {
		fmt.Fprintf(w, "warning: %s", first[k])
		if n := more[k]; n > 0 {
			fmt.Fprintf(w, " (and %d more like it; -v lists them)", n)
		}
		fmt.Fprintln(w)
	}
}

// printFailingClaims names every claim that does not hold, where it is and
// what was measured.
func printFailingClaims(w io.Writer, claims []evaluate.Claim) {
	for _, c := range claims {
		if c.Verdict == expr.False {
			fmt.Fprintf(w, "%s: claim does not hold: %s\n    %s\n", c.Pos, c.Text, c.Explain)
		}
	}
}

func runBuild(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 {
		return usagef("build takes no arguments, got %q (see go run . build --help)", args)
	}
	renderGC()
	opts, err := e.options()
	if err != nil {
		return err
	}
	opts.Cache = e.cache()
	rep, err := book.Build(ctx, opts)
	// Errors first, then the claims that fail, then the warnings.
	if err != nil {
		fmt.Fprintln(e.stderr, err)
	}
	if rep != nil {
		printFailingClaims(e.stderr, rep.Claims)
		printWarnings(e.stderr, rep.Warnings, e.verbose, book.Summed)
	}
	if err != nil {
		return shown{err}
	}
	holds, fails, unsure, na := countClaims(rep.Claims)
	fmt.Fprintf(e.stdout, "built %s from set %s (%d measured now); claims: %d hold, %d fail, %d inconclusive%s",
		opts.Out, rep.Set, len(rep.Measured), holds, fails, unsure, naText(na))
	if rep.GapFigures > 0 || len(rep.Gaps) > 0 {
		fmt.Fprintf(e.stdout, "; %d place(s) shown as gaps (-v lists them)", rep.GapFigures)
		if n := len(rep.Gaps); n > 0 {
			ids := make([]string, n)
			for i, g := range rep.Gaps {
				ids[i] = g.ID
			}
			fmt.Fprintf(e.stdout, ", %d experiment(s) missing, stale or failed in %s: %s", n, rep.Set, strings.Join(ids, ", "))
		}
		switch {
		case rep.Fill != "":
			fmt.Fprintf(e.stdout, "; fill them with: %s", rep.Fill)
		case len(rep.Gaps) > 0:
			fmt.Fprint(e.stdout, " (a transcribed set: nothing to measure)")
		}
	}
	fmt.Fprintln(e.stdout)
	return nil
}

// naText is the count of claims that do not apply to the machine, for a
// summary line; "" when there are none.
func naText(na int) string {
	if na == 0 {
		return ""
	}
	return fmt.Sprintf(", %d not applicable (about what the set's machine cannot measure)", na)
}

// countClaims counts claims by verdict; those about what the machine
// cannot measure (Unavailable) are counted apart, as not applicable.
func countClaims(claims []evaluate.Claim) (holds, fails, unsure, na int) {
	for _, c := range claims {
		switch {
		case c.Unavailable != "":
			na++
		case c.Verdict == expr.True:
			holds++
		case c.Verdict == expr.False:
			fails++
		default:
			unsure++
		}
	}
	return
}

func runRun(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) == 0 {
		return usagef("run needs at least one experiment id (see go run . status for the list)")
	}
	if e.runs < 0 {
		return usagef("--runs %d: want a positive number of runs", e.runs)
	}
	opts, err := e.options()
	if err != nil {
		return err
	}
	b, err := book.Load(e.chapters, opts.Probes)
	if err != nil {
		return err
	}
	ids, err := b.Select(args)
	if err != nil {
		return usagef("%v", err)
	}
	unlock, err := book.Lock(ctx, e.results, e.stderr)
	if err != nil {
		return err
	}
	defer unlock()
	m := &book.Measurer{Runner: opts.Runner, Probes: opts.Probes, Machine: opts.This, Dir: e.results, Progress: opts.Progress, Runs: e.runs}
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
		if e.jsonOutput {
			if err := printJSON(e.stdout, p, res); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.stdout, "%s (probe %s) → %s\n", id, res.Probe, store.Path(e.results, res.Machine.Name, id))
		printTable(e.stdout, p, res)
	}
	return errors.Join(errs...)
}

func runProbes(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 {
		return usagef("probes takes no arguments, got %q (to measure one: go run . probe NAME)", args)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, p := range probes.All() {
		fmt.Fprintf(w, "%s\n  %s\n", p.Name, strings.ReplaceAll(p.Doc, "\n", "\n  "))
		fmt.Fprintf(w, "  params:\n")
		for _, prm := range p.Params {
			def := prm.Default
			if len(prm.Choices) > 0 {
				def += " (one of " + strings.Join(prm.Choices, ", ") + ")"
			}
			fmt.Fprintf(w, "    %s\t%s\tdefault %s\t%s\n", prm.Name, prm.Kind, def, prm.Doc)
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

func runProbe(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) != 1 {
		return usagef("probe needs exactly one probe name (see go run . probes)")
	}
	if e.runs < 1 {
		return usagef("--runs %d: want at least 1", e.runs)
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
	sweep := map[string][]string{}
	for _, kv := range e.params {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usagef("--param wants k=v, got %q", kv)
		}
		prm, ok := p.Param(k)
		if !ok {
			var names []string
			for _, q := range p.Params {
				names = append(names, q.Name)
			}
			return usagef("probe %s has no param %q%s", p.Name, k, expr.DidYouMean(k, names))
		}
		for _, one := range strings.Split(v, ",") {
			c, err := probe.Canonical(prm, one)
			if err != nil {
				return usagef("%v", err)
			}
			sweep[k] = append(sweep[k], c)
		}
	}
	var order []string
	for _, prm := range p.Params {
		order = append(order, prm.Name)
		if _, ok := sweep[prm.Name]; !ok {
			c, err := probe.Canonical(prm, prm.Default)
			if err != nil {
				return err
			}
			sweep[prm.Name] = []string{c}
		}
	}
	combos := dataset.Combos(order, sweep)
	r, err := e.probeRunner()
	if err != nil {
		return err
	}
	rows, unavailable, failed := r.Measure(ctx, p, combos, max(e.runs, 1), nil)
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("interrupted (%w): nothing was measured to the end", cause)
	}
	res := &dataset.Result{Experiment: p.Name, Probe: p.Name, Order: order, Sweep: sweep, Runs: e.runs,
		Machine: machine.Current(), Units: map[string]probe.Unit{}}
	for _, m := range p.Metrics {
		res.Units[m.Name] = m.Unit
	}
	for _, row := range rows {
		res.Rows = append(res.Rows, dataset.Row{Params: row.Params, Runs: row.Runs})
	}
	res.Unavailable = unavailable
	var errs []error
	for _, f := range failed {
		errs = append(errs, f)
	}
	if e.jsonOutput {
		if err := printJSON(e.stdout, p, res); err != nil {
			return err
		}
	} else if len(res.Rows)+len(res.Unavailable) > 0 {
		printTable(e.stdout, p, res)
	}
	return errors.Join(errs...)
}

// printTable prints one row per combination: its params, then each metric
// as median (min–max over runs) in the metric's display format.
func printTable(w io.Writer, p probe.Probe, res *dataset.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	var varying []string
	for _, k := range res.Order {
		if len(res.Sweep[k]) > 1 {
			varying = append(varying, k)
		}
	}
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
		if len(res.Sweep[k]) == 1 {
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

func runStatus(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 {
		return usagef("status takes no arguments, got %q (see go run . status --help)", args)
	}
	opts, b, set, err := e.load()
	if err != nil {
		return err
	}
	res := book.NewResults(e.results, set, opts.Probes)
	where := "this machine's set"
	if set != opts.This.Name {
		where = "measured elsewhere; this machine is " + opts.This.Name + ", whose own set go run . status --here shows"
	}
	fmt.Fprintf(e.stdout, "result set %s (%s)\n", set, where)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	var unreadable []error
	for _, st := range b.Status(res, opts.Probes, b.Order) {
		ex := b.Experiments[st.ID]
		detail := st.Why
		if st.Result != nil && detail == "" {
			detail = fmt.Sprintf("%s, %d runs", st.Result.Start.Format("2006-01-02"), st.Result.Runs)
			if u := st.Result.Unavailable; len(u) > 0 {
				detail += fmt.Sprintf("; %d combination(s) its machine cannot measure (%s)", len(u), u[0].Reason)
			}
		}
		switch st.State {
		case book.Unreadable:
			unreadable = append(unreadable, res.Err("", st.ID))
			detail = "see the error below"
		case book.Missing, book.Stale, book.Failed:
			hint := "measure with: go run . run " + st.ID
			if set != opts.This.Name {
				// Only that machine can measure into its set; from here
				// the way on is this machine's own set.
				hint = "only " + set + " can measure it; here: go run . build --here"
			}
			detail = strings.TrimPrefix(detail+"; ", "; ") + hint
		}
		state := string(st.State)
		if st.State == book.Fresh && set != opts.This.Name {
			// Good numbers, but not this machine's: say so on every row.
			state = "other machine"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", st.ID, ex.Probe, state, detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var other []string
	for _, s := range res.Sets() {
		if s != set {
			other = append(other, s)
		}
	}
	sort.Strings(other)
	if len(other) > 0 {
		fmt.Fprintf(e.stdout, "other sets: %s\n", strings.Join(other, ", "))
	}
	return errors.Join(unreadable...)
}

func runCheck(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 {
		return usagef("check takes no arguments, got %q (see go run . check --help)", args)
	}
	opts, b, set, err := e.load()
	if err != nil {
		return err
	}
	res := book.NewResults(e.results, set, opts.Probes)
	_, warnings, claims, err := b.Render(res)
	if err != nil {
		return err
	}
	undecided := 0
	marks := map[expr.Truth]string{expr.True: "ok  ", expr.False: "FAIL", expr.Unknown: "??  "}
	for _, c := range claims {
		mark := marks[c.Verdict]
		if c.Unavailable != "" {
			mark = "n/a "
		}
		fmt.Fprintf(e.stdout, "%s %s: %s\n     %s\n", mark, c.Pos, c.Text, c.Explain)
		// A claim stated per machine: its verdict elsewhere is reported,
		// and only this set's decides the exit code.
		for _, o := range c.On[min(1, len(c.On)):] {
			om := strings.TrimSpace(marks[o.Verdict])
			if o.Unavailable != "" {
				om = "n/a"
			}
			fmt.Fprintf(e.stdout, "     on %s: %s %s\n", o.Machine, om, o.Explain)
		}
		if c.Verdict != expr.Unknown || c.Unavailable != "" {
			continue
		}
		if why := missingData(c, res, opts, set); why != "" {
			undecided++
			fmt.Fprintf(e.stdout, "     cannot be decided: %s\n", why)
		}
	}
	printWarnings(e.stderr, warnings, e.verbose, book.Summed)
	holds, fails, unsure, na := countClaims(claims)
	fmt.Fprintf(e.stdout, "set %s: %d claims: %d hold, %d fail, %d inconclusive (%d of them for lack of data)%s\n", set, len(claims), holds, fails, unsure, undecided, naText(na))
	var errs []error
	if fails > 0 {
		errs = append(errs, fmt.Errorf("%d claim(s) do not hold", fails))
	}
	if undecided > 0 {
		errs = append(errs, fmt.Errorf("%d claim(s) cannot be decided: their data is missing", undecided))
	}
	return errors.Join(errs...)
}

// missingData says which result a claim lacks and how to get it where
// check runs, or "" when its data is all there (the runs disagree).
func missingData(c evaluate.Claim, res *book.Results, opts book.Options, set string) string {
	x, err := expr.Parse(c.Expect)
	if err != nil {
		return ""
	}
	for _, r := range x.Refs() {
		if _, ok := res.Lookup(r.Set, r.Experiment); ok {
			continue
		}
		switch {
		case r.Set != "" && r.Set != set:
			return fmt.Sprintf("reference set %s has no result of %s (a reference set is transcribed or imported, not measured here)", r.Set, r.Experiment)
		case set == opts.This.Name:
			return fmt.Sprintf("no result of %s in this machine's set %s; measure it with: go run . run %s", r.Experiment, set, r.Experiment)
		}
		return fmt.Sprintf("no result of %s in set %s, which only %s can measure; from this machine: go run . build --here && go run . check --here", r.Experiment, set, set)
	}
	return ""
}

func runRender(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) != 1 {
		return usagef("render needs one FILE, or - for stdin")
	}
	name := args[0]
	var src []byte
	var err error
	if name == "-" {
		src, err = io.ReadAll(e.stdin)
		name = "<stdin>"
	} else {
		src, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	opts, err := e.options()
	if err != nil {
		return err
	}
	// References may name experiments of other chapters: take the book's
	// experiments when there is a book, the document's own win.
	experiments := map[string]*parse.Experiment{}
	var cfg book.Config
	if b, err := book.Load(e.chapters, opts.Probes); err == nil {
		experiments, cfg = b.Experiments, b.Config
	}
	set, err := book.ChooseSet(cfg, opts)
	if err != nil {
		return err
	}
	res := book.NewResults(e.results, set, opts.Probes)
	res.BookMachines = cfg.Machines // machines: book
	d, err := parse.Parse(name, src, opts.Probes)
	if err != nil {
		return err
	}
	p, err := evaluate.Evaluate(d, res, experiments)
	printWarnings(e.stderr, p.Warnings, e.verbose, nil)
	if err != nil {
		return err
	}
	html, err := render.HTML(d, p.Views)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(html)
	return err
}

var machineLine = regexp.MustCompile(`(?m)^machine:.*$`)

// runAdopt makes this machine the book's: once its set holds a usable
// result for every experiment, book.yaml's machine: names it, so a plain
// build on any clone publishes this machine's numbers.
func runAdopt(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 {
		return usagef("adopt takes no arguments, got %q", args)
	}
	e.here = true
	opts, b, set, err := e.load()
	if err != nil {
		return err
	}
	var lacking []string
	for _, st := range b.Status(book.NewResults(e.results, set, opts.Probes), opts.Probes, b.Order) {
		if st.State != book.Fresh {
			lacking = append(lacking, st.ID+" ("+string(st.State)+")")
		}
	}
	if len(lacking) > 0 {
		return fmt.Errorf("this machine's set %s is not complete: %s; measure it first with: go run . build --here", set, strings.Join(lacking, ", "))
	}
	if b.Config.Machine == set {
		fmt.Fprintf(e.stdout, "%s is already the book's machine\n", set)
		return nil
	}
	path := filepath.Join(e.chapters, book.ConfigFile)
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	line := "machine: " + set
	var out []byte
	if machineLine.Match(src) {
		out = machineLine.ReplaceAll(src, []byte(line))
	} else {
		if len(src) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			src = append(src, '\n')
		}
		out = append(src, line+"\n"...)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return err
	}
	old := b.Config.Machine
	if old == "" {
		old = "(none)"
	}
	fmt.Fprintf(e.stdout, "%s: machine %s → %s; commit it with %s\n", path, old, set, filepath.Join(e.results, set))
	return nil
}
