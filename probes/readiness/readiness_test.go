//go:build linux || darwin || freebsd

package readiness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"measuredbook/probe"
	"measuredbook/probes/internal/probetest"
)

func find(t *testing.T, name string) probe.Probe {
	t.Helper()
	for _, p := range Probes() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no probe %s", name)
	return probe.Probe{}
}

func run(t *testing.T, name string, given map[string]string) probe.Values {
	t.Helper()
	return probetest.Run(t, Probes(), name, given)
}

// Only the active socket is ever readable, so every wait reports exactly one
// fd; the idle ones never become ready.
func TestOnlyActiveIsReady(t *testing.T) {
	for _, api := range []string{nativeAPI, "poll", "select"} {
		v := run(t, "readiness", map[string]string{"api": api, "idle": "50", "rounds": "300"})
		if v["ready"] != 1 {
			t.Errorf("%s: ready = %v, want 1", api, v["ready"])
		}
		if v["usable"] != 1 {
			t.Errorf("%s: usable = %v, want 1", api, v["usable"])
		}
		if !(v["round"] > 0 && v["round"] < 0.01) {
			t.Errorf("%s: round = %v s, want a positive time under 10 ms", api, v["round"])
		}
	}
}

// With the active socket first, the waits still report only it, and the
// idle sockets' fds are the highest.
func TestActiveFirst(t *testing.T) {
	for _, api := range []string{nativeAPI, "poll", "select"} {
		v := run(t, "readiness", map[string]string{"api": api, "idle": "50", "rounds": "100", "active": "first"})
		if v["ready"] != 1 || v["usable"] != 1 || !(v["round"] > 0) {
			t.Errorf("%s active=first: ready %v usable %v round %v, want 1, 1, > 0", api, v["ready"], v["usable"], v["round"])
		}
	}
}

func TestSelectBeyondFDSetSize(t *testing.T) {
	v := run(t, "readiness", map[string]string{"api": "select", "idle": "1100", "rounds": "10"})
	_, hasRound := v["round"]
	_, hasReady := v["ready"]
	if v["usable"] != 0 || hasRound || hasReady {
		t.Errorf("select with idle=1100: %v, want usable 0 and no round or ready (never measured)", v)
	}
	if v["maxfd"] < float64(fdSetSize) {
		t.Errorf("maxfd = %v, want >= %d", v["maxfd"], fdSetSize)
	}
	// poll has no such limit on the same fds.
	v = run(t, "readiness", map[string]string{"api": "poll", "idle": "1100", "rounds": "10"})
	if v["usable"] != 1 || v["ready"] != 1 {
		t.Errorf("poll with idle=1100: usable %v ready %v, want 1 and 1", v["usable"], v["ready"])
	}
}

// Both ends of each idle pair are watched, so the fd numbers grow by about
// one per idle socket, not two.
func TestMaxfdGrowsWithIdle(t *testing.T) {
	small := run(t, "readiness", map[string]string{"api": "poll", "idle": "10", "rounds": "10"})["maxfd"]
	large := run(t, "readiness", map[string]string{"api": "poll", "idle": "400", "rounds": "10"})["maxfd"]
	if d := large - small; d < 390 || d > 420 {
		t.Errorf("maxfd grew by %v from idle 10 to 400, want about 390", d)
	}
}

// The registration API this system lacks (kqueue on Linux, epoll on macOS
// and FreeBSD) is not a failure: the probe's result is "not available",
// with the reason the page shows in place of its figures.
func TestOtherAPIIsNotAvailable(t *testing.T) {
	other := map[string]string{"epoll": "kqueue", "kqueue": "epoll"}[nativeAPI]
	for _, name := range []string{"readiness", "readiness.regular_file"} {
		p := find(t, name)
		params, err := p.Resolve(map[string]string{"api": other})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Run(context.Background(), params)
		var ue *probe.UnavailableError
		if want := other + " is not available on " + runtime.GOOS; !errors.As(err, &ue) || ue.Reason != want {
			t.Errorf("%s api=%s: err = %v, want the result %q", name, other, err, want)
		}
	}
}

