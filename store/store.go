// Package store is the codec of measured results (package dataset's
// model): one file per experiment per machine, results/MACHINE/ID.txt, in
// the Go benchmark format (golang.org/x/perf/benchfmt), so that benchstat
// compares two machines or two rebuilds with no tool of ours:
//
//	experiment: readiness
//	probe: readiness
//	probe-hash: 3f2a...
//	params: api idle rounds
//	param-api: select poll epoll
//	param-idle: 100 1000 10000
//	param-rounds: 2000
//	runs: 3
//	machine: linux-amd64-amd-epyc-2c
//	machine-cpu: AMD EPYC
//	...
//	start: 2026-11-29T20:31:00Z
//	duration: 41.2s
//	source: measured
//
//	BenchmarkReadiness/api=poll/idle=1000/rounds=2000 1 219376 ns/round 1 usable
//
// Every run is one line: durations are written in ns/METRIC, sizes in
// B/METRIC and counts as a bare METRIC unit; in memory every value is in
// its base unit (seconds, bytes, counts). A combination whose runs failed
// is kept as a "failed-N:" configuration line with its cause, and one the
// machine cannot measure at all (kqueue on Linux) as an "unavailable-N:"
// line with its reason:
//
//	unavailable-1: api=kqueue/idle=100/rounds=2000: kqueue is not available on linux
//
// Reading is strict, since a results file may be edited, cut short or not
// a file at all: only a regular file of bounded size is read; every
// header line is checked at its line; a measured file holds every
// combination of its sweep (runs or failure), each with the runs its
// header asked for. A transcribed result (source: transcribed from …)
// carries only what its source states: no probe hash, runs, start or
// duration are required of it.
package store

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"measuredbook/dataset"
	"measuredbook/probe"
)

// checkUnits reports a metric whose unit in the file is not the unit spec
// declares for it, or a metric spec does not declare, at the file and line
// where it first appears; first is each metric's first appearance, in the
// order of the file.
func checkUnits(r *dataset.Result, file string, first []unitAt, spec probe.Spec) error {
	var errs []error
	for _, at := range first {
		name := at.metric
		m, ok := spec.Metric(name)
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: metric %q is not one of probe %s's", file, at.line, name, spec.Name))
			continue
		}
		if got := r.Units[name]; got != m.Unit {
			errs = append(errs, fmt.Errorf("%s:%d: metric %q is written as %q, but probe %s measures it in %q", file, at.line, name, unitText(got, name), spec.Name, unitText(m.Unit, name)))
		}
	}
	return errors.Join(errs...)
}

// unitAt is where a metric's unit is first given.
type unitAt struct {
	metric string
	line   int
}

// BenchName is the benchmark name of a row: "Benchmark" + the experiment id
// with its first letter upper-cased, then "/key=value" per param in order.
func BenchName(r *dataset.Result, p probe.Params) string {
	var b strings.Builder
	b.WriteString(benchBase(r))
	for _, k := range r.Order {
		fmt.Fprintf(&b, "/%s=%s", k, p[k])
	}
	return b.String()
}

// benchBase is "Benchmark" + the experiment id with its first letter
// upper-cased.
func benchBase(r *dataset.Result) string {
	b := []rune(r.Experiment)
	if len(b) > 0 {
		b[0] = unicode.ToUpper(b[0])
	}
	return "Benchmark" + string(b)
}

