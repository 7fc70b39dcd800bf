package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/dataset"
	"measuredbook/evaluate"
	"measuredbook/expr"
)

// build, status and check: the book from a result set, and what that set
// holds.

type buildFlags struct {
	bookSet
	out, epub, pdf                        string
	fresh, strict, verbose, noCache, safe bool
	only, fleet                           []string
}

var buildVerb = verb{name: "build", summary: "write the site to out/ from the book's set, or this machine's (--here), measuring what that set lacks when it is this machine's",
	example:  "go run . build\n  go run . build --here\n  go run . build --here --fresh --only readiness\n  go run . build --machine m1\n  go run . build --epub book.epub --pdf book.pdf",
	newFlags: func() verbFlags { return new(buildFlags) }}

func (f *buildFlags) flags(fs *pflag.FlagSet) {
	f.bookSet.flags(fs)
	fs.StringVar(&f.out, "out", "", "where the site is written: an empty folder or a site a build wrote (replaced atomically); default out/ for the book's set, out-SET/ (ignored by git) for any other")
	fs.BoolVar(&f.fresh, "fresh", false, "measure every experiment (or those of --only) anew into this machine's set")
	fs.StringSliceVar(&f.only, "only", nil, "measure only these experiment ids (comma-separated); every page is still built")
	fs.StringSliceVar(&f.fleet, "fleet", nil, "the sets whose copies the site holds under machines/SET/ (comma-separated): every page links to the same page in each, the book's build writes fleet.html, and a build with --machine SET is that copy")
	fs.BoolVar(&f.strict, "strict", false, "fail on a failing or undecidable claim, a missing figure, or any result that would have to be measured")
	safeFlag(fs, &f.safe)
	fs.StringVar(&f.epub, "epub", "", "also write the book as an EPUB 3 file to FILE (book.yaml's epub: true puts one in the site as book.epub)")
	fs.StringVar(&f.pdf, "pdf", "", "also print the book (the site's print.html) to the PDF file FILE with Chromium, which must be installed")
	verboseFlag(fs, &f.verbose)
	fs.BoolVar(&f.noCache, "no-cache", false, "evaluate and lay out every page anew, without reading or filling the render cache ("+book.CacheDir+"/ beside the chapters folder)")
}

func (f *buildFlags) run(ctx context.Context, c *cmd, args []string) error {
	renderGC()
	opts, err := options(f.dirs, f.set, c.stderr)
	if err != nil {
		return err
	}
	if opts.Runner, err = c.probeRunner(); err != nil {
		return err
	}
	opts.Out, opts.Fresh, opts.Only, opts.Strict, opts.Safe, opts.Cache, opts.Fleet = f.out, f.fresh, f.only, f.strict, f.safe, f.cache(f.noCache), f.fleet
	opts.EPUB, opts.PDF = f.epub, f.pdf
	rep, err := book.Build(ctx, opts)
	// Errors first, then the claims that fail, then the warnings.
	if err != nil {
		fmt.Fprintln(c.stderr, err)
	}
	if rep != nil {
		for _, cl := range rep.Claims {
			if cl.Verdict == expr.False {
				fmt.Fprintf(c.stderr, "%s: claim does not hold: %s\n    %s\n", cl.Pos, cl.Text, cl.Explain)
			}
		}
		printWarnings(c.stderr, rep.Warnings, f.verbose, book.Summed)
		if f.verbose && len(rep.External) > 0 {
			fmt.Fprintf(c.stderr, "external links (listed, not fetched): %s\n", strings.Join(rep.External, " "))
		}
	}
	if err != nil {
		return shown{err}
	}
	holds, fails, unsure, na := evaluate.Tally(rep.Claims)
	if fails > 0 {
		fmt.Fprintf(c.stderr, "the site is built with the %d claim(s) that do not hold marked, and build exits 0; build --strict and check fail on them\n", fails)
	}
	fmt.Fprintf(c.stdout, "built %s from set %s (%d measured now); claims: %d hold, %d fail, %d inconclusive%s",
		rep.Out+outNote(rep.Out), rep.Set, len(rep.Measured), holds, fails, unsure, naText(na))
	if rep.GapFigures > 0 || len(rep.Gaps) > 0 {
		fmt.Fprintf(c.stdout, "; %d place(s) shown as gaps (-v lists them)", rep.GapFigures)
		if n := len(rep.Gaps); n > 0 {
			ids := make([]string, n)
			for i, g := range rep.Gaps {
				ids[i] = g.ID
			}
			fmt.Fprintf(c.stdout, ", %d experiment(s) missing, stale or failed in %s: %s", n, rep.Set, strings.Join(ids, ", "))
		}
		switch {
		case rep.Fill != "":
			fmt.Fprintf(c.stdout, "; fill them with: %s", rep.Fill)
		case len(rep.Gaps) > 0:
			fmt.Fprint(c.stdout, " (a transcribed set: nothing to measure)")
		}
	}
	fmt.Fprintln(c.stdout)
	return nil
}

