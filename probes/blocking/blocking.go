// Package blocking holds the probes of chapter 5, "the whole journey of one
// read()": a blocking read(2) on an AF_UNIX stream socket when the data is
// already there (a plain system call, no sleep) and when it is not (the
// thread sleeps exactly once and is woken by a writer thread that lives for
// the whole run), and how long the wake-up takes from the writer's write to
// the reader's return.
//
// Every probe works on raw descriptors with golang.org/x/sys/unix, never on
// net.Conn or os.File, whose I/O goes through Go's netpoller and never
// blocks a thread. The measuring goroutine is locked to its OS thread, so
// RUSAGE_THREAD counts that thread's sleeps and nothing else.
package blocking

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"runtime/debug"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

//go:embed *.go
var source embed.FS

// Bounds on params, so that no combination can run away with the machine.
const (
	maxReads  = 1_000_000
	maxWarmup = 1_000_000
	// chunk is how many bytes are pre-filled and then read per timed
	// chunk. An AF_UNIX stream socket charges every write as an skb of its
	// own against the writer's SO_SNDBUF (212,992 bytes here), so 2,000
	// one-byte writes would block the writer after a few hundred; one
	// write of the chunk is a single skb. A chunk of 256 one-byte reads
	// also takes far less than the 10 ms after which Go's sysmon preempts
	// a running goroutine (which, for a locked goroutine, parks its
	// thread: a voluntary switch that C would not have).
	chunk = 256
)

// Probes lists this family's probes.
func Probes() []probe.Probe {
	srcs := []fs.FS{source, kern.Source}
	return []probe.Probe{
		{Spec: readySpec, Run: runReady, Sources: srcs},
		{Spec: emptySpec, Run: runEmpty, Sources: srcs},
		{Spec: wakeSpec, Run: runWake, Sources: srcs},
	}
}

var readySpec = probe.Spec{
	Name: "blocking.ready",
	Doc: `A blocking read(2) of 1 byte when the byte is already in the socket: a plain system call that never sleeps.
Setup: socketpair(AF_UNIX, SOCK_STREAM, 0), both ends blocking. Warm-up: warmup pairs of write(w, 1 byte) +
read(r, 1 byte). Then the reads are timed twice, reads each time: through the bare trap (Go's
unix.RawSyscall(SYS_READ), what a C program's read() does) and through Go's ordinary unix.Read, in
alternating chunks of up to 256 reads (raw then Go, Go then raw, and so on), so that neither path gets the
colder start. Per chunk, outside the timed region: one write of the chunk's bytes into w (one write, not
one per byte: Linux charges every write to an AF_UNIX stream as an skb of its own against SO_SNDBUF, so a
few hundred 1-byte writes would fill it and block the writer). Timed region: getrusage(RUSAGE_THREAD) and
getrusage(RUSAGE_SELF), the clock (CLOCK_MONOTONIC through the vDSO: no system call), then the chunk's
read(r, buf, 1) calls and nothing else, then the clock and both rusages again. Every read must return 1.
read = total time of the raw reads / reads; read_go = the same for the reads through unix.Read, so
read_go − read is what Go's syscall bookkeeping adds per call; vcsw_thread and vcsw_process = the growth
of ru_nvcsw (voluntary context switches: the thread gave up the CPU, i.e. slept) over all 2 × reads timed reads, per read.
What Go adds: unix.Read passes through the runtime's entersyscall/exitsyscall (the raw path does not, and
is safe here only because a read that finds its byte cannot block); the goroutine is locked to its OS
thread (runtime.LockOSThread) so RUSAGE_THREAD is the reading thread's; the GC runs before and is off during
the reads; and before each chunk the goroutine yields once (runtime.Gosched, outside the timed region) so that
sysmon's 10 ms preemption, which parks a locked goroutine's thread, cannot land inside a chunk.
vcsw_process also counts the Go runtime's own threads (sysmon, idle Ms). FreeBSD has RUSAGE_THREAD as Linux
does; macOS has none (its getrusage counts the whole process), so there vcsw_thread is left out of the run
and only vcsw_process is reported.`,
	Params: []probe.Param{
		{Name: "reads", Kind: probe.Int, Sample: true, Max: maxReads, Default: "2000", Doc: "timed 1-byte blocking reads per path (raw and through Go), all with data already waiting"},
		{Name: "warmup", Kind: probe.Int, Sample: true, Max: maxWarmup, Default: "500", Doc: "untimed write+read pairs before the timed reads"},
	},
	Metrics: []probe.Metric{
		{Name: "read", Unit: probe.Seconds, Better: probe.Lower, Doc: "time per read(2) that found its byte waiting, through the bare trap (RawSyscall): the kernel's price"},
		{Name: "read_go", Unit: probe.Seconds, Better: probe.Lower, Doc: "the same read through Go's unix.Read (with entersyscall/exitsyscall)"},
		{Name: "vcsw_thread", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the reading thread per read (RUSAGE_THREAD): 0 means it never slept",
			Optional: "absent on macOS, whose getrusage counts only the whole process (it has no RUSAGE_THREAD)"},
		{Name: "vcsw_process", Unit: probe.Count, Better: probe.Lower, Doc: "voluntary context switches of the whole process per read (RUSAGE_SELF), the Go runtime's threads included"},
	},
}