// Write writes r in benchfmt form.
func Write(w io.Writer, r *dataset.Result) error {
	bw := bufio.NewWriter(w)
	oneLine := strings.NewReplacer("\n", " ", "\r", " ")
	cfg := func(k, v string) { fmt.Fprintf(bw, "%s: %s\n", k, oneLine.Replace(v)) }
	// What is not known (a transcribed result has no hash, runs or start)
	// is left out rather than written as a zero that reads as a fact.
	cfg("experiment", r.Experiment)
	cfg("probe", r.Probe)
	if r.Hash != "" {
		cfg("probe-hash", r.Hash)
	}
	cfg("params", strings.Join(r.Order, " "))
	for _, k := range r.Order {
		cfg("param-"+k, strings.Join(r.Sweep[k], " "))
	}
	if r.Runs > 0 {
		cfg("runs", strconv.Itoa(r.Runs))
	}
	if r.RunTime > 0 {
		cfg("run-time", r.RunTime.String())
	}
	for _, kv := range slices.Concat(stopConfig(r.Stop), fingerprintConfig(r.Machine)) {
		cfg(kv[0], kv[1])
	}
	if !r.Start.IsZero() {
		cfg("start", r.Start.UTC().Format(time.RFC3339))
		cfg("duration", r.Duration.Round(time.Millisecond).String())
	}
	cfg("source", cmp.Or(r.Source, "measured"))
	for i, f := range r.Failures {
		cfg(fmt.Sprintf("failed-%d", i+1), f.Params.Key()+": "+f.Err)
	}
	for i, u := range r.Unavailable {
		cfg(fmt.Sprintf("unavailable-%d", i+1), u.Params.Key()+": "+u.Reason)
	}
	n := 0
	for _, row := range r.Rows {
		for _, m := range slices.Sorted(maps.Keys(row.Pool)) {
			n++
			p := row.Pool[m]
			cfg(fmt.Sprintf("pooled-%d", n), fmt.Sprintf("%s: %s %s %d", row.Params.Key(), m, strconv.FormatFloat(p.Value, 'g', -1, 64), p.N))
		}
	}
	bw.WriteString("\n")
	metrics := slices.Sorted(maps.Keys(r.Units))
	for _, row := range r.Rows {
		name := BenchName(r, row.Params)
		for _, run := range row.Runs {
			bw.WriteString(name)
			bw.WriteString(" 1")
			for _, m := range metrics {
				v, ok := run[m]
				if !ok {
					continue
				}
				if r.Units[m] == probe.Seconds {
					v *= 1e9
				}
				fmt.Fprintf(bw, " %s %s", strconv.FormatFloat(v, 'g', -1, 64), unitText(r.Units[m], m))
			}
			bw.WriteString("\n")
		}
	}
	return bw.Flush()
}

func unitText(u probe.Unit, metric string) string {
	switch u {
	case probe.Seconds:
		return "ns/" + metric
	case probe.Bytes:
		return "B/" + metric
	}
	return metric
}

func parseUnit(text string) (probe.Unit, string) {
	if m, ok := strings.CutPrefix(text, "ns/"); ok {
		return probe.Seconds, m
	}
	if m, ok := strings.CutPrefix(text, "B/"); ok {
		return probe.Bytes, m
	}
	return probe.Count, text
}

// MaxFile bounds the size of a results file: the largest sweep of the book
// writes a few kilobytes, and a file that is not a result (a device, a
// runaway log) must not be read into memory.
const MaxFile = 16 << 20

// Read parses a result written by Write (or by hand, for a reference set).
// Errors name the file and, where there is one, the line. When its probe
// is one of the registry all, every metric's unit is checked against the
// probe's spec (an edited "ns/round" → "B/round" would otherwise be read
// as bytes).
func Read(rd io.Reader, fileName string, all []probe.Probe) (*dataset.Result, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	return Parse(data, fileName, all)
}

