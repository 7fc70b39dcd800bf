package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"measuredbook/dataset"
	"measuredbook/probe"
)

// fakes are probes that succeed, fail cleanly, crash and hang, so the
// runner's handling of each is tested without real measurements.
var fakes = []probe.Probe{
	{Spec: probe.Spec{Name: "ok", Params: []probe.Param{{Name: "n", Kind: probe.Int, Default: "1"}},
		Metrics: []probe.Metric{{Name: "pid", Unit: probe.Count}, {Name: "n", Unit: probe.Count}}},
		Run: func(_ context.Context, p probe.Params) (probe.Values, error) {
			return probe.Values{"pid": float64(os.Getpid()), "n": float64(p.Int("n"))}, nil
		}},
	{Spec: probe.Spec{Name: "fails", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			return nil, errors.New("cannot raise RLIMIT_NOFILE")
		}},
	{Spec: probe.Spec{Name: "crashes", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			var m map[string]int
			m["boom"] = 1 // a nil map write: the child panics
			return nil, nil
		}},
	{Spec: probe.Spec{Name: "absent", Params: []probe.Param{{Name: "api", Kind: probe.String, Default: "poll"}},
		Metrics: []probe.Metric{{Name: "pid", Unit: probe.Count}}},
		Run: func(_ context.Context, p probe.Params) (probe.Values, error) {
			if api := p.String("api"); api != "poll" {
				return nil, fmt.Errorf("wrapped: %w", probe.NotAvailable(api, ""))
			}
			return probe.Values{"pid": float64(os.Getpid())}, nil
		}},
	{Spec: probe.Spec{Name: "hangs", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			if f := os.Getenv(pidFileEnv); f != "" {
				os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
			}
			time.Sleep(time.Hour)
			return nil, nil
		}},
}

// sized has a count to size: its sample lasts at least n × 100 µs, after
// a setup of setup ms.
var sized = probe.Probe{Spec: probe.Spec{Name: "sized", Params: []probe.Param{{Name: "api", Kind: probe.String, Default: "poll"}, {Name: "n", Kind: probe.Int, Default: "1", Sample: true},
	{Name: "setup", Kind: probe.Int, Default: "5"}},
	Metrics: []probe.Metric{{Name: "n", Unit: probe.Count}}},
	Run: func(_ context.Context, p probe.Params) (probe.Values, error) {
		if api := p.String("api"); api != "poll" {
			return nil, probe.NotAvailable(api, "")
		}
		time.Sleep(time.Duration(p.Int("setup"))*time.Millisecond + time.Duration(p.Int("n"))*100*time.Microsecond)
		return probe.Values{"n": float64(p.Int("n"))}, nil
	}}

// own reports whether its run has a process of its own (probe.OwnProcess).
var own = probe.Probe{Spec: probe.Spec{Name: "own", Metrics: []probe.Metric{{Name: "own", Unit: probe.Count}}},
	Run: func(ctx context.Context, _ probe.Params) (probe.Values, error) {
		if probe.OwnProcess(ctx) {
			return probe.Values{"own": 1}, nil
		}
		return probe.Values{"own": 0}, nil
	}}

// keeps keeps n values of its distribution "w" per run, and claims one it
// has no metric for when n is 0.
var keeps = probe.Probe{Spec: probe.Spec{Name: "keeps", Params: []probe.Param{{Name: "n", Kind: probe.Int, Default: "3"}},
	Metrics: []probe.Metric{{Name: "p50", Unit: probe.Count, Quantile: 0.5, Of: "w"}}},
	Run: func(ctx context.Context, p probe.Params) (probe.Values, error) {
		n := p.Int("n")
		if n == 0 {
			probe.Keep(ctx, "stray", []float64{1})
			return probe.Values{"p50": 0}, nil
		}
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(os.Getpid()%1000 + i)
		}
		probe.Keep(ctx, "w", xs)
		return probe.Values{"p50": xs[n/2]}, nil
	}}

