package threads

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
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
	return probe.Values{
		"rss_added":      float64(rss1 - rss0),
		"rss_per_thread": float64(rss1-rss0) / float64(added),
		"stack_reserved": float64(stacks1-stacks0) / float64(added),
		"threads":        float64(live),
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
