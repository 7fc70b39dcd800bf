package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/dataset"
	"measuredbook/fleet"
	"measuredbook/machine"
	"measuredbook/probes"
	"measuredbook/store"
)

// bundle, import and compare move result sets between machines and
// compare them (package fleet does the work).

type bundleFlags struct{ results, machine string }

var bundleVerb = verb{name: "bundle", summary: "write one machine's result set (this machine's unless --machine) to stdout as a single verified file",
	example:  "go run . bundle > this-machine.bundle\n  go run . bundle --machine m1 > m1.bundle",
	newFlags: func() verbFlags { return new(bundleFlags) }}

func (f *bundleFlags) flags(fs *pflag.FlagSet) {
	resultsFlag(fs, &f.results)
	fs.StringVar(&f.machine, "machine", "", "the set to bundle (default: this machine's)")
}

type importFlags struct {
	results string
	force   bool
}

var importVerb = verb{name: "import", args: "FILE", summary: "add a bundled result set under results/NAME/, verified; --force replaces an existing set",
	example:  "go run . import linux-arm64.bundle\n  go run . import linux-arm64.bundle --force",
	newFlags: func() verbFlags { return new(importFlags) }}

func (f *importFlags) flags(fs *pflag.FlagSet) {
	resultsFlag(fs, &f.results)
	fs.BoolVar(&f.force, "force", false, "replace the set if it exists and differs")
}

type compareFlags struct {
	results, chapters string
	only              []string
	jsonOutput, all   bool
}

var compareVerb = verb{name: "compare", args: "A B", summary: "compare two result sets per experiment and metric: medians, ratio, significance (benchstat's statistics)",
	example:  "go run . compare m1 linux-amd64-amd-epyc-2c\n  go run . compare linux-amd64-amd-epyc-2c here --only readiness   # here: this machine's set\n  go run . compare A B --only readiness,handoff --json",
	newFlags: func() verbFlags { return new(compareFlags) }}

func (f *compareFlags) flags(fs *pflag.FlagSet) {
	resultsFlag(fs, &f.results)
	fs.StringSliceVar(&f.only, "only", nil, "compare only these experiment ids (comma-separated)")
	fs.StringVar(&f.chapters, "chapters", "chapters", "the chapters, which say which metrics are headline metrics")
	fs.BoolVar(&f.all, "all", false, "compare every metric, not only the headline metrics (those the chapters use)")
	fs.BoolVar(&f.jsonOutput, "json", false, "print the comparison as JSON")
}

func (f *bundleFlags) run(ctx context.Context, c *cmd, args []string) error {
	set := f.machine
	if set == "" {
		set = machine.Current().Name
	}
	if err := book.CheckSet(f.results, "--machine", set); err != nil {
		return err
	}
	b, err := fleet.ReadSet(f.results, set)
	if err != nil {
		return err
	}
	if err := fleet.Write(c.stdout, b); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "bundled set %s: %d files\n", set, len(b.Files))
	return nil
}

func (f *importFlags) run(ctx context.Context, c *cmd, args []string) error {
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
	rep, err := fleet.Import(ctx, f.results, b, args[0], f.force, probes.All(), c.stderr)
	if err != nil {
		return err
	}
	for _, s := range rep.Stale {
		fmt.Fprintf(c.stderr, "warning: %s\n", s)
	}
	switch {
	case rep.Same:
		fmt.Fprintf(c.stdout, "%s already holds these %d files: nothing to do\n", rep.Dir, len(b.Files))
	case len(rep.Replaced) > 0:
		fmt.Fprintf(c.stdout, "replaced %s with the bundle's %d files:\n  %s\n", rep.Dir, len(b.Files), strings.Join(rep.Replaced, "\n  "))
		if len(rep.Kept) > 0 {
			fmt.Fprintf(c.stdout, "kept the set's other files: %s\n", strings.Join(rep.Kept, ", "))
		}
	default:
		fmt.Fprintf(c.stdout, "imported %s: %d files\n", rep.Dir, len(b.Files))
	}
	if n := len(rep.Stale); n > 0 {
		fmt.Fprintf(c.stdout, "%d experiment(s) are stale here (their probe code differs in this checkout); go run . status --machine %s lists them\n", n, b.Set)
	}
	return nil
}

// hereSet is what compare takes for this machine's set, whose name a
// reader who has just measured need not know: a page says
// "go run . compare BOOK here --only ID".
const hereSet = "here"

func (f *compareFlags) run(ctx context.Context, c *cmd, args []string) error {
	if len(args) != 2 {
		return usagef("compare needs two result sets, A B (see go run . status for the list)")
	}
	loaded := make([]map[string]*dataset.Result, 2)
	for i, set := range args {
		if set == hereSet {
			set = machine.Current().Name
			args[i] = set
		}
		if err := book.CheckSet(f.results, "compare", set); err != nil {
			return err
		}
		res, err := fleet.LoadSet(f.results, set, probes.All())
		if err != nil {
			return err
		}
		loaded[i] = res
	}
	cmp, err := fleet.Compare(args[0], loaded[0], args[1], loaded[1], f.only)
	if err != nil {
		return usagef("%v", err)
	}
	if !f.all {
		b, err := book.Load(f.chapters, probes.All())
		if err != nil {
			return fmt.Errorf("%w (the chapters say which metrics are headline metrics; --all compares every metric without them)", err)
		}
		cmp.Headline(b.Headline)
	}
	if !f.jsonOutput {
		return cmp.WriteText(c.stdout)
	}
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(cmp)
}