// family starts a grandchild in its own process group, writes both pids
// to the pid file and hangs.
var family = probe.Probe{Spec: probe.Spec{Name: "family", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
	Run: func(context.Context, probe.Params) (probe.Values, error) {
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		os.WriteFile(os.Getenv(pidFileEnv), []byte(fmt.Sprintf("%d %d", os.Getpid(), cmd.Process.Pid)), 0o644)
		time.Sleep(time.Hour)
		return nil, nil
	}}

// faulty are probes that misbehave the ways a probe can: they exist only
// in this test, never in the probes registry.
var faulty = []probe.Probe{
	{Spec: probe.Spec{Name: "floods", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			junk := bytes.Repeat([]byte("x"), 1<<20)
			for range 64 { // 64 MiB, far past MaxResult
				if _, err := os.Stdout.Write(junk); err != nil {
					break
				}
			}
			return probe.Values{"x": 1}, nil
		}},
	{Spec: probe.Spec{Name: "overflows", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			// Just past the bound, then a clean exit: the parent may see
			// the exit before the flood.
			os.Stdout.Write(bytes.Repeat([]byte(" "), MaxResult+10))
			return probe.Values{"x": 1}, nil
		}},
	{Spec: probe.Spec{Name: "escapes", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			// A grandchild in a session of its own, holding stdout and stderr.
			cmd := exec.Command("sleep", "300")
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			return probe.Values{"x": 1}, nil
		}},
	{Spec: probe.Spec{Name: "escapes-and-hangs", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			cmd := exec.Command("sleep", "300")
			cmd.Stdout = os.Stdout
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			time.Sleep(time.Hour)
			return nil, nil
		}},
	{Spec: probe.Spec{Name: "nan", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}, {Name: "y", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			return probe.Values{"x": math.NaN(), "y": math.Inf(1)}, nil
		}},
	{Spec: probe.Spec{Name: "aborts", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			syscall.Kill(os.Getpid(), syscall.SIGABRT)
			time.Sleep(time.Minute)
			return nil, nil
		}},
	{Spec: probe.Spec{Name: "silent", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			os.Exit(0)
			return nil, nil
		}},
	{Spec: probe.Spec{Name: "killed", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			// What the OOM killer does to a process.
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute)
			return nil, nil
		}},
	{Spec: probe.Spec{Name: "shouts", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			line := append(bytes.Repeat([]byte("noise "), 1000), '\n')
			for range 4000 { // 24 MB of stderr, then a panic
				os.Stderr.Write(line)
			}
			panic("the real cause")
		}},
	{Spec: probe.Spec{Name: "optional", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}, {Name: "y", Unit: probe.Count, Optional: "only for some params"}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			return probe.Values{"x": 1}, nil
		}},
	{Spec: probe.Spec{Name: "invents", Metrics: []probe.Metric{{Name: "x", Unit: probe.Count}}},
		Run: func(context.Context, probe.Params) (probe.Values, error) {
			return probe.Values{"x": 1, "z": 2}, nil
		}},
}

// pidFileEnv names a file the hanging probe writes its pid to.
const pidFileEnv = "RUNNER_TEST_PIDFILE"