// outNote says of a folder other than out/ that it is not the published
// book.
func outNote(out string) string {
	if out == "out" || !strings.HasPrefix(out, "out-") {
		return ""
	}
	return " (not the published book's out/; git ignores it)"
}

// renderGC makes a build collect less often than Go would: laying out
// pages makes much short-lived garbage around a small live heap. Nothing
// is collected until the heap reaches startHeap, as the Go compiler lets
// its heap reach 128 MiB first: a book of a hundred chapters allocates
// about 100 MiB in all and never collects. Past it the heap grows to three
// times what is live before each collection, not Go's two, but no further
// than softHeap: a 10,000-chapter book, about 150 MiB live, would grow to
// 600 MiB between collections. A GOGC or GOMEMLIMIT set by the user wins.
// The probes run in child processes, which this does not touch.
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
		debug.SetMemoryLimit(softHeap)
	}, struct{}{})
}

const (
	startHeap = 128 << 20
	softHeap  = 448 << 20
)

// naText is the count of claims that do not apply to the machine, for a
// summary line; "" when there are none.
func naText(na int) string {
	if na == 0 {
		return ""
	}
	return fmt.Sprintf(", %d not applicable (about what the set's machine cannot measure)", na)
}

type statusFlags struct{ bookSet }

var statusVerb = verb{name: "status", summary: "say for every experiment whether its stored result is fresh, stale (why), missing or failed",
	example:  "go run . status\n  go run . status --here\n  go run . status --machine m1",
	newFlags: func() verbFlags { return new(statusFlags) }}

