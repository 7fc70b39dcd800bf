//go:build !linux && !freebsd

package kern

import "golang.org/x/sys/unix"

// ThreadRusage has no per-thread answer here: macOS's getrusage counts
// only the whole process (it has no RUSAGE_THREAD), and Mach's per-thread
// thread_info reports CPU times, not context switches. It returns ok false,
// never the process's counts under a thread's name: a probe leaves its
// per-thread metrics out of the run (declared Optional, saying so) and
// keeps the process-wide ones, which ProcessRusage gives.
func ThreadRusage() (ru unix.Rusage, ok bool) { return ru, false }

// PerThread reports whether ThreadRusage counts one thread here.
const PerThread = false
