// Package runner runs probes the only way the book allows: every run of
// every parameter combination in a fresh child process (the probes' own
// binary, see Light, or this same binary re-executed, each entered with the
// hidden verb ChildVerb), with a timeout. A probe that
// crashes, hangs or fails becomes an error naming the probe, its params and
// the cause (the runtime's panic, fatal-error or signal line from its
// stderr); it never takes the build down. Nothing escapes a run: the child
// and its process group are killed at the timeout, on cancel and when the
// parent dies; what it prints is bounded; a process that left the group
// and holds its output is found, killed and named.
package runner

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"measuredbook/dataset"
	"measuredbook/probe"
)

// ChildVerb is the hidden first argument that makes the binary run one
// probe run and print its values as JSON.
const ChildVerb = "__probe"

// DefaultTimeout bounds one run when neither the probe nor the experiment
// says otherwise.
const DefaultTimeout = 60 * time.Second

// Runner starts child processes of Exe (normally os.Executable(); with
// Light, a binary of the probes alone once it is built).
type Runner struct {
	Exe     string
	Timeout time.Duration // per run; overrides the probe's own when set
	// RunTime is how long the sample of one run lasts when a combination
	// gives a Sample param as probe.Auto (see size); 0 is DefaultRunTime.
	RunTime time.Duration
	light   *light // set by Light
}

// MaxResult bounds what a child may print on stdout (its one JSON object);
// a child that prints more is a failed run, never a parent out of memory.
const MaxResult = 1 << 20

// stderrKeep is how much of each end of a child's stderr is kept: its
// beginning (where the runtime names a signal or a fatal error) and its end
// (where a panic's cause is printed after any output of the probe).
const stderrKeep = 4 << 10

// grace is how long the parent waits, after the child has exited or been
// killed, for its output pipes to close. A process the probe started
// outside its process group (setsid) can hold them open; when the grace is
// over it is found, killed and named in the failure.
const grace = 2 * time.Second

// New returns a runner that re-executes the running binary.
func New() (*Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this binary to re-execute it for probes: %w", err)
	}
	return &Runner{Exe: exe}, nil
}

// RunError is a failed run: which probe, which params, and why. Err, when
// set, is the underlying error: context.Canceled for a run interrupted by
// the parent, so a caller can tell an interruption (not a result) from a
// probe's failure with errors.Is.
type RunError struct {
	Probe  string
	Params probe.Params
	Cause  string
	Err    error
}

func (e *RunError) Error() string {
	return fmt.Sprintf("probe %s [%s]: %s", e.Probe, e.Params.Key(), e.Cause)
}

func (e *RunError) Unwrap() error { return e.Err }

// run measures one run of p with params in a child process, and returns
// its values, how long the probe's Run took in the child (its setup and
// its sample, not the process's start) and what it kept (probe.Keep). The
// child runs in its own process group, dies with the parent (where the OS
// allows, see dieWithParent), and is killed with its whole group at the
// timeout or when ctx is cancelled.
func (r *Runner) run(ctx context.Context, p probe.Probe, params probe.Params) (*childOutput, error) {
	timeout := cmp.Or(r.Timeout, p.Timeout, DefaultTimeout)
	arg, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, &RunError{Probe: p.Name, Params: params, Cause: "interrupted before it started", Err: err}
	}
	pp, err := newPipes()
	if err != nil {
		return nil, err
	}
	defer pp.close()
	cmd := exec.Command(r.exe(ctx), ChildVerb, p.Name, string(arg))
	cmd.Stdout, cmd.Stderr = pp.outW, pp.errW
	cmd.ExtraFiles = []*os.File{pp.lifeR}
	cmd.Env = append(os.Environ(), lifelineEnv+"=3")
	// Its own process group, so a timeout also kills any grandchild the
	// probe started (the thread-ceiling probe does).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	defer dieWithParent(cmd.SysProcAttr)()
	oomBefore := oomKills()

	c := &child{cmd: cmd, pipes: pp, stdout: &capped{over: make(chan struct{})},
		stderr: &headTail{}, outDone: make(chan struct{}), errDone: make(chan struct{})}
	go func() { c.stdout.fill(pp.outR); close(c.outDone) }()
	go func() { io.Copy(c.stderr, pp.errR); close(c.errDone) }()
	fail := func(format string, a ...any) *RunError {
		cause := fmt.Sprintf(format, a...)
		if s := crashSummary(c.stderr.String()); s != "" {
			cause += ": " + s
		}
		return &RunError{Probe: p.Name, Params: params, Cause: cause}
	}
	err = cmd.Start()
	pp.closeChildEnds()
	if err != nil {
		<-c.outDone
		<-c.errDone
		return nil, fail("cannot start child: %v", err)
	}
	stopped, stopErr, err := c.wait(ctx, timeout)
	switch exit, exited := errors.AsType[*exec.ExitError](err); {
	case stopErr != nil:
		return nil, &RunError{Probe: p.Name, Params: params, Cause: stopped, Err: stopErr}
	case stopped != "":
		return nil, fail("%s", stopped)
	case exited:
		return nil, fail("child %s%s", exit.ProcessState.String(), killHint(exit.ProcessState, oomBefore))
	case err != nil:
		return nil, fail("child: %v", err)
	case c.stdout.n > MaxResult: // it exited before the parent saw the flood
		return nil, fail("%s", tooLarge)
	case c.stdout.n == 0:
		return nil, fail("child exited without printing a result")
	}
	out, err := decode(p, c.stdout.buf.Bytes())
	if err != nil {
		return nil, &RunError{Probe: p.Name, Params: params, Cause: err.Error(), Err: err}
	}
	return out, nil
}

