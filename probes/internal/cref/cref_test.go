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
// logs. It asserts what holds on any machine: every program and probe ran,
// and each read took a positive time.
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
		if out, err := exec.Command(cc, "-O2", "-o", bin, filepath.Join("testdata", c.prog+".c")).CombinedOutput(); err != nil {
			t.Fatalf("cc %s.c: %v\n%s", c.prog, err, out)
		}
		all := append(blocking.Probes(), nonblocking.Probes()...)
		var cs, raws, gos []float64
		for range pairs {
			out, err := exec.Command(bin).Output()
			if err != nil {
				t.Fatalf("%s: %v", c.prog, err)
			}
			ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
			if err != nil || !(ns > 0) {
				t.Fatalf("%s printed %q, not a positive time per read", c.prog, out)
			}
			v := probetest.Run(t, all, c.probe, c.params)
			if !(v["read"] > 0 && v["read_go"] > 0) {
				t.Fatalf("%s: read %v, read_go %v: not positive times", c.probe, v["read"], v["read_go"])
			}
			cs, raws, gos = append(cs, ns), append(raws, v["read"]*1e9), append(gos, v["read_go"]*1e9)
		}
		mc, mr, mg := median(cs), median(raws), median(gos)
		t.Logf("%s, %d pairs: C %.1f ns, Go raw %.1f ns (×%.2f), Go unix.Read %.1f ns (×%.2f)", c.prog, pairs, mc, mr, mr/mc, mg, mg/mc)
	}
}

func median(x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
