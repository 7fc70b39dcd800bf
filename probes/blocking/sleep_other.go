//go:build !linux

package blocking

import "golang.org/x/sys/unix"

// setTimerSlack does nothing: timer slack is a Linux prctl.
func setTimerSlack() {}

// sleepOnce sleeps for up to ns nanoseconds with select(2) and a timeout,
// since x/sys offers no nanosleep on every system (macOS has none).
func sleepOnce(ns int64) {
	tv := unix.NsecToTimeval(ns)
	unix.Select(0, nil, nil, nil, &tv)
}
