// Package nonblocking holds the probes of chapter 6, "non-blocking is one
// flag": what read(2) returns with O_NONBLOCK on an empty socket and what it
// costs, what polling such a read until data arrives costs against sleeping
// in a blocking read (and at which wait the two break even), and how much a
// socket accepts from a non-blocking writer before write(2) says EAGAIN.
//
// Every probe works on raw descriptors with golang.org/x/sys/unix, never on
// net.Conn or os.File, whose I/O goes through Go's netpoller. The measuring
// goroutine is locked to its OS thread, so RUSAGE_THREAD and
// CLOCK_THREAD_CPUTIME_ID are that thread's.
package nonblocking

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"runtime/debug"
	"sort"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

//go:embed *.go
var source embed.FS

// Probes lists this family's probes.
func Probes() []probe.Probe {
	srcs := []fs.FS{source, kern.Source}
	return []probe.Probe{
		{Spec: eagainSpec, Run: runEagain, Sources: srcs},
		{Spec: busySpec, Run: runWait, Sources: srcs},
		{Spec: breakevenSpec, Run: runWait, Sources: srcs},
		{Spec: sndbufSpec, Run: runSndbuf, Sources: srcs},
	}
}

const maxEagainCalls = 10_000_000

var eagainSpec = probe.Spec{
	Name: "nonblocking.eagain",
	Doc: `read(2) with O_NONBLOCK on an empty socket: it returns -1 with errno EAGAIN at once instead of sleeping.
Setup: socketpair(AF_UNIX, SOCK_STREAM, 0); the read end set O_NONBLOCK (fcntl F_GETFL, then F_SETFL with
O_NONBLOCK added); nothing is ever written. Warm-up: warmup reads. Timed: getrusage(RUSAGE_THREAD), the
clock (CLOCK_MONOTONIC through the vDSO: no system call), calls read(r, buf, 1) through the bare trap (Go's
unix.RawSyscall(SYS_READ), what a C program's read() does; a non-blocking read cannot sleep, so it needs
none of the runtime's syscall bookkeeping), the clock; then calls more through Go's ordinary unix.Read,
the clock, RUSAGE_THREAD. Every call must return -1 with errno EAGAIN (the probe fails otherwise). ret and
errno are the last call's return value and errno; eagain and ewouldblock are the values of the two
constants on this system (POSIX lets them differ; Linux and macOS define them equal: 11 on Linux, 35 on
macOS). read = time of the raw calls / calls; read_go = time of the unix.Read calls / calls, so read_go −
read is what Go's entersyscall/exitsyscall adds per call; vcsw_thread = growth of the thread's ru_nvcsw
over both loops / (2 × calls) (RUSAGE_THREAD, as Linux and FreeBSD have; macOS counts only the whole
process, so there vcsw_thread is left out of the run).
What Go adds: nothing to read; to read_go the runtime's entersyscall/exitsyscall, and x/sys turns errno
EAGAIN into a preallocated error value (no allocation); the goroutine is locked to its thread and the GC
is off.`,
	Params: []probe.Param{
		{Name: "calls", Kind: probe.Int, Sample: true, Max: maxEagainCalls, Default: "1000", Doc: "timed non-blocking reads on the empty socket, per path (raw and through Go)"},
		{Name: "warmup", Kind: probe.Int, Sample: true, Max: maxEagainCalls, Default: "500", Doc: "untimed reads before the timed ones"},
	},
	Metrics: []probe.Metric{
		{Name: "ret", Unit: probe.Count, Doc: "read's return value on the empty socket (-1)"},
		{Name: "errno", Unit: probe.Count, Doc: "errno after that read"},
		{Name: "eagain", Unit: probe.Count, Doc: "the value of EAGAIN on this system"},
		{Name: "ewouldblock", Unit: probe.Count, Doc: "the value of EWOULDBLOCK on this system"},
		{Name: "read", Unit: probe.Seconds, Better: probe.Lower, Doc: "time per non-blocking read that found nothing, through the bare trap (RawSyscall): the kernel's price"},
		{Name: "read_go", Unit: probe.Seconds, Better: probe.Lower, Doc: "the same read through Go's unix.Read (with entersyscall/exitsyscall)"},
		{Name: "vcsw_thread", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the reading thread per read (RUSAGE_THREAD)",
			Optional: "absent on macOS, whose getrusage counts only the whole process (it has no RUSAGE_THREAD)"},
	},
}

func runEagain(ctx context.Context, p probe.Params) (probe.Values, error) {
	calls, warmup := p.Int("calls"), p.Int("warmup")
	if calls < 1 || calls > maxEagainCalls {
		return nil, fmt.Errorf("calls must be 1..%d, got %d", maxEagainCalls, calls)
	}
	if warmup < 0 || warmup > maxEagainCalls {
		return nil, fmt.Errorf("warmup must be 0..%d, got %d", maxEagainCalls, warmup)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	r, _, closeBoth, err := kern.Socketpair()
	if err != nil {
		return nil, err
	}
	defer closeBoth()
	if err := unix.SetNonblock(r, true); err != nil {
		return nil, fmt.Errorf("set O_NONBLOCK: %w", err)
	}

	var buf [1]byte
	for i := 0; i < warmup; i++ {
		unix.Read(r, buf[:])
	}
	defer quietGC()()

	var n int
	var rerr error
	bad := 0
	ru0, perThread := kern.ThreadRusage()
	t0 := kern.Now()
	for i := 0; i < calls; i++ {
		var e unix.Errno
		if n, e = kern.RawRead(r, buf[:]); n != -1 || e != unix.EAGAIN {
			bad++
		}
	}
	t1 := kern.Now()
	// The same reads through Go's ordinary path, for what it adds.
	g0 := kern.Now()
	for i := 0; i < calls; i++ {
		n, rerr = unix.Read(r, buf[:])
		// Comparing with the constant allocates nothing.
		if n != -1 || rerr != unix.EAGAIN {
			bad++
		}
	}
	g1 := kern.Now()
	ru1, _ := kern.ThreadRusage()
	if bad > 0 {
		return nil, fmt.Errorf("%d of %d non-blocking reads on an empty socket did not fail with EAGAIN (last: %d, %v)", bad, calls, n, rerr)
	}
	var errno unix.Errno
	if !errors.As(rerr, &errno) {
		return nil, fmt.Errorf("read error %v is not an errno", rerr)
	}
	v := probe.Values{
		"ret":         float64(n),
		"errno":       float64(errno),
		"eagain":      float64(unix.EAGAIN),
		"ewouldblock": float64(unix.EWOULDBLOCK),
		"read":        float64(t1-t0) / 1e9 / float64(calls),
		"read_go":     float64(g1-g0) / 1e9 / float64(calls),
	}
	if perThread {
		v["vcsw_thread"] = float64(ru1.Nvcsw-ru0.Nvcsw) / float64(2*calls)
	}
	return v, nil
}

// quietGC collects garbage now and turns the collector off until the
// returned function restores it: the timed regions allocate nothing, and a
// run is its own process, but tests call Run in-process.
func quietGC() (restore func()) {
	runtime.GC()
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}

// median returns the median of xs, sorting xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[n/2]
}
