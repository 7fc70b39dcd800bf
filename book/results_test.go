package book

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"measuredbook/dataset"
	"measuredbook/evaluate"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/probe/codehash"
)

func TestCompareSaysWhyAResultIsStale(t *testing.T) {
	p := probe.Probe{Spec: probe.Spec{Name: "readiness"}}
	e := &parse.Experiment{ID: "r", Probe: "readiness", Order: []string{"idle"}, Sweep: map[string][]string{"idle": {"100", "1000"}}, Runs: 3}
	fresh := func() *dataset.Result {
		return &dataset.Result{Probe: "readiness", Hash: codehash.Of(p), Order: []string{"idle"}, Sweep: map[string][]string{"idle": {"100", "1000"}}, Runs: 3}
	}
	for _, tc := range []struct {
		name  string
		edit  func(r *dataset.Result)
		state State
		why   string
	}{
		{"same", func(*dataset.Result) {}, Fresh, ""},
		{"code", func(r *dataset.Result) { r.Hash = "0000000000000000" }, Stale, "probe code changed"},
		{"sweep", func(r *dataset.Result) { r.Sweep["idle"] = []string{"100"} }, Stale, "idle changed (100 → 100,1000)"},
		{"params", func(r *dataset.Result) { r.Order = []string{"idle", "api"} }, Stale, "params changed"},
		{"runs", func(r *dataset.Result) { r.Runs = 5 }, Stale, "runs changed (runs: 5 → runs: 3)"},
		{"auto", func(r *dataset.Result) { r.Stop = dataset.Stop{Auto: true, Precision: 0.05} }, Stale, "runs changed (runs: auto ±5% → runs: 3)"},
		{"failed", func(r *dataset.Result) {
			r.Failures = []dataset.Failure{{Params: probe.Params{"idle": "1000"}, Err: "timed out"}}
		}, Failed, "[idle=1000]: timed out"},
	} {
		r := fresh()
		tc.edit(r)
		state, why := compare(e, func() string { return codehash.Of(p) }, r, DefaultPrecision, DefaultRunTime)
		if state != tc.state || !strings.Contains(why, tc.why) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, state, why, tc.state, tc.why)
		}
	}
	// runs: auto matches a result measured under the same precision, the
	// chapter's own or the book's.
	auto := *e
	auto.Runs = 0
	r := fresh()
	r.Runs, r.Stop = 9, dataset.Stop{Auto: true, Precision: 0.05, Interval: 0.09, Why: "budget reached (10s)"}
	if state, why := compare(&auto, func() string { return codehash.Of(p) }, r, 0.05, DefaultRunTime); state != Fresh {
		t.Errorf("auto ±5%%: %s %q", state, why)
	}
	if state, why := compare(&auto, func() string { return codehash.Of(p) }, r, 0.02, DefaultRunTime); state != Stale || !strings.Contains(why, "runs: auto ±5% → runs: auto ±2%") {
		t.Errorf("auto ±5%% asked ±2%%: %s %q", state, why)
	}
	// A count given as auto matches a result whose counts were sized to
	// the book's run time, whatever counts that gave.
	sized := *e
	sized.Order = []string{"idle", "rounds"}
	sized.Sweep = map[string][]string{"idle": {"100", "1000"}, "rounds": {probe.Auto}}
	r = fresh()
	r.Order, r.Sweep["rounds"], r.RunTime = sized.Order, []string{probe.Auto}, 100*time.Millisecond
	if state, why := compare(&sized, func() string { return codehash.Of(p) }, r, 0.05, 100*time.Millisecond); state != Fresh {
		t.Errorf("sized to 100ms: %s %q", state, why)
	}
	// So does the header a build keeps of it (the rows let go).
	if state, why := compare(&sized, func() string { return codehash.Of(p) }, (&Results{}).headerOf(r), 0.05, 100*time.Millisecond); state != Fresh {
		t.Errorf("the header of a result sized to 100ms: %s %q", state, why)
	}
	if state, why := compare(&sized, func() string { return codehash.Of(p) }, r, 0.05, time.Second); state != Stale || !strings.Contains(why, "counts sized to 100ms → runs: 3, counts sized to 1s") {
		t.Errorf("sized to 100ms, asked 1s: %s %q", state, why)
	}
	r.RunTime, r.Sweep["rounds"] = 0, []string{"1000"}
	if state, why := compare(&sized, func() string { return codehash.Of(p) }, r, 0.05, 100*time.Millisecond); state != Stale || !strings.Contains(why, "rounds changed (1000 → auto)") {
		t.Errorf("a fixed count, asked auto: %s %q", state, why)
	}
}

