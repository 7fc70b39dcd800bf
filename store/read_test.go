package store

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"measuredbook/probe"
	"measuredbook/probes"
)

// The benchmark lines follow benchfmt's syntax, and a line it rejects is
// an error at its line in benchfmt's words.
func TestMalformedLinesAreErrors(t *testing.T) {
	const run = "BenchmarkReadiness/api=epoll/idle=100 1 900 ns/round 1 usable"
	for _, tc := range []struct{ new, want string }{
		{"BenchmarkReadiness/api=epoll/idle=100 ", "readiness.txt:16: missing iteration count"},
		{"BenchmarkReadiness/api=epoll/idle=100 x 900 ns/round", "readiness.txt:16: parsing iteration count: invalid syntax"},
		{"BenchmarkReadiness/api=epoll/idle=100 99999999999999999999 900 ns/round", "readiness.txt:16: parsing iteration count: value out of range"},
		{"BenchmarkReadiness/api=epoll/idle=100 1", "readiness.txt:16: missing measurements"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 9x0 ns/round", "readiness.txt:16: parsing measurement: invalid syntax"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 1e400 ns/round", "readiness.txt:16: parsing measurement: value out of range"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 900", "readiness.txt:16: missing units"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 NaN ns/round 1 usable", `readiness.txt:16: metric "round" is NaN, not a measurement`},
		{"BenchmarkReadiness/api=epoll/idle=100 1 900 ns/a/b", `readiness.txt:16: unit "ns/a/b" is not ns/METRIC, B/METRIC or METRIC`},
		{"BenchmarkReadiness/api=epoll/idle=100/rounds=1 1 900 ns/round", `readiness.txt:16: benchmark "Readiness/api=epoll/idle=100/rounds=1" names 3 params, the params line 2`},
		{"Unit\n" + run, "readiness.txt:16: missing unit"},
		{"Unit ns/round exact\n" + run, "readiness.txt:16: expected key=value"},
		{"Unit ns/round assume=exact\nUnit sec/round assume=nothing\n" + run, "readiness.txt:17: metadata assume of unit sec/round already set to exact"},
		{strings.Repeat("x", 1<<16) + "\n" + run, "results/m/readiness.txt: results/m/readiness.txt:15: bufio.Scanner: token too long"},
	} {
		text := strings.Replace(header, run, tc.new, 1)
		_, err := Read(strings.NewReader(text), "results/m/readiness.txt", nil)
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%.60q: err = %v, want %q", tc.new, err, tc.want)
		}
	}
	// Lines benchfmt passes over: a name alone (go test -v prints one as
	// a benchmark starts), a long line that is not a result, "\r\n" line
	// ends, white space of Unicode's, numbers in any of Go's syntaxes.
	for _, edit := range [][2]string{
		{"BenchmarkReadiness/api=epoll/idle=100 1 900", "BenchmarkReadiness/api=epoll/idle=100\nBenchmarkReadiness/api=epoll/idle=100 1 900"},
		{"source: measured\n", "source: measured\n" + strings.Repeat("x", 1<<16-1) + "\n"},
		{"\n", "\r\n"},
		{"idle=100 1 900 ns/round", "idle=100\u00a01\u2003900\vns/round"},
		{"1 900 ns/round 1 usable", "+1 9_0_0 ns/round 0x1p0 usable"},
	} {
		text := strings.ReplaceAll(header, edit[0], edit[1])
		if _, err := Read(strings.NewReader(text), "readiness.txt", nil); err != nil {
			t.Errorf("%.60q → %.60q: %v", edit[0], edit[1], err)
		}
	}
}

// readsAsReference reports how Read and refRead differ on data: the
// same result or the same error, with the registry and without, and
// with a file name and without one.
func readsAsReference(t *testing.T, data []byte, name string, all []probe.Probe) {
	t.Helper()
	got, err := Read(bytes.NewReader(data), name, all)
	want, wantErr := refRead(bytes.NewReader(data), name, all)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Errorf("%s: err = %v, the reference's %v\n%.300q", name, err, wantErr, data)
	case err != nil && err.Error() != wantErr.Error():
		t.Errorf("%s: err =\n%v\nthe reference's\n%v\n%.300q", name, err, wantErr, data)
	case !reflect.DeepEqual(got, want):
		t.Errorf("%s: read\n%+v\nthe reference\n%+v\n%.300q", name, got, want, data)
	}
}

// Read returns what the reference returns on every committed result and
// every edit of the tests above.
func TestReadMatchesReference(t *testing.T) {
	paths, _ := filepath.Glob("../results/*/*.txt")
	if len(paths) == 0 {
		t.Fatal("no committed results")
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		readsAsReference(t, data, path, probes.All())
		readsAsReference(t, data, "", nil)
	}
	for _, seed := range readSeeds() {
		readsAsReference(t, seed, "results/m/readiness.txt", readinessProbe)
		readsAsReference(t, seed, "", nil)
	}
}