// Parse is Read of a file already in memory.
func Parse(data []byte, fileName string, all []probe.Probe) (*dataset.Result, error) {
	if len(data) > MaxFile {
		return nil, fmt.Errorf("%s: larger than %s, not a results file", fileName, sizeText(MaxFile))
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// Write ends every line; a file cut short ends inside one, and
		// its last line could still parse with some metrics missing.
		return nil, fmt.Errorf("%s:%d: the last line is cut short (no line break at the end of the file)", fileName, bytes.Count(data, []byte("\n"))+1)
	}
	// One copy of the file: every string of the result is a piece of it.
	text := string(data)
	r := &dataset.Result{Sweep: map[string][]string{}, Units: map[string]probe.Unit{}}
	h, err := readConfig(text, fileName)
	if err != nil {
		return nil, err
	}
	if err := h.set(r); err != nil {
		return nil, err
	}
	first, err := readRuns(r, text, fileName)
	if err != nil {
		return nil, err
	}
	if err := h.setPooled(r); err != nil {
		return nil, err
	}
	if r.Measured() {
		// Every combination of the sweep is stored, as runs or as a
		// failure; and only complete combinations are stored, so fewer or
		// more runs than the header asked means the file was cut or edited.
		want := 1
		for _, k := range r.Order {
			want *= len(r.Sweep[k])
			if want > 1<<30 {
				break
			}
		}
		if got := len(r.Rows) + len(r.Failures) + len(r.Unavailable); got != want {
			return nil, fmt.Errorf("%s: holds %d of the %d combinations its params sweep, as runs, failures or unavailable ones (the file was cut short or edited)", fileName, got, want)
		}
		for _, row := range r.Rows {
			if len(row.Runs) != r.Runs {
				return nil, fmt.Errorf("%s: %s has %d runs stored, but the header says runs: %d (the file was cut short or edited)", fileName, BenchName(r, row.Params), len(row.Runs), r.Runs)
			}
		}
	}
	if p, ok := probe.Lookup(all, r.Probe); ok {
		if err := checkUnits(r, fileName, first, p.Spec); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// readRuns reads the benchmark lines of text into r's rows and units, and
// returns where each metric's unit is first given, in the order of text.
// benchfmt's Reader reads them, so that a file edited by hand or written
// by another tool means here what it means to benchstat.
func readRuns(r *dataset.Result, text, file string) (first []unitAt, err error) {
	base := strings.TrimPrefix(benchBase(r), "Benchmark")
	// A row by its benchmark name: its params decide the name, so a name
	// read before needs neither checking nor a key built again.
	rows := map[string]int{}
	br := benchfmt.NewReader(strings.NewReader(text), file)
	for br.Scan() {
		var rec *benchfmt.Result
		switch v := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, v
		case *benchfmt.Result:
			rec = v
		default:
			continue
		}
		at, n := rec.Pos()
		name := string(rec.Name)
		i, seen := rows[name]
		if !seen {
			params, err := paramsOf(r, base, name)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", at, n, err)
			}
			i = len(r.Rows)
			rows[name] = i
			r.Rows = append(r.Rows, dataset.Row{Params: params})
		}
		run := make(probe.Values, len(rec.Values))
		for _, v := range rec.Values {
			// benchfmt tidies "ns/round" into "sec/round" and keeps the
			// original beside it; other units stay as written.
			text, x := v.Unit, v.Value
			if v.OrigUnit != "" {
				text, x = v.OrigUnit, v.OrigValue
			}
			unit, metric := parseUnit(text)
			if metric == "" || strings.ContainsRune(metric, '/') {
				return nil, fmt.Errorf("%s:%d: unit %q is not ns/METRIC, B/METRIC or METRIC", at, n, text)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s:%d: metric %q is %v, not a measurement", at, n, metric, x)
			}
			if _, dup := run[metric]; dup {
				return nil, fmt.Errorf("%s:%d: metric %q twice on one line", at, n, metric)
			}
			if unit == probe.Seconds {
				x /= 1e9
			}
			run[metric] = x
			if u, seen := r.Units[metric]; !seen {
				r.Units[metric] = unit
				first = append(first, unitAt{metric, n})
			} else if u != unit {
				j := slices.IndexFunc(first, func(u unitAt) bool { return u.metric == metric })
				return nil, fmt.Errorf("%s:%d: metric %q is written as %q here but as %q on line %d", at, n, metric, text, unitText(u, metric), first[j].line)
			}
		}
		r.Rows[i].Runs = append(r.Rows[i].Runs, run)
	}
	if err := br.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return first, nil
}

// configLine is one "key: value" line of a file's header, and where it is.
type configLine struct {
	value string
	line  int
}

// readConfig collects the configuration lines (benchfmt's syntax: a key
// of lower-case letters and no spaces, a colon, a blank, the value). A key
// given twice is an error at its second line.
func readConfig(text, file string) (configLines, error) {
	cfg := make(map[string]configLine, 32) // Write's header has 20 to 30 lines.
	for n := 1; text != ""; n++ {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		key, value, ok := strings.Cut(strings.TrimSuffix(line, "\r"), ":")
		if !ok || !isConfigKey(key) || (value != "" && value[0] != ' ' && value[0] != '\t') {
			continue
		}
		if prev, dup := cfg[key]; dup {
			return configLines{}, fmt.Errorf("%s:%d: %q is given twice (first on line %d)", file, n, key, prev.line)
		}
		cfg[key] = configLine{strings.TrimSpace(value), n}
	}
	return configLines{cfg, file}, nil
}

