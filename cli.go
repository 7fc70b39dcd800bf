package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/expr"
	"measuredbook/machine"
	"measuredbook/probes"
	"measuredbook/runner"
	"measuredbook/store"
)

// verb is one command: its help (args is the synopsis of its arguments;
// a verb without refuses any), and newFlags, which makes the verb's own
// flags, fresh for each invocation.
type verb struct {
	name, args, summary, example string
	newFlags                     func() verbFlags
}

// verbFlags is a verb's own flags: declared on the verb's flag set, then
// run with.
type verbFlags interface {
	flags(fs *pflag.FlagSet)
	run(ctx context.Context, c *cmd, args []string) error
}

// cmd is one invocation's input and outputs, and the probe runner its verb
// may start; nothing is global.
type cmd struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	runner         *runner.Runner // made on first use, closed when the verb ends
}

// probeRunner is the invocation's runner: its runs start a binary of the
// probes alone, built on the first run (runner.Light).
func (c *cmd) probeRunner() (*runner.Runner, error) {
	if c.runner == nil {
		r, err := runner.Light(probes.All(), c.stderr)
		if err != nil {
			return nil, err
		}
		c.runner = r
	}
	return c.runner, nil
}

var verbs = []verb{
	buildVerb, runVerb, probesVerb, probeVerb, statusVerb, checkVerb, renderVerb, adoptVerb,
	serveVerb, bundleVerb, importVerb, compareVerb,
}

// hereEnv makes --here the default of a working copy: an author who works
// on one machine all day sets it once (in the shell's profile) instead of
// editing the committed book.yaml.
const hereEnv = "MBOOK_HERE"

// dirs are the folders of the verbs that read the book.
type dirs struct{ chapters, results string }

func (d *dirs) flags(fs *pflag.FlagSet) {
	fs.StringVar(&d.chapters, "chapters", "chapters", "the chapters folder (with book.yaml)")
	resultsFlag(fs, &d.results)
}

// resultsFlag is --results, alone for the verbs that read no chapters.
func resultsFlag(fs *pflag.FlagSet, results *string) {
	fs.StringVar(results, "results", "results", "the results folder (one set per machine)")
}

// cache is the render cache's folder for build and serve: CacheDir beside
// the chapters folder, "" with --no-cache.
func (d dirs) cache(noCache bool) string {
	if noCache {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Clean(d.chapters)), book.CacheDir)
}

// setChoice picks the result set of the verbs that read one.
type setChoice struct {
	here    bool
	machine string
}

func (s *setChoice) flags(fs *pflag.FlagSet) {
	fs.BoolVar(&s.here, "here", false, "use this machine's result set (measuring what it lacks, for build); default when "+hereEnv+"=1")
	fs.StringVar(&s.machine, "machine", "", "use this existing result set (see go run . status for the list)")
}

// options are the book's options of an invocation: its folders, its set
// (MBOOK_HERE making --here the default), this machine (MBOOK_MACHINE
// names it) and the probes. It only reads the flags and the environment;
// a verb that measures adds a runner.
func options(d dirs, s setChoice, log io.Writer) (book.Options, error) {
	if s.here && s.machine != "" {
		return book.Options{}, usagef("--here and --machine both pick the result set: give one")
	}
	if s.machine != "" {
		if err := store.CheckName("--machine", s.machine); err != nil {
			return book.Options{}, usagef("%v", err)
		}
	}
	this := machine.Current()
	if err := store.CheckName("this machine's name (MBOOK_MACHINE)", this.Name); err != nil {
		return book.Options{}, usagef("%v", err)
	}
	here := s.here || s.machine == "" && os.Getenv(hereEnv) == "1"
	return book.Options{Chapters: d.chapters, Results: d.results, Machine: s.machine, Here: here,
		Probes: probes.All(), This: this, Log: log, Progress: progressTo(log)}, nil
}

// bookSet is the flags of the verbs that read the book from one result
// set.
type bookSet struct {
	dirs
	set setChoice
}

func (f *bookSet) flags(fs *pflag.FlagSet) {
	f.dirs.flags(fs)
	f.set.flags(fs)
}

// load reads the chapters and picks the result set (--machine must
// exist), whose results it opens.
func (f *bookSet) load(log io.Writer) (book.Options, *book.Book, *book.Results, error) {
	opts, err := options(f.dirs, f.set, log)
	if err != nil {
		return opts, nil, nil, err
	}
	b, err := book.Load(opts.Chapters, opts.Probes)
	if err != nil {
		return opts, nil, nil, err
	}
	set, err := book.ChooseSet(b.Config, opts)
	if err != nil {
		return opts, nil, nil, err
	}
	res := book.NewResults(opts.Results, set, opts.Probes)
	res.This = opts.This
	return opts, b, res, nil
}

func verboseFlag(fs *pflag.FlagSet, v *bool) {
	fs.BoolVarP(v, "verbose", "v", false, "list every warning, not one line per kind")
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return usagef("a verb is required")
		}
		return errHelp
	}
	i := slices.IndexFunc(verbs, func(v verb) bool { return v.name == args[0] })
	if i < 0 {
		names := make([]string, len(verbs))
		for i, v := range verbs {
			names[i] = v.name
		}
		return usagef("unknown verb %q%s; verbs: %s", args[0], expr.DidYouMean(args[0], names), strings.Join(names, ", "))
	}
	v := verbs[i]
	c := &cmd{stdin: stdin, stdout: stdout, stderr: stderr}
	defer func() { c.runner.Close() }()
	fs := pflag.NewFlagSet(v.name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	f := v.newFlags()
	f.flags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: go run . %s [flags]\n\n%s\n\nexample:\n  %s\n\nflags:\n%s", strings.TrimSpace(v.name+" "+v.args), v.summary, v.example, fs.FlagUsages())
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp
		}
		return usagef("%s: %v (see go run . %s --help)", v.name, err, v.name)
	}
	if v.args == "" && fs.NArg() > 0 {
		return usagef("%s takes no arguments, got %q (see go run . %s --help)", v.name, fs.Args(), v.name)
	}
	return f.run(ctx, c, fs.Args())
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: go run . VERB [flags]\n\nverbs:")
	for _, v := range verbs {
		fmt.Fprintf(w, "  %-7s %s\n", v.name, v.summary)
	}
	fmt.Fprintln(w, "\n'go run . VERB --help' shows a verb's flags and an example.")
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
