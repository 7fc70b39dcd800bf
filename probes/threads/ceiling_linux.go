package threads

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"measuredbook/probe"
	"measuredbook/probes/internal/kern"
)

// ceilingGoMaxEnv is the Go thread limit the grandchild sets.
const ceilingGoMaxEnv = "MBOOK_THREADS_CEILING_GOMAX"

// ceilingCgroupEnv names the pids cgroup the grandchild joins first (the
// pids_limit param).
const ceilingCgroupEnv = "MBOOK_THREADS_CEILING_CGROUP"

// ceilingTimeLimit bounds the grandchild; the probe's own Timeout is longer.
const ceilingTimeLimit = 20 * time.Second

// ceilingHelper is the grandchild of threads.ceiling (its probe.Helper):
// it runs the thread-creation loop up to the cap in ceilingEnv and ends
// the process (normally by os.Exit at the cap, or by the Go runtime's
// fatal error when clone(2) fails), so it never returns.
func ceilingHelper() {
	var counts [2]int
	for i, env := range []string{ceilingEnv, ceilingGoMaxEnv} {
		v := os.Getenv(env)
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "%s=%q: want a thread count\n", env, v)
			os.Exit(2)
		}
		counts[i] = n
	}
	if dir := os.Getenv(ceilingCgroupEnv); dir != "" {
		// Join the pids cgroup the parent made before creating any thread
		// of our own (the runtime's first few are moved along with us).
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			fmt.Fprintf(os.Stderr, "joining %s: %v\n", dir, err)
			os.Exit(2)
		}
	}
	ceilingChild(counts[0], counts[1])
	os.Exit(0)
}

// ceilingProcs is the GOMAXPROCS the grandchild creates threads with. Each
// new goroutine can then start on an idle P at once instead of waiting for
// sysmon to retake a P from a thread that has just parked: 20,000 threads
// take about 1 s instead of 5 s. It adds a few idle Ms, counted in
// process_threads and allowed for in the Go thread limit.
const ceilingProcs = 64

// ceilingGoMax is the Go thread limit the grandchild sets for a cap.
func ceilingGoMax(capN int) int { return capN + 100 + ceilingProcs }

// ceilingChild creates up to n parked threads under a Go thread limit of
// goMax. Each, once locked to its
// own thread, prints its ordinal ("N\n", one write(2) of its own) and parks;
// when all n are there the grandchild prints "cap T\n" (T = its live
// threads) and exits.
func ceilingChild(n, goMax int) {
	debug.SetMaxThreads(goMax)
	debug.SetGCPercent(-1)
	runtime.GOMAXPROCS(ceilingProcs)
	words := make([]uint32, max(n, 1))
	var count atomic.Int64
	for i := range n {
		go func(w *uint32) {
			runtime.LockOSThread()
			var line [24]byte
			b := strconv.AppendInt(line[:0], count.Add(1), 10)
			b = append(b, '\n')
			unix.Write(1, b)
			for atomic.LoadUint32(w) == 0 {
				futexWaitPrivate(w, 0)
			}
		}(&words[i])
	}
	for count.Load() < int64(n) {
		time.Sleep(time.Millisecond)
	}
	t, err := kern.LiveThreads()
	if err != nil {
		t = -1
	}
	fmt.Fprintf(os.Stdout, "cap %d\n", t)
}

// limits is what the parent reads before starting the grandchild.
type limits struct {
	threadsMax, nproc, pidsMax, pidMax int64
	// current use of each, without the grandchild
	sysThreads, userTasks, pidsCurrent int64
	nprocExempt                        bool
}

// outcome is what the grandchild did.
type outcome struct {
	reached    int   // lines counted
	have       int   // the runtime's "have N already" (0 if not printed)
	atFatal    int   // the grandchild's live threads when the fatal message came (0 if not read)
	capThreads int   // live threads printed at the cap (0 if not reached)
	errno      int   // from "errno=E"
	exhaustion bool  // Go's "thread exhaustion" fatal
	outOfMem   bool  // Go's own out-of-memory fatal
	timedOut   bool  // killed by us at the time limit
	signal     int   // killed by this signal (not ours), 0 if none
	exitErr    error // anything else
}

