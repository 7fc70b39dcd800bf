package nonblocking

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

// Bounds and constants of the waiting probes.
const (
	maxWaitCalls = 100_000
	maxWaitDelay = time.Second
	maxWaitTotal = 25 * time.Second // calls × delay
	waitWarmup   = 10               // untimed calls before the timed ones
	// spinTail is the end of each delay that the writer spins through
	// instead of sleeping: nanosleep with 1 ns timer slack still overshoots
	// by 60-130 µs on these virtual machines, so the writer sleeps until
	// spinTail before the deadline, then spins on the clock.
	spinTail = 200 * time.Microsecond
	// yieldEvery bounds how long either thread runs without passing through
	// the Go scheduler. sysmon preempts a goroutine that has run for 10 ms,
	// and a preempted locked goroutine parks its thread until another thread
	// hands its P back: a voluntary context switch that C would not have. A
	// runtime.Gosched between calls, outside the timed region, restarts
	// sysmon's count at a time of our choosing.
	yieldEvery = 4 * time.Millisecond
	// stallLimit: a hand-off spin that lasts this long means the other side
	// has died; the run fails instead of hanging. It is far above any wait a
	// live peer causes, even on a heavily loaded machine (with 5 s, a test
	// run failed at a load average of 25 with end-of-file from a writer that
	// had given up).
	stallLimit = 20 * time.Second
)

var errStall = errors.New("the other thread stopped answering for 20 s")

func waitParams(delay, calls string) []probe.Param {
	return []probe.Param{
		{Name: "mode", Kind: probe.String, Default: "busy", Choices: []string{"busy", "block"},
			Doc: "busy: poll a non-blocking read until it returns the byte; block: one blocking read"},
		{Name: "delay", Kind: probe.Duration, Default: delay, Doc: "how long after the reader starts waiting the writer writes the byte"},
		{Name: "calls", Kind: probe.Int, Sample: true, Max: maxWaitCalls, Default: calls, Doc: "timed waits, one byte each"},
	}
}

var waitMetrics = []probe.Metric{
	{Name: "wall", Unit: probe.Seconds, Better: probe.Lower, Doc: "median elapsed time per wait, from the reader's start to its read returning the byte"},
	{Name: "cpu", Unit: probe.Seconds, Better: probe.Lower, Doc: "median CPU time the reading thread used per wait (CLOCK_THREAD_CPUTIME_ID, read just outside the wait)"},
	{Name: "vcsw", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the reading thread per wait (RUSAGE_THREAD)",
		Optional: "absent on macOS, whose getrusage counts only the whole process (it has no RUSAGE_THREAD)"},
	{Name: "ivcsw", Unit: probe.Count, Better: probe.Lower, Doc: "involuntary context switches of the reading thread per wait: the scheduler took its CPU away (another runnable thread, on two shared CPUs)",
		Optional: "absent on macOS, whose getrusage counts only the whole process (it has no RUSAGE_THREAD)"},
	{Name: "eagain", Unit: probe.Count, Doc: "reads that failed with EAGAIN per wait (0 when blocking)"},
	{Name: "delay_actual", Unit: probe.Seconds, Doc: "median time from the reader's start to the writer's write (asked: delay)"},
	{Name: "latency", Unit: probe.Seconds, Better: probe.Lower, Doc: "median time from the writer's stamp just before its write to the reader's return with the byte"},
	{Name: "write_cpu", Unit: probe.Seconds, Better: probe.Lower, Doc: "CPU time the writer thread used per write(2), mean over calls (CLOCK_THREAD_CPUTIME_ID just before its stamp and just after the write): in block mode the write wakes the sleeping reader, work on the writer's CPU that the reader's cpu does not count, so a break-even of spinning weighs cpu + write_cpu"},
	{Name: "pinned", Unit: probe.Count, Doc: "1 when the reader and the writer were pinned to two different CPUs, 0 when they ran unpinned (one CPU, or no sched_setaffinity)"},
}

