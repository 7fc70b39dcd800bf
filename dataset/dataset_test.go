package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"

	"measuredbook/probe"
)

// Summarize's median is benchstat's, bit for bit, for every number of runs.
func TestSummarizeIsBenchstats(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 40; n++ {
		var row Row
		var vals []float64
		for range n {
			v := r.ExpFloat64() * 1e-6
			row.Runs = append(row.Runs, probe.Values{"t": v})
			vals = append(vals, v)
		}
		want := benchmath.AssumeNothing.Summary(benchmath.NewSample(vals, &benchmath.DefaultThresholds), 0.95).Center
		if s, _ := Summarize(row, "t"); s.Median != want {
			t.Errorf("%d runs: median %v, benchstat's %v", n, s.Median, want)
		}
	}
}

func TestSummarize(t *testing.T) {
	row := Row{Runs: []probe.Values{{"round": 23.1e-6}, {"round": 22.49e-6}}}
	s, ok := Summarize(row, "round")
	if !ok || s.N != 2 || s.Min != 22.49e-6 || s.Max != 23.1e-6 || s.Median < s.Min || s.Median > s.Max {
		t.Errorf("summary %+v", s)
	}
	if _, ok := Summarize(row, "nope"); ok {
		t.Error("summary of a metric that was never measured")
	}
}

// TestCombosOrder: the first param is the outermost loop, and every
// combination holds every param.
func TestCombosOrder(t *testing.T) {
	got := Combos([]string{"a", "b", "c"}, map[string][]string{"a": {"1", "2"}, "b": {"x"}, "c": {"p", "q"}})
	var keys []string
	for _, c := range got {
		keys = append(keys, c["a"]+c["b"]+c["c"])
	}
	if s := strings.Join(keys, " "); s != "1xp 1xq 2xp 2xq" {
		t.Errorf("combos = %s", s)
	}
}

// The operating system is the kernel's own name, as uname gives it.
func TestGOOS(t *testing.T) {
	for kernel, want := range map[string]string{
		"Linux 6.18.44-fc-v669": "linux",
		"Darwin 23.4.0":         "darwin",
		"XNU":                   "darwin",
		"FreeBSD 14.1-RELEASE":  "freebsd",
		"":                      "",
		"Windows_NT 10.0":       "",
	} {
		if got := (Fingerprint{Kernel: kernel}).GOOS(); got != want {
			t.Errorf("kernel %q: GOOS %q, want %q", kernel, got, want)
		}
	}
}

// combosAsFirstWritten is Combos as it was first written: the product
// built param by param. TestCombosAsFirstWritten holds Combos to it.
func combosAsFirstWritten(order []string, sweep map[string][]string) []probe.Params {
	out := []probe.Params{{}}
	for _, name := range order {
		var next []probe.Params
		for _, c := range out {
			for _, v := range sweep[name] {
				p := probe.Params{}
				for k, x := range c {
					p[k] = x
				}
				p[name] = v
				next = append(next, p)
			}
		}
		out = next
	}
	return out
}

// Random sweeps, with params of no value, repeated params and params
// the sweep lacks: the same combinations in the same order.
func TestCombosAsFirstWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	names := []string{"a", "b", "c", "d"}
	for range 3000 {
		sweep := map[string][]string{}
		for _, name := range names[:r.IntN(len(names)+1)] {
			vals := make([]string, r.IntN(4))
			for i := range vals {
				vals[i] = fmt.Sprint(r.IntN(3))
			}
			sweep[name] = vals
		}
		order := make([]string, r.IntN(5))
		for i := range order {
			order[i] = names[r.IntN(len(names))]
		}
		if got, want := Combos(order, sweep), combosAsFirstWritten(order, sweep); !reflect.DeepEqual(got, want) {
			t.Fatalf("Combos(%q, %v) = %v, want %v", order, sweep, got, want)
		}
	}
}

// TestIntervalOfARareCount: a count that is mostly 0 has no interval
// relative to its median, but as a count it is known to a fraction of one
// event; a count above one, and a time, stay relative to the median.
func TestIntervalOfARareCount(t *testing.T) {
	row := func(vals ...float64) Row {
		var r Row
		for _, v := range vals {
			r.Runs = append(r.Runs, probe.Values{"m": v})
		}
		return r
	}
	rare := row(0, 0.005, 0, 0.01, 0, 0.005, 0, 0)
	if iv := Interval(rare, "m", probe.Count); iv <= 0 || iv > 0.05 {
		t.Errorf("a rare count's interval = %v, want within (0, 0.05]", iv)
	}
	if iv := Interval(rare, "m", probe.Seconds); !math.IsInf(iv, 1) {
		t.Errorf("a time with median 0 and runs above it: interval %v, want +Inf", iv)
	}
	threads := row(6, 7, 6, 6, 5, 6)
	if iv := Interval(threads, "m", probe.Count); math.Abs(iv-1.0/6) > 1e-9 {
		t.Errorf("6 threads, from 5 to 7: interval %v, want 1/6", iv)
	}
	if iv := Interval(row(0, 0, 0, 0, 0, 0), "m", probe.Seconds); iv != 0 {
		t.Errorf("always 0: interval %v, want 0", iv)
	}
}

// A quantile of kept values is taken from every run's pooled, shown in
// place of the runs' median; the runs' own give the spread.
func TestPoolKept(t *testing.T) {
	ms := []probe.Metric{{Name: "p99", Unit: probe.Seconds, Quantile: 0.99, Of: "w"}, {Name: "t", Unit: probe.Seconds}}
	row := Row{Runs: []probe.Values{{"p99": 5, "t": 1}, {"p99": 7, "t": 2}, {"p99": 6, "t": 3}}, Kept: probe.Kept{"w": {}}}
	for i := 1; i <= 3000; i++ {
		row.Kept["w"] = append(row.Kept["w"], float64(i%1000)/100)
	}
	row.PoolKept(ms)
	p, ok := row.Pool["p99"]
	if !ok || p.N != 3000 || p.Value < 9.8 || p.Value > 9.9 || row.Kept != nil || len(row.Pool) != 1 {
		t.Fatalf("pool %v, kept %v", row.Pool, row.Kept)
	}
	s, _ := Summarize(row, "p99")
	if s.Median != p.Value || s.Min != 5 || s.Max != 7 || s.N != 3 {
		t.Errorf("summary %+v, want the pooled %g with the runs' 5–7", s, p.Value)
	}
	if s, _ := Summarize(row, "t"); s.Median != 2 {
		t.Errorf("a metric not pooled: median %g, want 2", s.Median)
	}
}
