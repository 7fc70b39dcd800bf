// Package probe is the contract between the book generator and its measurements.
//
// A Probe describes itself with data (its Spec: params with defaults, metrics
// with units) and measures one run of one parameter combination. The
// generator never calls Run in its own process: every run happens in a fresh
// child process (see package runner), so a probe may raise limits, create
// thousands of threads or crash without harming the build.
package probe

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a parameter value.
type Kind string

const (
	Int      Kind = "int"      // a whole number: 1000
	Float    Kind = "float"    // a real number: 0.5
	String   Kind = "string"   // a word, often one of Choices: epoll
	Duration Kind = "duration" // a Go duration: 500us, 1ms
)

// Unit is a metric's base unit. Values are always stored and exchanged in the
// base unit and scaled only for display (the x/perf habit).
type Unit string

const (
	Seconds Unit = "s" // a duration, in seconds
	Bytes   Unit = "B" // a size, in bytes
	Count   Unit = "1" // a dimensionless count, ratio, flag (1/0) or code
)

// Better says which direction of a metric is an improvement.
type Better int

const (
	Neither Better = iota
	Lower
	Higher
)

// Param declares one parameter of a probe.
type Param struct {
	Name    string
	Kind    Kind
	Default string   // in the same syntax as a value written in a chapter
	Choices []string // for String params: the allowed values, if restricted
	Doc     string
	// Sample marks a count of repetitions within one run (rounds, calls,
	// hand-offs): it sizes the sample, not what is measured, so a figure
	// another set measured with another count is the same figure. A
	// sweep may give it the value Auto: the runner then sizes the count
	// of each combination from a target run time, as go test -benchtime
	// sizes b.N, and records the count it ran.
	Sample bool
	// Max is the largest value an Int param takes (0: none declared): a
	// chapter asking for more is told so before anything runs, and the
	// runner's sizing of an Auto count stops there.
	Max int64
}

// Auto is the value of a Sample param whose count the runner sizes from
// a target run time (runner.Runner.RunTime) instead of taking it as given.
// It never reaches a probe's Run: the runner replaces it with the count.
const Auto = "auto"

// IsAuto reports whether the sweep values vals of a param are Auto.
func IsAuto(vals []string) bool { return len(vals) == 1 && vals[0] == Auto }

// Metric declares one measured value of a probe.
type Metric struct {
	Name   string
	Unit   Unit
	Better Better
	Doc    string
	// Labels names the values of a code metric (Labels[i] is value i), for
	// metrics such as "which limit stopped the thread ceiling".
	Labels []string
	// Optional, when not empty, lets a run leave this metric out of its
	// Values, and says when and why (shown as the reason for the gap): a
	// figure that does not apply to a parameter combination is absent,
	// never a made-up 0. A metric with Optional empty must be in every run.
	Optional string
	// Resolution, when set, is the step below which two values of the
	// metric cannot be told apart: 1 for a count of things (threads,
	// wake-ups) that a run may count one more or one fewer of. A claim or
	// condition comparing such a figure allows for it: within one step,
	// an order is undecided and an equality holds. It says how a figure
	// is read, never what a run measures, so it is no part of the probe's
	// code hash.
	Resolution float64
	// Quantile and Samples, for a metric that is the Quantile-quantile of
	// a run's samples (0.99 for a p99), name the Sample param that counts
	// them: a tail quantile taken from too few samples (fewer than
	// MinTailSamples beyond it) is shown as such. Of, when set, names the
	// samples the run keeps (Keep): the figure is then the quantile of
	// every run's samples pooled, which a p99 needs thousands of. Like
	// Resolution they say how a figure is read, and are no part of the
	// code hash.
	Quantile float64
	Samples  string
	Of       string
}

// MaxKept bounds the values one run keeps of one distribution (Keep):
// more are thinned to MaxKept evenly spaced order statistics, which keeps
// its quantiles and bounds what the child prints.
const MaxKept = 20_000

// Kept is what one run kept (Keep), by name; the runner's child hands Run
// a context that collects it (WithKept).
type Kept map[string][]float64

type keptKey struct{}

// WithKept returns a context in which Keep collects into the returned Kept.
func WithKept(ctx context.Context) (context.Context, Kept) {
	k := Kept{}
	return context.WithValue(ctx, keptKey{}, k), k
}

type ownProcessKey struct{}

// InOwnProcess marks ctx as a run's in a process of its own that ends when
// the run returns (the runner's child).
func InOwnProcess(ctx context.Context) context.Context {
	return context.WithValue(ctx, ownProcessKey{}, true)
}

