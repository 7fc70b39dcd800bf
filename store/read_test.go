package store

import (
	"strings"
	"testing"

	"measuredbook/probe"
)

// The benchmark lines follow benchfmt's syntax, and a line it rejects is
// an error at its line in benchfmt's words.
func TestMalformedLinesAreErrors(t *testing.T) {
	const run = "BenchmarkReadiness/api=epoll/idle=100 1 900 ns/round 1 usable"
	for _, tc := range []struct{ new, want string }{
		{"BenchmarkReadiness/api=epoll/idle=100 ", "readiness.txt:16: missing iteration count"},
		{"BenchmarkReadiness/api=epoll/idle=100 x 900 ns/round", "readiness.txt:16: parsing iteration count: invalid syntax"},
		{"BenchmarkReadiness/api=epoll/idle=100 99999999999999999999 900 ns/round", "readiness.txt:16: parsing iteration count: value out of range"},
		{"BenchmarkReadiness/api=epoll/idle=100 99999999999999999999_ 900 ns/round", "readiness.txt:16: parsing iteration count: invalid syntax"},
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

// Unit errors come in the order of the file, and of the line.
func TestUnitErrorsInTheOrderOfTheFile(t *testing.T) {
	text := strings.ReplaceAll(header, "ns/round", "B/round")
	text = strings.Replace(text, "22490 B/round 1 usable", "22490 B/round 1 zeta 1 usable 3 alpha", 1)
	text = strings.Replace(text, "23100 B/round 1 usable", "23100 B/round 1 usable 1 beta", 1)
	_, err := Read(strings.NewReader(text), "readiness.txt", readinessProbe)
	want := `readiness.txt:14: metric "round" is written as "B/round", but probe readiness measures it in "ns/round"
readiness.txt:14: metric "zeta" is not one of probe readiness's
readiness.txt:14: metric "alpha" is not one of probe readiness's
readiness.txt:15: metric "beta" is not one of probe readiness's`
	if err == nil || err.Error() != want {
		t.Errorf("err =\n%v\nwant\n%s", err, want)
	}
}

// readinessProbe declares the metrics of header's lines, so that a
// registry's unit checks apply to them.
var readinessProbe = []probe.Probe{{Spec: probe.Spec{Name: "readiness", Metrics: []probe.Metric{{Name: "round", Unit: probe.Seconds}, {Name: "usable", Unit: probe.Count}}}}}
