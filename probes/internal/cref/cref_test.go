// Package cref holds independent C programs that time what the Go probes
// time, and a test that builds them with the system's cc and runs them
// beside the probes, pair by pair: the reference for how much of a probe's
// figure is Go's (see the test's log, and MBOOK_CREF_PAIRS).
package cref

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"measuredbook/probes/blocking"
	"measuredbook/probes/internal/probetest"
	"measuredbook/probes/nonblocking"
)

// TestAgainstC builds testdata/ready.c (a 2,000-byte prefilled AF_UNIX
// stream socket read 1 byte at a time with blocking reads) and
// testdata/eagain.c (1,000 reads of an empty O_NONBLOCK socket), and runs
// each alternately with the probe that times the same read
// (blocking.ready, nonblocking.eagain, in this process on a locked
// thread): MBOOK_CREF_PAIRS pairs (default 1), whose medians and ratio it
// logs. Each program also runs in variants (see ready.c) that move it one
// step at a time towards what a Go process is: the bare syscall (raw), a
// second thread asleep (a shared file table), and that thread but the
// reader's own file table again. It asserts what holds on any machine:
// every program and probe ran, and each read took a positive time.
func TestAgainstC(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no cc on PATH to build the C reference programs")
	}
	pairs := 1
	if v := os.Getenv("MBOOK_CREF_PAIRS"); v != "" {
		if pairs, err = strconv.Atoi(v); err != nil || pairs < 1 {
			t.Fatalf("MBOOK_CREF_PAIRS=%q: want a whole number of at least 1", v)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct {
		prog, probe string
		params      map[string]string
	}{
		{"ready", "blocking.ready", map[string]string{"reads": "2000", "warmup": "500"}},
		{"eagain", "nonblocking.eagain", map[string]string{"calls": "1000", "warmup": "500"}},
	} {
		bin := filepath.Join(dir, c.prog)
		if out, err := exec.Command(cc, "-O2", "-pthread", "-o", bin, filepath.Join("testdata", c.prog+".c")).CombinedOutput(); err != nil {
			t.Fatalf("cc %s.c: %v\n%s", c.prog, err, out)
		}
		all := append(blocking.Probes(), nonblocking.Probes()...)
		var raws, gos []float64
		cs := make([][]float64, len(variants))
		for range pairs {
			for i, words := range variants {
				cs[i] = append(cs[i], runC(t, bin, words...))
			}
			v := probetest.Run(t, all, c.probe, c.params)
			if !(v["read"] > 0 && v["read_go"] > 0) {
				t.Fatalf("%s: read %v, read_go %v: not positive times", c.probe, v["read"], v["read_go"])
			}
			raws, gos = append(raws, v["read"]*1e9), append(gos, v["read_go"]*1e9)
		}
		mc := median(cs[0])
		var line strings.Builder
		fmt.Fprintf(&line, "%s, %d pairs: C %.1f ns", c.prog, pairs, mc)
		for i, words := range variants[1:] {
			m := median(cs[i+1])
			fmt.Fprintf(&line, "; C %s %.1f ns (×%.2f)", strings.Join(words, "+"), m, m/mc)
		}
		mr, mt := median(raws), median(cs[len(cs)-2])
		fmt.Fprintf(&line, "; Go raw %.1f ns (×%.2f of C, ×%.2f of C raw+threads); Go unix.Read %.1f ns (×%.2f of C)", mr, mr/mc, mr/mt, median(gos), median(gos)/mc)
		t.Log(line.String())
	}
}

// variants are the reference programs' command lines, plain first; the
// last but one is the one most like a Go probe's raw read.
var variants = [][]string{nil, {"raw"}, {"threads"}, {"raw", "threads"}, {"raw", "threads", "unshare"}}

// runC runs a reference program and returns the nanoseconds per read it
// printed.
func runC(t *testing.T, bin string, args ...string) float64 {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil || !(ns > 0) {
		t.Fatalf("%s %v printed %q, not a positive time per read", bin, args, out)
	}
	return ns
}

func median(x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
