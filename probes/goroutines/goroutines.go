// Package goroutines measures the goroutine side of chapter 1's
// comparison: what a goroutine parked on a channel costs in resident
// memory, and how long two goroutines take to hand a turn to each other
// while many others sit parked. A parked goroutine is not a kernel thread:
// the runtime keeps it as a small struct and a stack, and a channel
// hand-off between goroutines on one P is a switch inside the runtime that
// the kernel never sees.
package goroutines

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

//go:embed *.go
var source embed.FS

var sources = []fs.FS{source, kern.Source}

// Probes lists this family's probes.
func Probes() []probe.Probe {
	return []probe.Probe{
		{Spec: idleRSSSpec, Run: runIdleRSS, Sources: sources},
		{Spec: handoffSpec, Run: runHandoff, Sources: sources},
	}
}

var idleRSSSpec = probe.Spec{
	Name: "goroutines.idle_rss",
	Doc: `Resident memory added by N goroutines parked on a channel receive, the goroutine twin of threads.idle_rss.
Method: runtime.GC twice; read RSS (/proc/self/statm) and the goroutine count; start N goroutines that each
count themselves and block in a receive on one shared channel that nobody sends on; wait until all have counted
and the runtime reports at least N goroutines waiting (runtime/metrics /sched/goroutines/waiting); read RSS and the
goroutine count again; close the channel and wait for all to return. rss_per_goroutine = RSS growth / goroutines
added. Each goroutine costs its g struct (about 400 bytes), its stack (it starts at 2 KiB and this one never
grows), a sudog on the channel's wait queue and the closure it was started with; nothing in the kernel. There is
no C equivalent: the nearest is a heap-allocated continuation per connection in an event loop. Linux only
(/proc/self/statm); elsewhere the probe's result is "not available", with that reason.`,
	Params: []probe.Param{
		{Name: "goroutines", Kind: probe.Int, Max: 1_000_000, Default: "2000", Doc: "parked goroutines to create (the book: 2,000 and 100,000)"},
	},
	Metrics: []probe.Metric{
		{Name: "rss_added", Unit: probe.Bytes, Better: probe.Lower, Doc: "RSS after minus RSS before"},
		{Name: "rss_per_goroutine", Unit: probe.Bytes, Better: probe.Lower, Doc: "rss_added / goroutines added"},
		{Name: "goroutines", Unit: probe.Count, Doc: "live goroutines while the N were parked (runtime.NumGoroutine)"},
	},
	Timeout: 30 * time.Second,
}

var handoffSpec = probe.Spec{
	Name: "goroutines.handoff",
	Doc: `Time for one goroutine to hand a turn to another over unbuffered channels while P other goroutines sit parked.
Method: start P goroutines blocked in a receive on a channel nobody sends on; then a pair: A sends on channel a and
receives on b, B receives on a and sends on b, handoffs times each, so every iteration is two hand-offs. After a
warm-up of min(handoffs/10, 1000) iterations, A reads CLOCK_MONOTONIC; after the last it reads it again;
handoff = elapsed / (2 × handoffs). The whole process's voluntary context switches (getrusage RUSAGE_SELF) over
the same window, per hand-off, say whether the kernel took part at all. GC is off during the timed run.
GOMAXPROCS can matter, so it is a param, fixed to 1 by default: with one P, a send to a parked receiver puts it
in the P's runnext slot and the sender's own receive then switches to it directly, a switch inside the runtime
with no OS thread woken. With more Ps each wake-up may also start an idle P (wakep), which wakes another OS thread
through futex, and the pair may end up on two threads; vcsw shows how often the kernel was involved, and procs=0
measures the runtime's default. The parked goroutines are not visited by either path: a channel wakes exactly
the goroutine on its wait queue. There is no C equivalent; the nearest is swapcontext between two user contexts.`,
	Params: []probe.Param{
		{Name: "parked", Kind: probe.Int, Max: 1_000_000, Default: "0", Doc: "goroutines parked beside the pair (the book sweeps up to 100,000)"},
		{Name: "handoffs", Kind: probe.Int, Sample: true, Max: 100_000_000, Default: "100000", Doc: "iterations of the pair, two hand-offs each"},
		{Name: "procs", Kind: probe.Int, Default: "1", Doc: "GOMAXPROCS during the run; 0 leaves the runtime's default (the CPU count)"},
	},
	Metrics: []probe.Metric{
		{Name: "handoff", Unit: probe.Seconds, Better: probe.Lower, Doc: "time per hand-off (elapsed / (2 × handoffs))"},
		{Name: "goroutines", Unit: probe.Count, Doc: "live goroutines just before the timed run"},
		{Name: "threads", Unit: probe.Count, Resolution: 1, Doc: "the process's live OS threads just before the timed run (/proc/self/status)",
			Optional: "absent where the live thread count cannot be read: only Linux's /proc/self/status is read (the runtime's threadcreate profile counts threads ever created, not live ones)"},
		{Name: "vcsw", Unit: probe.Count, Doc: "voluntary context switches of the whole process per hand-off (RUSAGE_SELF): near 0 when no OS thread sleeps"},
	},
	Timeout: 30 * time.Second,
}

