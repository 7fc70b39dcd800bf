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

// idleRSSRuns counts TestIdleRSS's runs in this process.
var idleRSSRuns int

func TestIdleRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/statm")
	}
	v := run(t, "goroutines.idle_rss", map[string]string{"goroutines": "5000"})
	idleRSSRuns++
	// At least the 2 KiB starting stack each, far less than a thread. A
	// run repeated in this process (go test -count=N) finds the stacks
	// the last one freed still resident, so only the first shows the
	// 2 KiB; the probe's own runs each have a fresh process.
	low := 2 << 10
	if idleRSSRuns > 1 {
		low = 0
	}
	if v["rss_per_goroutine"] < float64(low) || v["rss_per_goroutine"] > 64<<10 {
		t.Errorf("rss_per_goroutine %v, want %d B..64 KiB", v["rss_per_goroutine"], low)
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
