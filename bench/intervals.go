package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/dataset"
	"measuredbook/probes"
	"measuredbook/store"
)

// runIntervals prints, for each experiment of the book measured in a set,
// each combination's headline metrics (the ones runs: auto waits for) with
// their median and the 95 % interval of it that the stopping rule sees,
// widest first: which figure keeps an experiment from reaching its
// precision.
func runIntervals(args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("bench intervals", pflag.ContinueOnError)
	chapters := fs.String("chapters", "", "chapters folder (default: the module's chapters/)")
	results := fs.String("results", "", "results folder (default: the module's results/)")
	set := fs.String("set", "", "the set to read (default: book.yaml's machine)")
	top := fs.Int("top", 3, "lines per experiment (0: every one)")
	if err := fs.Parse(args); err != nil {
		return usageError(err.Error())
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	*chapters = cmp.Or(*chapters, filepath.Join(root, "chapters"))
	if *set == "" {
		if *set, err = bookSet(*chapters); err != nil {
			return err
		}
	}
	all := probes.All()
	b, err := book.Load(*chapters, all)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	for _, id := range b.Order {
		r, err := store.Load(store.Path(cmp.Or(*results, filepath.Join(root, "results")), *set, id), all)
		if err != nil {
			fmt.Fprintf(w, "%s: %v\n", id, err)
			continue
		}
		fmt.Fprintf(w, "%s: %d runs, %v, %s\n", id, r.Runs, r.Duration.Round(time.Millisecond), cmp.Or(r.Stop.Why, "fixed runs"))
		type line struct {
			text string
			iv   float64
		}
		headline := b.Headline[id]
		if len(headline) == 0 {
			// As the stopping rule: no chapter names a metric, so all count.
			headline = slices.Sorted(maps.Keys(r.Units))
		}
		var lines []line
		for _, row := range r.Rows {
			for _, m := range headline {
				if s, ok := dataset.Summarize(row, m); ok {
					iv := dataset.Interval(row, m, r.Units[m])
					lines = append(lines, line{fmt.Sprintf("  %s\t%s\tn=%d\t%.4g\t±%.3g %%", row.Params.Key(), m, s.N, s.Median, 100*iv), iv})
				}
			}
		}
		slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(b.iv, a.iv) })
		for i, l := range lines {
			if *top > 0 && i == *top {
				break
			}
			fmt.Fprintln(w, strings.Replace(l.text, "±+Inf %", "no interval", 1))
		}
	}
	return w.Flush()
}