// The two ways a Go program reports a failed thread creation: the runtime's
// own clone(2), and pthread_create in a cgo binary (where threads are
// pthreads and the message carries strerror's text). Compiled when first
// needed: every probe child would otherwise pay for them at its start.
var failureREs = sync.OnceValues(func() (have, cgo *regexp.Regexp) {
	return regexp.MustCompile(`failed to create new OS thread \(have (\d+) already; errno=(\d+)\)`),
		regexp.MustCompile(`runtime/cgo: pthread_create failed: ([^\n]*)`)
})

// errnoFromText maps strerror's text back to its errno.
func errnoFromText(text string) int {
	text = strings.TrimSpace(text)
	for e := unix.Errno(1); e < 256; e++ {
		if strings.EqualFold(e.Error(), text) {
			return int(e)
		}
	}
	return 0
}

func runCeiling(ctx context.Context, p probe.Params) (probe.Values, error) {
	capN := p.Int("cap")
	if capN < 1 || capN > 100000 {
		return nil, fmt.Errorf("cap %d: want 1..100000", capN)
	}
	pidsLimit := p.Int("pids_limit")
	if pidsLimit < 0 || pidsLimit > capN+1000 {
		return nil, fmt.Errorf("pids_limit %d: want 0 (none) or 1..cap+1000", pidsLimit)
	}
	lim, err := readLimits()
	if err != nil {
		return nil, err
	}
	var cgDir string
	if pidsLimit > 0 {
		if cgDir, err = makePidsCgroup(pidsLimit); err != nil {
			return nil, err
		}
		defer removeCgroup(cgDir)
		// The grandchild alone lives in the new cgroup.
		lim.pidsMax, lim.pidsCurrent = int64(pidsLimit), 0
	}
	out, err := runGrandchild(ctx, capN, ceilingGoMax(capN), cgDir)
	if err != nil {
		return nil, err
	}
	code, err := decide(lim, out, capN)
	if err != nil {
		return nil, err
	}
	procThreads := out.capThreads
	if procThreads == 0 {
		procThreads = out.atFatal
	}
	if procThreads == 0 {
		procThreads = out.have
	}
	return probe.Values{
		"threads":         float64(out.reached),
		"errno":           float64(out.errno),
		"stopped_by":      float64(code),
		"process_threads": float64(procThreads),
		"threads_max":     float64(lim.threadsMax),
		"nproc":           float64(lim.nproc),
		"pids_max":        float64(lim.pidsMax),
		"pid_max":         float64(lim.pidMax),
		"go_max_threads":  float64(ceilingGoMax(capN)),
	}, nil
}

