package blocking

import (
	"context"
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
	if v["read"] <= 0 || v["read"] > 100e-6 {
		t.Errorf("read = %g s, want a plain syscall (0 < read < 100 µs)", v["read"])
	}
}

// A read on an empty socket sleeps once per call and lasts at least the delay.
func TestEmptySleepsOnce(t *testing.T) {
	v := run(t, "blocking.empty", map[string]string{"delay": "200us", "calls": "20"})
	if kern.PerThread && v["vcsw_thread"] < 0.9 {
		t.Errorf("vcsw_thread = %g per call, want >= 0.9", v["vcsw_thread"])
	}
	if v["delay_actual"] < 200e-6 {
		t.Errorf("delay_actual = %g s, less than the 200 µs asked", v["delay_actual"])
	}
	if v["read"] < v["delay_actual"] {
		t.Errorf("read = %g s shorter than the writer's sleep %g s", v["read"], v["delay_actual"])
	}
	if v["vcsw_process"] < v["vcsw_thread"] {
		t.Errorf("process switches %g < reader thread's %g", v["vcsw_process"], v["vcsw_thread"])
	}
}

func TestWake(t *testing.T) {
	v := run(t, "blocking.wake", map[string]string{"delay": "200us", "calls": "20"})
	if !(0 < v["wake"] && v["wake"] <= v["wake_max"]) {
		t.Errorf("want 0 < wake (%g) <= wake_max (%g)", v["wake"], v["wake_max"])
	}
	if v["wake_max"] > 0.2 {
		t.Errorf("wake_max = %g s: a wake-up should not take 200 ms", v["wake_max"])
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
