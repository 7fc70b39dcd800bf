package store

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
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

// Unit errors come in the order of the file, and of the line: the
// reference gave those of one line in an order of a map's making.
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
	case err != nil && !sameErrors(err.Error(), wantErr.Error()):
		t.Errorf("%s: err =\n%v\nthe reference's\n%v\n%.300q", name, err, wantErr, data)
	case !reflect.DeepEqual(got, want):
		t.Errorf("%s: read\n%+v\nthe reference\n%+v\n%.300q", name, got, want, data)
	}
}

// sameErrors reports whether got says what want says. The reference
// joined the unit errors of metrics first given on one line in an order
// of a map's making; Read gives them in the order of the line: so got
// may have want's lines in another order, as long as it is the order of
// their line numbers.
func sameErrors(got, want string) bool {
	if got == want {
		return true
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	line := func(s string) int {
		m := lineNumber.FindStringSubmatch(s)
		if m == nil {
			return -1
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if !slices.IsSortedFunc(g, func(a, b string) int { return line(a) - line(b) }) {
		return false
	}
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}

var lineNumber = regexp.MustCompile(`^[^:]*:(\d+): `)

// Read returns what the reference returns on every committed result, on
// header edited in the ways this package's tests edit it, and on files
// built of lines of benchfmt's grammar with the white space, numbers and
// units it treats in their own ways.
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
	// benchfmt's Scanner holds lines of less than 64 KiB.
	long := [][2]string{
		{"source: measured\n", "source: measured\n" + strings.Repeat("x", 1<<16) + "\n"},
		{"source: measured\n", "source: measured\n" + strings.Repeat("x", 1<<16-1) + "\n"},
		{"source: measured\n", "source: measured\n" + strings.Repeat("x", 1<<16-1) + "\r\n"},
	}
	for _, data := range append(readSeeds(), edited(long)...) {
		readsAsReference(t, data, "results/m/readiness.txt", readinessProbe)
		readsAsReference(t, data, "", nil)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		data := generated(r)
		readsAsReference(t, data, "results/m/readiness.txt", readinessProbe)
		readsAsReference(t, data, "", nil)
		if t.Failed() {
			break
		}
	}
}

// readinessProbe declares the metrics of header's lines, so that a
// comparison checks units against a spec too.
var readinessProbe = []probe.Probe{{Spec: probe.Spec{Name: "readiness", Metrics: []probe.Metric{{Name: "round", Unit: probe.Seconds}, {Name: "usable", Unit: probe.Count}}}}}

// readSeeds are header, edited in the ways the tests of this package edit
// it and in those benchfmt reads in its own way, and with each line cut
// short and doubled.
func readSeeds() [][]byte {
	var buf bytes.Buffer
	Write(&buf, sample())
	seeds := [][]byte{[]byte(header), buf.Bytes(), {}, []byte("\n")}
	seeds = append(seeds, edited([][2]string{
		{"\n", "\r\n"},
		{"source: measured", "source: transcribed from 원서 2장"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 900", "BenchmarkReadiness/api=epoll/idle=100\nBenchmarkReadiness/api=epoll/idle=100 1 900"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 900", "Benchmark 1 900"},
		{"BenchmarkReadiness/api=epoll/idle=100 1 900", "Benchmark"},
		{"idle=100 1 900", "idle=100 99999999999999999999_ 900"},
		{"idle=100 1 900", "idle=100 99999999999999999999_1 900"},
		{"1 900 ns/round 1 usable", "1 900 ns/round 1 usable\u00a0\u2028"},
		{"1 900 ns/round 1 usable", "+1 9_0_0 ns/round 0x1p0 usable"},
		{"1 900 ns/round 1 usable", "1 -Inf ns/round 1e-400 usable"},
		{"1 900 ns/round 1 usable", "1 0x1 ns/round"},
		{"1 900 ns/round 1 usable", "1 900 B/round"},
		{"1 900 ns/round 1 usable", "1 900 ns/round 2 ns/round"},
		{"1 900 ns/round 1 usable", "1 900 ns/round 1 rss"},
		{"1 900 ns/round 1 usable", "1 900 ns/round 1 B/"},
		{"1 22490 ns/round 1 usable", "1 22490 ns/round 1 usable 2 zeta 3 alpha 4 ns/usable"},
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
		{"machine: test-machine", "Machine: test-machine"},
		{"machine: test-machine", "machine:test-machine"},
		{"machine: test-machine", "machine:\ttest-machine"},
		{"machine: test-machine", "machine: "},
		{"experiment: readiness", "experiment: \xffreadiness"},
		{"experiment: readiness", "expériment: readiness"},
		{"machine-cores: 2", "limit-nofile: 1/2"},
	})...)
	lines := strings.SplitAfter(header, "\n")
	for i := range lines {
		cut := replaceLine(lines, i, lines[i][:len(lines[i])/2])
		twice := replaceLine(lines, i, lines[i]+lines[i])
		seeds = append(seeds, []byte(cut), []byte(twice))
	}
	return seeds
}

// edited is header with each edit's old text replaced by its new one.
func edited(edits [][2]string) [][]byte {
	var out [][]byte
	for _, e := range edits {
		out = append(out, []byte(strings.Replace(header, e[0], e[1], 1)))
	}
	return out
}

// replaceLine is lines with line i replaced by s.
func replaceLine(lines []string, i int, s string) string {
	return strings.Join(lines[:i], "") + s + strings.Join(lines[i+1:], "")
}

// generated is header's configuration, one of its lines sometimes
// replaced, then a few lines drawn from benchfmt's grammar: benchmark
// lines, unit lines and configuration lines, with every kind of white
// space, number and unit benchfmt reads in a way of its own.
func generated(r *rand.Rand) []byte {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	space := func() string {
		return pick(" ", " ", " ", "  ", "\t", "\v", "\f", "\r", "\u00a0", "\u2003", "\u0085", "\xc2", "\xff", "")
	}
	number := func() string {
		return pick("1", "0", "900", "22490", "1.5", "1e3", "1e400", "-1e400", "1e-400", "NaN", "nan", "+Inf", "-inf", "infinity", "+infinity", "inF", "infin",
			"0x1p3", "0x1", "0X1.8P1", "1_0", "_1", "1__0", "0x_1p0", "+", "-", "", ".", ".5", "5.", "+.5e+3", "9223372036854775807", "9223372036854775808",
			"99999999999999999999", "99999999999999999999_", "-0", "1e", "1e+", "0b101", "0o7", "١")
	}
	unit := func() string {
		return pick("ns/round", "B/round", "round", "usable", "ns/usable", "sec/round", "ns/", "B/", "ns/a/b", "x", "MB/s", "ns/op", "", "round\u00a0")
	}
	name := func() string {
		return pick("Readiness/api=poll/idle=100", "Readiness/api=epoll/idle=100", "Readiness/api=poll", "Readiness/api=poll/idle=100/x=1",
			"Readiness/idle=100/api=poll", "Wake/api=poll/idle=100", "", "Readiness/api=poll=1/idle=100", "Readiness/api=kqueue/idle=100")
	}
	line := func() string {
		switch r.IntN(6) {
		case 0:
			l := "Unit" + space() + unit()
			for range r.IntN(3) {
				l += space() + pick("a=1", "a=2", "=1", "b", "b=", "c=x")
			}
			return l
		case 1:
			return pick("machine-cores: 4", "x: y", "Unit", "U", "Benchmark", "BenchmarkReadiness", "", "# comment", "x:y", "x:", "X: y", "é: y",
				"\xff: y", "a b: c", "limit-nofile: 1", "limit-x: 2", "failed-1: api=poll/idle=100: boom", "unavailable-1: api=epoll/idle=100: no",
				"failed-2: x", "runs: 3", "params: api", "param-api: poll", "source: transcribed", "experiment: x", "k:\tv", "k: v\r",
				"start: 2026-11-29T20:00:00Z", "duration: 2s", "machine-memory: x", "kΣ: v", "ǅ: v", " x: y", "Benchmark: x", "benchmarkX: y")
		}
		l := "Benchmark" + name()
		if r.IntN(8) > 0 {
			l += space() + pick("1", "1", "x", "+1", "-1", "99999999999999999999", "99999999999999999999_", "")
		}
		for range r.IntN(4) {
			l += space() + number() + space() + unit()
		}
		if r.IntN(5) == 0 {
			l += space()
		}
		return l
	}
	head := strings.SplitAfter(header, "\n")[:13]
	if r.IntN(3) == 0 {
		head = slices.Clone(head)
		head[r.IntN(len(head))] = line() + "\n"
	}
	var b strings.Builder
	b.WriteString(strings.Join(head, ""))
	for range r.IntN(6) {
		b.WriteString(line())
		b.WriteString(pick("\n", "\n", "\r\n"))
	}
	return []byte(b.String())
}

// FuzzReadMatchesReference holds Read to the reference on any input.
func FuzzReadMatchesReference(f *testing.F) {
	for _, seed := range readSeeds() {
		f.Add(seed, true)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		f.Add(generated(r), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, named bool) {
		if named {
			readsAsReference(t, data, "results/m/readiness.txt", readinessProbe)
		} else {
			readsAsReference(t, data, "", nil)
		}
	})
}
