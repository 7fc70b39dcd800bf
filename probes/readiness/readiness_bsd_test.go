//go:build darwin || freebsd

package readiness

import "measuredbook/probe"

// wantNativeRegular is what kqueue does with a regular file: it registers
// EVFILT_READ on it and reports it readable at once (data past the file
// offset), unlike epoll, which refuses it.
var wantNativeRegular = probe.Values{"accepted": 1, "errno": 0, "ready": 1}