// pipes are a child's stdout, stderr and lifeline: the child watches the
// lifeline's read end and kills its whole group when it reads EOF, which
// happens when this process dies, however it dies (the portable twin of
// Pdeathsig, and it takes grandchildren in the group along).
type pipes struct {
	outR, outW, errR, errW, lifeR, lifeW *os.File
}

func newPipes() (*pipes, error) {
	var pp pipes
	var err error
	if pp.outR, pp.outW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if pp.errR, pp.errW, err = os.Pipe(); err == nil {
		if pp.lifeR, pp.lifeW, err = os.Pipe(); err == nil {
			return &pp, nil
		}
	}
	pp.closeChildEnds()
	pp.close()
	return nil, err
}

// closeChildEnds closes the ends the child holds once it has them.
func (pp *pipes) closeChildEnds() { closeFiles(pp.outW, pp.errW, pp.lifeR) }

// close closes this process's ends; closing the lifeline's write end is
// what tells a child still running to go.
func (pp *pipes) close() { closeFiles(pp.outR, pp.errR, pp.lifeW) }

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// child is one started run: its command, pipes, and what it printed.
type child struct {
	cmd              *exec.Cmd
	pipes            *pipes
	stdout           *capped
	stderr           *headTail
	outDone, errDone chan struct{}
}

// wait waits for the child to exit, to overrun its time or its output, or
// for ctx to end, then kills what is left of its group and drains its
// pipes. stopped says why the parent stopped it ("" when it exited of
// itself, with err its exit), stopErr is ctx's error when that was why.
func (c *child) wait(ctx context.Context, timeout time.Duration) (stopped string, stopErr, err error) {
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	killGroup := func() { syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) }
	select {
	case err = <-done:
	case <-timer.C:
		stopped = fmt.Sprintf("timed out after %v (killed)", timeout)
	case <-c.stdout.over:
		stopped = tooLarge
	case <-ctx.Done():
		stopped, stopErr = "interrupted ("+ctx.Err().Error()+"), child killed", ctx.Err()
	}
	if stopped != "" {
		killGroup()
		<-done
	}
	// Whatever the child left behind in its group goes too.
	killGroup()
	if left := c.drain(); left != "" {
		if stopped != "" {
			stopped += "; "
		}
		stopped += left
	}
	return stopped, stopErr, err
}

// drain waits for the output pipes to close. A process outside the group
// may still hold them: after a grace period it is found and named, and
// the pipes are closed, so the run ends and nothing escapes.
func (c *child) drain() (left string) {
	g := time.NewTimer(grace)
	defer g.Stop()
	for _, ch := range []chan struct{}{c.outDone, c.errDone} {
		select {
		case <-ch:
		case <-g.C:
			left = leftBehind(c.pipes.outR, c.pipes.errR)
			c.pipes.outR.Close()
			c.pipes.errR.Close()
			<-c.outDone
			<-c.errDone
		}
	}
	return left
}

// Unavailable reports whether err is a run whose probe said that this
// machine cannot measure the combination at all (probe.NotAvailable), and
// why: a result to record, not a failure.
func Unavailable(err error) (reason string, ok bool) {
	if ue, ok := errors.AsType[*probe.UnavailableError](err); ok {
		return ue.Reason, true
	}
	return "", false
}

