package fleet

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"measuredbook/dataset"
	"measuredbook/probe"
)

// benchstat runs golang.org/x/perf/cmd/benchstat at the version go.mod
// pins (a tool of the module: `go tool` builds it from the module cache).
// -table "" keeps the two files in one table although their machine
// configuration differs, which is the point of comparing two machines.
func benchstat(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"tool", "benchstat", "-table", ""}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool benchstat %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func fixtureSets(t *testing.T) (*Comparison, string) {
	t.Helper()
	dir := filepath.Join("testdata", "compare")
	a, err := LoadSet(dir, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadSet(dir, "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare("a", a, "b", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, dir
}

// TestCompareAgreesWithBenchstat compares two fixture sets with compare
// and with benchstat, and wants for every benchmark and unit the same
// medians, the same "vs base" verdict ("~" or the same percentage) and
// the same p-value and sample sizes. The fixtures hold a clear rise, a
// clear fall, a small but significant rise, overlapping samples, equal
// samples, and 3 runs a side (too few for the U-test to ever reject).
func TestCompareAgreesWithBenchstat(t *testing.T) {
	c, dir := fixtureSets(t)
	ours := map[string]Line{}
	for _, l := range c.Lines {
		ours[l.Unit+" "+l.Name] = l
	}
	seen, significant, same := 0, 0, 0
	for _, exp := range []string{"sweep", "few"} {
		out := benchstat(t, "-format", "csv", filepath.Join(dir, "a", exp+".txt"), filepath.Join(dir, "b", exp+".txt"))
		r := csv.NewReader(strings.NewReader(out))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("benchstat's CSV: %v\n%s", err, out)
		}
		unit := ""
		for _, rec := range recs {
			if len(rec) < 7 {
				continue
			}
			if rec[0] == "" {
				if rec[1] != "" && rec[2] == "CI" {
					unit = rec[1]
				}
				continue
			}
			if rec[0] == "geomean" {
				continue
			}
			l, ok := ours[unit+" "+rec[0]]
			if !ok {
				t.Errorf("benchstat compares %s %s; compare does not", unit, rec[0])
				continue
			}
			seen++
			for i, want := range []string{rec[1], rec[3]} {
				w, err := strconv.ParseFloat(want, 64)
				got := []float64{l.A.Median, l.B.Median}[i]
				if err != nil || math.Abs(got-w) > 1e-9*math.Abs(w) {
					t.Errorf("%s %s: median %g, benchstat says %s", unit, rec[0], got, want)
				}
			}
			if l.Test == nil {
				t.Errorf("%s %s: no test", unit, rec[0])
				continue
			}
			if l.Test.Delta != rec[5] {
				t.Errorf("%s %s: vs base %q, benchstat says %q", unit, rec[0], l.Test.Delta, rec[5])
			}
			if p := fmt.Sprintf("p=%.3f n=%d", l.Test.P, l.A.N); p != rec[6] {
				t.Errorf("%s %s: %s, benchstat says %s", unit, rec[0], p, rec[6])
			}
			if l.Test.Significant != (rec[5] != "~") {
				t.Errorf("%s %s: significant=%v but benchstat says %q", unit, rec[0], l.Test.Significant, rec[5])
			}
			if l.Test.Significant {
				significant++
			} else {
				same++
			}
		}
	}
	if seen != len(c.Lines) {
		t.Errorf("benchstat compared %d lines, compare %d", seen, len(c.Lines))
	}
	// The fixtures are chosen to hold both verdicts.
	if significant < 4 || same < 4 {
		t.Errorf("%d significant and %d not: the fixtures should give both", significant, same)
	}
}

// TestCompareSaysTooFewSamples: with 3 runs a side the U-test cannot
// reach alpha 0.05 however far apart the samples are; benchstat prints
// "~" and says how many samples it needs, and so does compare.
func TestCompareSaysTooFewSamples(t *testing.T) {
	c, dir := fixtureSets(t)
	const need = "need >= 4 samples to detect a difference at alpha level 0.05"
	if out := benchstat(t, filepath.Join(dir, "a", "few.txt"), filepath.Join(dir, "b", "few.txt")); !strings.Contains(out, need) {
		t.Fatalf("benchstat does not say %q:\n%s", need, out)
	}
	n := 0
	for _, l := range c.Lines {
		if l.Experiment != "few" {
			continue
		}
		n++
		if l.Test == nil || l.Test.Delta != "~" || !strings.Contains(strings.Join(l.Test.Notes, "\n"), need) {
			t.Errorf("%s %s: %+v, want ~ and %q", l.Unit, l.Name, l.Test, need)
		}
	}
	if n != 4 {
		t.Errorf("%d lines for experiment few, want 4 (2 combinations × 2 metrics)", n)
	}
	var out bytes.Buffer
	if err := c.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{need, "~ (p=0.100 n=3)", "+93.68% (p=0.002 n=6)", "×1.94", "-33.94%"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCompareTranscribedHasNoTest: a transcribed set has no runs to test;
// compare shows both medians and says so instead of a verdict, and --json
// carries no test for it.
func TestCompareTranscribedHasNoTest(t *testing.T) {
	m1, err := LoadSet(filepath.Join("..", "results"), "m1", nil)
	if err != nil {
		t.Fatal(err)
	}
	here, err := LoadSet(filepath.Join("..", "results"), "linux-amd64-amd-epyc-2c", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare("m1", m1, "linux-amd64-amd-epyc-2c", here, []string{"ready_read", "syscost"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Lines) == 0 {
		t.Fatal("nothing compared in ready_read")
	}
	for _, l := range c.Lines {
		if l.Test != nil || l.Note != "no runs: transcribed in m1" || l.A.N != 1 {
			t.Errorf("%s %s: test %+v, note %q, %d runs in m1", l.Name, l.Metric, l.Test, l.Note, l.A.N)
		}
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "syscost: only in linux-amd64-amd-epyc-2c") {
		t.Errorf("notes do not say syscost is only in one set: %q", c.Notes)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("--json: %v", err)
	}
	if bytes.Contains(data, []byte(`"test"`)) {
		t.Errorf("--json has a test for a transcribed set: %s", data)
	}
	if _, err := Compare("m1", m1, "x", here, []string{"no_such"}); err == nil {
		t.Error("--only with an experiment neither set holds: no error")
	}
}

// TestCompareSaysWhatAMachineCannotMeasure: a Linux set has epoll and no
// kqueue, a macOS set the other way round; compare pairs what both
// measured and says why the rest is not compared, not that the sweeps
// differ.
func TestCompareSaysWhatAMachineCannotMeasure(t *testing.T) {
	set := func(native, foreign, goos string) map[string]*dataset.Result {
		r := &dataset.Result{Experiment: "readiness", Probe: "readiness", Order: []string{"api"},
			Sweep: map[string][]string{"api": {"poll", "epoll", "kqueue"}}, Runs: 2, Source: "measured",
			Units: map[string]probe.Unit{"round": probe.Seconds}}
		for _, api := range []string{"poll", native} {
			r.Rows = append(r.Rows, dataset.Row{Params: probe.Params{"api": api}, Runs: []probe.Values{{"round": 1e-6}, {"round": 2e-6}}})
		}
		r.Unavailable = []dataset.Unavailable{{Params: probe.Params{"api": foreign}, Reason: foreign + " is not available on " + goos}}
		return map[string]*dataset.Result{"readiness": r}
	}
	c, err := Compare("lin", set("epoll", "kqueue", "linux"), "mac", set("kqueue", "epoll", "darwin"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Lines) != 1 || c.Lines[0].Params["api"] != "poll" {
		t.Errorf("compared %+v, want poll alone", c.Lines)
	}
	want := "readiness: not compared where one machine cannot measure: epoll is not available on darwin; kqueue is not available on linux"
	if notes := strings.Join(c.Notes, "\n"); notes != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

// Two sets that sized a count per combination (auto) ran the same points
// with counts of their own: those are compared, and so are the gaps.
func TestCompareIgnoresSizedCounts(t *testing.T) {
	set := func(pollRounds string) map[string]*dataset.Result {
		r := &dataset.Result{Experiment: "readiness", Probe: "readiness", Order: []string{"api", "rounds"},
			Sweep: map[string][]string{"api": {"poll", "kqueue"}, "rounds": {probe.Auto}}, Runs: 2, Source: "measured",
			Units: map[string]probe.Unit{"round": probe.Seconds}}
		r.Rows = []dataset.Row{{Params: probe.Params{"api": "poll", "rounds": pollRounds}, Runs: []probe.Values{{"round": 1e-6}, {"round": 2e-6}}}}
		r.Unavailable = []dataset.Unavailable{{Params: probe.Params{"api": "kqueue", "rounds": probe.Auto}, Reason: "kqueue is not available on linux"}}
		return map[string]*dataset.Result{"readiness": r}
	}
	c, err := Compare("a", set("200000"), "b", set("300000"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Lines) != 1 || c.Lines[0].Params["api"] != "poll" {
		t.Errorf("compared %+v, want poll", c.Lines)
	}
	if notes := strings.Join(c.Notes, "\n"); strings.Contains(notes, "different params") {
		t.Errorf("notes %q", notes)
	}
}

// TestCompareHeadlineGeomeanSummary: by default only the metrics the
// chapters use are compared, each table ends with benchstat's geomean
// row, significant lines come first, and one line sums it all up.
func TestCompareHeadlineGeomeanSummary(t *testing.T) {
	c, _ := fixtureSets(t)
	all := len(c.Lines)
	c.Headline(map[string][]string{"sweep": {"round"}})
	for _, l := range c.Lines {
		if l.Experiment == "sweep" && l.Metric != "round" {
			t.Errorf("%s %s kept: no chapter uses it", l.Experiment, l.Metric)
		}
	}
	if len(c.Lines) >= all || !strings.Contains(strings.Join(c.Notes, "\n"), "--all shows them") {
		t.Errorf("%d of %d lines kept, notes %q", len(c.Lines), all, c.Notes)
	}
	for _, g := range c.groups() {
		for i := 1; i < len(g); i++ {
			if rank(g[i]) < rank(g[i-1]) {
				t.Errorf("%s: a significant line after a ~ one", g[i].Name)
			}
		}
	}
	var out bytes.Buffer
	if err := c.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	last := strings.TrimSpace(text[strings.LastIndex(strings.TrimSpace(text), "\n")+1:])
	if !strings.Contains(text, "geomean") || !strings.HasPrefix(last, "a vs b: ") || !strings.Contains(last, "geomean ratio ×") {
		t.Errorf("no geomean row or summary line:\n%s", text)
	}
}