// parentEnv makes the test binary a parent that runs the hanging probe and
// waits, so that a test can kill that parent.
const parentEnv = "RUNNER_TEST_PARENT"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ChildVerb {
		os.Exit(Child(os.Args[2:], append(append(fakes, faulty...), family, helped, sized, keeps, own), os.Stdout, os.Stderr))
	}
	if os.Getenv(parentEnv) != "" {
		r, err := New()
		if err != nil {
			panic(err)
		}
		r.Timeout = time.Hour
		r.Run(context.Background(), family, probe.Params{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runner(t *testing.T) *Runner {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	r.Timeout = 2 * time.Second
	return r
}

func TestRunInChildProcess(t *testing.T) {
	v, err := runner(t).Run(context.Background(), fakes[0], probe.Params{"n": "7"})
	if err != nil {
		t.Fatal(err)
	}
	if v["n"] != 7 {
		t.Errorf("n = %v, want 7", v["n"])
	}
	if int(v["pid"]) == os.Getpid() {
		t.Error("the probe ran in the test's own process, not a child")
	}
}

// helped starts its helper, a process of its own entered through Child,
// and reports the helper's pid and what it printed.
var helped = probe.Probe{
	Spec: probe.Spec{Name: "helped", Metrics: []probe.Metric{{Name: "pid", Unit: probe.Count}, {Name: "helper_pid", Unit: probe.Count}}},
	Run: func(ctx context.Context, _ probe.Params) (probe.Values, error) {
		cmd, err := probe.HelperCommand(ctx, "helped")
		if err != nil {
			return nil, err
		}
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("helper: %v", err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			return nil, fmt.Errorf("helper printed %q", out)
		}
		return probe.Values{"pid": float64(os.Getpid()), "helper_pid": float64(pid)}, nil
	},
	Helper: func() {
		fmt.Println(os.Getpid())
		os.Exit(0)
	},
}

// TestHelperEntersThroughChild: a probe's helper process is the binary
// started again through the child entry point, which runs the helper, not
// another run of the probe.
func TestHelperEntersThroughChild(t *testing.T) {
	v, err := runner(t).Run(context.Background(), helped, probe.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if v["helper_pid"] == 0 || v["helper_pid"] == v["pid"] || int(v["helper_pid"]) == os.Getpid() {
		t.Errorf("helper pid %v, run pid %v, test pid %d: want a process of the helper's own", v["helper_pid"], v["pid"], os.Getpid())
	}
	t.Setenv(probe.HelperEnv, "nope")
	var stderr bytes.Buffer
	if code := Child(nil, []probe.Probe{helped}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "no probe with a helper") {
		t.Errorf("an unknown helper: exit %d, %q", code, stderr.String())
	}
}

func TestFailuresAreReportedNotFatal(t *testing.T) {
	for _, tc := range []struct {
		probe int
		want  string
	}{
		{1, "cannot raise RLIMIT_NOFILE"},
		{2, "assignment to entry in nil map"},
		{4, "timed out after 2s"},
	} {
		p := fakes[tc.probe]
		_, err := runner(t).Run(context.Background(), p, probe.Params{})
		var re *RunError
		if !errors.As(err, &re) {
			t.Fatalf("%s: err = %v, want a *RunError", p.Name, err)
		}
		if re.Probe != p.Name || !strings.Contains(re.Cause, tc.want) {
			t.Errorf("%s: %v, want probe named and cause containing %q", p.Name, err, tc.want)
		}
	}
}

func TestMeasureKeepsGoodCombinations(t *testing.T) {
	r := runner(t)
	rows, unavailable, failed := r.Measure(context.Background(), fakes[0],
		[]probe.Params{{"n": "1"}, {"n": "2"}}, 3, nil)
	if len(failed) != 0 || len(unavailable) != 0 || len(rows) != 2 {
		t.Fatalf("rows %d unavailable %v failed %v", len(rows), unavailable, failed)
	}
	for _, row := range rows {
		if len(row.Runs) != 3 {
			t.Errorf("%v: %d runs, want 3", row.Params, len(row.Runs))
		}
		pids := map[float64]bool{}
		for _, run := range row.Runs {
			pids[run["pid"]] = true
		}
		if len(pids) != 3 {
			t.Errorf("%v: runs shared a process (%d distinct pids)", row.Params, len(pids))
		}
	}
	_, _, failed = r.Measure(context.Background(), fakes[1], []probe.Params{{}}, 2, nil)
	if len(failed) != 1 {
		t.Errorf("failing probe: %d failures, want 1", len(failed))
	}
}

// A combination the probe cannot measure on this machine is a result with
// its reason, asked once, and never a failure; the others are measured.
func TestMeasureRecordsUnavailable(t *testing.T) {
	runs := 0
	rows, unavailable, failed := runner(t).Measure(context.Background(), fakes[3],
		[]probe.Params{{"api": "poll"}, {"api": "kqueue"}}, 3, func(int, int, probe.Params) { runs++ })
	if len(failed) != 0 || len(rows) != 1 || len(rows[0].Runs) != 3 {
		t.Fatalf("rows %v failed %v, want poll's 3 runs and no failure", rows, failed)
	}
	want := []dataset.Unavailable{{Params: probe.Params{"api": "kqueue"}, Reason: "kqueue is not available on " + runtime.GOOS}}
	if !reflect.DeepEqual(unavailable, want) {
		t.Errorf("unavailable = %v, want %v", unavailable, want)
	}
	if runs != 4 {
		t.Errorf("%d runs started, want 4 (3 of poll, 1 of kqueue)", runs)
	}
}

// A count given as auto is sized before the first run, never reaches the
// probe as "auto", and the row records the count it ran with: one past
// the count whose sample already lasts RunTime, in a 1-2-3-5 step.
func TestMeasureSizesAutoCounts(t *testing.T) {
	r := runner(t)
	r.RunTime = 20 * time.Millisecond
	rows, unavailable, failed := r.Measure(context.Background(), sized,
		[]probe.Params{{"api": "poll", "n": probe.Auto, "setup": "5"}, {"api": "kqueue", "n": probe.Auto, "setup": "5"}}, 2, nil)
	if len(failed) != 0 || len(rows) != 1 || len(unavailable) != 1 {
		t.Fatalf("rows %v unavailable %v failed %v", rows, unavailable, failed)
	}
	n, err := strconv.Atoi(rows[0].Params["n"])
	if err != nil {
		t.Fatalf("row params %v: the count is not a number", rows[0].Params)
	}
	// n × 100 µs ≥ 20 ms at n = 200: a smaller count's sample is shorter
	// than the target however loaded the machine (sleeps only overrun).
	if n < 200 || roundUp(n) != n {
		t.Errorf("sized n = %d, want a 1-2-3-5 step of at least 200", n)
	}
	for _, run := range rows[0].Runs {
		if run["n"] != float64(n) {
			t.Errorf("a run measured n = %v, the row says %d", run["n"], n)
		}
	}
}

// A run in the runner's child may leave what it made to the process's end;
// a run called in-process may not.
func TestTheChildsRunOwnsItsProcess(t *testing.T) {
	v, err := runner(t).Run(context.Background(), own, probe.Params{})
	if err != nil || v["own"] != 1 {
		t.Errorf("in the child: %v, %v; want own 1", v, err)
	}
	if v, _ := own.Run(context.Background(), probe.Params{}); v["own"] != 0 {
		t.Errorf("in-process: own %v, want 0", v["own"])
	}
}

// A count's Max ends its sizing short of the target run time, so that a
// fast machine is not sized into counts the probe refuses.
func TestSizingStopsAtTheParamsMax(t *testing.T) {
	r := runner(t)
	r.RunTime = 20 * time.Millisecond
	capped := sized
	capped.Params = slices.Clone(sized.Params)
	capped.Params[1].Max = 150 // n × 100 µs = 15 ms < 20 ms
	rows, _, failed := r.Measure(context.Background(), capped, []probe.Params{{"api": "poll", "n": probe.Auto, "setup": "5"}}, 1, nil)
	if len(failed) != 0 || len(rows) != 1 {
		t.Fatalf("rows %v failed %v", rows, failed)
	}
	if n := rows[0].Params["n"]; n != "150" {
		t.Errorf("sized n = %s, want the param's Max, 150", n)
	}
}

// A setup longer than the target run time (10,000 sockets made before
// the first round) is not taken for the sample of a count of 1: the count
// grows until what it adds lasts the target.
func TestSizingLooksPastTheSetup(t *testing.T) {
	r := runner(t)
	r.RunTime = 20 * time.Millisecond
	rows, _, failed := r.Measure(context.Background(), sized, []probe.Params{{"api": "poll", "n": probe.Auto, "setup": "50"}}, 1, nil)
	if len(failed) != 0 || len(rows) != 1 {
		t.Fatalf("rows %v failed %v", rows, failed)
	}
	if n, _ := strconv.Atoi(rows[0].Params["n"]); n < 200 {
		t.Errorf("sized n = %d after a 50 ms setup, want at least 200 (n × 100 µs ≥ 20 ms)", n)
	}
}

// What the runs keep is pooled in the row, every run's; a kept
// distribution no metric takes quantiles of fails the run.
func TestMeasurePoolsKeptValues(t *testing.T) {
	r := runner(t)
	rows, _, failed := r.Measure(context.Background(), keeps, []probe.Params{{"n": "3"}, {"n": "0"}}, 2, nil)
	if len(rows) != 1 || len(failed) != 1 || !strings.Contains(failed[0].Cause, `kept values of "stray"`) {
		t.Fatalf("rows %v, failed %v", rows, failed)
	}
	if w := rows[0].Kept["w"]; len(w) != 6 || len(rows[0].Runs) != 2 {
		t.Errorf("kept %v over %d runs, want 3 values of each of 2 runs", w, len(rows[0].Runs))
	}
}

// A setup whose time spreads from run to run (10,000 sockets: 180–270 ms)
// is not taken for the sample of a count of 2: epoll was once sized to 2
// rounds, whose cold start made its round six times slower.
func TestSizingIsNotFooledByTheSetupsSpread(t *testing.T) {
	var s sizing
	target := 100 * time.Millisecond
	next, done := s.step(1, 200*time.Millisecond, target)
	if done || next != 2 {
		t.Fatalf("after a run of 1 in 200 ms: next %d, done %v; want 2", next, done)
	}
	// 60 ms more for one more round: the setup's spread, not the round.
	if next, done = s.step(2, 260*time.Millisecond, target); done || next != 20 {
		t.Fatalf("after a run of 2 in 260 ms: next %d, done %v; want 20, not done", next, done)
	}
	// 2 µs a round: 200,000 rounds add 400 ms, more than the setup.
	for _, n := range []int{20, 200, 2000, 20000} {
		if next, done = s.step(n, 200*time.Millisecond+time.Duration(n)*2*time.Microsecond, target); done {
			t.Fatalf("done at %d rounds, whose 2 µs each are within the setup's spread", n)
		}
	}
	if next, done = s.step(200000, 600*time.Millisecond, target); !done || next != 200000 {
		t.Errorf("after 200,000 rounds adding 400 ms: next %d, done %v; want 200000, done", next, done)
	}
}

func TestCountSteps(t *testing.T) {
	for n, want := range map[int]int{0: 1, 1: 1, 4: 5, 6: 10, 11: 20, 2001: 3000, 30000: 30000, 30001: 50000} {
		if got := roundUp(n); got != want {
			t.Errorf("roundUp(%d) = %d, want %d", n, got, want)
		}
	}
	// From a run of 1 whose sample took 1 µs, aim at 100 ms: at most 100×.
	if got := nextCount(1, time.Microsecond, 100*time.Millisecond); got != 100 {
		t.Errorf("nextCount grows %d×, want at most %d×", got, maxGrowth)
	}
	// 1,000 in 10 ms → 12,000 for 100 ms (20 % over), stepped to 20,000.
	if got := nextCount(1000, 10*time.Millisecond, 100*time.Millisecond); got != 20000 {
		t.Errorf("nextCount = %d, want 20000", got)
	}
	// 100 in 15 ms and 10,000 in 114 ms: 1 ms of the first was the
	// sample, 14 ms setup; the second's sample is 100 ms.
	if got := sampleTime(100, 15*time.Millisecond, 10000, 114*time.Millisecond); got != 100*time.Millisecond {
		t.Errorf("sampleTime = %v, want 100ms", got)
	}
	if got := sampleTime(100, 15*time.Millisecond, 10000, 14*time.Millisecond); got != 0 {
		t.Errorf("sampleTime of a shorter second run = %v, want 0 (not known)", got)
	}
}

func faultyProbe(t *testing.T, name string) probe.Probe {
	for _, p := range faulty {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no faulty probe %q", name)
	return probe.Probe{}
}

// TestFaultyProbes runs every way a probe can misbehave and checks that
// each is that run's failure, with its real cause, within its timeout.
func TestFaultyProbes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		want     []string
		dontWant string
	}{
		{"floods", []string{"result too large", "1 MiB"}, ""},
		{"overflows", []string{"result too large"}, ""},
		{"escapes", []string{"left behind process", "(sleep)", "killed"}, ""},
		{"escapes-and-hangs", []string{"timed out after 2s (killed)", "left behind process", "(sleep)"}, ""},
		{"nan", []string{`metric "x" is NaN`}, "JSON"},
		{"aborts", []string{"SIGABRT: abort"}, "rax"},
		{"silent", []string{"exited without printing a result"}, "JSON"},
		{"killed", []string{"signal: killed", "OOM killer"}, ""},
		{"shouts", []string{"panic: the real cause"}, ""},
		{"invents", []string{`"z"`, "does not declare"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "escapes") && runtime.GOOS != "linux" {
				t.Skip("finding who holds a pipe needs /proc")
			}
			start := time.Now()
			_, err := runner(t).Run(context.Background(), faultyProbe(t, tc.name), probe.Params{})
			took := time.Since(start)
			var re *RunError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *RunError", err)
			}
			t.Logf("after %v: %v", took.Round(time.Millisecond), err)
			for _, w := range tc.want {
				if !strings.Contains(re.Cause, w) {
					t.Errorf("cause %q does not contain %q", re.Cause, w)
				}
			}
			if tc.dontWant != "" && strings.Contains(re.Cause, tc.dontWant) {
				t.Errorf("cause %q contains %q", re.Cause, tc.dontWant)
			}
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a probe's own failure counts as an interruption: %v", err)
			}
			// Timeout 2s plus the 2s grace for the pipes, with room for a
			// loaded machine.
			if took > 30*time.Second {
				t.Errorf("the run took %v", took)
			}
			if strings.HasPrefix(tc.name, "escapes") {
				pid := leftPid(t, re.Cause)
				waitGone(t, pid)
			}
		})
	}
}