const waitMethod = `Setup: socketpair(AF_UNIX, SOCK_STREAM, 0); in busy mode the read end is set O_NONBLOCK. A writer thread
(a goroutine locked to its own OS thread, timer slack set to 1 ns with prctl(PR_SET_TIMERSLACK) on Linux)
and the reader (the measuring thread) hand each call off through shared atomic words, spinning rather than
sleeping, so that no wake-up of the writer delays the data. With two or more CPUs the reader is pinned to
the first CPU it may run on and the writer to the second (sched_setaffinity; pinned = 1), so neither
waits behind the other for a CPU and neither migrates mid-call; otherwise both run unpinned (pinned = 0).
The writer announces it is ready for call i and spins; the reader, untimed, reads getrusage(RUSAGE_THREAD)
and CLOCK_THREAD_CPUTIME_ID (a system call), then stamps t0 (CLOCK_MONOTONIC through the vDSO, no system
call), publishes t0 and "go i", and waits for the byte: busy mode calls read(r, buf, 1) again and again
through the bare trap (Go's unix.RawSyscall(SYS_READ): a non-blocking read cannot sleep, so it needs none
of the runtime's syscall bookkeeping), counting EAGAINs, until it returns 1; block mode calls a blocking
read(r, buf, 1) once, through Go's unix.Read. Then it stamps the return (tr) and, after the stamp, reads
the thread CPU clock and RUSAGE_THREAD again. The writer, seeing "go i", waits until t0 + delay: it
nanosleeps until 200 µs before that deadline (when there is more than that to wait; select(2) on
macOS/FreeBSD) and spins on the clock for the rest, because nanosleep overshoots by tens of µs here (the
nanosleep is a raw system call, without entersyscall, so the thread keeps its P and never waits for one on
waking); then it stamps s (just before the write) and writes 1 byte. Per call: wall = tr − t0; cpu = the
thread CPU clock's growth, whose window encloses wall's (the CPU clock reads lie outside the timed window,
so a busy reader's cpu may exceed its wall by part of those two system calls, well under a µs each);
vcsw = growth of the reader's ru_nvcsw (ivcsw: ru_nivcsw, preemptions, which explain a busy reader's cpu
falling short of wall); eagain = failed reads; delay_actual = s − t0, the wait that really happened;
latency = tr − s; write_cpu = the writer thread's CPU clock growth over its write (read just before the
stamp s and just after the write), the CPU the wake-up of a blocked reader costs the waker. wall, cpu,
delay_actual and latency are medians over calls, write_cpu a mean; vcsw, ivcsw and eagain are
means per call. 10 untimed calls come first. In busy mode both threads spin at once, each on its own CPU;
in block mode the writer spins while the reader sleeps.
What Go adds: a blocking read passes through entersyscall/exitsyscall; the GC is off during the calls; and
both threads pass through the scheduler (runtime.Gosched) between calls at least every 4 ms, outside the
timed region, because sysmon preempts a goroutine that runs for 10 ms and a preempted locked goroutine parks
its thread (a voluntary switch C would not have). A blocking read releases the reader's P (entersyscall);
while the writer spins on the other P, sysmon hands the idle P to a spinning M, and a reader that returns
while that M holds it parks a second time to get a P back, so block-mode vcsw can exceed 1 where C would
show exactly 1. The runtime's sysmon thread wakes as often as every 20 µs while a P sits in a system call,
and a wake-up on the busy reader's CPU may preempt it (ivcsw), as may any other process's thread on the
same CPU. FreeBSD has RUSAGE_THREAD as Linux does; macOS has none (its getrusage counts the whole process), so
there vcsw and ivcsw are left out of the run.`

var busySpec = probe.Spec{
	Name: "nonblocking.busy_vs_block",
	Doc: `Waiting for data that arrives after delay, two ways: busy-polling a non-blocking read, or sleeping in a blocking
read. Both take about as long; the busy reader burns a CPU for the whole wait and never sleeps, the blocking
one sleeps once and uses almost no CPU.
` + waitMethod,
	Params:  waitParams("500us", "200"),
	Metrics: waitMetrics,
}

