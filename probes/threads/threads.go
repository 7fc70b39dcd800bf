// Package threads measures what an OS thread costs while it does nothing:
// how many a process may have before the kernel refuses one more, how much
// resident memory a parked one holds, and how much slower two other threads
// hand a turn to each other while many sleep beside them (chapter 1, the
// thread-per-connection model).
//
// A parked thread here is a goroutine that called runtime.LockOSThread and
// then sleeps in futex(2) (FUTEX_WAIT_PRIVATE on a word of its own), which
// is what a C program's pthread_cond_wait or Java's LockSupport.park does
// underneath on Linux. Because the goroutine is locked and blocked in a
// syscall, its OS thread (M) stays asleep in the kernel and the runtime
// starts other Ms for everything else, so N parked goroutines are N parked
// kernel threads. The package calls no C, but it links runtime/cgo where
// cgo is enabled (cgo.go), so the runtime makes its threads with
// pthread_create and glibc's mmap'd stacks, as a C program does; without
// cgo (CGO_ENABLED=0), with clone(2) and stacks of its own.
// threads.idle_rss reports which (its pthreads metric).
//
// The thread ceiling cannot be measured in-process: a failed clone(2) in the
// Go runtime is fatal ("runtime: failed to create new OS thread"). The
// threads.ceiling probe therefore starts its own binary again as a
// grandchild, its helper (probe.HelperCommand), which enters through the
// runner's child entry point (runner.Child) like any run.
package threads

