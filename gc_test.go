package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// readMetric reads one of runtime/metrics' uint64 values.
func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A build collects nothing until its heap reaches startHeap, and then
// collects as GOGC=200 would, within the soft limit softHeap.
func TestRenderGC(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set, which renderGC leaves alone")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	debug.FreeOSMemory()
	const cycles = "/gc/cycles/total:gc-cycles"
	var sink [][]byte
	allocate := func(n int) {
		for range n >> 20 {
			sink = append(sink[:0], make([]byte, 1<<20))
		}
	}
	renderGC()
	before := readMetric(cycles)
	allocate(startHeap / 4)
	if n := readMetric(cycles) - before; n != 0 {
		t.Errorf("%d collections in the first %d MiB, want none", n, startHeap/4>>20)
	}
	allocate(2 * startHeap)
	if readMetric(cycles) == before {
		t.Fatalf("no collection in %d MiB", (startHeap/4+2*startHeap)>>20)
	}
	// The first collection's cleanup hands the heap to GOGC=200.
	deadline := time.Now().Add(10 * time.Second)
	for readMetric("/gc/gogc:percent") != 200 || readMetric("/gc/gomemlimit:bytes") != softHeap {
		if time.Now().After(deadline) {
			t.Fatalf("after a collection GOGC is %d and the limit %d, want 200 and %d",
				readMetric("/gc/gogc:percent"), readMetric("/gc/gomemlimit:bytes"), softHeap)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(sink)
}