func TestOptionalMetricMayBeAbsent(t *testing.T) {
	v, err := runner(t).Run(context.Background(), faultyProbe(t, "optional"), probe.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v["y"]; ok || v["x"] != 1 {
		t.Errorf("values %v", v)
	}
}

// leftPid reads the pid out of "left behind process 123 (sleep)".
func leftPid(t *testing.T, cause string) int {
	_, after, ok := strings.Cut(cause, "left behind process ")
	if !ok {
		t.Fatalf("no pid in %q", cause)
	}
	pid, err := strconv.Atoi(strings.Fields(after)[0])
	if err != nil {
		t.Fatalf("no pid in %q", cause)
	}
	return pid
}

// waitGone waits until pid no longer runs (gone, or a zombie nobody reaps).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 200 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			if syscall.Kill(pid, 0) != nil {
				return
			}
		} else if _, rest, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(rest, "Z") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("process %d still runs", pid)
}

func TestCancelKillsChildAndSaysInterrupted(t *testing.T) {
	pidFile := t.TempDir() + "/pid"
	t.Setenv(pidFileEnv, pidFile)
	ctx, cancel := context.WithCancel(context.Background())
	r := runner(t)
	r.Timeout = time.Minute
	errc := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, fakes[4], probe.Params{})
		errc <- err
	}()
	pid := readPid(t, pidFile)
	start := time.Now()
	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("err = %v, want an interruption satisfying errors.Is(err, context.Canceled)", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("cancel took %v", took)
	}
	waitGone(t, pid)
}

