// Package runner runs probes the only way the book allows: every run of
// every parameter combination in a fresh child process (this same binary,
// re-executed with the hidden verb ChildVerb), with a timeout. A probe that
// crashes, hangs or fails becomes an error naming the probe, its params and
// the cause (the tail of its stderr); it never takes the build down.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"measuredbook/probe"
)

// ChildVerb is the hidden first argument that makes the binary run one
// probe run and print its values as JSON.
const ChildVerb = "__probe"

// DefaultTimeout bounds one run when neither the probe nor the experiment
// says otherwise.
const DefaultTimeout = 60 * time.Second

// Runner starts child processes of Exe (normally os.Executable()).
type Runner struct {
	Exe     string
	Timeout time.Duration // per run; overrides the probe's own when set
}

// New returns a runner that re-executes the running binary.
func New() (*Runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this binary to re-execute it for probes: %w", err)
	}
	return &Runner{Exe: exe}, nil
}

// RunError is a failed run: which probe, which params, and why.
type RunError struct {
	Probe  string
	Params probe.Params
	Cause  string
}

func (e *RunError) Error() string {
	return fmt.Sprintf("probe %s [%s]: %s", e.Probe, e.Params.Key(), e.Cause)
}

// Run measures one run of p with params in a child process.
func (r *Runner) Run(ctx context.Context, p probe.Probe, params probe.Params) (probe.Values, error) {
	timeout := r.Timeout
	if timeout == 0 {
		timeout = p.Timeout
	}
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	arg, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(r.Exe, ChildVerb, p.Name, string(arg))
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &tail{max: 4096, buf: &stderr}
	// Its own process group, so a timeout also kills any grandchild the
	// probe started (the thread-ceiling probe does).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	fail := func(format string, a ...any) error {
		cause := fmt.Sprintf(format, a...)
		if s := strings.TrimSpace(stderr.String()); s != "" {
			cause += ": " + crashSummary(s)
		}
		return &RunError{Probe: p.Name, Params: params, Cause: cause}
	}
	if err := cmd.Start(); err != nil {
		return nil, fail("cannot start child: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return nil, fail("timed out after %v (killed)", timeout)
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return nil, fail("interrupted: %v", ctx.Err())
	}
	// Whatever the child left behind in its group goes too.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fail("child %s", exit.ProcessState.String())
		}
		return nil, fail("child: %v", err)
	}
	var out childOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fail("child printed no result (%v)", err)
	}
	if out.Error != "" {
		return nil, &RunError{Probe: p.Name, Params: params, Cause: out.Error}
	}
	for _, m := range p.Metrics {
		if _, ok := out.Values[m.Name]; !ok && m.Optional == "" {
			return nil, fail("child did not report metric %q", m.Name)
		}
	}
	return out.Values, nil
}

type childOutput struct {
	Values probe.Values `json:"values,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// Child is the child side: args are what follows ChildVerb (probe name,
// params as JSON). It prints one JSON object on stdout and returns the exit
// code. A probe error is reported in the JSON with exit code 0, so the
// parent can tell a clean failure ("cannot raise RLIMIT_NOFILE") from a crash.
func Child(args []string, all []probe.Probe, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintf(stderr, "usage: %s PROBE PARAMS-JSON\n", ChildVerb)
		return 2
	}
	var p probe.Probe
	for _, q := range all {
		if q.Name == args[0] {
			p = q
		}
	}
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
	out.Values, err = p.Run(context.Background(), params)
	if err != nil {
		out = childOutput{Error: err.Error()}
	}
	json.NewEncoder(stdout).Encode(out)
	return 0
}

// Measure runs every combination runs times. Runs are interleaved (run 1
// of every combination, then run 2, …) so that a slow drift of the machine
// spreads over all combinations instead of biasing one. Failed runs are
// collected per combination; a combination keeps only complete data.
func (r *Runner) Measure(ctx context.Context, p probe.Probe, combos []probe.Params, runs int, progress func(done, total int, params probe.Params)) (rows []Rows, failed []*RunError) {
	rows = make([]Rows, len(combos))
	for i, c := range combos {
		rows[i].Params = c
	}
	bad := make([]*RunError, len(combos))
	total, done := runs*len(combos), 0
	for run := 0; run < runs; run++ {
		for i, c := range combos {
			done++
			if bad[i] != nil || ctx.Err() != nil {
				continue
			}
			if progress != nil {
				progress(done, total, c)
			}
			v, err := r.Run(ctx, p, c)
			if err != nil {
				var re *RunError
				if !errors.As(err, &re) {
					re = &RunError{Probe: p.Name, Params: c, Cause: err.Error()}
				}
				bad[i] = re
				continue
			}
			rows[i].Runs = append(rows[i].Runs, v)
		}
	}
	var ok []Rows
	for i := range rows {
		if bad[i] != nil {
			failed = append(failed, bad[i])
			continue
		}
		if ctx.Err() != nil {
			failed = append(failed, &RunError{Probe: p.Name, Params: rows[i].Params, Cause: "interrupted"})
			continue
		}
		ok = append(ok, rows[i])
	}
	return ok, failed
}

// Rows is one combination's runs (the same shape as store.Row, kept here so
// the runner does not depend on how results are stored).
type Rows struct {
	Params probe.Params
	Runs   []probe.Values
}

// tail keeps the last max bytes written, so a probe that floods stderr
// cannot eat the parent's memory.
type tail struct {
	max int
	buf *bytes.Buffer
}

func (t *tail) Write(b []byte) (int, error) {
	t.buf.Write(b)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(b), nil
}

// crashSummary picks the lines of a child's stderr that say why it died:
// the runtime's "panic:" or "fatal error:" line and any "runtime:" lines
// before it (e.g. "runtime: failed to create new OS thread"), else the last
// few lines.
func crashSummary(s string) string {
	lines := strings.Split(s, "\n")
	var why []string
	for _, l := range lines {
		if strings.HasPrefix(l, "runtime: ") || strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			why = append(why, l)
		}
	}
	if len(why) == 0 {
		why = lines
	}
	if len(why) > 4 {
		why = why[len(why)-4:]
	}
	return strings.Join(why, " | ")
}
