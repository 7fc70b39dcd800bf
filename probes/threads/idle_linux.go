package threads

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

func runIdleRSS(ctx context.Context, p probe.Params) (probe.Values, error) {
	n := p.Int("threads")
	if n < 1 || n > 20000 {
		return nil, fmt.Errorf("threads %d: want 1..20000", n)
	}
	runtime.GC()
	runtime.GC()
	maps0, err := threadStacks()
	if err != nil {
		return nil, err
	}
	stacks0 := stackBytes()
	rss0, err := kern.RSS()
	if err != nil {
		return nil, err
	}
	live0, err := kern.LiveThreads()
	if err != nil {
		return nil, err
	}
	ks0, err := kernelStack()
	if err != nil {
		return nil, err
	}
	s, err := startSleepers(n, 20*time.Second)
	if err != nil {
		return nil, err
	}
	defer s.release(ctx)
	ks1, err := kernelStack()
	if err != nil {
		return nil, err
	}
	rss1, err := kern.RSS()
	if err != nil {
		return nil, err
	}
	stacks1 := stackBytes()
	maps1, err := threadStacks()
	if err != nil {
		return nil, err
	}
	live, err := kern.LiveThreads()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Per thread the process really gained: a sleeper may take over an
	// idle M that existed before (its memory already counted), and the
	// runtime may start a spare M or two.
	added := live - live0
	if added < n/2 {
		return nil, fmt.Errorf("%d parked threads asked for but only %d threads more are alive", n, added)
	}
	// In a cgo binary the runtime makes its threads with pthread_create,
	// and each has a stack mapping of its own (RLIMIT_STACK by default).
	var osStacks, newStacks int64
	fresh := map[uint64]bool{}
	for start, size := range maps1 {
		if _, ok := maps0[start]; !ok {
			osStacks += size
			newStacks++
			fresh[start] = true
		}
	}
	perThread := func(x int64) float64 { return float64(x) / float64(added) }
	v := probe.Values{
		"rss_added":      float64(rss1 - rss0),
		"rss_per_thread": perThread(rss1 - rss0),
		"threads":        float64(live),
		"pthreads":       1,
		"kernel_stack":   perThread(ks1 - ks0),
	}
	if newStacks < int64(added)/2 {
		// A stray mapping or two, not one per thread: the runtime made
		// its threads with clone(2) and stacks from its own heap.
		v["pthreads"] = 0
		v["stack_reserved"] = perThread(stacks1 - stacks0)
		return v, nil
	}
	stackRSS, err := smapsRSS(fresh)
	if err != nil {
		return nil, err
	}
	v["stack_reserved"] = perThread(stacks1 - stacks0 + osStacks)
	v["stack_rss"] = perThread(stackRSS)
	v["runtime_rss"] = perThread(rss1 - rss0 - stackRSS)
	return v, nil
}

// kernelStack is the memory of every kernel stack in the system, the
// KernelStack line of /proc/meminfo, in bytes. Each thread has one (16 KiB
// on x86-64, more with KASAN), allocated by the kernel and in no process's
// RSS; the figure is system-wide, so other processes' thread churn is noise
// in a difference of two readings.
func kernelStack() (int64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "KernelStack:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb << 10, nil
				}
			}
			break
		}
	}
	return 0, fmt.Errorf("/proc/meminfo: no KernelStack line in kB")
}

// smapsRSS sums the resident bytes (Rss) of the mappings of /proc/self/smaps
// that start at one of starts.
func smapsRSS(starts map[uint64]bool) (int64, error) {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	var total int64
	in := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Rss:"); ok {
			if in {
				f := strings.Fields(rest)
				if len(f) != 2 || f[1] != "kB" {
					return 0, fmt.Errorf("/proc/self/smaps: unexpected %q", line)
				}
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err != nil {
					return 0, fmt.Errorf("/proc/self/smaps: %v", err)
				}
				total += kb << 10
			}
			continue
		}
		// A mapping's header: "start-end perms offset dev inode [path]".
		if lo, _, ok := strings.Cut(line, "-"); ok && !strings.Contains(lo, ":") && !strings.Contains(lo, " ") {
			start, err := strconv.ParseUint(lo, 16, 64)
			in = err == nil && starts[start]
		}
	}
	return total, nil
}

// stackBytes is the runtime's stack memory: goroutine stacks and, without
// cgo, every M's g0 and signal stack (heap/stacks), plus stacks the OS
// allocated for threads (os-stacks, non-zero only with cgo).
func stackBytes() int64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/stacks:bytes"},
		{Name: "/memory/classes/os-stacks:bytes"},
	}
	metrics.Read(s)
	var n int64
	for _, v := range s {
		if v.Value.Kind() == metrics.KindUint64 {
			n += int64(v.Value.Uint64())
		}
	}
	return n
}

// threadStacks finds the mappings in /proc/self/maps that look like pthread
// stacks: an anonymous read-write mapping right above an anonymous
// inaccessible guard of at most 64 KiB. It returns start → size, guard
// included. A Go binary without cgo has none: its thread stacks live in
// the Go heap and are counted by stackBytes.
func threadStacks() (map[uint64]int64, error) {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil, err
	}
	stacks := map[uint64]int64{}
	var prevStart, prevEnd uint64
	prevGuard := false
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		anon := f[4] == "0" && len(f) == 5
		if anon && f[1] == "rw-p" && prevGuard && prevEnd == start {
			stacks[start] = int64(end - start + prevEnd - prevStart)
		}
		prevStart, prevEnd = start, end
		prevGuard = anon && f[1] == "---p" && end-start <= 64<<10
	}
	return stacks, nil
}
