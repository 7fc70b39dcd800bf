package blocking

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
	"measuredbook/probes/internal/probetest"
)

func run(t *testing.T, name string, given map[string]string) probe.Values {
	t.Helper()
	return probetest.Run(t, Probes(), name, given)
}

// A read that finds its byte waiting never sleeps. The Go runtime may, rarely,
// park the locked thread itself (a preemption or a GC stop lands in the timed
// region); that is not the read sleeping, which would happen on every call of
// every attempt. So one of three attempts must show exactly zero switches.
func TestReadyNeverSleeps(t *testing.T) {
	var v probe.Values
	for attempt := 0; attempt < 3; attempt++ {
		v = run(t, "blocking.ready", map[string]string{"reads": "500", "warmup": "100"})
		if !kern.PerThread || v["vcsw_thread"] == 0 {
			break
		}
	}
	if kern.PerThread && v["vcsw_thread"] != 0 {
		t.Errorf("vcsw_thread = %g per read in three attempts, want exactly 0", v["vcsw_thread"])
	}
	// Where the kernel counts no thread alone, the thread's figure is left
	// out, never the process's count under the thread's name.
	if _, has := v["vcsw_thread"]; has != kern.PerThread {
		t.Errorf("vcsw_thread reported: %v, want %v (per-thread rusage here: %v)", has, kern.PerThread, kern.PerThread)
	}
	// Loose bounds only: both are plain system calls, and a loaded machine
	// stretches either (the raw path's advantage is tens of ns).
	for _, m := range []string{"read", "read_go"} {
		if v[m] <= 0 || v[m] > 100e-6 {
			t.Errorf("%s = %g s, want a plain syscall (0 < x < 100 µs)", m, v[m])
		}
	}
}

