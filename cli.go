package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/expr"
	"measuredbook/machine"
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
	fresh, strict, jsonOutput bool
	only, params              []string
	runs                      int
	addr                      string
	measure                   bool
}

var verbs = []verb{
	{name: "build", args: "", summary: "measure what is missing or stale, then write the site to out/",
		example: "go run . build\n  go run . build --machine m1 --strict\n  go run . build --fresh --only readiness",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			bookFlags(fs, e)
			fs.StringVar(&e.out, "out", "out", "where the site is written (replaced atomically)")
			fs.BoolVar(&e.fresh, "fresh", false, "measure every experiment anew on this machine and build from its set")
			fs.StringSliceVar(&e.only, "only", nil, "measure only these experiment ids (comma-separated)")
			fs.BoolVar(&e.strict, "strict", false, "fail on a failing claim or on any result that would have to be measured")
		}, run: runBuild},
	{name: "run", args: "ID [ID...]", summary: "(re)measure experiments on this machine, store the results, print a table",
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
		example: "go run . status\n  go run . status --machine m1",
		flags:   bookFlags, run: runStatus},
	{name: "check", summary: "evaluate every claim against the results and print a report; exit 1 if any fails",
		example: "go run . check",
		flags:   bookFlags, run: runCheck},
	{name: "render", args: "FILE|-", summary: "render one Markdown document to an HTML fragment on stdout (never measures)",
		example: "go run . render chapters/02-select-to-epoll.md\n  echo '# hi' | go run . render -",
		flags:   bookFlags, run: runRender},
	serveVerb(),
}

func bookFlags(fs *pflag.FlagSet, e *cliEnv) {
	fs.StringVar(&e.chapters, "chapters", "chapters", "the chapters folder (with book.yaml)")
	fs.StringVar(&e.results, "results", "results", "the results folder (one set per machine)")
	fs.StringVar(&e.machineName, "machine", "", "build from this machine's result set (default: the book's machine, else this one)")
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
	r, err := runner.New()
	if err != nil {
		return book.Options{}, err
	}
	return book.Options{Chapters: e.chapters, Results: e.results, Out: e.out, Machine: e.machineName,
		Fresh: e.fresh, Only: e.only, Strict: e.strict, Probes: probes.All(), Runner: r,
		This: machine.Current(), Log: e.stderr}, nil
}

// load reads the chapters with this invocation's options.
func (e *cliEnv) load() (book.Options, *book.Book, error) {
	opts, err := e.options()
	if err != nil {
		return opts, nil, err
	}
	b, err := book.Load(e.chapters, opts.Probes)
	return opts, b, err
}

// printWarnings prints each distinct warning once, at its first position:
// a missing result is otherwise reported at every value that needs it.
func printWarnings(w io.Writer, warnings []error) {
	var order []string
	first := map[string]string{}
	more := map[string]int{}
	for _, warn := range warnings {
		text := warn.Error()
		msg := text
		var pe *render.PosError
		if errors.As(warn, &pe) {
			msg = pe.Msg
		}
		if _, seen := first[msg]; seen {
			more[msg]++
			continue
		}
		first[msg] = text
		order = append(order, msg)
	}
	for _, msg := range order {
		fmt.Fprintf(w, "warning: %s", first[msg])
		if n := more[msg]; n > 0 {
			fmt.Fprintf(w, " (and %d more places)", n)
		}
		fmt.Fprintln(w)
	}
}

func runBuild(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 {
		return usagef("build takes no arguments, got %q", args)
	}
	opts, err := e.options()
	if err != nil {
		return err
	}
	rep, err := book.Build(ctx, opts)
	if rep != nil {
		printWarnings(e.stderr, rep.Warnings)
	}
	if err != nil {
		return err
	}
	holds, fails, unsure := countClaims(rep.Claims)
	fmt.Fprintf(e.stdout, "built %s from set %s (%d measured now); claims: %d hold, %d fail, %d inconclusive\n",
		opts.Out, rep.Set, len(rep.Measured), holds, fails, unsure)
	return nil
}

