package kern

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPU is the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID).
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// CPUs returns the CPUs the calling thread may run on, lowest first.
func CPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// Pin binds the calling thread to one CPU (sched_setaffinity) and returns a
// function that restores the thread's previous CPU set. The caller must have
// locked its goroutine to the thread, and must restore before unlocking it
// (or never unlock, so the runtime ends the thread).
func Pin(cpu int) (restore func(), err error) {
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("sched_setaffinity(CPU %d): %w", cpu, err)
	}
	return func() { unix.SchedSetaffinity(0, &old) }, nil
}