// decode reads the child's one JSON object: its values, checked against
// the probe's metrics, or the probe's own error.
func decode(p probe.Probe, data []byte) (*childOutput, error) {
	var out childOutput
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("child printed no valid result (%v)", err)
	}
	if dec.More() {
		return nil, errors.New("child printed more than one result")
	}
	if out.Unavailable != "" {
		return nil, &probe.UnavailableError{Reason: out.Unavailable}
	}
	if out.Error != "" {
		return nil, errors.New(out.Error)
	}
	if err := p.CheckValues(out.Values); err != nil {
		return nil, err
	}
	for name, xs := range out.Kept {
		if !slices.ContainsFunc(p.Metrics, func(m probe.Metric) bool { return m.Of == name }) {
			return nil, fmt.Errorf("probe %s kept values of %q, which no metric takes its quantiles of", p.Name, name)
		}
		if len(xs) > probe.MaxKept || slices.ContainsFunc(xs, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }) {
			return nil, fmt.Errorf("probe %s kept more than %d values of %q, or one that is not a number", p.Name, probe.MaxKept, name)
		}
	}
	return &out, nil
}

// killHint explains a child killed by a signal nobody here sent: SIGKILL
// from outside is, most often, the kernel's OOM killer.
func killHint(ps *os.ProcessState, oomBefore int64) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		return ""
	}
	if after := oomKills(); oomBefore >= 0 && after > oomBefore {
		return fmt.Sprintf(" (out of memory: the kernel's OOM killer killed it; this cgroup's oom_kill count went from %d to %d)", oomBefore, after)
	}
	return " (SIGKILL from outside: most often the kernel's OOM killer, the machine or its cgroup ran out of memory; `dmesg` or the cgroup's memory.events says)"
}

var tooLarge = fmt.Sprintf("result too large: the child printed more than %d MiB on stdout (the run was stopped there); a probe prints nothing there itself", MaxResult>>20)

type childOutput struct {
	Values probe.Values `json:"values,omitempty"`
	Error  string       `json:"error,omitempty"`
	// Unavailable is the reason the probe cannot measure the combination
	// on this machine (probe.NotAvailable), set instead of Values.
	Unavailable string `json:"unavailable,omitempty"`
	// Elapsed is how long the probe's Run took, in ns: what sizing a
	// count from a target run time (RunTime) goes by.
	Elapsed int64 `json:"elapsed_ns,omitempty"`
	// Kept is what the run kept of its per-call values (probe.Keep).
	Kept probe.Kept `json:"kept,omitempty"`
}

// Child is the child side: args are what follows ChildVerb (probe name,
// params as JSON). It prints one JSON object on stdout and returns the exit
// code. A probe error is reported in the JSON with exit code 0, so the
// parent can tell a clean failure ("cannot raise RLIMIT_NOFILE") from a crash.
//
// With the one argument identifyArg it prints its identity instead (the
// Go release, module versions and probe hashes Light compares).
//
// A process started by a run as its probe's helper (probe.HelperCommand:
// the same arguments, probe.HelperEnv naming the probe) enters here too
// and runs the probe's Helper, which ends the process.
func Child(args []string, all []probe.Probe, stdout, stderr io.Writer) int {
	if name, ok := os.LookupEnv(probe.HelperEnv); ok {
		if p, _ := probe.Lookup(all, name); p.Helper != nil {
			p.Helper()
		}
		fmt.Fprintf(stderr, "%s=%q: no probe with a helper of that name\n", probe.HelperEnv, name)
		return 2
	}
	if len(args) == 1 && args[0] == identifyArg {
		if err := json.NewEncoder(stdout).Encode(identify(all)); err != nil {
			fmt.Fprintf(stderr, "cannot print the identity: %v\n", err)
			return 1
		}
		return 0
	}
	watchParent()
	if len(args) != 2 {
		fmt.Fprintf(stderr, "usage: %s PROBE PARAMS-JSON\n", ChildVerb)
		return 2
	}
	p, _ := probe.Lookup(all, args[0])
	if p.Run == nil {
		fmt.Fprintf(stderr, "unknown probe %q\n", args[0])
		return 2
	}
	var given map[string]string
	if err := json.Unmarshal([]byte(args[1]), &given); err != nil {
		fmt.Fprintf(stderr, "bad params: %v\n", err)
		return 2
	}
	params, err := p.Resolve(given)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	var out childOutput
	ctx, kept := probe.WithKept(probe.InOwnProcess(context.Background()))
	start := time.Now()
	out.Values, err = p.Run(ctx, params)
	elapsed := time.Since(start)
	if err == nil {
		err = finite(out.Values)
	}
	switch reason, ok := Unavailable(err); {
	case ok:
		out = childOutput{Unavailable: reason}
	case err != nil:
		out = childOutput{Error: err.Error()}
	case len(kept) > 0:
		out.Kept = kept
	}
	out.Elapsed = elapsed.Nanoseconds()
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		fmt.Fprintf(stderr, "cannot print the result: %v\n", err)
		return 1
	}
	return 0
}

