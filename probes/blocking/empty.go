package blocking

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

// Bounds on the empty-socket probes: each call lasts at least delay.
const (
	maxCalls    = 100_000
	maxDelay    = time.Second
	maxSleeping = 25 * time.Second // calls × delay
)

const emptyMethod = `Setup, untimed: two socketpair(AF_UNIX, SOCK_STREAM, 0), all ends blocking: a data pair (the reader reads r,
the writer writes w) and a control pair that starts each call. One writer thread lives for the whole run (a
goroutine locked to its OS thread, as a pthread would be): it sets its timer slack to 1 ns
(prctl(PR_SET_TIMERSLACK, 1) on Linux; the default 50 µs slack would add to every sleep), then per call
sleeps in a blocking read(2) of 1 byte on the control pair until the reader starts the call, reads the
reader's start stamp t0 from shared memory, reads getrusage(RUSAGE_THREAD), sleeps with nanosleep(2) until
CLOCK_MONOTONIC reaches t0 + delay (repeated if cut short; called raw, without the runtime's entersyscall,
so the writer keeps its P and wakes as a C thread would; select(2) with a timeout on macOS/FreeBSD),
reads RUSAGE_THREAD again (vcsw over its sleep), stamps s (CLOCK_MONOTONIC) just before write(w, 1 byte),
writes, and goes back to sleep on the control pair. So after its write the writer thread sleeps at once,
as a C writer waiting on a condition variable would, and frees its CPU for the reader the write wakes;
it is not torn down (a thread exiting right after its write would delay the woken reader, which the
kernel may queue on the waker's CPU). The reader, per call: getrusage(RUSAGE_SELF), getrusage(RUSAGE_THREAD),
stamps t0 and publishes it, write(ctl, 1 byte) to start the writer, one blocking read(r, buf, 1) (it must
return 1), stamps t1, RUSAGE_THREAD, RUSAGE_SELF. All stamps are CLOCK_MONOTONIC read through the vDSO
(Go's monotonic clock; no system call), comparable across CPUs. Per call: read = t1 − t0,
delay_actual = s − t0 (the wait the reader really had before its data was written: at least delay, since
nanosleep overshoots, by tens of µs on these virtual machines), wake = t1 − s, so read = delay_actual + wake
for every call. After the last call the reader closes the control pair, the writer's read returns 0 and
the writer ends.`