func readPid(t *testing.T, file string) int { return readPids(t, file, 1)[0] }

// readPids waits for n pids in file.
func readPids(t *testing.T, file string, n int) []int {
	t.Helper()
	for range 400 {
		if b, err := os.ReadFile(file); err == nil {
			var pids []int
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					pids = append(pids, pid)
				}
			}
			if len(pids) == n {
				return pids
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the probe never started")
	return nil
}

// The probes' folder of a process that is gone (killed before it could
// remove it) is removed by the next build of the probes; a live one's is
// left.
func TestStaleProbesFoldersAreRemoved(t *testing.T) {
	tmp := t.TempDir()
	dead := filepath.Join(tmp, probesDir+"999999999-1")
	live := filepath.Join(tmp, probesDir+strconv.Itoa(os.Getpid())+"-1")
	other := filepath.Join(tmp, "measuredbook-probesX")
	for _, d := range []string{dead, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "probes"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStale(tmp)
	if _, err := os.Stat(dead); err == nil {
		t.Error("the folder of a process that is gone was kept")
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}

// Run is one run of p with params, its values alone.
func (r *Runner) Run(ctx context.Context, p probe.Probe, params probe.Params) (probe.Values, error) {
	out, err := r.run(ctx, p, params)
	if err != nil {
		return nil, err
	}
	return out.Values, nil
}
