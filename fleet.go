package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/fleet"
	"measuredbook/machine"
	"measuredbook/probes"
	"measuredbook/store"
)

// bundleVerb, importVerb and compareVerb move result sets between
// machines and compare them (package fleet does the work).
func bundleVerb() verb {
	return verb{name: "bundle", summary: "write one machine's result set (this machine's unless --machine) to stdout as a single verified file",
		example: "go run . bundle > this-machine.bundle\n  go run . bundle --machine m1 > m1.bundle",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			fs.StringVar(&e.results, "results", "results", "the results folder (one set per machine)")
			fs.StringVar(&e.machineName, "machine", "", "the set to bundle (default: this machine's)")
		}, run: runBundle}
}

func importVerb() verb {
	return verb{name: "import", args: "FILE", summary: "add a bundled result set under results/NAME/, verified; --force replaces an existing set",
		example: "go run . import linux-arm64.bundle\n  go run . import linux-arm64.bundle --force",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			fs.StringVar(&e.results, "results", "results", "the results folder (one set per machine)")
			fs.BoolVar(&e.force, "force", false, "replace the set if it exists and differs")
		}, run: runImport}
}

func compareVerb() verb {
	return verb{name: "compare", args: "A B", summary: "compare two result sets per experiment and metric: medians, ratio, significance (benchstat's statistics)",
		example: "go run . compare m1 linux-amd64-amd-epyc-2c\n  go run . compare A B --only readiness,handoff --json",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			fs.StringVar(&e.results, "results", "results", "the results folder (one set per machine)")
			fs.StringSliceVar(&e.only, "only", nil, "compare only these experiment ids (comma-separated)")
			fs.BoolVar(&e.jsonOutput, "json", false, "print the comparison as JSON")
			fs.StringVar(&e.chapters, "chapters", "chapters", "the chapters, which say which metrics are headline metrics")
			fs.BoolVar(&e.all, "all", false, "compare every metric, not only the headline metrics (those the chapters use)")
		}, run: runCompare}
}

func runBundle(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 {
		return usagef("bundle takes no arguments, got %q (the set is --machine NAME; the bundle goes to stdout)", args)
	}
	set := e.machineName
	if set == "" {
		set = machine.Current().Name
	}
	if err := store.CheckName("--machine", set); err != nil {
		return usagef("%v", err)
	}
	if sets := book.NewResults(e.results, "", probes.All()).Sets(); !slices.Contains(sets, set) {
		return usagef("no result set %s in %s%s; sets: %s", set, e.results, expr.DidYouMean(set, sets), strings.Join(sets, ", "))
	}
	b, err := fleet.ReadSet(e.results, set)
	if err != nil {
		return err
	}
	if err := fleet.Write(e.stdout, b); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "bundled set %s: %d files\n", set, len(b.Files))
	return nil
}

func runImport(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) != 1 {
		return usagef("import needs exactly one bundle file (written by go run . bundle)")
	}
	// A regular file of bounded size: a FIFO or a device is refused, not read.
	data, err := store.ReadFile(args[0], fleet.MaxBundle)
	if err != nil {
		return err
	}
	b, err := fleet.Parse(bytes.NewReader(data), args[0])
	if err != nil {
		return err
	}
	rep, err := fleet.Import(ctx, e.results, b, args[0], e.force, probes.All(), e.stderr)
	if err != nil {
		return err
	}
	for _, s := range rep.Stale {
		fmt.Fprintf(e.stderr, "warning: %s\n", s)
	}
	switch {
	case rep.Same:
		fmt.Fprintf(e.stdout, "%s already holds these %d files: nothing to do\n", rep.Dir, len(b.Files))
	case len(rep.Replaced) > 0:
		fmt.Fprintf(e.stdout, "replaced %s with the bundle's %d files:\n  %s\n", rep.Dir, rep.Files, strings.Join(rep.Replaced, "\n  "))
	default:
		fmt.Fprintf(e.stdout, "imported %s: %d files\n", rep.Dir, rep.Files)
	}
	if n := len(rep.Stale); n > 0 {
		fmt.Fprintf(e.stdout, "%d experiment(s) are stale here (their probe code differs in this checkout); go run . status --machine %s lists them\n", n, b.Set)
	}
	return nil
}

func runCompare(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) != 2 {
		return usagef("compare needs two result sets, A B (see go run . status for the list)")
	}
	sets := book.NewResults(e.results, "", probes.All()).Sets()
	loaded := make([]map[string]*dataset.Result, 2)
	for i, set := range args {
		if err := store.CheckName("set name", set); err != nil {
			return usagef("%v", err)
		}
		if !slices.Contains(sets, set) {
			return usagef("no result set %s in %s%s; sets: %s", set, e.results, expr.DidYouMean(set, sets), strings.Join(sets, ", "))
		}
		res, err := fleet.LoadSet(e.results, set, probes.All())
		if err != nil {
			return err
		}
		loaded[i] = res
	}
	c, err := fleet.Compare(args[0], loaded[0], args[1], loaded[1], e.only)
	if err != nil {
		return usagef("%v", err)
	}
	if !e.all {
		b, err := book.Load(e.chapters, probes.All())
		if err != nil {
			return fmt.Errorf("%w (the chapters say which metrics are headline metrics; --all compares every metric without them)", err)
		}
		c.Headline(b.Headline)
	}
	if !e.jsonOutput {
		return c.WriteText(e.stdout)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(c)
}