// A read on an empty socket sleeps once per call, the writer once per call
// in its nanosleep, and the read lasts at least the wait before the write.
// Those that cannot fail on a loaded machine are checked on every attempt;
// the sleep counts can: a reader held off its CPU for longer than the delay
// between starting the writer and calling read finds the byte already
// there and does not sleep. So one of three attempts must show them.
func TestEmptySleepsOnce(t *testing.T) {
	var problems []string
	for attempt := 1; attempt <= 3; attempt++ {
		v := run(t, "blocking.empty", map[string]string{"delay": "1ms", "calls": "20"})
		if v["delay_actual"] < 1e-3 {
			t.Errorf("delay_actual = %g s, less than the 1 ms asked", v["delay_actual"])
		}
		// Per call read = delay_actual + wake with wake > 0, so the median
		// of read is at least the median of delay_actual.
		if v["read"] < v["delay_actual"] {
			t.Errorf("read = %g s shorter than the wait before the write %g s", v["read"], v["delay_actual"])
		}
		if d := v["vcsw_pair"] - v["vcsw_thread"] - v["vcsw_writer"]; d > 1e-9 || d < -1e-9 {
			t.Errorf("vcsw_pair %g != vcsw_thread %g + vcsw_writer %g", v["vcsw_pair"], v["vcsw_thread"], v["vcsw_writer"])
		}
		if v["vcsw_process"] < v["vcsw_pair"] {
			t.Errorf("process switches %g < the pair's %g", v["vcsw_process"], v["vcsw_pair"])
		}
		problems = nil
		if kern.PerThread && v["vcsw_thread"] < 0.9 {
			problems = append(problems, fmt.Sprintf("vcsw_thread = %g per call, want >= 0.9", v["vcsw_thread"]))
		}
		if kern.PerThread && v["vcsw_writer"] < 0.9 {
			problems = append(problems, fmt.Sprintf("vcsw_writer = %g per call, want >= 0.9", v["vcsw_writer"]))
		}
		if len(problems) == 0 {
			return
		}
		t.Logf("attempt %d: %v", attempt, problems)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// The wake-up quantiles are ordered and positive (the writer's stamp comes
// before the reader's return on one clock); no timing bound is asked but
// a loose ceiling that only a hung thread would pass.
func TestWake(t *testing.T) {
	v := run(t, "blocking.wake", map[string]string{"delay": "200us", "calls": "50"})
	order := []string{"wake_min", "wake_p10", "wake_p25", "wake", "wake_p75", "wake_p90", "wake_p99", "wake_max"}
	if v["wake_min"] <= 0 {
		t.Errorf("wake_min = %g s, want > 0", v["wake_min"])
	}
	for i := 1; i < len(order); i++ {
		if v[order[i-1]] > v[order[i]] {
			t.Errorf("%s %g > %s %g", order[i-1], v[order[i-1]], order[i], v[order[i]])
		}
	}
	if !(v["wake_min"] <= v["wake_mean"] && v["wake_mean"] <= v["wake_max"]) {
		t.Errorf("wake_mean %g outside [min %g, max %g]", v["wake_mean"], v["wake_min"], v["wake_max"])
	}
	if v["wake_max"] > 1 {
		t.Errorf("wake_max = %g s: a wake-up should not take a second", v["wake_max"])
	}
}

// A run keeps its wake-ups for the runner to pool: one per call, sorted,
// spanning exactly the run's own min and max, and the metrics that take
// quantiles of them say so.
func TestWakeKeepsEveryWakeUp(t *testing.T) {
	var wake probe.Probe
	for _, p := range Probes() {
		if p.Name == "blocking.wake" {
			wake = p
		}
	}
	params, err := wake.Resolve(map[string]string{"delay": "100us", "calls": "40"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, kept := probe.WithKept(context.Background())
	v, err := wake.Run(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	w := kept["wake"]
	if len(w) != 40 || w[0] != v["wake_min"] || w[len(w)-1] != v["wake_max"] {
		t.Fatalf("kept %d wake-ups from %v to %v, want 40 from wake_min %g to wake_max %g", len(w), w[0], w[len(w)-1], v["wake_min"], v["wake_max"])
	}
	for i := 1; i < len(w); i++ {
		if w[i] < w[i-1] {
			t.Fatalf("kept wake-ups not sorted at %d: %g < %g", i, w[i], w[i-1])
		}
	}
	for _, name := range []string{"wake_p10", "wake_p25", "wake_p75", "wake_p90", "wake_p99"} {
		if m, _ := wake.Metric(name); m.Of != "wake" || m.Quantile <= 0 {
			t.Errorf("%s: Of %q, Quantile %g: not a pooled quantile of the kept wake-ups", name, m.Of, m.Quantile)
		}
	}
}

// The writer lives for the whole run: a run makes no thread per call (a
// writer per call would leave up to calls more threads; this checks the
// end state, which such a leak breaks). The runtime may keep a few new
// idle threads of its own (Ms started for blocking calls or the GC, more
// on a loaded machine), so the margin is a tenth of the calls.
func TestWriterEnds(t *testing.T) {
	before, err := kern.LiveThreads()
	var ue *probe.UnavailableError
	if errors.As(err, &ue) {
		t.Skip(err) // counts threads through Linux's /proc
	}
	if err != nil {
		t.Fatal(err)
	}
	run(t, "blocking.wake", map[string]string{"delay": "0s", "calls": "200"})
	after, err := kern.LiveThreads()
	if err != nil {
		t.Fatal(err)
	}
	if after > before+20 {
		t.Errorf("threads %d before, %d after a run", before, after)
	}
}

func TestParamsBounded(t *testing.T) {
	for _, p := range Probes() {
		for _, bad := range []map[string]string{{"calls": "0"}, {"reads": "0"}, {"delay": "2s"}} {
			params, err := p.Resolve(bad)
			if err != nil {
				continue // not this probe's param
			}
			if _, err := p.Run(context.Background(), params); err == nil {
				t.Errorf("%s %v: no error", p.Name, bad)
			}
		}
	}
}
