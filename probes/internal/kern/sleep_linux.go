package kern

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetTimerSlack sets the calling thread's timer slack to 1 ns, the least
// Linux allows: by default a normal thread's sleeps may be stretched by up to
// 50 µs so the kernel can batch timer interrupts.
func SetTimerSlack() { unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) }

// SleepOnce sleeps for up to ns nanoseconds with nanosleep(2), called raw
// (no entersyscall): the thread keeps its P while it sleeps, as a C thread
// has nothing to give back, so on waking it need not wait for sysmon or
// another thread to hand a P back before it can go on. The P is unavailable
// to other goroutines meanwhile; the probes run none that matter.
func SleepOnce(ns int64) {
	ts := unix.NsecToTimespec(ns)
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}