var breakevenSpec = probe.Spec{
	Name: "nonblocking.breakeven",
	Doc: `The measurement of nonblocking.busy_vs_block at short waits, to sweep delay from 1 µs to 1 ms and see below
which wait busy-polling returns sooner than a blocking read, whose wake-up costs tens of µs, and above which
the blocking read's small, fixed CPU cost beats the poller's CPU, which grows with the wait. At the shortest
delays the hand-off to the writer (a fraction of a µs) sets a floor: delay_actual says what the wait was.
` + waitMethod,
	Params:  waitParams("10us", "500"),
	Metrics: waitMetrics,
}

// handoff is shared by the reader and the writer thread. The reader's words
// and the writer's sit on separate cache lines.
type handoff struct {
	start  atomic.Int64 // the reader's t0 for the current call
	goSeq  atomic.Int64 // the call the reader has started (1-based)
	stop   atomic.Bool  // the reader is leaving: the writer must stop
	_      [64]byte
	ready  atomic.Int64 // the call the writer is waiting to start
	stamp  atomic.Int64 // the writer's clock just before its write
	failed atomic.Bool  // the writer has given up: err says why
	err    error        // written before failed is set
	// writeCPU sums the writer thread's CPU time over its timed calls'
	// write(2)s; read once the writer is done.
	writeCPU time.Duration
}

