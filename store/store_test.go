package store

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"measuredbook/dataset"
	"measuredbook/probe"
	"measuredbook/probes"
)

func sample() *dataset.Result {
	return &dataset.Result{
		Experiment: "readiness",
		Probe:      "readiness",
		Hash:       "0123456789abcdef",
		Order:      []string{"api", "idle"},
		Sweep:      map[string][]string{"api": {"poll", "epoll", "select", "kqueue"}, "idle": {"100"}},
		Runs:       2,
		Machine:    dataset.Fingerprint{Name: "test-machine", CPU: "Test CPU", Cores: 2, Limits: map[string]string{"nofile": "1024/4096"}},
		Start:      time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC),
		Duration:   1500 * time.Millisecond,
		Units:      map[string]probe.Unit{"round": probe.Seconds, "usable": probe.Count, "rss": probe.Bytes},
		Rows: []dataset.Row{
			{Params: probe.Params{"api": "poll", "idle": "100"}, Runs: []probe.Values{
				{"round": 22.49e-6, "usable": 1, "rss": 4096}, {"round": 23.1e-6, "usable": 1, "rss": 8192}}},
			{Params: probe.Params{"api": "epoll", "idle": "100"}, Runs: []probe.Values{
				{"round": 0.9e-6, "usable": 1, "rss": 4096}, {"round": 1.1e-6, "usable": 1, "rss": 4096}}},
		},
		Failures:    []dataset.Failure{{Params: probe.Params{"api": "select", "idle": "100"}, Err: "child signal: killed"}},
		Unavailable: []dataset.Unavailable{{Params: probe.Params{"api": "kqueue", "idle": "100"}, Reason: "kqueue is not available on linux"}},
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), "readiness.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	want.Source = "measured"
	for _, row := range got.Rows {
		for _, run := range row.Runs {
			// ns in the file: allow for the float round trip.
			run["round"] = math.Round(run["round"]*1e12) / 1e12
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v\nfile:\n%s", got, want, buf.String())
	}
}

// A count sized per combination (auto) is stored as each row's count with
// the target it was sized to; a row's count must be a count.
func TestRoundTripSizedCounts(t *testing.T) {
	r := sample()
	r.Order = append(r.Order, "rounds")
	r.Sweep["rounds"] = []string{probe.Auto}
	r.RunTime = 100 * time.Millisecond
	r.Rows[0].Params["rounds"], r.Rows[1].Params["rounds"] = "2000", "500000"
	r.Failures[0].Params["rounds"], r.Unavailable[0].Params["rounds"] = "1", probe.Auto
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "param-rounds: auto\n") || !strings.Contains(buf.String(), "run-time: 100ms\n") {
		t.Fatalf("file:\n%s", buf.String())
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), "readiness.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunTime != r.RunTime || got.Rows[1].Params["rounds"] != "500000" {
		t.Errorf("read back run time %v, rows %v", got.RunTime, got.Rows)
	}
	bad := strings.Replace(buf.String(), "/rounds=2000 ", "/rounds=many ", 1)
	if _, err := Read(strings.NewReader(bad), "readiness.txt", nil); err == nil || !strings.Contains(err.Error(), "param-rounds is auto") {
		t.Errorf("a count that is not one: %v", err)
	}
}