// OwnProcess reports whether the run of ctx ends with its process, so that
// what it made may be left to the process's end: the kernel reclaims
// 4,000 parked threads at once, where waking each to exit through the Go
// scheduler takes seconds. A test calling Run must undo what it made.
func OwnProcess(ctx context.Context) bool {
	own, _ := ctx.Value(ownProcessKey{}).(bool)
	return own
}

// Keep hands the runner a run's per-call values of the distribution name
// (a metric's Of), so that its quantiles are taken from every run's values
// pooled rather than one run's. Outside a run (a test calling Run) it does
// nothing. xs is not kept beyond the call.
func Keep(ctx context.Context, name string, xs []float64) {
	k, ok := ctx.Value(keptKey{}).(Kept)
	if !ok {
		return
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s) > MaxKept {
		thin := make([]float64, MaxKept)
		for i := range thin {
			thin[i] = s[i*(len(s)-1)/(MaxKept-1)]
		}
		s = thin
	}
	k[name] = s
}

// MinTailSamples is how many of a run's samples must lie beyond a quantile
// for it to mean what it says: a p99 wants 1,000 samples (10 beyond it);
// one from 200 is the second largest.
const MinTailSamples = 10

// ThinTail reports whether the metric, a quantile of n samples per run,
// has fewer than MinTailSamples of them beyond it.
func (m Metric) ThinTail(n int) bool {
	if m.Quantile <= 0 || m.Quantile >= 1 || n <= 0 {
		return false
	}
	return float64(n)*min(m.Quantile, 1-m.Quantile) < MinTailSamples
}

// Spec describes a probe.
type Spec struct {
	Name    string // dotted family.name, e.g. "readiness" or "threads.handoff"
	Doc     string // what it measures and how, well enough to redo it in C
	Params  []Param
	Metrics []Metric
	// Timeout bounds one run in its child process; zero means the runner's default.
	Timeout time.Duration
}

// Values are one run's metrics, in base units, keyed by metric name.
type Values map[string]float64

// Probe is a measurement: a Spec plus the function that runs it once.
type Probe struct {
	Spec
	// Run measures one run of one parameter combination. It runs in a child
	// process of its own; it must be bounded in time, threads and fds. A
	// combination this platform cannot measure returns NotAvailable's error
	// (possibly wrapped): a result with a reason, not a failure.
	Run func(ctx context.Context, p Params) (Values, error)
	// Sources are the probe's own package source and that of the helpers it
	// measures with (embed.FS of their *.go files); their hash (package
	// codehash) decides whether a stored result is stale.
	Sources []fs.FS
	// Helper, when set, is the body of a helper process the probe starts
	// during a run (HelperCommand): a process of its own for what cannot
	// happen in the run's process (threads.ceiling's grandchild, which
	// dies when the kernel refuses a thread). It never returns.
	Helper func()
}

// UnavailableError is what Run returns for a combination this platform
// cannot measure at all: kqueue on Linux, epoll on macOS, a probe built on
// Linux's futex(2) or /proc on macOS. It is a result, not a failure: the
// runner records the combination as not available, with Reason as the
// reason the page shows in its place, and runs it no more.
type UnavailableError struct {
	Reason string // "kqueue is not available on linux"
}

func (e *UnavailableError) Error() string { return e.Reason }

// NotAvailable is the UnavailableError saying that what ("kqueue", a
// probe's name, a kernel interface) is not available on this platform
// (runtime.GOOS), and, when why is not empty, why: "threads.park is not
// available on darwin: it parks threads with Linux's futex(2)". Every probe
// words it so, so that the book's gaps read alike.
func NotAvailable(what, why string) error {
	return notAvailableOn(runtime.GOOS, what, why)
}

func notAvailableOn(goos, what, why string) error {
	reason := what + " is not available on " + goos
	if why != "" {
		reason += ": " + why
	}
	return &UnavailableError{Reason: reason}
}

// Lookup returns the probe of the registry all with the given name.
func Lookup(all []Probe, name string) (Probe, bool) {
	for _, p := range all {
		if p.Name == name {
			return p, true
		}
	}
	return Probe{}, false
}

// HelperEnv, set in a process's environment to a probe's name, makes the
// runner's child entry run that probe's Helper instead of a run.
const HelperEnv = "MBOOK_PROBE_HELPER"