// The timed region must not allocate.
func TestRoundsDoNotAllocate(t *testing.T) {
	set, err := openPairs(20, false)
	if err != nil {
		t.Fatal(err)
	}
	defer set.close()
	native, cleanup, err := nativeRounds(set)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	for name, step := range map[string]stepper{"select": selectRounds(set), "poll": pollRounds(set), nativeAPI: native} {
		var stepErr error
		allocs := testing.AllocsPerRun(5, func() {
			if _, err := step(20); err != nil {
				stepErr = err
			}
		})
		if stepErr != nil {
			t.Fatalf("%s: %v", name, stepErr)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocations per 20 rounds, want 0", name, allocs)
		}
	}
}

func TestEdgeTrap(t *testing.T) {
	wait := 20 * time.Millisecond
	v := run(t, "readiness.edge", map[string]string{"mode": "edge", "sent": "100", "readsize": "30", "wait": wait.String()})
	want := probe.Values{"notifications": 1, "timedout": 1, "unread": 70, "renotified": 1}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("edge: %s = %v, want %v", k, v[k], w)
		}
	}
	if v["waited"] < wait.Seconds()*0.9 || v["waited"] > 1 {
		t.Errorf("edge: the timed-out wait took %v s, want about %v", v["waited"], wait.Seconds())
	}

	v = run(t, "readiness.edge", map[string]string{"mode": "level", "sent": "100", "readsize": "30", "wait": wait.String()})
	want = probe.Values{"notifications": 2, "timedout": 0, "unread": 70, "renotified": 1}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("level: %s = %v, want %v", k, v[k], w)
		}
	}
	if v["waited"] > wait.Seconds()/2 {
		t.Errorf("level: the second wait took %v s; it should return at once", v["waited"])
	}
}

// select and poll call a regular file ready at once; what the native API
// does with it is the platform's (wantNativeRegular).
func TestRegularFile(t *testing.T) {
	v := run(t, "readiness.regular_file", map[string]string{"api": nativeAPI})
	if want := wantNativeRegular; v["accepted"] != want["accepted"] || v["errno"] != want["errno"] || v["ready"] != want["ready"] {
		t.Errorf("%s on a regular file: %v, want %v", nativeAPI, v, want)
	}
	for _, api := range []string{"poll", "select"} {
		v := run(t, "readiness.regular_file", map[string]string{"api": api})
		if v["accepted"] != 1 || v["errno"] != 0 || v["ready"] != 1 {
			t.Errorf("%s on a regular file: %v, want accepted 1, errno 0, ready 1", api, v)
		}
	}
}

// TestReport prints the book's figures on this machine; it runs only with
// READINESS_REPORT=1 (go test -run TestReport -v ./probes/readiness).
func TestReport(t *testing.T) {
	if os.Getenv("READINESS_REPORT") == "" {
		t.Skip("set READINESS_REPORT=1 to print this machine's figures")
	}
	fmt.Printf("%s, %d CPUs\n", runtime.GOARCH, runtime.NumCPU())
	for _, api := range []string{"select", "poll", nativeAPI} {
		for _, idle := range []string{"100", "1000", "10000"} {
			v := run(t, "readiness", map[string]string{"api": api, "idle": idle, "rounds": "2000"})
			fmt.Printf("readiness api=%-6s idle=%-5s round=%10.3f µs usable=%v ready=%v maxfd=%v\n",
				api, idle, v["round"]*1e6, v["usable"], v["ready"], v["maxfd"])
			if api != nativeAPI {
				v = run(t, "readiness", map[string]string{"api": api, "idle": idle, "rounds": "2000", "active": "first"})
				fmt.Printf("readiness api=%-6s idle=%-5s round=%10.3f µs usable=%v (active=first)\n",
					api, idle, v["round"]*1e6, v["usable"])
			}
		}
	}
	for _, mode := range []string{"edge", "level"} {
		fmt.Printf("readiness.edge mode=%s %v\n", mode, run(t, "readiness.edge", map[string]string{"mode": mode}))
	}
	for _, api := range []string{"select", "poll", nativeAPI} {
		fmt.Printf("readiness.regular_file api=%s %v\n", api, run(t, "readiness.regular_file", map[string]string{"api": api}))
	}
	for _, name := range []string{"readiness", "readiness.edge", "readiness.regular_file"} {
		fmt.Printf("%s defaults %v\n", name, run(t, name, nil))
	}
}
