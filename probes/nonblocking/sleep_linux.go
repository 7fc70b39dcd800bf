package nonblocking

import "golang.org/x/sys/unix"

// setTimerSlack sets the calling thread's timer slack to 1 ns, the least
// Linux allows: by default a normal thread's sleeps may be stretched by up to
// 50 µs so the kernel can batch timer interrupts.
func setTimerSlack() { unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) }

// sleepOnce sleeps for up to ns nanoseconds with nanosleep(2).
func sleepOnce(ns int64) {
	ts := unix.NsecToTimespec(ns)
	unix.Nanosleep(&ts, nil)
}
