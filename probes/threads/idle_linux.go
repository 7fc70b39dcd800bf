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
	s, err := startSleepers(n, 20*time.Second)
	if err != nil {
		return nil, err
	}
	defer s.stop()
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
	for start, size := range maps1 {
		if _, ok := maps0[start]; !ok {
			osStacks += size
			newStacks++
		}
	}
	pthreads := 1.0
	if newStacks < int64(added)/2 {
		osStacks, pthreads = 0, 0 // a stray mapping or two, not one per thread
	}
	return probe.Values{
		"rss_added":      float64(rss1 - rss0),
		"rss_per_thread": float64(rss1-rss0) / float64(added),
		"stack_reserved": float64(stacks1-stacks0+osStacks) / float64(added),
		"threads":        float64(live),
		"pthreads":       pthreads,
	}, nil
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
