package runner

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"measuredbook/probe"
)

// fakes are probes that succeed, fail cleanly, crash and hang, so the
// runner's handling of each is tested without real measurements.
var fakes = []probe.Probe{
	{Spec: probe.Spec{Name: "ok", Params: []probe.Param{{Name: "n", Kind: probe.Int, Default: "1"}},
		Metrics: []probe.Metric{{Name: "pid", Unit: probe.Count}, {Name: "n", Unit: probe.Count}}},
		Run: func(_ context.Context, p probe.Params) (probe.Values, error) {
			return probe.Values{"pid": float64(os.Getpid()), "n": float64(p.Int("n"))}, nil
		}},
	{Spec: probe.Spec{Name: "fails", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			return nil, errors.New("cannot raise RLIMIT_NOFILE")
		}},
	{Spec: probe.Spec{Name: "crashes", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			var m map[string]int
			m["boom"] = 1 // a nil map write: the child panics
			return nil, nil
		}},
	{Spec: probe.Spec{Name: "hangs", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			time.Sleep(time.Hour)
			return nil, nil
		}},
}

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ChildVerb {
		os.Exit(Child(os.Args[2:], fakes, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func runner(t *testing.T) *Runner {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	r.Timeout = 2 * time.Second
	return r
}

func TestRunInChildProcess(t *testing.T) {
	v, err := runner(t).Run(context.Background(), fakes[0], probe.Params{"n": "7"})
	if err != nil {
		t.Fatal(err)
	}
	if v["n"] != 7 {
		t.Errorf("n = %v, want 7", v["n"])
	}
	if int(v["pid"]) == os.Getpid() {
		t.Error("the probe ran in the test's own process, not a child")
	}
}

func TestFailuresAreReportedNotFatal(t *testing.T) {
	for _, tc := range []struct {
		probe int
		want  string
	}{
		{1, "cannot raise RLIMIT_NOFILE"},
		{2, "assignment to entry in nil map"},
		{3, "timed out after 2s"},
	} {
		p := fakes[tc.probe]
		_, err := runner(t).Run(context.Background(), p, probe.Params{})
		var re *RunError
		if !errors.As(err, &re) {
			t.Fatalf("%s: err = %v, want a *RunError", p.Name, err)
		}
		if re.Probe != p.Name || !strings.Contains(re.Cause, tc.want) {
			t.Errorf("%s: %v, want probe named and cause containing %q", p.Name, err, tc.want)
		}
	}
}

func TestMeasureKeepsGoodCombinations(t *testing.T) {
	r := runner(t)
	rows, failed := r.Measure(context.Background(), fakes[0],
		[]probe.Params{{"n": "1"}, {"n": "2"}}, 3, nil)
	if len(failed) != 0 || len(rows) != 2 {
		t.Fatalf("rows %d failed %v", len(rows), failed)
	}
	for _, row := range rows {
		if len(row.Runs) != 3 {
			t.Errorf("%v: %d runs, want 3", row.Params, len(row.Runs))
		}
		pids := map[float64]bool{}
		for _, run := range row.Runs {
			pids[run["pid"]] = true
		}
		if len(pids) != 3 {
			t.Errorf("%v: runs shared a process (%d distinct pids)", row.Params, len(pids))
		}
	}
	_, failed = r.Measure(context.Background(), fakes[1], []probe.Params{{}}, 2, nil)
	if len(failed) != 1 {
		t.Errorf("failing probe: %d failures, want 1", len(failed))
	}
}
