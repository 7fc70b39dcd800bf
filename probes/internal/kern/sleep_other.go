//go:build !linux

package kern

import "golang.org/x/sys/unix"

// SetTimerSlack does nothing: timer slack is a Linux prctl.
func SetTimerSlack() {}

// SleepOnce sleeps for up to ns nanoseconds with select(2) and a timeout,
// since x/sys offers no nanosleep on every system (macOS has none).
func SleepOnce(ns int64) {
	tv := unix.NsecToTimeval(ns)
	unix.Select(0, nil, nil, nil, &tv)
}