func (f *statusFlags) run(ctx context.Context, c *cmd, args []string) error {
	opts, b, res, err := f.load(c.stderr)
	if err != nil {
		return err
	}
	set := res.Machine
	where := "this machine's set"
	if set != opts.This.Name {
		where = "measured elsewhere; this machine is " + opts.This.Name + ", whose own set go run . status --here shows"
	}
	fmt.Fprintf(c.stdout, "result set %s (%s)\n", set, where)
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	var unreadable []error
	for _, st := range b.Status(res, opts.Probes, b.Order) {
		ex := b.Experiments[st.ID]
		detail := st.Why
		if r, ok := res.Header("", st.ID); ok && detail == "" {
			detail = fmt.Sprintf("%s, %d runs%s%s", r.Start.Format("2006-01-02"), r.Runs, took(r.Duration), stopNote(r.Stop))
			if u := r.Unavailable; len(u) > 0 {
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
	// Sets are sorted by name, as the folder lists them.
	if other := slices.DeleteFunc(res.Sets(), func(s string) bool { return s == set }); len(other) > 0 {
		fmt.Fprintf(c.stdout, "other sets: %s\n", strings.Join(other, ", "))
	}
	return errors.Join(unreadable...)
}

type checkFlags struct {
	bookSet
	verbose bool
}

var checkVerb = verb{name: "check", summary: "evaluate every claim and print a report; exit 1 if one fails or cannot be decided",
	example:  "go run . check\n  go run . check --here",
	newFlags: func() verbFlags { return new(checkFlags) }}

func (f *checkFlags) flags(fs *pflag.FlagSet) {
	f.bookSet.flags(fs)
	verboseFlag(fs, &f.verbose)
}

func (f *checkFlags) run(ctx context.Context, c *cmd, args []string) error {
	opts, b, res, err := f.load(c.stderr)
	if err != nil {
		return err
	}
	set := res.Machine
	// As the build does: a stale result's figures are judged, marked, and
	// what it was not measured with is a gap, not an error.
	res.MarkStale(b.Status(res, opts.Probes, b.Order))
	_, warnings, claims, err := b.Render(res)
	if err != nil {
		return err
	}
	undecided := 0
	marks := map[expr.Truth]string{expr.True: "ok  ", expr.False: "FAIL", expr.Unknown: "??  "}
	for _, cl := range claims {
		mark := marks[cl.Verdict]
		if cl.Unavailable != "" {
			mark = "n/a "
		}
		fmt.Fprintf(c.stdout, "%s %s: %s\n     %s\n", mark, cl.Pos, cl.Text, cl.Explain)
		// A claim stated per machine: its verdict elsewhere is reported,
		// and only this set's decides the exit code.
		for _, o := range cl.On[min(1, len(cl.On)):] {
			om := strings.TrimSpace(marks[o.Verdict])
			if o.Unavailable != "" {
				om = "n/a"
			}
			fmt.Fprintf(c.stdout, "     on %s: %s %s\n", o.Machine, om, o.Explain)
		}
		if cl.Verdict != expr.Unknown || cl.Unavailable != "" {
			continue
		}
		if ref, missing := cl.MissingRef(res); missing {
			undecided++
			fmt.Fprintf(c.stdout, "     cannot be decided: %s\n", howToMeasure(ref, set, opts.This.Name))
		}
	}
	printWarnings(c.stderr, warnings, f.verbose, book.Summed)
	holds, fails, unsure, na := evaluate.Tally(claims)
	fmt.Fprintf(c.stdout, "set %s: %d claims: %d hold, %d fail, %d inconclusive (%d of them for lack of data)%s\n", set, len(claims), holds, fails, unsure, undecided, naText(na))
	var errs []error
	if fails > 0 {
		errs = append(errs, fmt.Errorf("%d claim(s) do not hold", fails))
	}
	if undecided > 0 {
		errs = append(errs, fmt.Errorf("%d claim(s) cannot be decided: their data is missing", undecided))
	}
	return errors.Join(errs...)
}

// howToMeasure says that a claim checked against set lacks the result r
// names, and how to get it from this machine.
func howToMeasure(r expr.Ref, set, this string) string {
	switch {
	case r.Set != "" && r.Set != set:
		return fmt.Sprintf("reference set %s has no result of %s (a reference set is transcribed or imported, not measured here)", r.Set, r.Experiment)
	case set == this:
		return fmt.Sprintf("no result of %s in this machine's set %s; measure it with: go run . run %s", r.Experiment, set, r.Experiment)
	}
	return fmt.Sprintf("no result of %s in set %s, which only %s can measure; from this machine: go run . build --here && go run . check --here", r.Experiment, set, set)
}

// took is how long a measurement took, as status says it (" in 49s"): a
// budget is a bound on more runs, not on the fewest an interval needs.
func took(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Second:
		return " in " + d.Round(time.Millisecond).String()
	}
	return " in " + d.Round(time.Second).String()
}

// stopNote is what status says of runs: auto's stopping rule: the widest
// interval it reached and why it stopped (", ±9 %, budget reached (10s)").
func stopNote(s dataset.Stop) string {
	if !s.Auto {
		return ""
	}
	note := fmt.Sprintf(", ±%.2g %%", 100*s.Interval)
	if math.IsInf(s.Interval, 0) {
		note = ", no interval yet"
	}
	if !s.Reached() {
		note += fmt.Sprintf(" (precision ±%g %% not reached)", 100*s.Precision)
	}
	return note + ", " + s.Why
}

// safeFlag is --safe, for chapters the user does not trust.
func safeFlag(fs *pflag.FlagSet, safe *bool) {
	fs.BoolVar(safe, "safe", false, "refuse raw HTML and javascript: links in the chapters, for chapters you do not trust (as book.yaml's safe: true)")
}
