// Package cref holds independent C programs that time what the Go probes
// time, and a test that builds them with the system's cc and runs them
// beside the probes, pair by pair: the reference for how much of a probe's
// figure is Go's (see the test's log, and MBOOK_CREF_PAIRS).
package cref

import (
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
// logs. Each program also runs with a second thread asleep beside the
// reads ("C, 2 threads"): a Go process always has several, so the kernel
// takes a reference on the file at every call (fs/file.c's fdget), which
// a single-threaded C program skips; and with that second thread but the
// reading thread's own file table again (unshare(CLONE_FILES)), to tell
// the table's share from the thread's. It asserts what holds on any machine:
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
		var cs, cts, cus, raws, gos []float64
		for range pairs {
			cs, cts, cus = append(cs, runC(t, bin)), append(cts, runC(t, bin, "threads")), append(cus, runC(t, bin, "threads", "unshare"))
			v := probetest.Run(t, all, c.probe, c.params)
			if !(v["read"] > 0 && v["read_go"] > 0) {
				t.Fatalf("%s: read %v, read_go %v: not positive times", c.probe, v["read"], v["read_go"])
			}
			raws, gos = append(raws, v["read"]*1e9), append(gos, v["read_go"]*1e9)
		}
		mc, mt, mu, mr, mg := median(cs), median(cts), median(cus), median(raws), median(gos)
		t.Logf("%s, %d pairs: C %.1f ns; C 2 threads %.1f ns (×%.2f), own file table again %.1f ns (×%.2f); Go raw %.1f ns (×%.2f of C, ×%.2f of C 2 threads); Go unix.Read %.1f ns (×%.2f of C)",
			c.prog, pairs, mc, mt, mt/mc, mu, mu/mc, mr, mr/mc, mr/mt, mg, mg/mc)
	}
}

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