// lifelineEnv names the file descriptor of the child's lifeline.
const lifelineEnv = "MEASUREDBOOK_LIFELINE_FD"

// watchParent, in a child started by Run, kills the child's process group
// (itself and anything it started) when the parent's end of the lifeline
// closes: the parent is gone and nobody would read the result.
func watchParent() {
	fd, err := strconv.Atoi(os.Getenv(lifelineEnv))
	if err != nil || fd < 3 {
		return
	}
	os.Unsetenv(lifelineEnv)
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "lifeline")
	// SIGTERM is what Pdeathsig sends (see dieWithParent); the runner
	// itself only ever sends SIGKILL.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	gone := make(chan struct{})
	go func() {
		io.Copy(io.Discard, f)
		close(gone)
	}()
	go func() {
		select {
		case <-gone:
		case <-term:
		}
		syscall.Kill(0, syscall.SIGKILL)
	}()
}

// finite reports a metric that is NaN or infinite (JSON cannot carry it,
// and no measurement is either) as the probe's failure, naming it.
func finite(v probe.Values) error {
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if math.IsNaN(v[k]) || math.IsInf(v[k], 0) {
			return fmt.Errorf("metric %q is %v, not a measurement", k, v[k])
		}
	}
	return nil
}

// Measure runs every combination runs times. Runs are interleaved (run 1
// of every combination, then run 2, …) so that a slow drift of the machine
// spreads over all combinations instead of biasing one. Failed runs are
// collected per combination; a combination keeps only complete data. A
// combination the probe says this machine cannot measure at all
// (probe.NotAvailable) is run once, not runs times, and returned in
// unavailable with the probe's reason.
func (r *Runner) Measure(ctx context.Context, p probe.Probe, combos []probe.Params, runs int, progress func(done, total int, params probe.Params)) (rows []dataset.Row, unavailable []dataset.Unavailable, failed []*RunError) {
	more := func(round int, _ []dataset.Row) (bool, int) { return round < runs, runs }
	return r.MeasureUntil(ctx, p, combos, more, progress)
}

// MeasureUntil is Measure with the number of rounds left to more: before
// each round (a run of every combination) it is handed the rounds done
// and the rows measured so far (the combinations still being measured) and
// says whether to do another, and how many rounds it now expects in all
// (for progress). A combination with a count given as probe.Auto is sized
// before its first run (see size), and its row's params are the counts
// it ran with.
func (r *Runner) MeasureUntil(ctx context.Context, p probe.Probe, combos []probe.Params, more func(round int, rows []dataset.Row) (bool, int), progress func(done, total int, params probe.Params)) (rows []dataset.Row, unavailable []dataset.Unavailable, failed []*RunError) {
	m := &measurement{p: p, combos: make([]combo, len(combos))}
	for i, c := range combos {
		m.combos[i].row.Params = c
	}
	for round := 0; ctx.Err() == nil; round++ {
		again, rounds := more(round, m.live())
		if !again {
			break
		}
		total := max(rounds, round+1) * len(combos)
		for i := range m.combos {
			c := &m.combos[i]
			if !c.live() || ctx.Err() != nil {
				continue
			}
			if progress != nil {
				progress(round*len(combos)+i+1, total, c.row.Params)
			}
			m.run(ctx, r, c, round == 0)
		}
		if len(m.live()) == 0 {
			break
		}
	}
	return m.results(ctx)
}

// measurement is MeasureUntil's state: the probe and a combo per
// combination.
type measurement struct {
	p      probe.Probe
	combos []combo
}

// combo is one combination's row (its params as sized), and why it left
// the rounds: a failed run (bad), or the machine cannot measure it (gone).
type combo struct {
	row  dataset.Row
	bad  *RunError
	gone string
}

func (c *combo) live() bool { return c.bad == nil && c.gone == "" }

// live is the rows of the combinations still being measured.
func (m *measurement) live() []dataset.Row {
	var out []dataset.Row
	for _, c := range m.combos {
		if c.live() {
			out = append(out, c.row)
		}
	}
	return out
}