func countClaims(claims []render.Claim) (holds, fails, unsure int) {
	for _, c := range claims {
		switch c.Verdict {
		case "holds":
			holds++
		case "fails":
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
	opts, b, err := e.load()
	if err != nil {
		return err
	}
	ids, err := b.Select(args)
	if err != nil {
		return usagef("%v", err)
	}
	m := &book.Measurer{Runner: opts.Runner, Probes: opts.Probes, Machine: opts.This, Dir: e.results, Log: e.stderr, Runs: e.runs}
	var errs []error
	for _, id := range ids {
		res, err := m.Measure(ctx, b, id)
		if err != nil {
			errs = append(errs, err)
		}
		if res == nil {
			continue
		}
		p, _ := probes.Lookup(opts.Probes, res.Probe)
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
	all := probes.All()
	p, ok := probes.Lookup(all, args[0])
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
	combos := []probe.Params{{}}
	for _, k := range order {
		var next []probe.Params
		for _, c := range combos {
			for _, v := range sweep[k] {
				n := probe.Params{k: v}
				for kk, vv := range c {
					n[kk] = vv
				}
				next = append(next, n)
			}
		}
		combos = next
	}
	r, err := runner.New()
	if err != nil {
		return err
	}
	rows, failed := r.Measure(ctx, p, combos, max(e.runs, 1), nil)
	res := &store.Result{Experiment: p.Name, Probe: p.Name, Order: order, Sweep: sweep, Runs: e.runs,
		Machine: machine.Current(), Units: map[string]probe.Unit{}}
	for _, m := range p.Metrics {
		res.Units[m.Name] = m.Unit
	}
	for _, row := range rows {
		res.Rows = append(res.Rows, store.Row{Params: row.Params, Runs: row.Runs})
	}
	var errs []error
	for _, f := range failed {
		errs = append(errs, f)
	}
	if e.jsonOutput {
		if err := printJSON(e.stdout, p, res); err != nil {
			return err
		}
	} else if len(res.Rows) > 0 {
		printTable(e.stdout, p, res)
	}
	return errors.Join(errs...)
}

// printTable prints one row per combination: its params, then each metric
// as median (min–max over runs) in the metric's display format.
func printTable(w io.Writer, p probe.Probe, res *store.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	var varying []string
	for _, k := range res.Order {
		if len(res.Sweep[k]) > 1 {
			varying = append(varying, k)
		}
	}
	for _, k := range varying {
		fmt.Fprintf(tw, "%s\t", k)
	}
	for _, m := range p.Metrics {
		fmt.Fprintf(tw, "%s\t", m.Name)
	}
	fmt.Fprintln(tw, "runs\t")
	for _, row := range res.Rows {
		for _, k := range varying {
			fmt.Fprintf(tw, "%s\t", row.Params[k])
		}
		n := 0
		for _, m := range p.Metrics {
			s, ok := store.Summarize(row, m.Name)
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
func display(m probe.Metric, s store.Summary) string {
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
}

// printJSON prints the contract's object: probe, machine, rows with each
// metric's median/min/max in base units.
func printJSON(w io.Writer, p probe.Probe, res *store.Result) error {
	out := struct {
		Probe   string              `json:"probe"`
		Machine machine.Fingerprint `json:"machine"`
		Rows    []jsonRow           `json:"rows"`
	}{Probe: p.Name, Machine: res.Machine, Rows: []jsonRow{}}
	for _, row := range res.Rows {
		jr := jsonRow{Params: row.Params, Metrics: map[string]jsonMetric{}}
		for _, m := range p.Metrics {
			if s, ok := store.Summarize(row, m.Name); ok {
				jr.Metrics[m.Name] = jsonMetric{Unit: unitName(m.Unit), Median: s.Median, Min: s.Min, Max: s.Max, Runs: s.N}
			}
		}
		out.Rows = append(out.Rows, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func runStatus(ctx context.Context, e *cliEnv, args []string) error {
	opts, b, err := e.load()
	if err != nil {
		return err
	}
	set := book.SetFor(b.Config, opts)
	res := book.NewResults(e.results, set)
	where := "this machine's set"
	if set != opts.This.Name {
		where = "other machine: not this one (" + opts.This.Name + ")"
	}
	fmt.Fprintf(e.stdout, "result set %s (%s)\n", set, where)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, st := range b.Status(res, opts.Probes, b.Order) {
		ex := b.Experiments[st.ID]
		detail := st.Why
		if st.Result != nil && detail == "" {
			detail = fmt.Sprintf("%s, %d runs", st.Result.Start.Format("2006-01-02"), st.Result.Runs)
		}
		if st.State == book.Missing || st.State == book.Stale {
			hint := "measure with: go run . run " + st.ID
			if set != opts.This.Name {
				hint = "measure on " + set + " with: go run . run " + st.ID
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
	return nil
}

func runCheck(ctx context.Context, e *cliEnv, args []string) error {
	opts, b, err := e.load()
	if err != nil {
		return err
	}
	set := book.SetFor(b.Config, opts)
	_, warnings, claims, err := b.Render(book.NewResults(e.results, set))
	if err != nil {
		return err
	}
	for _, c := range claims {
		mark := map[string]string{"holds": "ok  ", "fails": "FAIL", "inconclusive": "??  "}[c.Verdict]
		fmt.Fprintf(e.stdout, "%s %s: %s\n     %s\n", mark, c.Pos, c.Text, c.Explain)
	}
	printWarnings(e.stderr, warnings)
	holds, fails, unsure := countClaims(claims)
	fmt.Fprintf(e.stdout, "set %s: %d claims: %d hold, %d fail, %d inconclusive\n", set, len(claims), holds, fails, unsure)
	if fails > 0 {
		return fmt.Errorf("%d claim(s) do not hold", fails)
	}
	return nil
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
	all := probes.All()
	// References may name experiments of other chapters: take the book's
	// experiments when there is a book, the document's own win.
	experiments := map[string]*render.Experiment{}
	set := e.machineName
	if b, err := book.Load(e.chapters, all); err == nil {
		experiments = b.Experiments
		if set == "" {
			set = book.SetFor(b.Config, book.Options{This: machine.Current()})
		}
	}
	if set == "" {
		set = machine.Current().Name
	}
	html, warnings, err := render.RenderFragment(name, src, all, book.NewResults(e.results, set), experiments)
	printWarnings(e.stderr, warnings)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(html)
	return err
}
