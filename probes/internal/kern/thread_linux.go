package kern

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadRusage returns the calling thread's rusage (RUSAGE_THREAD). The
// caller must have locked its goroutine to the thread.
func ThreadRusage() unix.Rusage {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_THREAD, &ru)
	return ru
}

// ThreadCPU is the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID).
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// PerThread reports whether ThreadRusage is truly per thread here.
const PerThread = true
