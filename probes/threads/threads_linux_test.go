package threads

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"measuredbook/probe"
	"measuredbook/probes/internal/probetest"
)

func run(t *testing.T, name string, given map[string]string) probe.Values {
	t.Helper()
	return probetest.Run(t, Probes(), name, given)
}

func TestCeilingCap(t *testing.T) {
	v := run(t, "threads.ceiling", map[string]string{"cap": "200"})
	if v["threads"] != 200 || v["stopped_by"] != stopCap || v["errno"] != 0 {
		t.Errorf("cap=200: threads %v stopped_by %v errno %v, want 200, cap, 0", v["threads"], stopLabels[int(v["stopped_by"])], v["errno"])
	}
	// The grandchild had its 200 parked threads plus the runtime's own.
	if v["process_threads"] < 201 || v["process_threads"] > 200+ceilingProcs+10 {
		t.Errorf("process_threads %v, want a little over 200", v["process_threads"])
	}
	if v["go_max_threads"] != 200+100+ceilingProcs || v["pid_max"] < 300 || v["threads_max"] < 200 {
		t.Errorf("limits: %v", v)
	}
}

// The Go runtime's thread limit is a real ceiling: a grandchild whose
// SetMaxThreads is below what it needs dies with "thread exhaustion".
func TestCeilingGoMaxThreads(t *testing.T) {
	out, err := runGrandchild(context.Background(), 200, 60, "")
	if err != nil {
		t.Fatal(err)
	}
	code, err := decide(limits{threadsMax: 1 << 20, pidMax: 1 << 20}, out, 200)
	if err != nil {
		t.Fatal(err)
	}
	if code != stopGoMaxThreads || out.reached >= 60 || out.reached < 10 {
		t.Errorf("reached %d, stopped by %s; want fewer than 60 and go-max-threads", out.reached, stopLabels[code])
	}
}

func TestDecide(t *testing.T) {
	lim := limits{threadsMax: 192730, pidMax: 32768, pidsMax: 5000, nproc: 96365, sysThreads: 90, pidsCurrent: 50, userTasks: 80}
	for _, c := range []struct {
		out  outcome
		want int
	}{
		{outcome{reached: 4940, have: 4945, errno: 11}, stopPidsMax},
		{outcome{reached: 32500, have: 32510, errno: 11}, stopPidMax}, // far past pids.max: not that one
		{outcome{reached: 100, have: 105, errno: 11}, stopUnknown},
		{outcome{reached: 100, errno: 12}, stopMemory},
		{outcome{reached: 100, signal: 9}, stopMemory},
		{outcome{reached: 100, timedOut: true}, stopTimeLimit},
	} {
		got, err := decide(lim, c.out, 20000)
		if err != nil || got != c.want {
			t.Errorf("%+v: got %s (%v), want %s", c.out, stopLabels[got], err, stopLabels[c.want])
		}
	}
	lim.pidsMax = -1
	if got, _ := decide(lim, outcome{reached: 32500, have: 32510, errno: 11}, 40000); got != stopPidMax {
		t.Errorf("at pid_max: got %s", stopLabels[got])
	}
	lim.nprocExempt, lim.nproc = false, 1000
	if got, _ := decide(lim, outcome{reached: 910, have: 915, errno: 11}, 40000); got != stopNproc {
		t.Errorf("at RLIMIT_NPROC: got %s", stopLabels[got])
	}
}

// A pids cgroup is a real ceiling: the grandchild's clone(2) fails with
// EAGAIN near pids.max, and the probe names it.
func TestCeilingPidsMax(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("pids_limit needs root")
	}
	// Only a machine that has no pids controller, or does not let root
	// make a cgroup (a container's read-only cgroupfs), is a reason to skip.
	if _, err := makePidsCgroupProbe(); errors.Is(err, errNoPidsController) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	v := run(t, "threads.ceiling", map[string]string{"cap": "1000", "pids_limit": "150"})
	if v["stopped_by"] != stopPidsMax || v["errno"] != 11 {
		t.Errorf("stopped by %s, errno %v; want pids.max, 11 (EAGAIN)", stopLabels[int(v["stopped_by"])], v["errno"])
	}
	// 150 tasks minus the runtime's own threads.
	if v["threads"] < 100 || v["threads"] >= 150 || v["process_threads"] > 152 {
		t.Errorf("threads %v, process_threads %v: want under 150", v["threads"], v["process_threads"])
	}
}

func makePidsCgroupProbe() (string, error) {
	d, err := makePidsCgroup(10)
	if err == nil {
		removeCgroup(d)
	}
	return d, err
}

func TestFutexSlots(t *testing.T) {
	if futexSlots() < 0 {
		t.Skip("no PR_FUTEX_HASH on this kernel")
	}
	v := run(t, "threads.handoff", map[string]string{"sleeping": "20", "handoffs": "500", "futex_slots": "256"})
	if v["futex_slots"] != 256 {
		t.Errorf("futex_slots %v, want 256", v["futex_slots"])
	}
	// What sizes the kernel's default hash is recorded beside it.
	if v["cpus"] < 1 || v["threads"] < 22 {
		t.Errorf("cpus %v, threads %v: want at least 1 CPU and the 20 sleepers and 2 players", v["cpus"], v["threads"])
	}
}