var emptySpec = probe.Spec{
	Name: "blocking.empty",
	Doc: `A blocking read(2) of 1 byte on an empty socket, filled by another thread after delay: the reader sleeps once.
` + emptyMethod + `
read and delay_actual are medians over calls, read_mean the mean of read. vcsw_thread = growth of the reader
thread's ru_nvcsw across its read, per call; vcsw_writer = the writer thread's ru_nvcsw over its nanosleep,
per call; vcsw_pair = vcsw_thread + vcsw_writer, the two sleeps per call a C program's two threads show
(one each). vcsw_process = growth of the process's ru_nvcsw from before the reader's first stamp to after
its read returned, per call: the pair's sleeps, the writer's sleep on the control pair after its write
(about one per call, when it falls inside the reader's window), and those of the Go runtime's threads,
chiefly sysmon, which sleeps between its checks as often as every 20 µs while a P is in a system call.
What Go adds: each syscall (the control write, the read, the writer's control read and write) passes
through entersyscall/exitsyscall, and a reader whose P was retaken by sysmon while it slept may need a
second, short sleep to get a P back (vcsw_thread slightly above 1); the GC runs before and is off during
the calls. FreeBSD has RUSAGE_THREAD as Linux does; macOS has none (its getrusage counts the whole process),
so there vcsw_thread, vcsw_writer and vcsw_pair are left out of the run and only vcsw_process is reported.`,
	Params: []probe.Param{
		{Name: "delay", Kind: probe.Duration, Default: "500us", Doc: "how long after the reader's start stamp the writer writes the byte"},
		{Name: "calls", Kind: probe.Int, Sample: true, Max: maxCalls, Default: "200", Doc: "blocking reads, each woken by the one persistent writer thread"},
	},
	Metrics: []probe.Metric{
		{Name: "read", Unit: probe.Seconds, Better: probe.Lower, Doc: "median time per blocking read, from the reader's start stamp to its return with the byte (delay and wake-up included)"},
		{Name: "read_mean", Unit: probe.Seconds, Better: probe.Lower, Doc: "mean time per blocking read"},
		{Name: "vcsw_thread", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the reading thread per read (RUSAGE_THREAD): how often it slept",
			Optional: "absent on macOS, whose getrusage counts only the whole process (it has no RUSAGE_THREAD)"},
		{Name: "vcsw_writer", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the writer thread during its nanosleep, per call (RUSAGE_THREAD)",
			Optional: "absent on macOS, whose getrusage counts only the whole process (it has no RUSAGE_THREAD)"},
		{Name: "vcsw_pair", Unit: probe.Count, Better: probe.Lower, Doc: "vcsw_thread + vcsw_writer: the reader's and the writer's sleeps per call (2 in a C program)",
			Optional: "absent on macOS, whose getrusage counts only the whole process (it has no RUSAGE_THREAD)"},
		{Name: "vcsw_process", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the whole process per call (RUSAGE_SELF): the pair, the writer's wait for the next call and the Go runtime's threads"},
		{Name: "delay_actual", Unit: probe.Seconds, Better: probe.Neither, Doc: "median time from the reader's start stamp to the writer's write (asked: delay)"},
	},
}

var wakeSpec = probe.Spec{
	Name: "blocking.wake",
	Doc: `How long a sleeping reader takes to return once the data is written: from the writer's stamp just before
write(2) to the reader's stamp just after its blocking read(2) returned.
` + emptyMethod + `
wake = median over calls of t1 − s; wake_mean and wake_max are the mean and the largest; wake_min, wake_p10,
wake_p25, wake_p75, wake_p90 and wake_p99 are quantiles of the same per-call values (linear interpolation
between order statistics: with the n values sorted, the q-quantile is x[h] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]),
h = q(n − 1), 0-based), so a run's distribution can be drawn. The run also hands its per-call wake-up times to
the runner, which takes wake_p10…wake_p99 again from every run's wake-ups pooled (up to 20,000 a run): the figure
a page shows, the per-run quantiles giving its spread. The interval holds the rest of the writer's
write after its stamp (queueing the byte and waking the reader), the scheduler putting the reader back on a
CPU (often the other, idle one: on a virtual machine that may mean waking an idle virtual CPU), and the
read's return to user space.
What Go adds: the reader's return passes through exitsyscall (and, if sysmon retook its P during the sleep,
acquiring a P again, which can show in the tail); the GC runs before and is off during the calls. An AF_UNIX socket wakes the reader directly; TCP would add the
loopback stack.`,
	Params: emptySpec.Params,
	Metrics: []probe.Metric{
		{Name: "wake", Unit: probe.Seconds, Better: probe.Lower, Doc: "median time from the writer's write to the blocked reader's return"},
		{Name: "wake_mean", Unit: probe.Seconds, Better: probe.Lower, Doc: "mean time from the writer's write to the blocked reader's return"},
		{Name: "wake_max", Unit: probe.Seconds, Better: probe.Lower, Doc: "largest time from the writer's write to the blocked reader's return"},
		{Name: "wake_min", Unit: probe.Seconds, Better: probe.Lower, Doc: "smallest wake-up time of the run"},
		{Name: "wake_p10", Unit: probe.Seconds, Better: probe.Lower, Quantile: 0.10, Samples: "calls", Of: "wake", Doc: "10th percentile of the run's wake-up times"},
		{Name: "wake_p25", Unit: probe.Seconds, Better: probe.Lower, Quantile: 0.25, Samples: "calls", Of: "wake", Doc: "25th percentile of the run's wake-up times"},
		{Name: "wake_p75", Unit: probe.Seconds, Better: probe.Lower, Quantile: 0.75, Samples: "calls", Of: "wake", Doc: "75th percentile of the run's wake-up times"},
		{Name: "wake_p90", Unit: probe.Seconds, Better: probe.Lower, Quantile: 0.90, Samples: "calls", Of: "wake", Doc: "90th percentile of the run's wake-up times"},
		{Name: "wake_p99", Unit: probe.Seconds, Better: probe.Lower, Quantile: 0.99, Samples: "calls", Of: "wake", Doc: "99th percentile of the run's wake-up times"},
	},
}

// emptyResult is one run of blocking.empty / blocking.wake.
type emptyResult struct {
	read, wake, slept []float64 // per call, seconds
	vt, vp, vw        int64     // voluntary switches: reader thread, process, writer thread
	perThread         bool      // vt and vw were counted (false on macOS: no RUSAGE_THREAD)
}

func runEmpty(ctx context.Context, p probe.Params) (probe.Values, error) {
	r, err := measureEmpty(ctx, p.Duration("delay"), p.Int("calls"))
	if err != nil {
		return nil, err
	}
	n := float64(len(r.read))
	var sum float64
	for _, x := range r.read {
		sum += x
	}
	sort.Float64s(r.read)
	sort.Float64s(r.slept)
	v := probe.Values{
		"read":         kern.Quantile(r.read, 0.5),
		"read_mean":    sum / n,
		"vcsw_process": float64(r.vp) / n,
		"delay_actual": kern.Quantile(r.slept, 0.5),
	}
	if r.perThread {
		v["vcsw_thread"] = float64(r.vt) / n
		v["vcsw_writer"] = float64(r.vw) / n
		v["vcsw_pair"] = float64(r.vt+r.vw) / n
	}
	return v, nil
}

func runWake(ctx context.Context, p probe.Params) (probe.Values, error) {
	r, err := measureEmpty(ctx, p.Duration("delay"), p.Int("calls"))
	if err != nil {
		return nil, err
	}
	w := r.wake
	var sum float64
	for _, x := range w {
		sum += x
	}
	sort.Float64s(w)
	// The quantiles a page shows are taken from every run's wake-ups
	// pooled: a p99 of one run of 2,000 is its 20th slowest.
	probe.Keep(ctx, "wake", w)
	return probe.Values{
		"wake":      kern.Quantile(w, 0.5),
		"wake_mean": sum / float64(len(w)),
		"wake_max":  w[len(w)-1],
		"wake_min":  w[0],
		"wake_p10":  kern.Quantile(w, 0.10),
		"wake_p25":  kern.Quantile(w, 0.25),
		"wake_p75":  kern.Quantile(w, 0.75),
		"wake_p90":  kern.Quantile(w, 0.90),
		"wake_p99":  kern.Quantile(w, 0.99),
	}, nil
}

// writer is the state the reader shares with the one writer thread.
type writer struct {
	ctl   int          // the writer's end of the control pair
	w     int          // the data socket's write end
	delay int64        // ns
	start atomic.Int64 // the reader's t0 for the current call
	stamp atomic.Int64 // the writer's clock just before its write
	vcsw  atomic.Int64 // the writer's voluntary switches over its sleep, this call
	err   error        // why the writer stopped early; read after done
	done  chan struct{}
}

// run is the writer thread. It never unlocks its thread, whose timer slack
// it changed, so the runtime discards the thread when the run is over.
func (wr *writer) run() {
	runtime.LockOSThread()
	defer close(wr.done)
	kern.SetTimerSlack()
	var b [1]byte
	for {
		n, err := unix.Read(wr.ctl, b[:])
		if err == unix.EINTR {
			continue
		}
		if n != 1 {
			return // the reader closed the control pair: the run is over
		}
		ru0, _ := kern.ThreadRusage()
		sleepUntil(wr.start.Load() + wr.delay)
		ru1, _ := kern.ThreadRusage()
		wr.vcsw.Store(int64(ru1.Nvcsw - ru0.Nvcsw))
		wr.stamp.Store(kern.Now())
		if err := writeAll(wr.w, []byte{'x'}); err != nil {
			wr.err = err
			// The reader sees end-of-file rather than blocking forever.
			unix.Shutdown(wr.w, unix.SHUT_WR)
			return
		}
	}
}

func measureEmpty(ctx context.Context, delay time.Duration, calls int) (*emptyResult, error) {
	if calls < 1 || calls > maxCalls {
		return nil, fmt.Errorf("calls must be 1..%d, got %d", maxCalls, calls)
	}
	if delay < 0 || delay > maxDelay {
		return nil, fmt.Errorf("delay must be 0..%v, got %v", maxDelay, delay)
	}
	if time.Duration(calls)*delay > maxSleeping {
		return nil, fmt.Errorf("calls × delay = %v, more than %v", time.Duration(calls)*delay, maxSleeping)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	r, w, closeData, err := kern.Socketpair()
	if err != nil {
		return nil, err
	}
	defer closeData()
	ctlW, ctlR, closeCtl, err := kern.Socketpair()
	if err != nil {
		return nil, err
	}
	wr := &writer{ctl: ctlR, w: w, delay: int64(delay), done: make(chan struct{})}
	go wr.run()
	// However the run ends, the writer ends before the sockets close.
	defer func() {
		unix.Shutdown(ctlW, unix.SHUT_WR)
		<-wr.done
		closeCtl()
	}()

	_, perThread := kern.ThreadRusage()
	res := &emptyResult{
		read:      make([]float64, 0, calls),
		wake:      make([]float64, 0, calls),
		slept:     make([]float64, 0, calls),
		perThread: perThread,
	}
	defer quietGC()()

	var one [1]byte
	for i := 0; i < calls; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rp0 := kern.ProcessRusage()
		rt0, _ := kern.ThreadRusage()
		t0 := kern.Now()
		wr.start.Store(t0)
		if err := writeAll(ctlW, one[:]); err != nil {
			return nil, fmt.Errorf("starting the writer: %w", err)
		}
		n, rerr := unix.Read(r, one[:])
		t1 := kern.Now()
		rt1, _ := kern.ThreadRusage()
		rp1 := kern.ProcessRusage()
		if n != 1 {
			unix.Shutdown(ctlW, unix.SHUT_WR)
			<-wr.done
			if wr.err != nil {
				return nil, fmt.Errorf("writer: %w", wr.err)
			}
			return nil, fmt.Errorf("blocking read returned %d: %v", n, rerr)
		}
		s := wr.stamp.Load()
		if s < t0 || s > t1 {
			return nil, fmt.Errorf("call %d: the writer's stamp lies outside the reader's read", i)
		}
		res.read = append(res.read, float64(t1-t0)/1e9)
		res.wake = append(res.wake, float64(t1-s)/1e9)
		res.slept = append(res.slept, float64(s-t0)/1e9)
		res.vt += int64(rt1.Nvcsw - rt0.Nvcsw)
		res.vp += int64(rp1.Nvcsw - rp0.Nvcsw)
		res.vw += wr.vcsw.Load()
	}
	return res, nil
}

// sleepUntil sleeps the calling thread in the kernel until the monotonic
// clock reaches deadline (ns, as kern.Now), however many sleeps that takes
// (a signal such as the Go runtime's preemption signal ends one early).
func sleepUntil(deadline int64) {
	for {
		rem := deadline - kern.Now()
		if rem <= 0 {
			return
		}
		kern.SleepOnce(rem)
	}
}