func runReady(ctx context.Context, p probe.Params) (probe.Values, error) {
	reads, warmup := p.Int("reads"), p.Int("warmup")
	if reads < 1 || reads > maxReads {
		return nil, fmt.Errorf("reads must be 1..%d, got %d", maxReads, reads)
	}
	if warmup < 0 || warmup > maxWarmup {
		return nil, fmt.Errorf("warmup must be 0..%d, got %d", maxWarmup, warmup)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	r, w, closeBoth, err := kern.Socketpair()
	if err != nil {
		return nil, err
	}
	defer closeBoth()

	var one [1]byte
	for i := 0; i < warmup; i++ {
		if err := writeAll(w, one[:]); err != nil {
			return nil, err
		}
		if n, err := unix.Read(r, one[:]); n != 1 {
			return nil, fmt.Errorf("warm-up read returned %d: %v", n, err)
		}
	}

	fill := make([]byte, chunk)
	defer quietGC()()

	// The same reads twice: through the bare trap (the figure a C program
	// gets) and through Go's ordinary path, so that what Go adds shows; in
	// alternating chunks, each path first in turn, so that neither gets
	// the colder start or a quieter stretch of the machine.
	var raw, viaGo readTimes
	for done, i := 0, 0; done < reads; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := min(chunk, reads-done)
		for j := range 2 {
			t := &raw
			if (i+j)%2 == 1 {
				t = &viaGo
			}
			if err := timeReads(r, w, fill[:k], t == &raw, t); err != nil {
				return nil, err
			}
		}
		done += k
	}
	n := float64(2 * reads)
	v := probe.Values{
		"read":         float64(raw.total) / 1e9 / float64(reads),
		"read_go":      float64(viaGo.total) / 1e9 / float64(reads),
		"vcsw_process": float64(raw.vp+viaGo.vp) / n,
	}
	if raw.perThread && viaGo.perThread {
		v["vcsw_thread"] = float64(raw.vt+viaGo.vt) / n
	}
	return v, nil
}

// readTimes is one timed series of ready reads: total ns, and the reading
// thread's and the process's voluntary switches over the timed chunks;
// perThread is false where the kernel counts no thread alone (macOS), and
// vt then means nothing.
type readTimes struct {
	total, vt, vp int64
	perThread     bool
}

// timeReads times len(fill) 1-byte reads of r, each finding its byte
// waiting (written through w before the clock starts), and adds them to t.
// raw reads through kern.RawRead (no entersyscall), otherwise through
// unix.Read.
func timeReads(r, w int, fill []byte, raw bool, t *readTimes) error {
	var one [1]byte
	// Reset sysmon's preemption clock, then pre-fill: both untimed.
	runtime.Gosched()
	if err := writeAll(w, fill); err != nil {
		return err
	}
	k, bad := len(fill), 0
	rp0 := kern.ProcessRusage()
	rt0, perThread := kern.ThreadRusage()
	t0 := kern.Now()
	if raw {
		for j := 0; j < k; j++ {
			if n, _ := kern.RawRead(r, one[:]); n != 1 {
				bad++
			}
		}
	} else {
		for j := 0; j < k; j++ {
			if n, _ := unix.Read(r, one[:]); n != 1 {
				bad++
			}
		}
	}
	t1 := kern.Now()
	rt1, _ := kern.ThreadRusage()
	rp1 := kern.ProcessRusage()
	if bad > 0 {
		return fmt.Errorf("%d of %d reads did not return 1 byte", bad, k)
	}
	t.total += t1 - t0
	t.perThread = perThread
	t.vt += int64(rt1.Nvcsw - rt0.Nvcsw)
	t.vp += int64(rp1.Nvcsw - rp0.Nvcsw)
	return nil
}

// writeAll writes b to the blocking fd w, however many writes it takes.
func writeAll(w int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(w, b)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return fmt.Errorf("write: %w", err)
		}
		b = b[n:]
	}
	return nil
}

// quietGC collects garbage now and turns the collector off until the
// returned function restores it: the timed regions allocate nothing, and a
// run is its own process, but tests call Run in-process.
func quietGC() (restore func()) {
	runtime.GC()
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}
