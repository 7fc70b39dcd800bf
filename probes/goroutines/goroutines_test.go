package goroutines

import (
	"runtime"
	"testing"

	"measuredbook/probe"
	"measuredbook/probes/internal/probetest"
)

func run(t *testing.T, name string, given map[string]string) probe.Values {
	t.Helper()
	return probetest.Run(t, Probes(), name, given)
}

func TestIdleRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/statm")
	}
	v := run(t, "goroutines.idle_rss", map[string]string{"goroutines": "5000"})
	// At least the 2 KiB starting stack each, far less than a thread.
	if v["rss_per_goroutine"] < 2<<10 || v["rss_per_goroutine"] > 64<<10 {
		t.Errorf("rss_per_goroutine %v, want 2 KiB..64 KiB", v["rss_per_goroutine"])
	}
	if v["goroutines"] < 5000 {
		t.Errorf("goroutines %v < 5000", v["goroutines"])
	}
}

func TestHandoff(t *testing.T) {
	v := run(t, "goroutines.handoff", map[string]string{"parked": "1000", "handoffs": "20000"})
	if v["goroutines"] < 1002 {
		t.Errorf("goroutines %v < parked+2", v["goroutines"])
	}
	// A thousand parked goroutines need no thread each.
	if v["threads"] > 100 || v["threads"] < 1 {
		t.Errorf("threads %v for 1000 parked goroutines, want a handful", v["threads"])
	}
	if v["handoff"] <= 0 || v["handoff"] > 100e-6 {
		t.Errorf("handoff %v s", v["handoff"])
	}
	// With GOMAXPROCS=1 the pair switches inside the runtime: no OS
	// thread needs to sleep for a hand-off.
	if v["vcsw"] > 0.1 {
		t.Errorf("vcsw %v per hand-off with procs=1, want about 0", v["vcsw"])
	}
}
