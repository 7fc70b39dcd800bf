// Package syscalls measures what entering the kernel costs on this machine,
// so the book can say how much of every syscall-bound figure is the price of
// a kernel entry here: getpid(2) through Go's two syscall paths, a vDSO
// clock read that never enters the kernel, a real clock_gettime(2), and the
// non-blocking read of chapter 6 for comparison.
package syscalls

import (
	"embed"
	"io/fs"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

//go:embed *.go
var source embed.FS

const maxCalls = 50_000_000

// Probes lists this family's probes.
func Probes() []probe.Probe {
	return []probe.Probe{
		{Spec: overheadSpec, Run: runOverhead, Sources: []fs.FS{source, kern.Source}},
	}
}

var overheadSpec = probe.Spec{
	Name: "syscall.overhead",
	Doc: `The price of a trivial system call, and of not making one.
Each figure is a loop of calls calls, after 1,000 untimed ones, timed as a whole with CLOCK_MONOTONIC read
through the vDSO (no system call) and divided by calls; the goroutine is locked to its OS thread and the GC
is off.
syscall: getpid through unix.Syscall(SYS_GETPID): Go's ordinary path, which wraps the trap in the runtime's
entersyscall/exitsyscall (the goroutine's P is marked as in a syscall so that sysmon may hand it to another
thread if the call blocks, and taken back on return). rawsyscall: getpid through unix.RawSyscall, the bare
trap without that bookkeeping: the C figure, and syscall − rawsyscall is what Go adds. (glibc's getpid() is
also a real trap; it stopped caching the pid in 2.25.) vdso: clock_gettime(CLOCK_MONOTONIC) through the vDSO
(Go's time.Since on a monotonic time, via runtime.nanotime): a function in a page the kernel maps into every
process that reads the clock without entering the kernel, as C's clock_gettime does when the clocksource
allows it (tsc or kvm-clock do; it falls back to a real syscall otherwise). clock_syscall: the same clock
read by a real clock_gettime system call through the bare trap (unix.RawSyscall(SYS_CLOCK_GETTIME)), so
that, like the vDSO call, it carries none of Go's syscall bookkeeping and clock_syscall − vdso is the
kernel entry alone (the probes' own stamps use the vDSO). read_eagain: read(r, buf, 1) on an empty AF_UNIX socket with O_NONBLOCK, which fails with
EAGAIN, through unix.RawSyscall(SYS_READ): the bare trap, as C calls it (a read that cannot block needs
none of the runtime's bookkeeping); read_eagain_go: the same read through Go's unix.Read, so
read_eagain_go − read_eagain is what Go adds to it. The work of nonblocking.eagain, here beside getpid.
The machines this book is built on are paravirtualised guests (KVM under Firecracker), where a kernel entry
costs more than on bare metal: the guest kernel's entry and exit carry the speculation mitigations its CPU
needs (retpolines, return-stack filling and the like, listed in /sys/devices/system/cpu/vulnerabilities),
and the guest shares its physical CPU with the host. Every syscall-bound figure of the book carries that
price; rawsyscall is its size here ("the price of a system call" where the book needs one), vdso what a
call costs that avoids the kernel.
Linux only: elsewhere the probe's result is "not available" (on macOS Go's raw getpid path goes through
libc, so there is no bare trap to time).`,
	Params: []probe.Param{
		{Name: "calls", Kind: probe.Int, Sample: true, Max: maxCalls, Default: "200000", Doc: "timed calls of each kind"},
	},
	Metrics: []probe.Metric{
		{Name: "syscall", Unit: probe.Seconds, Better: probe.Lower, Doc: "getpid through unix.Syscall (with entersyscall/exitsyscall)"},
		{Name: "rawsyscall", Unit: probe.Seconds, Better: probe.Lower, Doc: "getpid through unix.RawSyscall (the bare trap): the price of a system call here"},
		{Name: "vdso", Unit: probe.Seconds, Better: probe.Lower, Doc: "clock_gettime(CLOCK_MONOTONIC) through the vDSO, no kernel entry"},
		{Name: "clock_syscall", Unit: probe.Seconds, Better: probe.Lower, Doc: "clock_gettime(CLOCK_MONOTONIC) as a real system call through the bare trap (unix.RawSyscall), like with like beside vdso"},
		{Name: "read_eagain", Unit: probe.Seconds, Better: probe.Lower, Doc: "non-blocking read on an empty socketpair, failing with EAGAIN, through the bare trap (RawSyscall)"},
		{Name: "read_eagain_go", Unit: probe.Seconds, Better: probe.Lower, Doc: "the same read through Go's unix.Read (with entersyscall/exitsyscall)"},
	},
}
