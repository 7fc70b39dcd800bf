package main

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"measuredbook/book"
)

type adoptFlags struct{ dirs }

var adoptVerb = verb{name: "adopt", summary: "make this machine the book's machine (sets machine: in book.yaml) once its set is complete",
	example:  "go run . build --here && go run . adopt",
	newFlags: func() verbFlags { return new(adoptFlags) }}

// run makes this machine the book's: once its set holds a usable result
// for every experiment, book.yaml's machine: names it, so a plain build
// on any clone publishes this machine's numbers.
func (f *adoptFlags) run(ctx context.Context, c *cmd, args []string) error {
	opts, b, res, err := (&bookSet{dirs: f.dirs, set: setChoice{here: true}}).load(c.stderr)
	if err != nil {
		return err
	}
	set := res.Machine
	var lacking []string
	for _, st := range b.Status(res, opts.Probes, b.Order) {
		if st.State != book.Fresh {
			lacking = append(lacking, st.ID+" ("+string(st.State)+")")
		}
	}
	if len(lacking) > 0 {
		return fmt.Errorf("this machine's set %s is not complete: %s; measure it first with: go run . build --here", set, strings.Join(lacking, ", "))
	}
	if b.Config.Machine == set {
		fmt.Fprintf(c.stdout, "%s is already the book's machine\n", set)
		return nil
	}
	path, err := book.SetMachine(f.chapters, set)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s: machine %s → %s; commit it with %s\n", path, cmp.Or(b.Config.Machine, "(none)"), set, filepath.Join(f.results, set))
	return nil
}