func isConfigKey(k string) bool {
	if c, _ := utf8.DecodeRuneInString(k); k == "" || !unicode.IsLower(c) {
		return false
	}
	return !strings.ContainsFunc(k, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsUpper(c) })
}

// set reads and checks the header. A transcribed result carries only
// what its source states, so only experiment, probe, machine and source
// are required of it; a measured one also carries its probe hash, runs and
// start.
func (h configLines) set(r *dataset.Result) error {
	r.Source = h.get("source")
	if err := h.checkRequired(r.Measured()); err != nil {
		return err
	}
	if err := h.setSweep(r); err != nil {
		return err
	}
	if err := h.setTimes(r); err != nil {
		return err
	}
	m, err := h.fingerprint()
	if err != nil {
		return err
	}
	r.Machine = m
	return h.setGaps(r)
}

// configLines is a file's configuration lines, read by set's checks so
// that each error names the line of its key.
type configLines struct {
	cfg  map[string]configLine
	file string
}

func (h configLines) at(key, format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", h.file, h.cfg[key].line, key, fmt.Sprintf(format, a...))
}

func (h configLines) get(k string) string { return h.cfg[k].value }

// checkRequired checks that the lines a result must carry are there and
// not empty.
func (h configLines) checkRequired(measured bool) error {
	required := []string{"experiment", "probe", "machine", "source"}
	if measured {
		required = append(required, "probe-hash", "params", "runs", "start")
	}
	for _, k := range required {
		v, ok := h.cfg[k]
		if !ok {
			return fmt.Errorf("%s: missing %q configuration line (the file is cut short, or was not written by this tool)", h.file, k)
		}
		if v.value == "" && k != "params" { // a probe may have no params
			return h.at(k, "is empty")
		}
	}
	return nil
}

// setSweep sets what was measured: the experiment, which must be the
// file's, its probe and the values of each param.
func (h configLines) setSweep(r *dataset.Result) error {
	r.Experiment = h.get("experiment")
	if base := filepath.Base(h.file); strings.HasSuffix(base, ".txt") && r.Experiment != strings.TrimSuffix(base, ".txt") {
		return h.at("experiment", "names experiment %q, but the file is %s's", r.Experiment, strings.TrimSuffix(base, ".txt"))
	}
	r.Probe = h.get("probe")
	r.Hash = h.get("probe-hash")
	r.Order = strings.Fields(h.get("params"))
	for _, k := range r.Order {
		if _, dup := r.Sweep[k]; dup {
			return h.at("params", "param %q is listed twice", k)
		}
		vals, ok := h.cfg["param-"+k]
		if !ok {
			return h.at("params", "lists %q, but there is no param-%s line", k, k)
		}
		r.Sweep[k] = strings.Fields(vals.value)
	}
	return nil
}

// setTimes sets how the measurement ran: its runs, why it stopped, when
// it started and how long it took.
func (h configLines) setTimes(r *dataset.Result) error {
	if v, ok := h.cfg["runs"]; ok {
		n, err := strconv.Atoi(v.value)
		if err != nil || n < 1 {
			return h.at("runs", "%q is not a number of runs (a whole number, 1 or more)", v.value)
		}
		r.Runs = n
	}
	if v, ok := h.cfg["run-time"]; ok {
		d, err := time.ParseDuration(v.value)
		if err != nil || d <= 0 {
			return h.at("run-time", "%q is not a duration like 100ms", v.value)
		}
		r.RunTime = d
	}
	stop, err := readStop(h.get)
	if err != nil {
		return fmt.Errorf("%s: %w", h.file, err)
	}
	r.Stop = stop
	if v, ok := h.cfg["start"]; ok {
		t, err := time.Parse(time.RFC3339, v.value)
		if err != nil {
			return h.at("start", "%q is not a time like 2026-11-29T20:31:00Z", v.value)
		}
		r.Start = t
	}
	if v, ok := h.cfg["duration"]; ok {
		d, err := time.ParseDuration(v.value)
		if err != nil || d < 0 {
			return h.at("duration", "%q is not a duration like 41.2s", v.value)
		}
		r.Duration = d
	}
	return nil
}

