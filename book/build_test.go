package book

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"measuredbook/machine"
	"measuredbook/probe"
	"measuredbook/runner"
	"measuredbook/store"
)

// fakes stand in for real probes: one measures, one crashes its child.
var fakes = []probe.Probe{
	{Spec: probe.Spec{Name: "fake.ok", Doc: "returns its param",
		Params:  []probe.Param{{Name: "n", Kind: probe.Int, Default: "1", Doc: "n"}},
		Metrics: []probe.Metric{{Name: "time", Unit: probe.Seconds, Doc: "n microseconds"}}},
		Run: func(_ context.Context, p probe.Params) (probe.Values, error) {
			return probe.Values{"time": float64(p.Int("n")) * 1e-6}, nil
		}},
	{Spec: probe.Spec{Name: "fake.crash", Doc: "dies",
		Metrics: []probe.Metric{{Name: "time", Unit: probe.Seconds, Doc: "never"}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			panic("probe exploded")
		}},
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == runner.ChildVerb {
		os.Exit(runner.Child(os.Args[2:], fakes, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const chapter = `---
title: 시험
order: 1
slug: t
lang: ko
---

` + "```experiment ok\nprobe: fake.ok\nparams:\n  n: [1, 2]\nruns: 2\n```\n\n" +
	"```experiment boom\nprobe: fake.crash\nruns: 1\n```\n\n" +
	"한 번은 {{ ok.time[n=2] }}, 터지는 쪽은 {{ boom.time[] }}.\n"

func testOptions(t *testing.T) Options {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "chapters"), 0o755)
	os.WriteFile(filepath.Join(dir, "chapters", "t.md"), []byte(chapter), 0o644)
	r, err := runner.New()
	if err != nil {
		t.Fatal(err)
	}
	return Options{Chapters: filepath.Join(dir, "chapters"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "out"),
		Probes: fakes, Runner: r, This: machine.Fingerprint{Name: "here", CPU: "Test"}, Log: &bytes.Buffer{}}
}

// A crashing probe is reported with its experiment and cause; the build
// still writes the site with what could be measured.
func TestCrashingProbeIsReportedNotFatal(t *testing.T) {
	opts := testOptions(t)
	rep, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("build failed: %v", err)
	}
	if len(rep.Measured) != 2 {
		t.Errorf("measured %v, want ok and boom", rep.Measured)
	}
	var crash string
	for _, w := range rep.Warnings {
		if strings.Contains(w.Error(), "combinations failed") {
			crash = w.Error()
		}
	}
	if !strings.Contains(crash, "fake.crash") || !strings.Contains(crash, "probe exploded") || !strings.Contains(crash, "t.md:15:1") {
		t.Errorf("crash warning %q lacks the probe, its cause or the experiment's position", crash)
	}
	page, err := os.ReadFile(filepath.Join(opts.Out, "t.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(">2 μs</span>")) || !bytes.Contains(page, []byte("mb-missing")) {
		t.Errorf("page should show the measured value and mark the crashed one:\n%s", page)
	}
	// The failure is stored, so status can say so without measuring again.
	b, _ := Load(opts.Chapters, fakes)
	for _, st := range b.Status(NewResults(opts.Results, "here"), fakes, b.Order) {
		want := map[string]State{"ok": Fresh, "boom": Failed}[st.ID]
		if st.State != want {
			t.Errorf("%s: %s (%s), want %s", st.ID, st.State, st.Why, want)
		}
	}
}

// A result that was good once is never overwritten by a failed measurement.
func TestFailedMeasurementKeepsTheStoredResult(t *testing.T) {
	opts := testOptions(t)
	good := &store.Result{Experiment: "boom", Probe: "fake.crash", Hash: "old", Runs: 1, Machine: opts.This, Start: time.Now(),
		Units: map[string]probe.Unit{"time": probe.Seconds}, Rows: []store.Row{{Params: probe.Params{}, Runs: []probe.Values{{"time": 1e-6}}}}}
	path := store.Path(opts.Results, "here", "boom")
	if err := store.Save(path, good); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	b, err := Load(opts.Chapters, fakes)
	if err != nil {
		t.Fatal(err)
	}
	m := &Measurer{Runner: opts.Runner, Probes: fakes, Machine: opts.This, Dir: opts.Results}
	_, err = m.Measure(context.Background(), b, "boom")
	if err == nil || !strings.Contains(err.Error(), "stored result was kept") {
		t.Errorf("err = %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a failed measurement replaced the stored result")
	}
	var re *runner.RunError
	if !errors.As(err, &re) && !strings.Contains(err.Error(), "probe exploded") {
		t.Errorf("the cause is lost: %v", err)
	}
}
