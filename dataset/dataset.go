// Package dataset is the model of measured results, apart from how they
// are stored (package store, the Go benchmark format) and how they are
// shown (package render): one experiment measured on one machine (Result),
// its combinations (Row) with every run's values in base units, the
// combinations that failed (Failure) and those the machine cannot measure
// at all (Unavailable), the summary of a metric over a row's
// runs (Summary), and the machine that measured them (Fingerprint).
//
// A book's results are a set per machine (results/MACHINE/), hence the
// name; the package holds no I/O.
package dataset

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"

	"measuredbook/probe"
)

// Fingerprint describes one machine. Name is the directory its results
// live in (results/NAME/); the other fields are provenance.
type Fingerprint struct {
	Name   string
	CPU    string
	Cores  int
	Memory uint64 // bytes
	OS     string // distribution, e.g. "Debian GNU/Linux 12 (bookworm)"
	Kernel string // uname release
	Arch   string
	Go     string
	// Virtual says whether the machine is a virtual machine guest: "yes",
	// "no", or "" when it was not recorded.
	Virtual string
	// Limits holds the kernel and runtime limits relevant to the book
	// (threads-max, pid_max, RLIMIT_NPROC, RLIMIT_NOFILE, pids.max), as text.
	Limits map[string]string
}

// GOOS is the operating system whose kernel the machine ran, as Go names
// it (linux, darwin, freebsd): read from Kernel, whose first word is the
// kernel's own name (uname's sysname: Linux, Darwin, FreeBSD; XNU, as the
// transcribed M1 set records macOS's kernel, is Darwin's). "" when Kernel
// does not say.
func (f Fingerprint) GOOS() string {
	name, _, _ := strings.Cut(strings.TrimSpace(f.Kernel), " ")
	return kernelGOOS[strings.ToLower(name)]
}

var kernelGOOS = map[string]string{"linux": "linux", "darwin": "darwin", "xnu": "darwin", "freebsd": "freebsd"}

// Row is one parameter combination and the metrics of each of its runs.
type Row struct {
	Params probe.Params
	Runs   []probe.Values
	// Kept are the values the runs kept (probe.Keep), pooled, while they
	// are measured; Pool is what is stored of them.
	Kept probe.Kept
	// Pool holds the metrics taken from every run's kept values pooled
	// (probe.Metric.Of): their figure, in place of the runs' median.
	Pool map[string]Pooled
}

// Pooled is a quantile of every run's values pooled, and how many values.
type Pooled struct {
	Value float64
	N     int
}

// PoolKept fills row's Pool from its Kept for the metrics of ms that are
// quantiles of a kept distribution, as benchstat takes a quantile
// (moremath's R8; a run's own quantiles interpolate as R7, which differs
// by less than one order statistic), and drops Kept.
func (row *Row) PoolKept(ms []probe.Metric) {
	for _, m := range ms {
		xs := row.Kept[m.Of]
		if m.Of == "" || m.Quantile <= 0 || len(xs) == 0 {
			continue
		}
		sorted := slices.Sorted(slices.Values(xs))
		if row.Pool == nil {
			row.Pool = map[string]Pooled{}
		}
		row.Pool[m.Name] = Pooled{Value: stats.Sample{Xs: sorted, Sorted: true}.Quantile(m.Quantile), N: len(sorted)}
	}
	row.Kept = nil
}

// Values are the row's runs' values of metric, in the runs' order; a run
// without the metric (an optional one) has none.
func (row Row) Values(metric string) []float64 {
	var vals []float64
	for _, run := range row.Runs {
		if v, ok := run[metric]; ok {
			vals = append(vals, v)
		}
	}
	return vals
}

// Failure is a combination that could not be measured, and why.
type Failure struct {
	Params probe.Params
	Err    string
}

// Unavailable is a combination the machine cannot measure at all (kqueue
// on Linux): not a failure but a result, whose Reason the page shows in
// place of its figures ("kqueue is not available on linux").
type Unavailable struct {
	Params probe.Params
	Reason string
}

// Result is one experiment measured on one machine.
type Result struct {
	Experiment string
	Probe      string
	Hash       string              // the probe's code hash at measuring time
	Order      []string            // param names, in the probe's declared order
	Sweep      map[string][]string // each param's canonical values (one for a fixed param)
	Runs       int                 // runs asked for per combination
	// RunTime is the target a count given as probe.Auto was sized to
	// (each row's params hold the count it ran with); 0 when none was.
	RunTime  time.Duration
	Machine  Fingerprint
	Start    time.Time
	Duration time.Duration
	// Source says where the numbers come from: "measured", or for a
	// reference set "transcribed from ..." (never measured here).
	Source   string
	Units    map[string]probe.Unit
	Rows     []Row
	Failures []Failure
	// Unavailable are the combinations the machine has no means to
	// measure; they have no rows and no failures.
	Unavailable []Unavailable
	// Stop is what the stopping rule saw; its zero value is a fixed
	// count of runs (runs: N).
	Stop Stop
}