// setGaps sets the combinations that failed and those the machine cannot
// measure, numbered lines "failed-N" and "unavailable-N" from 1 up.
func (h configLines) setGaps(r *dataset.Result) error {
	for _, kind := range []string{"failed", "unavailable"} {
		for i := 1; ; i++ {
			key := kind + "-" + strconv.Itoa(i)
			v, ok := h.cfg[key]
			if !ok {
				break
			}
			combo, cause, ok := strings.Cut(v.value, ": ")
			if !ok {
				return h.at(key, "expected \"k=v/k=v: %s\"", map[string]string{"failed": "cause", "unavailable": "reason"}[kind])
			}
			params := probe.Params{}
			for _, part := range strings.Split(combo, "/") {
				if k, val, ok := strings.Cut(part, "="); ok {
					params[k] = val
				}
			}
			if kind == "failed" {
				r.Failures = append(r.Failures, dataset.Failure{Params: params, Err: cause})
			} else {
				r.Unavailable = append(r.Unavailable, dataset.Unavailable{Params: params, Reason: cause})
			}
		}
	}
	return nil
}

// setPooled sets the rows' pooled quantiles, numbered lines "pooled-N:
// PARAMS: METRIC VALUE COUNT" from 1 up (VALUE in the metric's base unit):
// each of a row the file holds, a metric of its units, once.
func (h configLines) setPooled(r *dataset.Result) error {
	rows := map[string]*dataset.Row{}
	for i := range r.Rows {
		rows[r.Rows[i].Params.Key()] = &r.Rows[i]
	}
	for i := 1; ; i++ {
		key := "pooled-" + strconv.Itoa(i)
		v, ok := h.cfg[key]
		if !ok {
			return nil
		}
		combo, rest, _ := strings.Cut(v.value, ": ")
		f := strings.Fields(rest)
		row := rows[combo]
		if row == nil || len(f) != 3 {
			return h.at(key, "expected \"k=v/k=v: METRIC VALUE COUNT\" of a combination the file holds runs of")
		}
		x, err1 := strconv.ParseFloat(f[1], 64)
		n, err2 := strconv.Atoi(f[2])
		_, unit := r.Units[f[0]]
		_, dup := row.Pool[f[0]]
		if !unit || dup || err1 != nil || err2 != nil || n < 1 || math.IsNaN(x) || math.IsInf(x, 0) {
			return h.at(key, "%q is not a metric of the file's, given once, with a number and a count of 1 or more", rest)
		}
		if row.Pool == nil {
			row.Pool = map[string]dataset.Pooled{}
		}
		row.Pool[f[0]] = dataset.Pooled{Value: x, N: n}
	}
}

// paramsOf reads a benchmark line's params from its name (without
// "Benchmark"): every param of the header's params line, in its order,
// with one of its listed values. base is the experiment's part of names.
func paramsOf(r *dataset.Result, base, name string) (probe.Params, error) {
	first, rest, _ := strings.Cut(name, "/")
	if first != base {
		return nil, fmt.Errorf("benchmark %q is not experiment %s's (Benchmark%s/…)", "Benchmark"+first, r.Experiment, base)
	}
	if n := strings.Count(name, "/"); n != len(r.Order) {
		return nil, fmt.Errorf("benchmark %q names %d params, the params line %d", name, n, len(r.Order))
	}
	p := make(probe.Params, len(r.Order))
	for _, want := range r.Order {
		var part string
		part, rest, _ = strings.Cut(rest, "/")
		k, v, ok := strings.Cut(part, "=")
		if !ok || k != want {
			return nil, fmt.Errorf("benchmark name part %q: expected %s=VALUE, the params in the order of the params line", part, want)
		}
		switch {
		case probe.IsAuto(r.Sweep[k]):
			// A count sized per combination: the one it ran with.
			if n, err := strconv.Atoi(v); err != nil || n < 1 || strconv.Itoa(n) != v {
				return nil, fmt.Errorf("benchmark name part %q: param-%s is auto, so %s should be the count the run was sized to (a whole number, 1 or more)", part, k, v)
			}
		case !slices.Contains(r.Sweep[k], v):
			return nil, fmt.Errorf("benchmark name part %q: %s is not one of param-%s's values (%s)", part, v, k, strings.Join(r.Sweep[k], " "))
		}
		p[k] = v
	}
	return p, nil
}