// runGrandchild starts the ceiling helper with a cap and a Go thread
// limit, counts its lines and reads its fate.
func runGrandchild(ctx context.Context, capN, goMax int, cgDir string) (outcome, error) {
	var out outcome
	ctx, cancel := context.WithTimeout(ctx, ceilingTimeLimit)
	defer cancel()
	cmd, err := probe.HelperCommand(ctx, ceilingSpec.Name)
	if err != nil {
		return out, err
	}
	cmd.Env = append(cmd.Env, ceilingEnv+"="+strconv.Itoa(capN), ceilingGoMaxEnv+"="+strconv.Itoa(goMax))
	if cgDir != "" {
		cmd.Env = append(cmd.Env, ceilingCgroupEnv+"="+cgDir)
	}
	// Pdeathsig fires when the thread that forked exits, so keep that thread
	// (locked) alive until the grandchild is reaped.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// A runtime throw prints every goroutine's stack whatever GOTRACEBACK
	// says (tens of thousands of them): keep the head, where the fatal
	// message is, and kill the grandchild once "fatal error:" is there.
	var atFatal atomic.Int64
	stderr := &headBuffer{kill: func() {
		// The dying grandchild's thread count, read before it goes.
		if t, err := kern.StatusField(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid), "Threads"); err == nil {
			atFatal.Store(int64(t))
		}
		cmd.Process.Kill()
	}}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return out, err
	}
	if err := cmd.Start(); err != nil {
		return out, fmt.Errorf("starting ceiling grandchild: %w", err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "cap "); ok {
			out.capThreads, _ = strconv.Atoi(rest)
			continue
		}
		if n, err := strconv.Atoi(line); err == nil && n > out.reached {
			out.reached = n
		}
	}
	werr := cmd.Wait()
	out.atFatal = int(atFatal.Load())
	haveRE, cgoRE := failureREs()
	if m := haveRE.FindSubmatch(stderr.Bytes()); m != nil {
		out.have, _ = strconv.Atoi(string(m[1]))
		out.errno, _ = strconv.Atoi(string(m[2]))
	} else if m := cgoRE.FindSubmatch(stderr.Bytes()); m != nil {
		out.errno = errnoFromText(string(m[1]))
		if out.errno == 0 {
			out.exitErr = fmt.Errorf("ceiling grandchild: pthread_create failed with an error not recognised: %s", m[1])
		}
	}
	out.exhaustion = bytes.Contains(stderr.Bytes(), []byte("thread exhaustion"))
	out.outOfMem = bytes.Contains(stderr.Bytes(), []byte("fatal error: out of memory")) ||
		bytes.Contains(stderr.Bytes(), []byte("cannot allocate memory"))
	switch {
	case ctx.Err() != nil && out.capThreads == 0:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			out.timedOut = true
		} else {
			return out, ctx.Err()
		}
	case werr != nil:
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && !stderr.killed() {
				out.signal = int(ws.Signal())
			}
		}
		if out.errno == 0 && !out.exhaustion && !out.outOfMem && out.signal == 0 && out.exitErr == nil {
			out.exitErr = fmt.Errorf("ceiling grandchild failed after %d threads: %v: %s", out.reached, werr, firstLines(stderr.Bytes(), 5))
		}
	case out.capThreads == 0:
		return out, fmt.Errorf("ceiling grandchild exited without reaching the cap or failing (%d threads); does the binary enter runner.Child for probe.HelperEnv? stderr: %s", out.reached, firstLines(stderr.Bytes(), 5))
	}
	return out, nil
}

// decide names the limit that stopped the grandchild (see the Doc).
func decide(lim limits, out outcome, capN int) (int, error) {
	switch {
	case out.capThreads > 0 && out.reached == capN:
		return stopCap, nil
	case out.timedOut:
		return stopTimeLimit, nil
	case out.exhaustion:
		return stopGoMaxThreads, nil
	case out.exitErr != nil:
		return 0, out.exitErr
	case out.outOfMem || out.errno == int(unix.ENOMEM) || (out.errno == 0 && out.signal == int(syscall.SIGKILL)):
		return stopMemory, nil
	case out.errno != int(unix.EAGAIN):
		return stopUnknown, nil
	}
	grand := int64(out.atFatal)
	if grand == 0 {
		grand = int64(out.have)
	}
	if grand == 0 {
		// cgo's message has no count: the parked threads and a few of the
		// runtime's own (within the tolerance below).
		grand = int64(out.reached) + 4
	}
	type cand struct {
		code         int
		limit, using int64
	}
	cands := []cand{
		{stopThreadsMax, lim.threadsMax, lim.sysThreads + grand},
		{stopPidMax, lim.pidMax, lim.sysThreads + grand},
	}
	if lim.pidsMax >= 0 {
		cands = append(cands, cand{stopPidsMax, lim.pidsMax, lim.pidsCurrent + grand})
	}
	if lim.nproc >= 0 && !lim.nprocExempt {
		cands = append(cands, cand{stopNproc, lim.nproc, lim.userTasks + grand})
	}
	best, bestRoom := stopUnknown, int64(1<<62)
	for _, c := range cands {
		if c.limit <= 0 {
			continue
		}
		room := c.limit - c.using
		tol := max(64, c.limit/50)
		if room <= tol && room >= -tol && room < bestRoom {
			best, bestRoom = c.code, room
		}
	}
	return best, nil
}

