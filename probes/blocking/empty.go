package blocking

import (
	"context"
	"fmt"
	"runtime"
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

const emptyMethod = `Per call, untimed: a fresh socketpair(AF_UNIX, SOCK_STREAM, 0), both ends blocking, and a fresh writer: a
goroutine that locks itself to an OS thread and exits without unlocking, so the runtime discards that thread
and each call's writer runs on a thread of its own, as a pthread_create per call would in C. The writer sets
its timer slack to 1 ns (prctl(PR_SET_TIMERSLACK, 1) on Linux; the default 50 µs slack would add to every
sleep), stamps CLOCK_MONOTONIC, sleeps with nanosleep(2) until delay has passed (repeated if cut short;
called raw, without the runtime's entersyscall, so the writer keeps its P and wakes as a C thread would;
select(2) with a timeout on macOS/FreeBSD, where x/sys has no nanosleep), stamps again (the delay that actually
happened: nanosleep overshoots, by tens of µs on these virtual machines), stamps once more just before
write(w, 1 byte), and writes. The reader, meanwhile: getrusage(RUSAGE_SELF) before starting the writer,
then getrusage(RUSAGE_THREAD), clock_gettime(CLOCK_MONOTONIC), one blocking read(r, buf, 1) (it must return
1), the clock, RUSAGE_THREAD, RUSAGE_SELF. Then it waits for the writer to finish and closes both ends.`

var emptySpec = probe.Spec{
	Name: "blocking.empty",
	Doc: `A blocking read(2) of 1 byte on an empty socket, filled by another thread after delay: the reader sleeps once.
` + emptyMethod + `
read = mean over calls of the reader's clock pair: the whole blocked read, which includes the writer
thread's start, its sleep (delay_actual) and the wake-up. vcsw_thread = growth of the reader thread's
ru_nvcsw across its read, per call; vcsw_process = growth of the process's ru_nvcsw from before the writer
was started to after the read returned, per call: the writer's sleep, the reader's, and those of the Go
runtime's threads, chiefly sysmon, which sleeps between its checks as often as every 20 µs while a P is in a
system call (vcsw_thread + vcsw_writer is what a C program's two threads would show); vcsw_writer = the writer thread's own ru_nvcsw over its sleep, per
call; delay_actual = mean of the writer's second stamp minus its first.
What Go adds: the writer is a goroutine, so starting it costs a runtime thread hand-off (an idle M is woken or
a new one cloned) on top of the thread creation; each syscall passes through entersyscall/exitsyscall, and a
reader whose P was retaken by sysmon while it slept may need a second, short sleep to get a P back
(vcsw_thread slightly above 1); the GC runs before and is off during the calls. On macOS and FreeBSD, which
have no RUSAGE_THREAD, vcsw_thread and vcsw_writer are process counts.`,
	Params: []probe.Param{
		{Name: "delay", Kind: probe.Duration, Default: "500us", Doc: "how long the writer sleeps before writing the byte"},
		{Name: "calls", Kind: probe.Int, Default: "200", Doc: "blocking reads, each on a fresh socketpair with a fresh writer thread"},
	},
	Metrics: []probe.Metric{
		{Name: "read", Unit: probe.Seconds, Better: probe.Lower, Doc: "time per blocking read, from just before the call to its return with the byte"},
		{Name: "vcsw_thread", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the reading thread per read (RUSAGE_THREAD): how often it slept"},
		{Name: "vcsw_process", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the whole process per call (RUSAGE_SELF), writer and Go runtime threads included"},
		{Name: "vcsw_writer", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the writer thread during its sleep, per call (RUSAGE_THREAD)"},
		{Name: "delay_actual", Unit: probe.Seconds, Better: probe.Neither, Doc: "mean time the writer really slept before writing (asked: delay)"},
	},
}

var wakeSpec = probe.Spec{
	Name: "blocking.wake",
	Doc: `How long a sleeping reader takes to return once the data is written: from the writer's stamp just before
write(2) to the reader's stamp just after its blocking read(2) returned.
` + emptyMethod + `
wake = median over calls of (reader's stamp after read − writer's stamp before write), both CLOCK_MONOTONIC
read with clock_gettime in the same process, comparable across CPUs; wake_mean and wake_max are the mean
and the largest. The interval holds the writer's write (which queues the byte and wakes the reader), the
scheduler putting the reader back on a CPU (often the other, idle one: on a virtual machine that may mean
waking an idle virtual CPU), and the read's return to user space.
What Go adds: the reader's return passes through exitsyscall (and, if sysmon retook its P during the sleep,
acquiring a P again); each stamp is x/sys's clock_gettime, a real system call rather than the vDSO, which
adds a fraction of a µs. An AF_UNIX socket wakes the reader directly; TCP would add the loopback stack.`,
	Params: emptySpec.Params,
	Metrics: []probe.Metric{
		{Name: "wake", Unit: probe.Seconds, Better: probe.Lower, Doc: "median time from the writer's write to the blocked reader's return"},
		{Name: "wake_mean", Unit: probe.Seconds, Better: probe.Lower, Doc: "mean time from the writer's write to the blocked reader's return"},
		{Name: "wake_max", Unit: probe.Seconds, Better: probe.Lower, Doc: "largest time from the writer's write to the blocked reader's return"},
	},
}

// emptyResult is one run of blocking.empty / blocking.wake.
type emptyResult struct {
	read, wake, slept []float64 // per call, seconds
	vt, vp, vw        int64     // voluntary switches: reader thread, process, writer threads
}

// writerResult is what one writer thread reports back to the reader.
type writerResult struct {
	slept int64 // ns between the writer's stamps around its sleep
	stamp int64 // kern.Now() just before the write
	vcsw  int64 // the writer thread's voluntary switches over its sleep
	err   error
}

func runEmpty(ctx context.Context, p probe.Params) (probe.Values, error) {
	r, err := measureEmpty(ctx, p.Duration("delay"), p.Int("calls"))
	if err != nil {
		return nil, err
	}
	n := float64(len(r.read))
	readMean, _, _ := stats(r.read)
	sleptMean, _, _ := stats(r.slept)
	return probe.Values{
		"read":         readMean,
		"vcsw_thread":  float64(r.vt) / n,
		"vcsw_process": float64(r.vp) / n,
		"vcsw_writer":  float64(r.vw) / n,
		"delay_actual": sleptMean,
	}, nil
}

func runWake(ctx context.Context, p probe.Params) (probe.Values, error) {
	r, err := measureEmpty(ctx, p.Duration("delay"), p.Int("calls"))
	if err != nil {
		return nil, err
	}
	mean, median, max := stats(r.wake)
	return probe.Values{"wake": median, "wake_mean": mean, "wake_max": max}, nil
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

	res := &emptyResult{
		read:  make([]float64, 0, calls),
		wake:  make([]float64, 0, calls),
		slept: make([]float64, 0, calls),
	}
	done := make(chan struct{}, 1)
	var wr writerResult
	defer quietGC()()

	var one [1]byte
	for i := 0; i < calls; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return nil, fmt.Errorf("socketpair: %w", err)
		}
		r, w := fds[0], fds[1]
		wr = writerResult{}

		rp0 := kern.ProcessRusage()
		go writeAfter(w, delay, &wr, done)
		rt0 := kern.ThreadRusage()
		t0 := kern.Now()
		n, rerr := unix.Read(r, one[:])
		t1 := kern.Now()
		rt1 := kern.ThreadRusage()
		rp1 := kern.ProcessRusage()

		<-done
		unix.Close(r)
		unix.Close(w)
		if wr.err != nil {
			return nil, fmt.Errorf("writer: write: %w", wr.err)
		}
		if n != 1 {
			return nil, fmt.Errorf("blocking read returned %d: %v", n, rerr)
		}
		res.read = append(res.read, float64(t1-t0)/1e9)
		res.wake = append(res.wake, float64(t1-wr.stamp)/1e9)
		res.slept = append(res.slept, float64(wr.slept)/1e9)
		res.vt += int64(rt1.Nvcsw - rt0.Nvcsw)
		res.vp += int64(rp1.Nvcsw - rp0.Nvcsw)
		res.vw += wr.vcsw
	}
	return res, nil
}

// writeAfter is one call's writer: it runs on an OS thread of its own,
// sleeps for delay, then writes one byte to w. It never unlocks its thread,
// so the runtime destroys the thread when the goroutine ends.
func writeAfter(w int, delay time.Duration, res *writerResult, done chan<- struct{}) {
	runtime.LockOSThread()
	defer func() { done <- struct{}{} }()
	kern.SetTimerSlack()
	ru0 := kern.ThreadRusage()
	s0 := kern.Now()
	sleepUntil(s0 + int64(delay))
	s1 := kern.Now()
	ru1 := kern.ThreadRusage()
	res.slept = s1 - s0
	res.vcsw = int64(ru1.Nvcsw - ru0.Nvcsw)
	one := [1]byte{'x'}
	res.stamp = kern.Now()
	if _, err := unix.Write(w, one[:]); err != nil {
		res.err = err
		// The reader sees end-of-file rather than blocking forever.
		unix.Shutdown(w, unix.SHUT_WR)
	}
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
