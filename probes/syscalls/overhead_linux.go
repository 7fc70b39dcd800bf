package syscalls

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

const warmup = 1000

func runOverhead(ctx context.Context, p probe.Params) (probe.Values, error) {
	calls := p.Int("calls")
	if calls < 1 || calls > maxCalls {
		return nil, fmt.Errorf("calls must be 1..%d, got %d", maxCalls, calls)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	r := fds[0]
	if err := unix.SetNonblock(r, true); err != nil {
		return nil, fmt.Errorf("set O_NONBLOCK: %w", err)
	}
	pid := uintptr(unix.Getpid())

	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	// Each loop checks its results after the clock has stopped, so that
	// nothing can be optimised away and nothing wrong goes unnoticed.
	var bad int
	timeLoop := func(body func(n int)) float64 {
		body(warmup)
		t0 := kern.Now()
		body(calls)
		t1 := kern.Now()
		return float64(t1-t0) / 1e9 / float64(calls)
	}
	v := probe.Values{}
	v["syscall"] = timeLoop(func(n int) {
		for i := 0; i < n; i++ {
			if got, _, _ := unix.Syscall(unix.SYS_GETPID, 0, 0, 0); got != pid {
				bad++
			}
		}
	})
	v["rawsyscall"] = timeLoop(func(n int) {
		for i := 0; i < n; i++ {
			if got, _, _ := unix.RawSyscall(unix.SYS_GETPID, 0, 0, 0); got != pid {
				bad++
			}
		}
	})
	base := time.Now()
	var last time.Duration
	v["vdso"] = timeLoop(func(n int) {
		for i := 0; i < n; i++ {
			d := time.Since(base)
			if d < last {
				bad++
			}
			last = d
		}
	})
	// The real system call through the bare trap, as the vDSO call has
	// none of Go's syscall bookkeeping either: clock_syscall − vdso is the
	// kernel entry alone.
	var ts unix.Timespec
	v["clock_syscall"] = timeLoop(func(n int) {
		for i := 0; i < n; i++ {
			if _, _, e := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
				bad++
			}
		}
	})
	var buf [1]byte
	v["read_eagain"] = timeLoop(func(n int) {
		for i := 0; i < n; i++ {
			if _, e := kern.RawRead(r, buf[:]); e != unix.EAGAIN {
				bad++
			}
		}
	})
	v["read_eagain_go"] = timeLoop(func(n int) {
		for i := 0; i < n; i++ {
			if _, err := unix.Read(r, buf[:]); err != unix.EAGAIN {
				bad++
			}
		}
	})
	if bad > 0 {
		return nil, fmt.Errorf("%d calls returned something unexpected (wrong pid, clock going backwards, read not failing with EAGAIN)", bad)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return v, nil
}