// Path is where experiment id of a machine's set lives under dir.
func Path(dir, machineName, id string) string {
	return filepath.Join(dir, machineName, id+".txt")
}

// Load reads one stored result; a missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist). all is as for Read.
func Load(path string, all []probe.Probe) (*dataset.Result, error) {
	data, err := ReadFile(path, MaxFile)
	if err != nil {
		return nil, err
	}
	return Parse(data, path, all)
}

// ReadFile reads a regular file (a symlink to one is followed) of at most
// max bytes. A FIFO, a device, a directory or a larger file is an error
// naming it, and nothing blocks on it: the book's inputs are files, and
// /dev/zero or a pipe must neither hang nor exhaust memory.
func ReadFile(path string, max int64) ([]byte, error) {
	if _, err := regular(path, max, os.Stat); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should the path become a FIFO after the check, opening
	// it does not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := regular(path, max, func(string) (os.FileInfo, error) { return f.Stat() })
	if err != nil {
		return nil, err
	}
	// A buffer of the file's size: a build reads every chapter and result.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, fmt.Errorf("%s: grew past %d bytes while being read", path, max)
	}
	return buf.Bytes(), nil
}

// regular checks that path is a regular file of at most max bytes.
func regular(path string, max int64, stat func(string) (os.FileInfo, error)) (os.FileInfo, error) {
	fi, err := stat(path)
	if err != nil {
		return nil, err
	}
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, kind(fi.Mode()))
	case fi.Size() > max:
		return nil, fmt.Errorf("%s: larger than %s (%d bytes)", path, sizeText(max), fi.Size())
	}
	return fi, nil
}

func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// Save writes r atomically (ReplaceFile), so an interrupted measurement
// never leaves a half-written result.
func Save(path string, r *dataset.Result) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		return err
	}
	return ReplaceFile(path, buf.Bytes())
}

// ReplaceFile writes data to a temporary file beside path and renames it
// over path, keeping path's permissions (0644 for a new file).
func ReplaceFile(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Named lists the paths of dir's entries whose names start with prefix
// and end with suffix, sorted. dir is a path as given, never a pattern:
// a folder named "ch[ap]ters" is that folder, not its siblings.
func Named(dir, prefix, suffix string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	var paths []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, prefix) && strings.HasSuffix(n, suffix) && len(n) >= len(prefix)+len(suffix) {
			paths = append(paths, filepath.Join(dir, n))
		}
	}
	return paths, err
}

// Belongs checks that res may stand as experiment id of the set named set:
// it holds that experiment, was measured on the machine the set is named
// after, and has a machine fingerprint (CPU and cores; for a measured
// result also the OS kernel, architecture and Go version). It is one rule
// for a build reading results/SET/ and an import taking a bundle in.
func Belongs(res *dataset.Result, set, id string) error {
	if res.Experiment != id {
		return fmt.Errorf("holds experiment %q, not %q", res.Experiment, id)
	}
	m := res.Machine
	if m.Name != set {
		return fmt.Errorf("measured on machine %q, but it is in the set %q; a set holds one machine's results", m.Name, set)
	}
	var missing []string
	need := func(ok bool, key string) {
		if !ok {
			missing = append(missing, key)
		}
	}
	need(m.CPU != "", "machine-cpu")
	need(m.Cores > 0, "machine-cores")
	if res.Measured() {
		need(m.Kernel != "", "machine-kernel")
		need(m.Arch != "", "machine-arch")
		need(m.Go != "", "machine-go")
	}
	if len(missing) > 0 {
		return fmt.Errorf("no machine fingerprint: %s missing", strings.Join(missing, ", "))
	}
	return nil
}
