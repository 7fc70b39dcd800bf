package store

import (
	"bytes"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"measuredbook/machine"
	"measuredbook/probe"
)

func sample() *Result {
	return &Result{
		Experiment: "readiness",
		Probe:      "readiness",
		Hash:       "0123456789abcdef",
		Order:      []string{"api", "idle"},
		Sweep:      map[string][]string{"api": {"poll", "epoll"}, "idle": {"100"}},
		Runs:       2,
		Machine:    machine.Fingerprint{Name: "test-machine", CPU: "Test CPU", Cores: 2, Limits: map[string]string{"nofile": "1024/4096"}},
		Start:      time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC),
		Duration:   1500 * time.Millisecond,
		Units:      map[string]probe.Unit{"round": probe.Seconds, "usable": probe.Count, "rss": probe.Bytes},
		Rows: []Row{
			{Params: probe.Params{"api": "poll", "idle": "100"}, Runs: []probe.Values{
				{"round": 22.49e-6, "usable": 1, "rss": 4096}, {"round": 23.1e-6, "usable": 1, "rss": 8192}}},
			{Params: probe.Params{"api": "epoll", "idle": "100"}, Runs: []probe.Values{
				{"round": 0.9e-6, "usable": 1, "rss": 4096}, {"round": 1.1e-6, "usable": 1, "rss": 4096}}},
		},
		Failures: []Failure{{Params: probe.Params{"api": "select", "idle": "100"}, Err: "child signal: killed"}},
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), "x.txt")
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

func TestSummarize(t *testing.T) {
	s, ok := Summarize(sample().Rows[0], "round")
	if !ok || s.N != 2 || s.Min != 22.49e-6 || s.Max != 23.1e-6 || s.Median < s.Min || s.Median > s.Max {
		t.Errorf("summary %+v", s)
	}
	if _, ok := Summarize(sample().Rows[0], "nope"); ok {
		t.Error("summary of a metric that was never measured")
	}
}

func TestSaveIsAtomicAndLoads(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir, "m", "readiness")
	if err := Save(path, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
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