// A row's pooled quantiles are stored as pooled-N lines and read back;
// one naming a combination or a metric the file lacks is refused.
func TestRoundTripPooled(t *testing.T) {
	r := sample()
	r.Rows[0].Pool = map[string]dataset.Pooled{"round": {Value: 2.5e-05, N: 18000}}
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "pooled-1: api=poll/idle=100: round 2.5e-05 18000\n") {
		t.Fatalf("file:\n%s", buf.String())
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), "readiness.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Rows[0].Pool["round"]; p.Value != 2.5e-05 || p.N != 18000 || got.Rows[1].Pool != nil {
		t.Errorf("read back %v and %v", got.Rows[0].Pool, got.Rows[1].Pool)
	}
	for _, bad := range []string{"api=kqueue/idle=100: round 1 2", "api=poll/idle=100: latency 1 2", "api=poll/idle=100: round x 2", "api=poll/idle=100: round 1 0"} {
		text := strings.Replace(buf.String(), "api=poll/idle=100: round 2.5e-05 18000", bad, 1)
		if _, err := Read(strings.NewReader(text), "readiness.txt", nil); err == nil || !strings.Contains(err.Error(), "pooled-1") {
			t.Errorf("pooled-1: %s: %v", bad, err)
		}
	}
}

// The file must be ordinary benchmark format, so benchstat reads it as it
// is: names with key=value parts, ns/ B/ units, configuration lines.
func TestIsBenchfmt(t *testing.T) {
	var buf bytes.Buffer
	Write(&buf, sample())
	r := benchfmt.NewReader(&buf, "x.txt")
	n := 0
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("not a result: %v", r.Result())
		}
		n++
		if got := res.GetConfig("machine"); got != "test-machine" {
			t.Errorf("machine config = %q", got)
		}
		if v, ok := res.Value("sec/round"); !ok || v <= 0 {
			t.Errorf("%s: no sec/round value (%v)", res.Name, res.Values)
		}
		if !strings.HasPrefix(string(res.Name.Full()), "Readiness/api=") {
			t.Errorf("name %s", res.Name)
		}
	}
	if n != 4 {
		t.Errorf("%d results, want 4 (one per run)", n)
	}
}

