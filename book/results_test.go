package book

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

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
		{"runs", func(r *dataset.Result) { r.Runs = 5 }, Stale, "runs changed (5 → 3)"},
		{"failed", func(r *dataset.Result) {
			r.Failures = []dataset.Failure{{Params: probe.Params{"idle": "1000"}, Err: "timed out"}}
		}, Failed, "[idle=1000]: timed out"},
	} {
		r := fresh()
		tc.edit(r)
		state, why := compare(e, func() string { return codehash.Of(p) }, r)
		if state != tc.state || !strings.Contains(why, tc.why) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, state, why, tc.state, tc.why)
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
	if state, why := compare(e, hash, mac); state != Fresh {
		t.Errorf("an epoll change: the macOS result is %s (%s), want fresh", state, why)
	}
	src["a_bsd.go"] = &fstest.MapFile{Data: []byte("//go:build darwin || freebsd\n\npackage a; var kq = 2")}
	if state, _ := compare(e, hash, mac); state != Stale {
		t.Errorf("a kqueue change: the macOS result is %s, want stale", state)
	}
}
