package book

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"measuredbook/dataset"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/store"
)

// TestAutoRunsStopWhenKnown: runs: auto does at least the runs benchmath
// needs for an interval, then stops when every headline median is known
// to ±precision, or when the budget is spent; a metric no chapter uses
// does not keep it going.
func TestAutoRunsStopWhenKnown(t *testing.T) {
	if MinAutoRuns != 6 {
		t.Errorf("MinAutoRuns = %d, benchmath's 95 %% interval of a median needs 6 samples", MinAutoRuns)
	}
	p := probe.Probe{Spec: probe.Spec{Name: "p", Metrics: []probe.Metric{{Name: "lat"}, {Name: "noise"}}}}
	b := &Book{Config: Config{Precision: 0.05, Budget: time.Hour}, Headline: map[string][]string{"x": {"lat"}}}
	e := &parse.Experiment{ID: "x", Probe: "p"}
	rows := func(n int, lat func(i int) float64) []dataset.Row {
		row := dataset.Row{}
		for i := range n {
			row.Runs = append(row.Runs, probe.Values{"lat": lat(i), "noise": float64(i * i * 1000)})
		}
		return []dataset.Row{row}
	}
	steady := func(i int) float64 { return 100 + float64(i%3) }
	wild := func(i int) float64 { return float64(1 + 100*(i%2)) }

	m := &Measurer{}
	r := m.rule(b, e, p)
	for round := range MinAutoRuns {
		if again, _ := r.more(round, rows(round, steady)); !again {
			t.Fatalf("stopped after %d runs, before an interval exists", round)
		}
	}
	if again, _ := r.more(MinAutoRuns, rows(MinAutoRuns, steady)); again || !r.stop.Reached() || r.stop.Why != "precision reached" || r.rounds != MinAutoRuns {
		t.Errorf("steady: again %v, %+v after %d rounds", again, r.stop, r.rounds)
	}
	if r.stop.Interval > 0.05 || r.stop.Interval <= 0 {
		t.Errorf("steady interval %v", r.stop.Interval)
	}

	r = m.rule(b, e, p)
	if again, _ := r.more(20, rows(20, wild)); !again || r.stop.Reached() {
		t.Errorf("wild within its budget: again %v, %+v", again, r.stop)
	}
	r.budget, r.start = time.Millisecond, time.Now().Add(-time.Second)
	if again, _ := r.more(20, rows(20, wild)); again || r.stop.Reached() || !strings.HasPrefix(r.stop.Why, "budget reached") {
		t.Errorf("wild past its budget: again %v, %+v", again, r.stop)
	}

	e.Runs = 4
	r = m.rule(b, e, p)
	if again, n := r.more(3, nil); !again || n != 4 {
		t.Errorf("runs: 4 after 3: %v %d", again, n)
	}
	if again, _ := r.more(4, nil); again || r.stop.Auto {
		t.Errorf("runs: 4 after 4: %v %+v", again, r.stop)
	}
}

// TestProgressOfTheWholeMeasurement: with several experiments planned,
// every progress line also says how long the whole has run and how long
// the rest should take, the experiments still to come included.
func TestProgressOfTheWholeMeasurement(t *testing.T) {
	var out strings.Builder
	p := &Progress{W: &out}
	p.plan([]time.Duration{time.Minute, 2 * time.Minute})
	p.next(time.Minute)
	p.begin("a (1/2)", 2, 0)
	p.run(1, 2, probe.Params{"k": "v"})
	p.end(nil)
	if !strings.Contains(out.String(), "; all: 0s elapsed, about 2m00s left") {
		t.Errorf("progress:\n%s", out.String())
	}
}

// Under runs: auto an experiment is expected to take as long as its last
// auto measurement took: its fewest runs may outlast its budget (a
// hand-off run with 4,000 sleeping threads), where runs times the last
// run's length, capped at the budget, told a fifth of it.
func TestEstimateIsTheLastAutoMeasurement(t *testing.T) {
	opts := testOptions(t)
	src := "---\ntitle: 시험\norder: 1\nslug: t\n---\n\n```experiment ok\nprobe: fake.ok\nparams:\n  n: [1, 2]\nbudget: 10s\n```\n\n{{ ok.time[n=1] }}\n"
	if err := os.WriteFile(filepath.Join(opts.Chapters, "t.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Load(opts.Chapters, fakes)
	if err != nil {
		t.Fatal(err)
	}
	m := &Measurer{Probes: fakes, Machine: opts.This, Dir: opts.Results}
	if got := m.estimate(b, "ok"); got != 10*time.Second {
		t.Errorf("never measured: estimate %v, want the budget, 10s", got)
	}
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	path := store.Path(opts.Results, "here", "ok")
	prev, err := store.Load(path, fakes)
	if err != nil || !prev.Stop.Auto {
		t.Fatalf("the measured result: %v, %+v", err, prev)
	}
	prev.Duration = 50 * time.Second
	if err := store.Save(path, prev); err != nil {
		t.Fatal(err)
	}
	if got := m.estimate(b, "ok"); got != 50*time.Second {
		t.Errorf("after an auto measurement of 50s: estimate %v, want 50s", got)
	}
}
