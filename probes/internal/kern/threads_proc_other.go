//go:build !linux

package kern

import (
	"fmt"
	"runtime"
)

// RSS is the process's resident set size; only Linux's /proc is read.
func RSS() (int64, error) {
	return 0, fmt.Errorf("resident set size: not supported on %s (reads /proc/self/statm)", runtime.GOOS)
}

// LiveThreads is the process's live thread count; only Linux's /proc is read.
func LiveThreads() (int, error) {
	return 0, fmt.Errorf("live thread count: not supported on %s (reads /proc/self/status)", runtime.GOOS)
}
