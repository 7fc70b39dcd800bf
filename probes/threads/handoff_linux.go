package threads

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

// handoffBudget bounds the timed run; a run over it fails and says so
// rather than report fewer hand-offs than asked.
var handoffBudget = 20 * time.Second

// sleeperProcs is GOMAXPROCS while runHandoff starts its sleepers.
const sleeperProcs = 32

// pingPong is the state two hand-off threads share. Each field sits on its
// own cache line so that a permit store does not bounce the turn word.
type pingPong struct {
	turn   atomic.Uint32 // 0: A's turn, 1: B's
	_      [60]byte
	permit [2]struct {
		w uint32 // 1: an unpark is pending
		_ [60]byte
	}
	start chan struct{}
	// limit is the number of turns each thread takes, warm-up included.
	// Thread A lowers it to end a run that is over budget: at the top of
	// its turn i it sets i+1, so both threads stop after turn i (B cannot
	// start turn i+1 without A's hand-off, and reads the new limit first).
	limit    atomic.Int64
	abort    atomic.Bool
	deadline int64  // kern.Now() value after which A aborts
	turns    [2]int // turns each thread completed in the timed window
	ready    sync.WaitGroup
	done     sync.WaitGroup
	warm     int
	n        int
	// results, written by the two threads before done.Done
	t0, t1 int64
	vcsw   [2]int64
	ivcsw  [2]int64
	waits  [2]int64 // futex wait calls in the timed window
	wakes  [2]int64 // futex wake calls in the timed window
	err    [2]error
}

// park sleeps until a permit is there and consumes it (LockSupport.park),
// counting its futex wait calls in *waits.
func (pp *pingPong) park(me int, waits *int64) {
	w := &pp.permit[me].w
	for atomic.SwapUint32(w, 0) == 0 {
		futexWaitPrivate(w, 0)
		*waits++
	}
}

// unpark gives the other thread a permit and wakes it (LockSupport.unpark).
func (pp *pingPong) unpark(other int) {
	w := &pp.permit[other].w
	atomic.StoreUint32(w, 1)
	futexWakePrivate(w, 1)
}

// side is one of the two threads. It stays locked to its thread and so ends
// it on return: a thread pinned by sched_setaffinity never returns to the
// runtime's pool.
func (pp *pingPong) side(me, cpu int) {
	defer pp.done.Done()
	runtime.LockOSThread()
	if cpu >= 0 {
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			pp.err[me] = fmt.Errorf("sched_setaffinity(CPU %d): %w", cpu, err)
		}
	}
	pp.ready.Done()
	<-pp.start
	if pp.err[0] != nil || pp.err[1] != nil {
		return
	}
	var ru0 unix.Rusage
	var waits, waits0, wakes, wakes0 int64
	other := uint32(1 - me)
	i := 0
	for ; int64(i) < pp.limit.Load(); i++ {
		if i == pp.warm {
			waits0, wakes0 = waits, wakes
			ru0, _ = kern.ThreadRusage() // Linux: always per thread
			if me == 0 {
				pp.t0 = kern.Now()
			}
		}
		if me == 0 && i&1023 == 0 && kern.Now() > pp.deadline {
			pp.abort.Store(true)
			pp.limit.Store(int64(i + 1))
		}
		for pp.turn.Load() != uint32(me) {
			pp.park(me, &waits)
		}
		pp.turn.Store(other)
		pp.unpark(int(other))
		wakes++
	}
	pp.turns[me] = i - pp.warm
	if me == 0 {
		pp.t1 = kern.Now()
	}
	ru1, _ := kern.ThreadRusage()
	pp.vcsw[me] = ru1.Nvcsw - ru0.Nvcsw
	pp.ivcsw[me] = ru1.Nivcsw - ru0.Nivcsw
	pp.waits[me] = waits - waits0
	pp.wakes[me] = wakes - wakes0
}