func runWait(ctx context.Context, p probe.Params) (probe.Values, error) {
	busy := p.String("mode") == "busy"
	delay, calls := p.Duration("delay"), p.Int("calls")
	if calls < 1 || calls > maxWaitCalls {
		return nil, fmt.Errorf("calls must be 1..%d, got %d", maxWaitCalls, calls)
	}
	if delay < 0 || delay > maxWaitDelay {
		return nil, fmt.Errorf("delay must be 0..%v, got %v", maxWaitDelay, delay)
	}
	if time.Duration(calls)*delay > maxWaitTotal {
		return nil, fmt.Errorf("calls × delay = %v, more than %v", time.Duration(calls)*delay, maxWaitTotal)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Reader on the first allowed CPU, writer on the second.
	cpus := kern.CPUs()
	pinned := len(cpus) >= 2
	writerCPU := -1
	if pinned {
		restore, err := kern.Pin(cpus[0])
		if err != nil {
			return nil, err
		}
		defer restore()
		writerCPU = cpus[1]
	}

	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	r, w := fds[0], fds[1]
	if busy {
		if err := unix.SetNonblock(r, true); err != nil {
			unix.Close(r)
			unix.Close(w)
			return nil, fmt.Errorf("set O_NONBLOCK: %w", err)
		}
	}
	total := int64(calls + waitWarmup)
	h := new(handoff)
	done := make(chan struct{})
	go h.writer(w, int64(delay), total, writerCPU, done)
	// Leaving for any reason: stop the writer, wait for it, then close.
	defer func() {
		h.stop.Store(true)
		<-done
		unix.Close(r)
		unix.Close(w)
	}()

	var (
		vcsw, ivcsw int64
		eagains     int64
		wall        = make([]float64, 0, calls)
		cpu         = make([]float64, 0, calls)
		slept       = make([]float64, 0, calls)
		lat         = make([]float64, 0, calls)
		buf         [1]byte
	)
	// Where the kernel counts no thread alone (macOS), the reader's
	// switches are not counted at all: vcsw and ivcsw are left out.
	_, perThread := kern.ThreadRusage()
	defer quietGC()()
	lastYield := kern.Now()
	for i := int64(1); i <= total; i++ {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if kern.Now()-lastYield > int64(yieldEvery) {
			runtime.Gosched()
			lastYield = kern.Now()
		}
		for spins, t := 0, kern.Now(); h.ready.Load() < i; spins++ {
			if h.failed.Load() {
				return nil, fmt.Errorf("writer failed: %w", h.err)
			}
			if spins&0xfff == 0xfff && kern.Now()-t > int64(stallLimit) {
				return nil, fmt.Errorf("waiting for the writer: %w", errStall)
			}
		}

		ru0, _ := kern.ThreadRusage()
		c0 := kern.ThreadCPU()
		t0 := kern.Now()
		h.start.Store(t0)
		h.goSeq.Store(i)
		var eag int64
		if busy {
			for {
				n, err := kern.RawRead(r, buf[:])
				if n == 1 {
					break
				}
				if err != unix.EAGAIN && h.failed.Load() {
					return nil, fmt.Errorf("writer failed: %w", h.err)
				}
				if err != unix.EAGAIN {
					return nil, fmt.Errorf("non-blocking read returned %d: %v", n, err)
				}
				eag++
				if eag&0xffff == 0 && h.failed.Load() {
					return nil, fmt.Errorf("writer failed: %w", h.err)
				}
			}
		} else if n, err := unix.Read(r, buf[:]); n != 1 {
			if h.failed.Load() {
				return nil, fmt.Errorf("writer failed: %w", h.err)
			}
			return nil, fmt.Errorf("blocking read returned %d: %v", n, err)
		}
		tr := kern.Now()
		c1 := kern.ThreadCPU()
		ru1, _ := kern.ThreadRusage()
		s := h.stamp.Load()
		if s < t0 || s > tr {
			return nil, fmt.Errorf("call %d: the writer's stamp lies outside the reader's wait", i)
		}
		if i <= waitWarmup {
			continue
		}
		wall = append(wall, float64(tr-t0)/1e9)
		cpu = append(cpu, float64(c1-c0)/1e9)
		vcsw += int64(ru1.Nvcsw - ru0.Nvcsw)
		ivcsw += int64(ru1.Nivcsw - ru0.Nivcsw)
		eagains += eag
		slept = append(slept, float64(s-t0)/1e9)
		lat = append(lat, float64(tr-s)/1e9)
	}
	<-done // the writer has counted its last write's CPU
	n := float64(calls)
	v := probe.Values{
		"write_cpu":    h.writeCPU.Seconds() / n,
		"wall":         median(wall),
		"cpu":          median(cpu),
		"eagain":       float64(eagains) / n,
		"delay_actual": median(slept),
		"latency":      median(lat),
		"pinned":       flag(pinned),
	}
	if perThread {
		v["vcsw"] = float64(vcsw) / n
		v["ivcsw"] = float64(ivcsw) / n
	}
	return v, nil
}

// writer runs on an OS thread of its own. It never unlocks the thread, whose
// timer slack it changed, so the runtime discards the thread at the end.
// With cpu >= 0 it pins itself to that CPU first.
func (h *handoff) writer(w int, delay, calls int64, cpu int, done chan<- struct{}) {
	runtime.LockOSThread()
	defer close(done)
	kern.SetTimerSlack()
	err := error(nil)
	if cpu >= 0 {
		_, err = kern.Pin(cpu) // never restored: the thread ends with the goroutine
	}
	if err == nil {
		err = h.writeLoop(w, delay, calls)
	}
	if err != nil {
		h.err = err
		h.failed.Store(true)
		// A blocking reader sees end-of-file instead of waiting forever.
		unix.Shutdown(w, unix.SHUT_WR)
	}
}

func (h *handoff) writeLoop(w int, delay, calls int64) error {
	one := [1]byte{'x'}
	lastYield := kern.Now()
	for i := int64(1); i <= calls; i++ {
		h.ready.Store(i)
		for spins, t := 0, kern.Now(); h.goSeq.Load() < i; spins++ {
			if h.stop.Load() {
				return nil
			}
			if spins&0xfff == 0xfff && kern.Now()-t > int64(stallLimit) {
				return fmt.Errorf("waiting for the reader: %w", errStall)
			}
		}
		sleepUntil(h.start.Load() + delay)
		c0 := kern.ThreadCPU()
		h.stamp.Store(kern.Now())
		if _, err := unix.Write(w, one[:]); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		if i > waitWarmup {
			h.writeCPU += kern.ThreadCPU() - c0
		}
		if kern.Now()-lastYield > int64(yieldEvery) {
			runtime.Gosched()
			lastYield = kern.Now()
		}
	}
	return nil
}

// sleepUntil waits until kern.Now() reaches deadline: in the kernel while more
// than spinTail remains, then spinning on the clock.
func sleepUntil(deadline int64) {
	for {
		rem := deadline - kern.Now()
		if rem <= int64(spinTail) {
			break
		}
		kern.SleepOnce(rem - int64(spinTail))
	}
	for kern.Now() < deadline {
	}
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