func readLimits() (limits, error) {
	var lim limits
	var err error
	if lim.threadsMax, err = readInt("/proc/sys/kernel/threads-max"); err != nil {
		return lim, err
	}
	if lim.pidMax, err = readInt("/proc/sys/kernel/pid_max"); err != nil {
		return lim, err
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &rl); err != nil {
		return lim, fmt.Errorf("getrlimit(RLIMIT_NPROC): %w", err)
	}
	lim.nproc = -1
	if rl.Cur != unix.RLIM_INFINITY {
		lim.nproc = int64(rl.Cur)
	}
	lim.nprocExempt = nprocExempt()
	lim.pidsMax, lim.pidsCurrent = cgroupPids()
	if lim.sysThreads, err = systemThreads(); err != nil {
		return lim, err
	}
	lim.userTasks = userTasks(os.Getuid())
	return lim, nil
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// systemThreads is the kernel's nr_threads: the denominator of the fourth
// field of /proc/loadavg ("running/total").
func systemThreads() (int64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return 0, fmt.Errorf("/proc/loadavg: unexpected %q", b)
	}
	_, total, ok := strings.Cut(f[3], "/")
	if !ok {
		return 0, fmt.Errorf("/proc/loadavg: unexpected %q", b)
	}
	return strconv.ParseInt(total, 10, 64)
}

// nprocExempt: the kernel skips RLIMIT_NPROC for root (uid 0) and for a
// process with CAP_SYS_RESOURCE or CAP_SYS_ADMIN (kernel/fork.c).
func nprocExempt() bool {
	if os.Getuid() == 0 {
		return true
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(rest), 16, 64)
			return err == nil && caps&(1<<unix.CAP_SYS_RESOURCE|1<<unix.CAP_SYS_ADMIN) != 0
		}
	}
	return false
}

// userTasks sums the threads of every process whose real uid is uid: what
// RLIMIT_NPROC counts.
func userTasks(uid int) int64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		var ruid, threads = -1, 0
		for line := range strings.SplitSeq(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					ruid, _ = strconv.Atoi(f[0])
				}
			} else if rest, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads, _ = strconv.Atoi(strings.TrimSpace(rest))
			}
		}
		if ruid == uid {
			n += int64(threads)
		}
	}
	return n
}

// cgroupPids finds, on the path from this process's cgroup up to the root,
// in the v1 pids hierarchy and in the v2 one, the pids.max with the least
// headroom, and returns it with that cgroup's pids.current; (-1, current of
// the own cgroup or -1) when no level sets a number.
func cgroupPids() (maxPids, current int64) {
	maxPids, current = -1, -1
	bestRoom := int64(1 << 62)
	for _, c := range pidsCgroupDirs() {
		for d := c.dir; ; d = filepath.Dir(d) {
			cur, cerr := readInt(filepath.Join(d, "pids.current"))
			if cerr == nil && d == c.dir && maxPids < 0 && current < 0 {
				current = cur
			}
			if b, err := os.ReadFile(filepath.Join(d, "pids.max")); err == nil && cerr == nil {
				if m, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && m-cur < bestRoom {
					maxPids, current, bestRoom = m, cur, m-cur
				}
			}
			if len(d) <= len(c.mount) || d == filepath.Dir(d) {
				break
			}
		}
	}
	return maxPids, current
}