// A parked thread touches at least a page of stack; in a cgo binary its
// pthread stack and the runtime's part add up to what RSS gained; and every
// thread has a kernel stack of a few pages. The kernel stack is read
// system-wide, where other processes' threads come and go on a loaded
// machine, so one of three runs must show it in range.
func TestIdleRSS(t *testing.T) {
	var v probe.Values
	for attempt := 1; attempt <= 3; attempt++ {
		v = run(t, "threads.idle_rss", map[string]string{"threads": "500"})
		if v["kernel_stack"] >= 4<<10 && v["kernel_stack"] <= 64<<10 {
			break
		}
		t.Logf("attempt %d: kernel_stack %v B per thread", attempt, v["kernel_stack"])
	}
	if v["kernel_stack"] < 4<<10 || v["kernel_stack"] > 64<<10 {
		t.Errorf("kernel_stack %v B per thread in three runs, want a few pages (4 KiB..64 KiB)", v["kernel_stack"])
	}
	if v["rss_per_thread"] <= 4096 {
		t.Errorf("rss_per_thread %v: a parked thread touches at least a page of stack", v["rss_per_thread"])
	}
	if v["stack_reserved"] < 16<<10 {
		t.Errorf("stack_reserved %v: below the 16 KiB g0 stack every M gets", v["stack_reserved"])
	}
	if v["rss_per_thread"] >= v["stack_reserved"] {
		t.Errorf("rss_per_thread %v not below stack_reserved %v", v["rss_per_thread"], v["stack_reserved"])
	}
	if v["threads"] < 500 {
		t.Errorf("threads %v < 500 parked", v["threads"])
	}
	_, hasStack := v["stack_rss"]
	if hasStack != (v["pthreads"] == 1) {
		t.Errorf("pthreads %v but stack_rss present: %v", v["pthreads"], hasStack)
	}
	if hasStack {
		if v["stack_rss"] < 4096 || v["stack_rss"] > v["stack_reserved"] {
			t.Errorf("stack_rss %v B: want at least a page, at most the %v reserved", v["stack_rss"], v["stack_reserved"])
		}
		if d := v["stack_rss"] + v["runtime_rss"] - v["rss_per_thread"]; d > 1 || d < -1 {
			t.Errorf("stack_rss %v + runtime_rss %v != rss_per_thread %v", v["stack_rss"], v["runtime_rss"], v["rss_per_thread"])
		}
	}
}

// What holds for a hand-off at any load: every turn ends in exactly one
// unpark (futex_wake is exactly 1), a thread parks at most a couple of
// times per turn (a stale permit can cost one extra wait), and on one CPU
// the turn cannot pass without the giver leaving the CPU, so the two
// threads' switches are at least about one per hand-off (more when other
// processes preempt them on a loaded machine, so no tight upper bound).
func TestHandoff(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, cpus := range []string{"same", "apart", "any"} {
		v := run(t, "threads.handoff", map[string]string{"sleeping": "50", "handoffs": "2000", "cpus": cpus})
		if got := runtime.GOMAXPROCS(0); got != procs {
			t.Errorf("cpus=%s: GOMAXPROCS %d after the run, want %d as before it", cpus, got, procs)
		}
		if v["threads"] < 52 {
			t.Errorf("cpus=%s: threads %v < sleeping+2", cpus, v["threads"])
		}
		if v["handoff"] <= 0 || v["handoff"] > 0.01 {
			t.Errorf("cpus=%s: handoff %v s", cpus, v["handoff"])
		}
		if v["futex_wake"] != 1 {
			t.Errorf("cpus=%s: futex_wake %v per hand-off, want exactly 1", cpus, v["futex_wake"])
		}
		if v["futex_wait"] < 0 || v["futex_wait"] > 2 {
			t.Errorf("cpus=%s: futex_wait %v per hand-off, want 0..2", cpus, v["futex_wait"])
		}
		sw := v["vcsw"] + v["ivcsw"]
		if cpus == "same" && sw < 0.9 {
			t.Errorf("cpus=same: vcsw %v + ivcsw %v per hand-off, want at least about 1", v["vcsw"], v["ivcsw"])
		}
		if sw > 3 {
			t.Errorf("cpus=%s: vcsw %v + ivcsw %v per hand-off: far more switches than threads", cpus, v["vcsw"], v["ivcsw"])
		}
	}
}

// The pinned placement is the default: the book's headline sweep is pinned.
func TestHandoffDefaultPinned(t *testing.T) {
	if p, _ := handoffSpec.Param("cpus"); p.Default != "same" {
		t.Errorf("cpus defaults to %q, want same", p.Default)
	}
}

// A run over its time budget fails and says so instead of reporting fewer
// hand-offs than asked for.
func TestHandoffBudget(t *testing.T) {
	defer func(b time.Duration) { handoffBudget = b }(handoffBudget)
	handoffBudget = 20 * time.Millisecond
	p := Probes()[2]
	params, _ := p.Resolve(map[string]string{"handoffs": "10000000"})
	_, err := p.Run(context.Background(), params)
	if err == nil || !strings.Contains(err.Error(), "too slow") {
		t.Fatalf("got %v, want a too-slow error", err)
	}
	t.Log(err)
}
