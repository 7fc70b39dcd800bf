// Package kern holds the small measuring tools every probe shares: the
// monotonic clock, per-thread and per-process rusage and CPU time, and
// raising RLIMIT_NOFILE. Per-thread counters answer "did this thread
// sleep?"; per-process ones include the Go runtime's own threads.
package kern

import (
	"embed"
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Source is this package's source, part of every probe's code hash.
//
//go:embed *.go
var Source embed.FS

// epoch anchors Now; it is set once when the process starts.
var epoch = time.Now()

// Now is a monotonic timestamp in nanoseconds, comparable across threads of
// one process. It reads Go's monotonic clock, which goes through the vDSO
// (tens of ns, no kernel entry); x/sys's ClockGettime is a real system call
// (hundreds of ns here) and would inflate every timed region it brackets.
func Now() int64 { return int64(time.Since(epoch)) }

// ProcessRusage returns the rusage of the whole process (every thread,
// including the Go runtime's).
func ProcessRusage() unix.Rusage {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return ru
}

// RaiseNoFile raises the soft RLIMIT_NOFILE to the hard limit when it is
// below want, and says clearly when the hard limit is too low.
func RaiseNoFile(want uint64) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("getrlimit(RLIMIT_NOFILE): %w", err)
	}
	if uint64(lim.Cur) >= want {
		return nil
	}
	if uint64(lim.Max) < want {
		return fmt.Errorf("need %d file descriptors but RLIMIT_NOFILE's hard limit is %d (raise it with ulimit -Hn as root)", want, lim.Max)
	}
	// Cur's type differs between kernels; raising it to the hard limit is
	// portable and leaves headroom for the runtime's own fds.
	lim.Cur = lim.Max
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_NOFILE, %d): %w", lim.Max, err)
	}
	return nil
}

// NoFile returns the soft and hard RLIMIT_NOFILE.
func NoFile() (cur, max uint64) {
	var lim unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
	return uint64(lim.Cur), uint64(lim.Max)
}

// Elapsed is the time between two Now stamps.
func Elapsed(from, to int64) time.Duration { return time.Duration(to - from) }

// Socketpair opens an AF_UNIX stream socketpair of blocking raw fds (never
// Go's netpoller) and returns its two ends and a function closing both.
func Socketpair() (r, w int, closeBoth func(), err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, -1, nil, fmt.Errorf("socketpair: %w", err)
	}
	return fds[0], fds[1], func() { unix.Close(fds[0]); unix.Close(fds[1]) }, nil
}

// RawRead is read(2) through unix.RawSyscall: the bare trap, without the
// runtime's entersyscall/exitsyscall, as a C program calls it. Only for a
// read that cannot block (the data is there, or the fd is O_NONBLOCK): a
// raw call that sleeps keeps its P, and other goroutines may starve.
// It returns the byte count, or -1 and the errno.
func RawRead(fd int, b []byte) (int, unix.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), 0
}

// Quantile is the q-quantile (0 ≤ q ≤ 1) of sorted xs, interpolated
// linearly between the two nearest order statistics: xs[h] + (h−⌊h⌋) ×
// (xs[⌊h⌋+1] − xs[⌊h⌋]) with h = q × (n−1) (R's and NumPy's default). The
// median is Quantile(xs, 0.5).
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	h := q * float64(len(xs)-1)
	i := int(h)
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-float64(i))*(xs[i+1]-xs[i])
}
