//go:build linux || freebsd

package kern

import "golang.org/x/sys/unix"

// ThreadRusage returns the calling thread's rusage: getrusage(RUSAGE_THREAD),
// which Linux and FreeBSD both have (RUSAGE_THREAD is 1 on both). The
// caller must have locked its goroutine to the thread. ok is always true
// here; see the macOS twin.
func ThreadRusage() (ru unix.Rusage, ok bool) {
	unix.Getrusage(unix.RUSAGE_THREAD, &ru)
	return ru, true
}

// PerThread reports whether ThreadRusage counts one thread here.
const PerThread = true
