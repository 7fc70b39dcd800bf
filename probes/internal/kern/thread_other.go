//go:build !linux

package kern

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
)

// ThreadCPU is the calling thread's CPU time.
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// CPUs returns nil: only Linux's sched_getaffinity is read.
func CPUs() []int { return nil }

// Pin fails: binding a thread to a CPU is done with Linux's
// sched_setaffinity only (macOS has no such call).
func Pin(cpu int) (restore func(), err error) {
	return nil, probe.NotAvailable(fmt.Sprintf("pinning a thread to CPU %d", cpu), "only Linux's sched_setaffinity is used")
}
