//go:build !linux

package kern

import "measuredbook/probe"

// RSS is the process's resident set size; only Linux's /proc is read.
func RSS() (int64, error) {
	return 0, probe.NotAvailable("the resident set size", "only Linux's /proc/self/statm is read")
}

// LiveThreads is the process's live thread count; only Linux's /proc is read.
func LiveThreads() (int, error) {
	return 0, probe.NotAvailable("the live thread count", "only Linux's /proc/self/status is read")
}