// run does one run of combination c, sized first when first, and adds its
// values to the row, or records why the combination leaves.
func (m *measurement) run(ctx context.Context, r *Runner, c *combo, first bool) {
	params := c.row.Params
	var err error
	if first {
		if params, err = r.size(ctx, m.p, params); err == nil {
			c.row.Params = params
		}
	}
	var out *childOutput
	if err == nil {
		out, err = r.run(ctx, m.p, params)
	}
	if reason, ok := Unavailable(err); ok {
		c.gone = reason
		return
	}
	if err != nil {
		if !errors.As(err, &c.bad) {
			c.bad = &RunError{Probe: m.p.Name, Params: params, Cause: err.Error()}
		}
		return
	}
	c.row.Runs = append(c.row.Runs, out.Values)
	for name, xs := range out.Kept {
		if c.row.Kept == nil {
			c.row.Kept = probe.Kept{}
		}
		c.row.Kept[name] = append(c.row.Kept[name], xs...)
	}
}

// results sorts the rows into those measured, those the machine cannot
// measure and those that failed (all of them when ctx was interrupted).
func (m *measurement) results(ctx context.Context) (ok []dataset.Row, unavailable []dataset.Unavailable, failed []*RunError) {
	for _, c := range m.combos {
		switch {
		case c.bad != nil:
			failed = append(failed, c.bad)
		case c.gone != "":
			unavailable = append(unavailable, dataset.Unavailable{Params: c.row.Params, Reason: c.gone})
		case ctx.Err() != nil:
			failed = append(failed, &RunError{Probe: m.p.Name, Params: c.row.Params, Cause: "interrupted", Err: ctx.Err()})
		default:
			ok = append(ok, c.row)
		}
	}
	return ok, unavailable, failed
}

// capped keeps what a child prints on stdout up to MaxResult bytes and
// closes over when it prints more.
type capped struct {
	n    int
	buf  bytes.Buffer
	over chan struct{}
}

// fill reads r until EOF or until more than MaxResult bytes came.
func (c *capped) fill(r io.Reader) {
	b := make([]byte, 32<<10)
	for {
		k, err := r.Read(b)
		c.n += k
		if c.n > MaxResult {
			close(c.over)
			return
		}
		c.buf.Write(b[:k])
		if err != nil {
			return
		}
	}
}

// headTail keeps the first and the last stderrKeep bytes written, so a
// probe that floods stderr cannot eat the parent's memory, and neither the
// signal line at the start of a crash nor the panic at its end is lost.
type headTail struct {
	head, tail []byte
	dropped    int64
}

func (h *headTail) Write(b []byte) (int, error) {
	n := len(b)
	if room := stderrKeep - len(h.head); room > 0 {
		k := min(room, len(b))
		h.head = append(h.head, b[:k]...)
		b = b[k:]
	}
	h.tail = append(h.tail, b...)
	if over := len(h.tail) - stderrKeep; over > 0 {
		h.dropped += int64(over)
		h.tail = append(h.tail[:0], h.tail[over:]...)
	}
	return n, nil
}

func (h *headTail) String() string {
	if h.dropped > 0 {
		return fmt.Sprintf("%s\n… (%d bytes) …\n%s", h.head, h.dropped, h.tail)
	}
	return string(h.head) + string(h.tail)
}

// crashSummary picks the lines of a child's stderr that say why it died:
// the runtime's "panic:", "fatal error:" or signal line ("SIGABRT: abort")
// and any "runtime:" lines (e.g. "runtime: failed to create new OS
// thread"), in order, not the goroutine dumps or register lines after
// them; else the last few lines.
func crashSummary(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	var why []string
	for _, l := range lines {
		if meaningful(l) && !slices.Contains(why, l) {
			why = append(why, l)
		}
	}
	if len(why) == 0 {
		why = lines[max(0, len(lines)-4):]
	}
	return strings.Join(why[:min(4, len(why))], " | ")
}

// meaningful reports a line in which the Go runtime says why a process
// died.
func meaningful(l string) bool {
	prefixes := []string{"panic: ", "fatal error: ", "runtime: ", "[signal "}
	if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(l, p) }) {
		return true
	}
	// "SIGABRT: abort", "SIGSEGV: segmentation violation", …
	name, _, ok := strings.Cut(l, ": ")
	return ok && len(name) > 3 && strings.HasPrefix(name, "SIG") && strings.ToUpper(name) == name && !strings.Contains(name, " ")
}