type cgroupDir struct{ mount, dir string }

const cgroupPrefix = "mbook-threads-ceiling-"

// makePidsCgroup makes a pids cgroup with pids.max = limit at the top of the
// v1 pids hierarchy, or else of the v2 one (enabling the pids controller
// for the root's children). Empty ones left by a killed run are removed.
// errNoPidsController: the machine has no pids cgroup controller to use.
var errNoPidsController = errors.New("pids_limit needs a pids cgroup controller (v1, or v2 with pids available) and none was found")

func makePidsCgroup(limit int) (string, error) {
	mount := ""
	for _, c := range pidsCgroupDirs() {
		if _, err := os.Stat(filepath.Join(c.mount, "cgroup.controllers")); err == nil {
			ctl, _ := os.ReadFile(filepath.Join(c.mount, "cgroup.controllers"))
			if !slices.Contains(strings.Fields(string(ctl)), "pids") {
				continue // a v2 hierarchy without the pids controller
			}
			if err := os.WriteFile(filepath.Join(c.mount, "cgroup.subtree_control"), []byte("+pids"), 0); err != nil {
				continue
			}
		}
		mount = c.mount
		break
	}
	if mount == "" {
		return "", errNoPidsController
	}
	if stale, _ := filepath.Glob(filepath.Join(mount, cgroupPrefix+"*")); len(stale) > 0 {
		for _, d := range stale {
			os.Remove(d) // fails unless empty
		}
	}
	dir := filepath.Join(mount, cgroupPrefix+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return "", fmt.Errorf("pids_limit: making cgroup %s (needs root): %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(limit)), 0); err != nil {
		os.Remove(dir)
		return "", fmt.Errorf("pids_limit: setting %s/pids.max: %w", dir, err)
	}
	return dir, nil
}

// removeCgroup removes the grandchild's cgroup once its last task is gone.
func removeCgroup(dir string) {
	for range 100 {
		if err := os.Remove(dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// pidsCgroupDirs maps /proc/self/cgroup to directories, using
// /proc/self/mountinfo to find where the v2 hierarchy and the v1 pids
// controller are mounted.
func pidsCgroupDirs() []cgroupDir {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var v2, v1 string // mount points
	for line := range strings.SplitSeq(string(mi), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 || f[3] != "/" {
			continue
		}
		switch {
		case g[0] == "cgroup2" && v2 == "":
			v2 = f[4]
		case g[0] == "cgroup" && v1 == "" && slices.Contains(strings.Split(g[2], ","), "pids"):
			v1 = f[4]
		}
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var dirs []cgroupDir
	for line := range strings.SplitSeq(strings.TrimSpace(string(cg)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[0] == "0" && f[1] == "" && v2 != "":
			dirs = append(dirs, cgroupDir{v2, filepath.Join(v2, f[2])})
		case slices.Contains(strings.Split(f[1], ","), "pids") && v1 != "":
			dirs = append(dirs, cgroupDir{v1, filepath.Join(v1, f[2])})
		}
	}
	return dirs
}

// headBuffer keeps the first 16 KiB written to it and calls kill once the
// Go runtime's "fatal error:" line (or cgo's "pthread_create failed") has
// arrived.
type headBuffer struct {
	mu   sync.Mutex
	b    []byte
	kill func()
	dead bool
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := 16<<10 - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	if !h.dead && (lineDone(h.b, "fatal error:") || lineDone(h.b, "pthread_create failed")) {
		h.dead = true
		h.kill()
	}
	return len(p), nil
}

// lineDone reports whether b holds marker and the rest of its line (the
// runtime writes a message in pieces).
func lineDone(b []byte, marker string) bool {
	i := bytes.Index(b, []byte(marker))
	return i >= 0 && bytes.IndexByte(b[i:], '\n') >= 0
}

func (h *headBuffer) Bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.b
}

func (h *headBuffer) killed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dead
}

func firstLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}