// HelperCommand returns the command that starts this binary again, with
// the arguments it was started with, as the helper of the named probe: it
// enters through the same child entry point as the run that calls it,
// which sees HelperEnv and runs the probe's Helper.
func HelperCommand(ctx context.Context, name string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding own executable to start probe %s's helper: %w", name, err)
	}
	cmd := exec.CommandContext(ctx, exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), HelperEnv+"="+name)
	return cmd, nil
}

// CheckValues checks one run's values against the declared metrics: every
// metric that is not Optional is there, and nothing undeclared is.
func (s *Spec) CheckValues(v Values) error {
	for _, m := range s.Metrics {
		if _, ok := v[m.Name]; !ok && m.Optional == "" {
			return fmt.Errorf("probe %s did not report metric %q", s.Name, m.Name)
		}
	}
	for name := range v {
		if _, ok := s.Metric(name); !ok {
			return fmt.Errorf("probe %s reported metric %q, which it does not declare", s.Name, name)
		}
	}
	return nil
}

// Param returns the named param's declaration.
func (s *Spec) Param(name string) (Param, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// Metric returns the named metric's declaration.
func (s *Spec) Metric(name string) (Metric, bool) {
	for _, m := range s.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Params are one parameter combination: every declared param, by name, in
// canonical text form (see Canonical).
type Params map[string]string

// Int returns an Int param. Params are validated before Run is called, so a
// malformed value is a programming error and panics.
func (p Params) Int(name string) int {
	v, err := strconv.Atoi(p.must(name))
	if err != nil {
		panic(err)
	}
	return v
}

// Duration returns a Duration param.
func (p Params) Duration(name string) time.Duration {
	v, err := time.ParseDuration(p.must(name))
	if err != nil {
		panic(err)
	}
	return v
}

// String returns a String param.
func (p Params) String(name string) string { return p.must(name) }

func (p Params) must(name string) string {
	v, ok := p[name]
	if !ok {
		panic(fmt.Sprintf("probe param %q not set", name))
	}
	return v
}

// Key is the params in a stable order, "k=v/k=v", as in a benchmark name.
func (p Params) Key() string {
	parts := make([]string, 0, len(p))
	for _, k := range slices.Sorted(maps.Keys(p)) {
		parts = append(parts, k+"="+p[k])
	}
	return strings.Join(parts, "/")
}

// Canonical checks a value against a param's kind and returns its canonical
// text: integers without leading zeros or separators, floats in shortest
// form, durations as Go prints them (500µs), strings as they are. Two values
// that mean the same have the same canonical form, so results match.
func Canonical(p Param, v string) (string, error) {
	v = strings.TrimSpace(v)
	switch p.Kind {
	case Int:
		n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
		if err != nil {
			return "", fmt.Errorf("param %s wants a whole number, got %q", p.Name, v)
		}
		if p.Max > 0 && n > p.Max {
			return "", fmt.Errorf("param %s takes at most %d, got %d", p.Name, p.Max, n)
		}
		return strconv.FormatInt(n, 10), nil
	case Float:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "", fmt.Errorf("param %s wants a number, got %q", p.Name, v)
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case Duration:
		d, err := time.ParseDuration(strings.ReplaceAll(v, "μ", "µ"))
		if err != nil || d < 0 {
			return "", fmt.Errorf("param %s wants a duration of 0 or more such as 500us or 1ms, got %q", p.Name, v)
		}
		return d.String(), nil
	case String:
		if v == "" || strings.ContainsAny(v, "/= \t") {
			return "", fmt.Errorf("param %s wants a word without '/', '=' or spaces, got %q", p.Name, v)
		}
		if len(p.Choices) > 0 && !slices.Contains(p.Choices, v) {
			return "", fmt.Errorf("param %s wants one of %s, got %q", p.Name, strings.Join(p.Choices, ", "), v)
		}
		return v, nil
	}
	return "", fmt.Errorf("param %s has unknown kind %q", p.Name, p.Kind)
}

// Resolve fills the defaults of every param not given and canonicalises all
// values. Unknown names are an error.
func (s *Spec) Resolve(given map[string]string) (Params, error) {
	out := Params{}
	for name := range given {
		if _, ok := s.Param(name); !ok {
			return nil, fmt.Errorf("probe %s has no param %q", s.Name, name)
		}
	}
	for _, p := range s.Params {
		v, ok := given[p.Name]
		if !ok {
			v = p.Default
		}
		c, err := Canonical(p, v)
		if err != nil {
			return nil, err
		}
		out[p.Name] = c
	}
	return out, nil
}
