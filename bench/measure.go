package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sample is one child process's cost, from the kernel's accounting of it
// (wait4's rusage): CPU is user + system time, RSS the peak resident set.
// Linux counts into a child's peak the peak of the process that started it
// (Go starts children with vfork, and exec keeps the larger of the two), so
// no RSS reads below the benchmark's own peak (selfRSS).
type sample struct {
	CPU, Wall time.Duration
	RSS       int64 // bytes
	Out       int64 // bytes of the site written
}

// runChild runs cmd, a build that writes its site to site, to completion
// and returns its cost and the site's size. A failing child is an error
// with the tail of what it printed.
func runChild(cmd *exec.Cmd, site string) (sample, error) {
	var out bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &out
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &out
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", cmd, err, out.Bytes()[max(0, out.Len()-2000):])
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, fmt.Errorf("%s: no resource usage on this system", cmd)
	}
	s := sample{
		CPU:  cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
		Wall: wall,
		RSS:  maxRSS(ru),
	}
	s.Out, err = treeSize(site)
	return s, err
}

// env is the environment for the builds: this one without variables that
// would change which result set a build uses, plus extra.
func env(extra ...string) []string {
	e := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "MBOOK_") })
	return append(e, extra...)
}

// median of the samples' field f (the lower middle one of an even count).
func median[T int64 | time.Duration](xs []sample, f func(sample) T) T {
	v := make([]T, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[(len(v)-1)/2]
}

func cpu(s sample) time.Duration  { return s.CPU }
func wall(s sample) time.Duration { return s.Wall }
func rss(s sample) int64          { return s.RSS }
func size(s sample) int64         { return s.Out }

// dur prints a duration with 3 significant digits in a fitting unit.
func dur(d time.Duration) string {
	switch s := d.Seconds(); {
	case s >= 1:
		return fmt.Sprintf("%.3g s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3g ms", s*1e3)
	default:
		return fmt.Sprintf("%.3g µs", s*1e6)
	}
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// mb formats a size in bytes as MB (10⁶), the unit du -h --si prints.
func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

// selfRSS is this process's peak resident set, the floor of every child's:
// on Linux its memory's own high-water mark (getrusage would add the peak
// of the process that started it, go run's).
func selfRSS() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
				if kib, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					return kib << 10
				}
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return maxRSS(&ru)
}
