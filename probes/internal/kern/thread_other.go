//go:build !linux

package kern

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// ThreadRusage falls back to the process's rusage where the kernel has no
// RUSAGE_THREAD (macOS, FreeBSD's getrusage lacks it in x/sys); PerThread
// is false there so probes can say so.
func ThreadRusage() unix.Rusage { return ProcessRusage() }

// ThreadCPU is the calling thread's CPU time.
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// PerThread reports whether ThreadRusage is truly per thread here.
const PerThread = false

// CPUs returns nil: only Linux's sched_getaffinity is read.
func CPUs() []int { return nil }

// Pin fails: binding a thread to a CPU is done with Linux's
// sched_setaffinity only (macOS has no such call).
func Pin(cpu int) (restore func(), err error) {
	return nil, fmt.Errorf("pinning a thread to CPU %d: not supported on %s", cpu, runtime.GOOS)
}