func TestSaveIsAtomicAndLoads(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir, "m", "readiness")
	if err := Save(path, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Experiment != "readiness" || len(got.Rows) != 2 {
		t.Errorf("loaded %+v", got)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "m", ".tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// header is a valid measured file; tests edit one line of it.
const header = `experiment: readiness
probe: readiness
probe-hash: 0123
params: api idle
param-api: poll epoll
param-idle: 100
runs: 2
machine: test-machine
machine-cores: 2
start: 2026-11-29T20:00:00Z
duration: 1.5s
source: measured

BenchmarkReadiness/api=poll/idle=100 1 22490 ns/round 1 usable
BenchmarkReadiness/api=poll/idle=100 1 23100 ns/round 1 usable
BenchmarkReadiness/api=epoll/idle=100 1 900 ns/round 1 usable
BenchmarkReadiness/api=epoll/idle=100 1 950 ns/round 1 usable
`

func TestHeaderIsValidated(t *testing.T) {
	if _, err := Read(strings.NewReader(header), "results/m/readiness.txt", nil); err != nil {
		t.Fatalf("the valid file: %v", err)
	}
	for _, tc := range []struct{ old, new, want string }{
		{"experiment: readiness", "experiment: wake", `readiness.txt:1: experiment: names experiment "wake", but the file is readiness's`},
		{"runs: 2", "runs: many", `readiness.txt:7: runs: "many" is not a number of runs`},
		{"runs: 2", "runs: 0", `readiness.txt:7: runs: "0" is not a number`},
		{"machine-cores: 2", "machine-cores: 2\nmachine-cores: 4", `readiness.txt:10: "machine-cores" is given twice (first on line 9)`},
		{"param-idle: 100", "param-idle: 100\nparam-idle: 200", `readiness.txt:7: "param-idle" is given twice (first on line 6)`},
		{"start: 2026-11-29T20:00:00Z", "start: yesterday", `readiness.txt:10: start: "yesterday" is not a time`},
		{"machine-cores: 2", "machine-cores: two", `readiness.txt:9: machine-cores: "two" is not a number of cores`},
		{"param-idle: 100\n", "", `readiness.txt:4: params: lists "idle", but there is no param-idle line`},
		{"start: 2026-11-29T20:00:00Z\n", "", `missing "start" configuration line`},
		{"1 900 ns/round", "1 900 ns/round 2 usable", `readiness.txt:16: metric "usable" twice on one line`},
		{"1 900 ns/round", "1 900 B/round", `readiness.txt:16: metric "round" is written as "B/round" here but as "ns/round" on line 14`},
		{"api=epoll/idle=100", "api=kqueue/idle=100", `readiness.txt:16: benchmark name part "api=kqueue": kqueue is not one of param-api's values`},
		{"api=epoll/idle=100", "idle=100/api=epoll", `readiness.txt:16: benchmark name part "idle=100": expected api=VALUE`},
		{"BenchmarkReadiness/api=epoll", "BenchmarkWake/api=epoll", `readiness.txt:16: benchmark "BenchmarkWake" is not experiment readiness's`},
	} {
		text := strings.Replace(header, tc.old, tc.new, 1)
		_, err := Read(strings.NewReader(text), "results/m/readiness.txt", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q → %q: err = %v, want %q", tc.old, tc.new, err, tc.want)
		}
	}
}

// A file cut anywhere is an error, never a result with made-up fields.
func TestCutFileIsAnError(t *testing.T) {
	lines := strings.SplitAfter(header, "\n")
	for n := 1; n < 12; n++ {
		text := strings.Join(lines[:n], "")
		if _, err := Read(strings.NewReader(text), "readiness.txt", nil); err == nil {
			t.Errorf("the first %d lines read without error", n)
		}
	}
}

func TestUnitsMustMatchTheProbe(t *testing.T) {
	spec := probe.Spec{Name: "readiness", Metrics: []probe.Metric{{Name: "round", Unit: probe.Seconds}, {Name: "usable", Unit: probe.Count}}}
	all := []probe.Probe{{Spec: spec}}
	if _, err := Read(strings.NewReader(header), "readiness.txt", all); err != nil {
		t.Errorf("matching units: %v", err)
	}
	edited := strings.ReplaceAll(header, "ns/round", "B/round")
	if _, err := Read(strings.NewReader(edited), "readiness.txt", nil); err != nil {
		t.Errorf("without its probe, a result is read as written: %v", err)
	}
	want := `readiness.txt:14: metric "round" is written as "B/round", but probe readiness measures it in "ns/round"`
	if _, err := Read(strings.NewReader(edited), "readiness.txt", all); err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	all[0].Metrics = spec.Metrics[:1]
	if _, err := Read(strings.NewReader(header), "readiness.txt", all); err == nil || !strings.Contains(err.Error(), `readiness.txt:14: metric "usable" is not one of probe readiness's`) {
		t.Errorf("undeclared metric: %v", err)
	}
}

func TestRunsAreCountedFromWhatIsStored(t *testing.T) {
	r := sample()
	r.Rows[1].Runs = r.Rows[1].Runs[:1]
	if lo, hi := r.StoredRuns(); lo != 1 || hi != 2 {
		t.Errorf("stored runs %d–%d, want 1–2 (the header's %d is what was asked)", lo, hi, r.Runs)
	}
	// In a measured file, every combination holds the runs its header
	// asked for (only complete ones are stored): anything else was cut or
	// edited, and is an error rather than a count to trust.
	for _, tc := range []struct{ old, new, want string }{
		{"runs: 2", "runs: 3", "readiness.txt: BenchmarkReadiness/api=poll/idle=100 has 2 runs stored, but the header says runs: 3"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 900 ns/round 1 usable\nBenchmarkReadiness/api=epoll/idle=100 1 950 ns/round 1 usable\n", "", "readiness.txt: holds 1 of the 2 combinations its params sweep"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 950 ns/round 1 usable\n", "", "readiness.txt: BenchmarkReadiness/api=epoll/idle=100 has 1 runs stored, but the header says runs: 2"},
		{"950 ns/round 1 usable\n", "950 ns/round", "readiness.txt:17: the last line is cut short"},
	} {
		_, err := Read(strings.NewReader(strings.Replace(header, tc.old, tc.new, 1)), "readiness.txt", nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q → %q: %v, want %q", tc.old, tc.new, err, tc.want)
		}
	}
}

// A transcribed result carries only what its source states: no start, no
// runs, no probe hash, no compiler.
func TestTranscribedNeedsNoInventedFields(t *testing.T) {
	text := `experiment: readiness
probe: readiness
params: api idle
param-api: poll
param-idle: 100
machine: m1
machine-cpu: Apple M1
source: transcribed from 원서 2장

BenchmarkReadiness/api=poll/idle=100 1 22490 ns/round
`
	r, err := Read(strings.NewReader(text), "readiness.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Measured() || !r.Start.IsZero() || r.Runs != 0 || r.Machine.Go != "" {
		t.Errorf("read %+v", r)
	}
}

func TestOnlyRegularFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.txt")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "dir.txt")
	os.Mkdir(sub, 0o755)
	big := filepath.Join(dir, "big.txt")
	f, _ := os.Create(big)
	f.Truncate(MaxFile + 1)
	f.Close()
	for _, tc := range []struct{ path, want string }{
		{fifo, "not a regular file (a named pipe)"},
		{zero, "not a regular file (a character device)"},
		{sub, "not a regular file (a directory)"},
		{big, "larger than 16 MiB"},
	} {
		done := make(chan error, 1)
		go func() { _, err := Load(tc.path, nil); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tc.path+": "+tc.want) {
				t.Errorf("%s: err = %v, want %q naming the file", tc.path, err, tc.want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: Load hangs", tc.path)
		}
	}
	// Read bounds what it takes from any reader, too.
	if _, err := Read(io.LimitReader(zeroes{}, MaxFile+10), "z.txt", nil); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("reading an endless stream: %v", err)
	}
}

type zeroes struct{}

func (zeroes) Read(b []byte) (int, error) { clear(b); return len(b), nil }

func TestSavedFilesAreWorldReadable(t *testing.T) {
	path := Path(t.TempDir(), "m", "readiness")
	if err := Save(path, sample()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

// Every committed result set reads, and its units are its probe's.
func TestCommittedResultsRead(t *testing.T) {
	files, _ := filepath.Glob("../results/*/*.txt")
	if len(files) == 0 {
		t.Skip("no committed results")
	}
	for _, f := range files {
		r, err := Load(f, probes.All())
		if err != nil {
			t.Error(err)
			continue
		}
		// A transcribed result carries only what its source states: the
		// seeds give a month, not a start time, and no Go release.
		if !r.Measured() && (!r.Start.IsZero() || r.Runs != 0 || r.Machine.Go != "" || r.Hash != "") {
			t.Errorf("%s: transcribed, yet has start %v, runs %d, go %q, hash %q", f, r.Start, r.Runs, r.Machine.Go, r.Hash)
		}
		if !r.Measured() && (strings.Contains(r.Source, "seeds/") || !strings.Contains(r.Source, "원서 ")) {
			t.Errorf("%s: source %q does not cite its seed chapter (원서 N장)", f, r.Source)
		}
		if _, ok := probe.Lookup(probes.All(), r.Probe); !ok {
			t.Errorf("%s: no probe %q", f, r.Probe)
		}
	}
}

// A result whose every combination failed has only its header.
func TestAllFailedReadsBack(t *testing.T) {
	r := sample()
	r.Rows = nil
	for _, api := range []string{"poll", "epoll"} {
		r.Failures = append(r.Failures, dataset.Failure{Params: probe.Params{"api": api, "idle": "100"}, Err: "exit status 2"})
	}
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf, "readiness.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != 0 || len(got.Failures) != 3 || got.Failures[0].Err != "child signal: killed" || len(got.Unavailable) != 1 || got.Runs != 2 {
		t.Errorf("read %+v", got)
	}
}