func runHandoff(ctx context.Context, p probe.Params) (probe.Values, error) {
	sleeping, n := p.Int("sleeping"), p.Int("handoffs")
	if sleeping < 0 || sleeping > 20000 {
		return nil, fmt.Errorf("sleeping %d: want 0..20000", sleeping)
	}
	if n < 1 || n > 10_000_000 {
		return nil, fmt.Errorf("handoffs %d: want 1..10000000", n)
	}
	cpus := [2]int{-1, -1}
	switch p.String("cpus") {
	case "same":
		cpus = [2]int{0, 0}
	case "apart":
		if runtime.NumCPU() < 2 {
			return nil, fmt.Errorf("cpus=apart needs 2 CPUs, this machine has %d", runtime.NumCPU())
		}
		cpus = [2]int{0, 1}
	}
	slots := p.Int("futex_slots")
	if slots < -1 {
		return nil, fmt.Errorf("futex_slots %d: want -1 (kernel's choice), 0 (global hash) or a power of two", slots)
	}
	if slots >= 0 {
		prev := futexSlots()
		if prev < 0 {
			return nil, fmt.Errorf("futex_slots=%d: this kernel has no per-process futex hash (prctl PR_FUTEX_HASH, Linux 6.16+)", slots)
		}
		if err := setFutexSlots(slots); err != nil {
			return nil, err
		}
		if prev > 0 {
			defer setFutexSlots(prev)
		}
	}
	var s *sleepers
	if sleeping > 0 {
		// A sleeper keeps its P while it enters futex(2), until sysmon
		// takes the P back, so with 2 Ps they start about one sysmon tick
		// apart (0.6 s for 4,000 on a 2-core Xeon guest; 0.2 s with 32
		// Ps). The count is back before the timed run; the few Ms the
		// extra Ps started stay idle and are counted in threads.
		procs := runtime.GOMAXPROCS(max(sleeperProcs, runtime.GOMAXPROCS(0)))
		var err error
		s, err = startSleepers(sleeping, 20*time.Second)
		runtime.GOMAXPROCS(procs)
		if err != nil {
			return nil, err
		}
		defer s.release(ctx)
	}
	pp := &pingPong{start: make(chan struct{}), warm: min(max(n/10, 1), 1000), n: n}
	pp.ready.Add(2)
	pp.done.Add(2)
	go pp.side(0, cpus[0])
	go pp.side(1, cpus[1])
	pp.ready.Wait()
	inEffect := futexSlots()
	live, err := kern.LiveThreads()
	if err != nil {
		close(pp.start)
		pp.done.Wait()
		return nil, err
	}
	runtime.GC()
	gc := debug.SetGCPercent(-1)
	pp.deadline = kern.Now() + int64(handoffBudget)
	pp.limit.Store(int64(pp.warm + pp.n))
	close(pp.start)
	pp.done.Wait()
	debug.SetGCPercent(gc)
	for _, err := range pp.err {
		if err != nil {
			return nil, err
		}
	}
	if pp.abort.Load() {
		done := pp.turns[0]
		if done <= 0 {
			return nil, fmt.Errorf("the %d warm-up turns alone took over %v: too slow here (a busy machine, or pinned threads waiting for their CPU)", pp.warm, handoffBudget)
		}
		return nil, fmt.Errorf("only %d of %d turns each in %v (%.3g µs per hand-off): too slow here for these params (a busy machine, or pinned threads waiting for their CPU); use fewer handoffs",
			done, n, handoffBudget, time.Duration(pp.t1-pp.t0).Seconds()/float64(2*done)*1e6)
	}
	if s != nil {
		// The sleepers must still be asleep, or the run measured fewer.
		if parked, err := s.parked(); err != nil || parked != sleeping {
			return nil, fmt.Errorf("after the run %d of %d sleeping threads were still parked (%v)", parked, sleeping, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := float64(2 * n)
	return probe.Values{
		"handoff":     time.Duration(pp.t1-pp.t0).Seconds() / total,
		"threads":     float64(live),
		"vcsw":        float64(pp.vcsw[0]+pp.vcsw[1]) / total,
		"ivcsw":       float64(pp.ivcsw[0]+pp.ivcsw[1]) / total,
		"futex_slots": float64(inEffect),
		"cpus":        float64(runtime.NumCPU()),
		"futex_wait":  float64(pp.waits[0]+pp.waits[1]) / total,
		"futex_wake":  float64(pp.wakes[0]+pp.wakes[1]) / total,
	}, nil
}

// futexSlots is the size of the process's private futex hash
// (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS), Linux 6.16+): 0 when the
// process uses the global hash, -1 when the kernel has no such prctl.
func futexSlots() int {
	r, _, e := unix.Syscall6(unix.SYS_PRCTL, unix.PR_FUTEX_HASH, unix.PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0, 0)
	if e != 0 {
		return -1
	}
	return int(r)
}

// setFutexSlots resizes the private futex hash (0: use the global hash).
func setFutexSlots(n int) error {
	if _, _, e := unix.Syscall6(unix.SYS_PRCTL, unix.PR_FUTEX_HASH, unix.PR_FUTEX_HASH_SET_SLOTS, uintptr(n), 0, 0, 0); e != 0 {
		return fmt.Errorf("prctl(PR_FUTEX_HASH_SET_SLOTS, %d): %w", n, e)
	}
	return nil
}