// TestStaleOnMachineChange: a result of this machine's own set measured
// under another Go release or kernel is stale, as far as stale-on: says.
func TestStaleOnMachineChange(t *testing.T) {
	p := probe.Probe{Spec: probe.Spec{Name: "readiness"}}
	e := &parse.Experiment{ID: "r", Probe: "readiness", Runs: 3}
	then := dataset.Fingerprint{Name: "here", Go: "go1.26.8", Kernel: "Linux 6.1"}
	r := &dataset.Result{Probe: "readiness", Hash: codehash.Of(p), Runs: 3, Machine: then, Source: "measured"}
	for _, tc := range []struct {
		staleOn []string
		now     dataset.Fingerprint
		set     string
		want    string
	}{
		{[]string{"go", "kernel"}, then, "here", ""},
		{[]string{"go", "kernel"}, dataset.Fingerprint{Name: "here", Go: "go1.27.0", Kernel: "Linux 6.1"}, "here", "go1.26.8 → go1.27.0"},
		{[]string{"go", "kernel"}, dataset.Fingerprint{Name: "here", Go: "go1.26.8", Kernel: "Linux 6.2"}, "here", "kernel Linux 6.1 → Linux 6.2"},
		{[]string{"kernel"}, dataset.Fingerprint{Name: "here", Go: "go1.27.0", Kernel: "Linux 6.1"}, "here", ""},
		{[]string{"go", "kernel"}, dataset.Fingerprint{Name: "there", Go: "go1.27.0"}, "here", ""},
	} {
		b := &Book{Config: Config{StaleOn: tc.staleOn}, Experiments: map[string]*parse.Experiment{"r": e}}
		res := NewResults(t.TempDir(), tc.set, nil)
		res.This = tc.now
		if got := b.machineChanged(res, r); got != tc.want {
			t.Errorf("%v on %+v: %q, want %q", tc.staleOn, tc.now, got, tc.want)
		}
	}
}

// TestStaleMarks: the statuses a build computed decide which results the
// pages mark as stale (evaluate.Staleness), only in the build's set.
func TestStaleMarks(t *testing.T) {
	var _ evaluate.Staleness = (*Results)(nil)
	res := NewResults(t.TempDir(), "here", nil)
	res.MarkStale([]Status{{ID: "a", State: Stale, Why: "runs changed (3 → 5)"}, {ID: "b", State: Fresh}})
	if why, ok := res.Stale("", "a"); !ok || why != "runs changed (3 → 5)" {
		t.Errorf("Stale(a) = %q, %v", why, ok)
	}
	if _, ok := res.Stale("", "b"); ok {
		t.Error("a fresh result is marked stale")
	}
	if _, ok := res.Stale("m1", "a"); ok {
		t.Error("a reference set's result is marked stale")
	}
}

// A result is compared with the code that runs on its own machine: a
// macOS result stays fresh in a Linux checkout while the files that build
// for macOS are unchanged, whatever the Linux files say.
func TestCompareHashesForTheResultsMachine(t *testing.T) {
	src := fstest.MapFS{
		"a_linux.go": {Data: []byte("package a; var epoll = 1")},
		"a_bsd.go":   {Data: []byte("//go:build darwin || freebsd\n\npackage a; var kq = 1")},
	}
	p := probe.Probe{Spec: probe.Spec{Name: "readiness"}, Sources: []fs.FS{src}}
	e := &parse.Experiment{ID: "r", Probe: "readiness", Runs: 3}
	mac := &dataset.Result{Probe: "readiness", Hash: codehash.For(p, "darwin", "arm64"), Runs: 3,
		Machine: dataset.Fingerprint{Kernel: "Darwin 23.4.0", Arch: "arm64"}}
	// As Status hashes it: for the result's machine, once per Book.
	hash := func() string {
		return (&Book{}).probeHash([]probe.Probe{p}, "readiness", mac.Machine.GOOS(), mac.Machine.Arch)
	}
	src["a_linux.go"] = &fstest.MapFile{Data: []byte("package a; var epoll = 2")}
	if state, why := compare(e, hash, mac, DefaultPrecision, DefaultRunTime); state != Fresh {
		t.Errorf("an epoll change: the macOS result is %s (%s), want fresh", state, why)
	}
	src["a_bsd.go"] = &fstest.MapFile{Data: []byte("//go:build darwin || freebsd\n\npackage a; var kq = 2")}
	if state, _ := compare(e, hash, mac, DefaultPrecision, DefaultRunTime); state != Stale {
		t.Errorf("a kqueue change: the macOS result is %s, want stale", state)
	}
}

func TestKernelVersion(t *testing.T) {
	for in, want := range map[string]string{
		"Linux 6.18.44-fc-v669":  "Linux 6.18.44",
		"Linux 6.18.44-fc-v1098": "Linux 6.18.44",
		"Linux 6.1.0-28-amd64":   "Linux 6.1.0",
		"Darwin 24.1.0":          "Darwin 24.1.0",
		"FreeBSD 14.1-RELEASE":   "FreeBSD 14.1",
	} {
		if got := kernelVersion(in); got != want {
			t.Errorf("kernelVersion(%q) = %q, want %q", in, got, want)
		}
	}
	if kernelVersion("Linux 6.18.44-fc-v669") == kernelVersion("Linux 6.19.1-fc-v669") {
		t.Error("a new kernel version must not compare equal")
	}
}