// Counts are the values param k took in r's rows, in numeric order
// without repeats, or, where no row records k, its one value in r's sweep
// (none for a nil r, or a result that does not record k): the counts a
// Sample param ran with, sized per combination or not.
func Counts(r *Result, k string) []string {
	if r == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, row := range r.Rows {
		if v, ok := row.Params[k]; ok && v != probe.Auto && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(out) == 0 && len(r.Sweep[k]) == 1 && r.Sweep[k][0] != probe.Auto {
		out = slices.Clone(r.Sweep[k])
	}
	slices.SortFunc(out, func(a, b string) int {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return cmp.Compare(x, y)
	})
	return out
}

// Stop records an automatic run count (runs: auto): the precision asked,
// the widest confidence interval of a headline metric's median when the
// runs stopped (as a fraction of the median, +Inf when it does not exist
// yet), and why they stopped.
type Stop struct {
	Auto      bool
	Precision float64 // asked, as a fraction (0.05 is ±5 %)
	Interval  float64 // reached, as a fraction
	Why       string  // "precision reached", "budget reached (30s)", …
}

// Reached reports whether an automatic run count reached its precision.
func (s Stop) Reached() bool { return s.Auto && s.Interval <= s.Precision }

// Confidence is the level of the intervals the stopping rule computes:
// benchstat's.
const Confidence = 0.95

// Interval is the half-width of the 95 % confidence interval of a
// metric's median over a row's runs, as benchstat computes it
// (benchmath.AssumeNothing), relative to the median: +Inf while there are
// too few runs for the interval to exist. A count (probe.Count) is
// relative to its median or to one, whichever is larger: a rare event
// (0.005 involuntary switches per call, a count that is mostly 0) has no
// relative precision to reach, and is known once its interval is within
// ±precision of one event.
func Interval(row Row, metric string, unit probe.Unit) float64 {
	vals := row.Values(metric)
	if len(vals) == 0 {
		return 0 // an optional metric absent from every run: nothing to know
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(vals, &benchmath.DefaultThresholds), Confidence)
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return math.Inf(1)
	}
	half, scale := math.Max(s.Hi-s.Center, s.Center-s.Lo), math.Abs(s.Center)
	if unit == probe.Count {
		scale = math.Max(scale, 1)
	}
	switch {
	case half == 0:
		return 0
	case scale == 0:
		return math.Inf(1)
	}
	return half / scale
}

// Measured reports whether the numbers were measured by this tool (as
// opposed to transcribed from a book).
func (r *Result) Measured() bool { return r.Source == "" || r.Source == "measured" }

// StoredRuns is the fewest and the most runs stored for any combination:
// what a page may say about runs, whatever the header asked for.
func (r *Result) StoredRuns() (fewest, most int) {
	for i, row := range r.Rows {
		n := len(row.Runs)
		if i == 0 || n < fewest {
			fewest = n
		}
		most = max(most, n)
	}
	return fewest, most
}

// Summary is the median and range of one metric over a row's runs.
type Summary struct {
	Median, Min, Max float64
	N                int
}

// Summarize summarises one metric of one row: the median, as benchstat
// reports it (benchmath.AssumeNothing's), or the pooled figure of a
// quantile the row pooled (Pool), and the min and max over the runs.
func Summarize(row Row, metric string) (Summary, bool) {
	vals := row.Values(metric)
	if len(vals) == 0 {
		return Summary{}, false
	}
	sort.Float64s(vals)
	// benchmath.AssumeNothing's median (moremath's R8 quantile), without
	// the confidence interval its Summary computes beside it and, below 6
	// runs, the warning it formats: every figure on a page is summarised
	// afresh, and those two were most of the cost.
	median := stats.Sample{Xs: vals, Sorted: true}.Quantile(0.5)
	if p, ok := row.Pool[metric]; ok {
		// Taken from every run's values pooled: the runs' own give the
		// spread.
		median = p.Value
	}
	return Summary{Median: median, Min: vals[0], Max: vals[len(vals)-1], N: len(vals)}, true
}

// Combos is the cartesian product of a sweep: every combination of the
// values each param of order takes, the first param outermost (so a table
// of combinations reads like nested loops).
func Combos(order []string, sweep map[string][]string) []probe.Params {
	n := 1
	for _, name := range order {
		n *= len(sweep[name])
	}
	if n == 0 {
		return nil
	}
	// One map per combination, counted like an odometer (the last param
	// turns fastest), rather than a map per combination per param.
	out := make([]probe.Params, 0, n)
	at := make([]int, len(order))
	for range n {
		p := make(probe.Params, len(order))
		for i, name := range order {
			p[name] = sweep[name][at[i]]
		}
		out = append(out, p)
		for i := len(order) - 1; i >= 0; i-- {
			if at[i]++; at[i] < len(sweep[order[i]]) {
				break
			}
			at[i] = 0
		}
	}
	return out
}