import (
	"embed"
	"io/fs"
	"time"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

//go:embed *.go
var source embed.FS

var sources = []fs.FS{source, kern.Source}

// ceilingEnv gives the ceiling helper its cap.
const ceilingEnv = "MBOOK_THREADS_CEILING_CHILD"

// Stop codes of threads.ceiling's stopped_by metric, in Labels order.
const (
	stopCap = iota
	stopThreadsMax
	stopNproc
	stopPidsMax
	stopPidMax
	stopGoMaxThreads
	stopMemory
	stopUnknown
	stopTimeLimit
)

var stopLabels = []string{"cap", "threads-max", "RLIMIT_NPROC", "pids.max", "pid_max", "go-max-threads", "memory", "unknown", "time-limit"}

// Probes lists this family's probes.
func Probes() []probe.Probe {
	return []probe.Probe{
		{Spec: ceilingSpec, Run: runCeiling, Helper: ceilingHelper, Sources: sources},
		{Spec: idleRSSSpec, Run: runIdleRSS, Sources: sources},
		{Spec: handoffSpec, Run: runHandoff, Sources: sources},
	}
}

var ceilingSpec = probe.Spec{
	Name: "threads.ceiling",
	Doc: `How many parked threads one process can create before thread creation fails, and which limit stopped it.
Method: the probe re-executes its own binary as a grandchild process (env MBOOK_PROBE_HELPER=threads.ceiling, MBOOK_THREADS_CEILING_CHILD=cap), because a
failed clone(2) inside the Go runtime is fatal and cannot be caught. The grandchild raises Go's own thread limit
(debug.SetMaxThreads(cap+164): the cap, 100 for the runtime, 64 for the spare Ms below) and starts cap goroutines;
each locks itself to an OS thread of its own, writes its ordinal as one line to stdout, and parks in
futex(FUTEX_WAIT_PRIVATE) on a word of its own. When all cap are there it prints its live thread count
(/proc/self/status) and exits. If clone(2) fails first, the runtime prints "runtime: failed to create new OS thread
(have N already; errno=E)" and dies (in a cgo binary, where threads are pthreads: "runtime/cgo: pthread_create
failed: <strerror>" and abort); the parent keeps the highest ordinal it read, takes errno from the head of the
grandchild's stderr, reads the grandchild's Threads from /proc/PID/status at that moment and kills it (rather
than let it print every goroutine's stack), and kills a grandchild still running after 20 s. The grandchild runs with GOMAXPROCS=64 so that each new goroutine finds an idle P at
once instead of waiting for sysmon to retake the P of a thread that has just parked (that wait makes 20,000
threads take several times longer); the few spare Ms this starts are in process_threads. With pids_limit > 0
the parent makes a pids cgroup (v1, or v2 with the pids controller) with that pids.max and the grandchild moves
itself into it before it creates any thread: the container case. In C this is a loop of pthread_create with a
thread that calls pthread_cond_wait, stopping at the first non-zero return; Go adds the runtime's own threads
(sysmon, idle Ms), a fatal error instead of an error return, and clone(2) without pthread's mmap'd stack.
Which limit stopped it: before starting the grandchild the parent reads threads-max (/proc/sys/kernel/threads-max),
pid_max (/proc/sys/kernel/pid_max), RLIMIT_NPROC, and the cgroup pids.max with the least headroom on the path from
its cgroup to the root (v1 and v2), with their current use: the system's threads (the fourth field of
/proc/loadavg), the user's tasks (Threads summed over /proc/*/status with this real uid) and the cgroup's
pids.current. At an EAGAIN it adds the grandchild's threads at the failure to each current use and names the limit with the least
headroom left, if that headroom is within ±max(64, 2% of the limit); otherwise "unknown". RLIMIT_NPROC is not
enforced for root or with CAP_SYS_RESOURCE/CAP_SYS_ADMIN, so it is no candidate then. Go's "thread exhaustion"
is go-max-threads; ENOMEM, Go's own out-of-memory or a SIGKILL from someone else (the OOM killer) is memory; a
grandchild killed at the time limit is time-limit (threads then holds how far it got).`,
	Params: []probe.Param{
		{Name: "cap", Kind: probe.Int, Max: 100_000, Default: "20000", Doc: "stop after this many parked threads (the book's loop runs to 20,000)"},
		{Name: "pids_limit", Kind: probe.Int, Default: "0", Doc: "if above 0, run the grandchild alone in a new pids cgroup with this pids.max, as a container would (needs root and a pids controller); 0 runs it in the probe's own cgroup"},
	},
	Metrics: []probe.Metric{
		{Name: "threads", Unit: probe.Count, Better: probe.Higher, Resolution: 1, Doc: "parked threads created before creation failed or the cap was reached"},
		{Name: "errno", Unit: probe.Count, Doc: "errno of the failed clone(2) or pthread_create (11 = EAGAIN, 12 = ENOMEM); 0 when none failed"},
		{Name: "stopped_by", Unit: probe.Count, Doc: "which limit stopped thread creation (a code, see labels)", Labels: stopLabels},
		{Name: "process_threads", Unit: probe.Count, Resolution: 1, Doc: "the grandchild's live threads when it stopped, the Go runtime's own included (its /proc/PID/status); 0 if it could not be read"},
		{Name: "threads_max", Unit: probe.Count, Doc: "/proc/sys/kernel/threads-max: threads the whole system may have"},
		{Name: "nproc", Unit: probe.Count, Doc: "RLIMIT_NPROC soft limit: tasks (threads) per user; -1 when unlimited"},
		{Name: "pids_max", Unit: probe.Count, Doc: "the cgroup pids.max with the least headroom on the way to the root (pids_limit when set); -1 for max or no pids controller"},
		{Name: "pid_max", Unit: probe.Count, Doc: "/proc/sys/kernel/pid_max: every thread takes a pid"},
		{Name: "go_max_threads", Unit: probe.Count, Doc: "the Go runtime's thread limit the grandchild ran with (debug.SetMaxThreads(cap+164))"},
	},
	Timeout: 40 * time.Second,
}

var idleRSSSpec = probe.Spec{
	Name: "threads.idle_rss",
	Doc: `Memory added by N parked OS threads, split into the thread's stack, the Go runtime's own per-thread memory,
and the kernel stack that RSS does not show.
Method: runtime.GC twice; read RSS (/proc/self/statm: resident pages × page size), the live thread count
(/proc/self/status Threads), the runtime's stack memory (runtime/metrics /memory/classes/heap/stacks +
/memory/classes/os-stacks), the thread-stack mappings of /proc/self/maps (an anonymous rw mapping right above
an anonymous inaccessible guard of at most 64 KiB: how glibc lays out a pthread stack) and KernelStack of
/proc/meminfo; start N goroutines that each lock to their own OS thread and sleep in futex(FUTEX_WAIT_PRIVATE)
on a word of their own; wait until the kernel shows all N asleep in futex on those words
(/proc/self/task/TID/syscall); read KernelStack again at once, then the rest; wake and end them. Per-thread
figures divide by the threads the process really gained (a sleeper may take over an idle M that already
existed). The probes link runtime/cgo where cgo is enabled, so the runtime makes its threads with pthread_create and glibc
mmaps each a stack of RLIMIT_STACK size (8 MiB by default; the JVM asks for 2 MiB) under a guard page
(pthreads = 1; about one new stack mapping per thread gained). Then: stack_rss = the resident bytes (Rss in
/proc/self/smaps) of the stack mappings that appeared, per thread: the pages of its pthread stack the thread
has touched, which is what the same C program (pthread_create N threads that pthread_cond_wait, compare
VmRSS) shows per thread; runtime_rss = rss_per_thread − stack_rss, the rest of what the process gained per
thread: the Go runtime's own memory for a thread (its M struct, a 32 KiB signal stack gsignal, and the locked
goroutine with its stack, 2 KiB to start, all in the Go heap), which a C program does not have.
kernel_stack = the growth of KernelStack per thread gained: the kernel stack every thread has (16 KiB on
x86-64, THREAD_SIZE, more with KASAN), kernel memory that no RSS counts. It is read system-wide, so another
process creating or ending threads between the two readings is noise (a few threads' worth, against N).
stack_reserved is address space set aside per thread, touched or not: the growth of the runtime's stack
memory plus the new stack mappings. In a binary without cgo the runtime makes its threads with clone(2) and a
16 KiB g0 stack from the Go heap (pthreads = 0): there is no stack mapping to read, so stack_rss and
runtime_rss are absent and rss_per_thread is all there is.`,
	Params: []probe.Param{
		{Name: "threads", Kind: probe.Int, Max: 20_000, Default: "2000", Doc: "parked threads to create (the book: 2,000)"},
	},
	Metrics: []probe.Metric{
		{Name: "rss_added", Unit: probe.Bytes, Better: probe.Lower, Doc: "RSS after minus RSS before"},
		{Name: "rss_per_thread", Unit: probe.Bytes, Better: probe.Lower, Doc: "rss_added / threads the process gained"},
		{Name: "stack_rss", Unit: probe.Bytes, Better: probe.Lower, Doc: "resident bytes of the new pthread stack mappings per thread (smaps Rss): the thread's own stack, what C shows",
			Optional: "absent in a binary without cgo: the Go runtime then makes threads with stacks from its own heap, with no mapping to read"},
		{Name: "runtime_rss", Unit: probe.Bytes, Better: probe.Lower, Doc: "rss_per_thread − stack_rss: the Go runtime's own resident memory per thread (M, signal stack, goroutine)",
			Optional: "absent in a binary without cgo: there is no stack mapping to separate it from"},
		{Name: "kernel_stack", Unit: probe.Bytes, Better: probe.Lower, Doc: "kernel stack memory per thread (growth of /proc/meminfo KernelStack), in no RSS"},
		{Name: "stack_reserved", Unit: probe.Bytes, Better: probe.Lower, Doc: "stack address space set aside per thread: the Go runtime's stack memory (g0, signal, goroutine stacks) plus, in a cgo binary, the pthread stack mapping"},
		{Name: "threads", Unit: probe.Count, Resolution: 1, Doc: "the process's live threads while the N were parked (/proc/self/status)"},
		{Name: "pthreads", Unit: probe.Count, Doc: "1 when the threads came with pthread stack mappings (the binary links runtime/cgo), 0 when the Go runtime made them with clone(2) and its own stacks"},
	},
	Timeout: 30 * time.Second,
}

var handoffSpec = probe.Spec{
	Name: "threads.handoff",
	Doc: `Time for one park→unpark hand-off between two threads while other threads sleep.
Method: optionally size the process's private futex hash (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS), param
futex_slots); park S sleeping threads (locked goroutines in futex(FUTEX_WAIT_PRIVATE) on words of their own,
verified asleep through /proc/self/task/TID/syscall, and verified again after the run). Start two goroutines
locked to their own threads, placed with sched_setaffinity by cpus: same (the default) pins both to CPU 0,
apart pins them to CPUs 0 and 1, any leaves them unpinned. They share a turn word; each, handoffs times: while
the turn is not its own, park (futex wait on its own permit word until a permit is there, then consume it);
then give the turn to the other and unpark it (set the other's permit, FUTEX_WAKE_PRIVATE 1). This is the
book's LockSupport.park/unpark loop written on the futex that park uses on Linux. After a warm-up of
min(handoffs/10, 1000) turns each, thread A reads CLOCK_MONOTONIC (through the vDSO) and both read
getrusage(RUSAGE_THREAD); after A's last turn A reads the clock again and both read rusage again.
handoff = elapsed / (2 × handoffs); vcsw and ivcsw = the two threads' voluntary and involuntary context
switches in that window / (2 × handoffs); futex_wait and futex_wake = their futex wait and wake calls in that
window / (2 × handoffs) (a wake on every hand-off, so futex_wake is 1; a wait only when the turn had not come
back yet). Why same is the default: on one CPU every hand-off is the same event, a context switch from the
giver to the thread it woke (vcsw + ivcsw about 1, the giver parks or is preempted by the woken thread), so
the figure is the kernel's wake-and-switch path and its growth with S is that of the futex hash walk. On two
CPUs (apart, or any when the scheduler happens to spread the pair) the giver often gets the turn back before
it parks and the woken thread is started on the other CPU (an inter-processor wake-up, on a virtual machine
a hypervisor exit), so the figure mixes two paths in proportions that change from run to run; with any on
two CPUs runs can disagree by several times, and vcsw, ivcsw and futex_wait show why (a run with few futex
waits per hand-off spun through most of them). GC is off during the run. In C the same loop calls
syscall(SYS_futex) directly; Go adds entersyscall/exitsyscall around each futex call (tens of ns) and, when
sysmon has retaken a sleeping thread's P, a P to find again on waking. Since Linux 6.16 a process's private
futexes hash into a table of its own, sized from the CPU count (16 slots on 2 CPUs), so the S sleepers share
hash chains with the two active words and every wait and wake walks them; futex_slots=4096 or 0 (the global
hash) tests that.`,
	Params: []probe.Param{
		{Name: "sleeping", Kind: probe.Int, Max: 20_000, Default: "0", Doc: "parked threads sleeping beside the pair (the book sweeps 0, 100, 1,000, 4,000)"},
		{Name: "handoffs", Kind: probe.Int, Sample: true, Max: 10_000_000, Default: "100000", Doc: "turns each of the two threads takes (2 × handoffs hand-offs in all)"},
		{Name: "futex_slots", Kind: probe.Int, Default: "-1", Doc: "the process's private futex hash size, set with prctl(PR_FUTEX_HASH) before the threads are made: -1 leaves the kernel's choice, 0 uses the global hash, a power of two sizes the private one (Linux 6.16+)"},
		{Name: "cpus", Kind: probe.String, Default: "same", Choices: []string{"same", "apart", "any"}, Doc: "where the pair runs: both pinned to CPU 0 (same, the default: one switch per hand-off), pinned to CPUs 0 and 1 (apart), or unpinned (any)"},
	},
	Metrics: []probe.Metric{
		{Name: "handoff", Unit: probe.Seconds, Better: probe.Lower, Doc: "time per hand-off (elapsed / (2 × handoffs))"},
		{Name: "threads", Unit: probe.Count, Resolution: 1, Doc: "the process's live threads just before the timed run (/proc/self/status)"},
		{Name: "vcsw", Unit: probe.Count, Doc: "voluntary context switches of the two threads per hand-off (RUSAGE_THREAD): a thread that parked and slept"},
		{Name: "ivcsw", Unit: probe.Count, Doc: "involuntary context switches of the two threads per hand-off: on one CPU the woken thread often preempts its waker before the waker parks"},
		{Name: "futex_wait", Unit: probe.Count, Doc: "futex wait calls of the two threads per hand-off: how often a thread found the turn not yet back and parked"},
		{Name: "futex_wake", Unit: probe.Count, Doc: "futex wake calls of the two threads per hand-off (one per unpark: 1)"},
		{Name: "futex_slots", Unit: probe.Count, Doc: "slots of the process's private futex hash during the run (prctl PR_FUTEX_HASH_GET_SLOTS); 0 = the global hash, -1 = not available"},
		{Name: "cpus", Unit: probe.Count, Doc: "CPUs the process may run on (runtime.NumCPU): with threads, what the kernel's default private futex hash is sized from (Linux 6.16's kernel/futex/core.c: 4 × min(threads, online CPUs) slots, rounded up to a power of two, at least 16)"},
	},
	Timeout: 60 * time.Second,
}