// parkedSet is n goroutines blocked on a receive from stop.
type parkedSet struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

// park starts n goroutines blocked in <-stop and waits until all have
// started and the runtime counts at least n goroutines waiting.
func park(n int, deadline time.Duration) (*parkedSet, error) {
	ps := &parkedSet{stop: make(chan struct{})}
	var started atomic.Int64
	ps.wg.Add(n)
	for range n {
		go func() {
			defer ps.wg.Done()
			started.Add(1)
			<-ps.stop
		}()
	}
	end := time.Now().Add(deadline)
	waiting := []metrics.Sample{{Name: "/sched/goroutines/waiting:goroutines"}}
	for {
		if started.Load() == int64(n) {
			metrics.Read(waiting)
			if waiting[0].Value.Kind() != metrics.KindUint64 || waiting[0].Value.Uint64() >= uint64(n) {
				return ps, nil
			}
		}
		if time.Now().After(end) {
			ps.release()
			return nil, fmt.Errorf("%d of %d goroutines started and not all seen waiting after %v", started.Load(), n, deadline)
		}
		time.Sleep(time.Millisecond)
	}
}

func (ps *parkedSet) release() {
	close(ps.stop)
	ps.wg.Wait()
}

func runIdleRSS(ctx context.Context, p probe.Params) (probe.Values, error) {
	n := p.Int("goroutines")
	if n < 1 || n > 1_000_000 {
		return nil, fmt.Errorf("goroutines %d: want 1..1000000", n)
	}
	runtime.GC()
	runtime.GC()
	rss0, err := kern.RSS()
	if err != nil {
		return nil, err
	}
	g0 := runtime.NumGoroutine()
	ps, err := park(n, 20*time.Second)
	if err != nil {
		return nil, err
	}
	defer ps.release()
	rss1, err := kern.RSS()
	if err != nil {
		return nil, err
	}
	g1 := runtime.NumGoroutine()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return probe.Values{
		"rss_added":         float64(rss1 - rss0),
		"rss_per_goroutine": float64(rss1-rss0) / float64(g1-g0),
		"goroutines":        float64(g1),
	}, nil
}

func runHandoff(ctx context.Context, p probe.Params) (probe.Values, error) {
	parked, n, procs := p.Int("parked"), p.Int("handoffs"), p.Int("procs")
	if parked < 0 || parked > 1_000_000 {
		return nil, fmt.Errorf("parked %d: want 0..1000000", parked)
	}
	if n < 1 || n > 100_000_000 {
		return nil, fmt.Errorf("handoffs %d: want 1..100000000", n)
	}
	if procs < 0 || procs > 1024 {
		return nil, fmt.Errorf("procs %d: want 0 (default) or 1..1024", procs)
	}
	if procs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	}
	if parked > 0 {
		ps, err := park(parked, 20*time.Second)
		if err != nil {
			return nil, err
		}
		defer ps.release()
	}
	warm := min(max(n/10, 1), 1000)
	a, b := make(chan struct{}), make(chan struct{})
	go func() {
		for range warm + n {
			<-a
			b <- struct{}{}
		}
	}()
	goroutines := runtime.NumGoroutine()
	threads, err := kern.LiveThreads()
	var ue *probe.UnavailableError
	if err != nil && !errors.As(err, &ue) {
		return nil, err
	}
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for range warm {
		a <- struct{}{}
		<-b
	}
	var ru0, ru1 unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru0)
	t0 := kern.Now()
	for range n {
		a <- struct{}{}
		<-b
	}
	t1 := kern.Now()
	unix.Getrusage(unix.RUSAGE_SELF, &ru1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := float64(2 * n)
	v := probe.Values{
		"handoff":    time.Duration(t1-t0).Seconds() / total,
		"goroutines": float64(goroutines),
		"vcsw":       float64(ru1.Nvcsw-ru0.Nvcsw) / total,
	}
	if ue == nil { // the live thread count was read
		v["threads"] = float64(threads)
	}
	return v, nil
}