// readinessProbe declares the metrics of header's lines, so that a
// comparison checks units against a spec too.
var readinessProbe = []probe.Probe{{Spec: probe.Spec{Name: "readiness", Metrics: []probe.Metric{{Name: "round", Unit: probe.Seconds}, {Name: "usable", Unit: probe.Count}}}}}

// readSeeds are header, edited line by line in the ways the tests of
// this package edit it, with each line cut short and doubled.
func readSeeds() [][]byte {
	var buf bytes.Buffer
	Write(&buf, sample())
	seeds := [][]byte{[]byte(header), buf.Bytes(), {}, []byte("\n")}
	edits := [][2]string{
		{"\n", "\r\n"},
		{"source: measured", "source: transcribed from 원서 2장"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 900", "BenchmarkReadiness/api=epoll/idle=100\nBenchmarkReadiness/api=epoll/idle=100 1 900"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 900", "Benchmark 1 900"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 900", "Benchmark"},
		{"1 900 ns/round 1 usable", "1 900 ns/round 1 usable\u00a0\u2028"},
		{"1 900 ns/round 1 usable", "+1 9_0_0 ns/round 0x1p0 usable"},
		{"1 900 ns/round 1 usable", "1 -Inf ns/round 1e-400 usable"},
		{"1 900 ns/round 1 usable", "1 0x1 ns/round"},
		{"1 900 ns/round 1 usable", "1 900 B/round"},
		{"1 900 ns/round 1 usable", "1 900 ns/round 2 ns/round"},
		{"1 900 ns/round 1 usable", "1 900 ns/round 1 rss"},
		{"1 900 ns/round 1 usable", "1 900 ns/round 1 B/"},
		{"api=epoll/idle=100", "api=epoll"},
		{"api=epoll/idle=100", "api=epoll/idle=100/x=1"},
		{"api=epoll/idle=100", "api=epoll/idle"},
		{"api=poll/idle=100", "api=poll=x/idle=100"},
		{"param-api: poll epoll", "param-api: poll epoll poll"},
		{"params: api idle", "params: api"},
		{"params: api idle", "params:"},
		{"params: api idle", "params: api api"},
		{"runs: 2", "runs: 4"},
		{"runs: 2", "runs: 1"},
		{"duration: 1.5s", "duration: -1s"},
		{"source: measured\n", "source: measured\nfailed-1: api=poll/idle=100: exit status 2\n"},
		{"source: measured\n", "source: measured\nunavailable-1: api=kqueue: no kqueue\n"},
		{"source: measured\n", "source: measured\nunavailable-1: nothing\n"},
		{"source: measured\n", "source: measured\nUnit ns/round assume=exact\nUnit sec/round assume=nothing\n"},
		{"source: measured\n", "source: measured\nUnit ns/round assume=exact x=\nUnit ns/round assume=exact\n"},
		{"source: measured\n", "source: measured\nUnit ns/round =x\n"},
		{"source: measured\n", "source: measured\nmachine-cores: 4\n"},
		{"source: measured\n", "source: measured\nprobe-hash:\n"},
		{"source: measured\n", "source: measured\n" + strings.Repeat("x", 1<<16) + "\n"},
		{"source: measured\n", "source: measured\n" + strings.Repeat("x", 1<<16-1) + "\n"},
		{"source: measured\n", "source: measured\n" + strings.Repeat("x", 1<<16-1) + "\r\n"},
		{"machine: test-machine", "Machine: test-machine"},
		{"machine: test-machine", "machine:test-machine"},
		{"machine: test-machine", "machine:\ttest-machine"},
		{"machine: test-machine", "machine: "},
		{"experiment: readiness", "experiment: \xffreadiness"},
		{"experiment: readiness", "expériment: readiness"},
		{"machine-cores: 2", "limit-nofile: 1/2"},
	}
	for _, e := range edits {
		seeds = append(seeds, []byte(strings.Replace(header, e[0], e[1], 1)))
	}
	lines := strings.SplitAfter(header, "\n")
	for i := range lines {
		cut := replaceLine(lines, i, lines[i][:len(lines[i])/2])
		twice := replaceLine(lines, i, lines[i]+lines[i])
		seeds = append(seeds, []byte(cut), []byte(twice))
	}
	return seeds
}

// replaceLine is lines with line i replaced by s.
func replaceLine(lines []string, i int, s string) string {
	return strings.Join(lines[:i], "") + s + strings.Join(lines[i+1:], "")
}

// FuzzReadMatchesReference holds Read to the reference on any input.
func FuzzReadMatchesReference(f *testing.F) {
	for _, seed := range readSeeds() {
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, named bool) {
		if named {
			readsAsReference(t, data, "results/m/readiness.txt", readinessProbe)
		} else {
			readsAsReference(t, data, "", nil)
		}
	})
}
