// Package store keeps measured results: one file per experiment per
// machine, results/MACHINE/ID.txt, in the Go benchmark format
// (golang.org/x/perf/benchfmt), so that benchstat compares two machines or
// two rebuilds with no tool of ours:
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
// is kept as a "failed-N:" configuration line with its cause.
package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"measuredbook/machine"
	"measuredbook/probe"
)

// Row is one parameter combination and the metrics of each of its runs.
type Row struct {
	Params probe.Params
	Runs   []probe.Values
}

// Failure is a combination that could not be measured, and why.
type Failure struct {
	Params probe.Params
	Err    string
}

// Result is one experiment measured on one machine.
type Result struct {
	Experiment string
	Probe      string
	Hash       string              // the probe's code hash at measuring time
	Order      []string            // param names, in the probe's declared order
	Sweep      map[string][]string // each param's canonical values (one for a fixed param)
	Runs       int                 // runs asked for per combination
	Machine    machine.Fingerprint
	Start      time.Time
	Duration   time.Duration
	// Source says where the numbers come from: "measured", or for a
	// reference set "transcribed from ..." (never measured here).
	Source   string
	Units    map[string]probe.Unit
	Rows     []Row
	Failures []Failure
}

// Measured reports whether the numbers were measured by this tool (as
// opposed to transcribed from a book).
func (r *Result) Measured() bool { return r.Source == "" || r.Source == "measured" }

// Summary is the median and range of one metric over a row's runs.
type Summary struct {
	Median, Min, Max float64
	N                int
}

// Summarize summarises one metric of one row with benchmath (the median,
// as benchstat reports it) and the min and max over the runs.
func Summarize(row Row, metric string) (Summary, bool) {
	var vals []float64
	for _, run := range row.Runs {
		if v, ok := run[metric]; ok {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return Summary{}, false
	}
	s := benchmath.NewSample(vals, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	return Summary{Median: sum.Center, Min: s.Values[0], Max: s.Values[len(s.Values)-1], N: len(vals)}, true
}

// Spread is the largest (max−min)/median over every row and metric, the
// single "spread" a provenance line quotes.
func (r *Result) Spread() float64 {
	worst := 0.0
	for _, row := range r.Rows {
		for m := range r.Units {
			s, ok := Summarize(row, m)
			if !ok || s.Median == 0 || s.N < 2 {
				continue
			}
			worst = math.Max(worst, (s.Max-s.Min)/math.Abs(s.Median))
		}
	}
	return worst
}

// BenchName is the benchmark name of a row: "Benchmark" + the experiment id
// with its first letter upper-cased, then "/key=value" per param in order.
func (r *Result) BenchName(p probe.Params) string {
	var b strings.Builder
	b.WriteString("Benchmark")
	for i, c := range r.Experiment {
		if i == 0 {
			c = unicode.ToUpper(c)
		}
		b.WriteRune(c)
	}
	for _, k := range r.Order {
		fmt.Fprintf(&b, "/%s=%s", k, p[k])
	}
	return b.String()
}

// Write writes r in benchfmt form.
func Write(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	cfg := func(k, v string) {
		v = strings.Map(func(c rune) rune {
			if c == '\n' || c == '\r' {
				return ' '
			}
			return c
		}, v)
		fmt.Fprintf(bw, "%s: %s\n", k, v)
	}
	cfg("experiment", r.Experiment)
	cfg("probe", r.Probe)
	cfg("probe-hash", r.Hash)
	cfg("params", strings.Join(r.Order, " "))
	for _, k := range r.Order {
		cfg("param-"+k, strings.Join(r.Sweep[k], " "))
	}
	cfg("runs", strconv.Itoa(r.Runs))
	for _, kv := range r.Machine.Config() {
		cfg(kv[0], kv[1])
	}
	cfg("start", r.Start.UTC().Format(time.RFC3339))
	cfg("duration", r.Duration.Round(time.Millisecond).String())
	source := r.Source
	if source == "" {
		source = "measured"
	}
	cfg("source", source)
	for i, f := range r.Failures {
		cfg(fmt.Sprintf("failed-%d", i+1), f.Params.Key()+": "+f.Err)
	}
	bw.WriteString("\n")
	metrics := make([]string, 0, len(r.Units))
	for m := range r.Units {
		metrics = append(metrics, m)
	}
	sort.Strings(metrics)
	for _, row := range r.Rows {
		name := r.BenchName(row.Params)
		for _, run := range row.Runs {
			bw.WriteString(name)
			bw.WriteString(" 1")
			for _, m := range metrics {
				v, ok := run[m]
				if !ok {
					continue
				}
				unit := unitText(r.Units[m], m)
				if r.Units[m] == probe.Seconds {
					v *= 1e9
				}
				fmt.Fprintf(bw, " %s %s", strconv.FormatFloat(v, 'g', -1, 64), unit)
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

// Read parses a result written by Write (or by hand, for a reference set).
func Read(rd io.Reader, fileName string) (*Result, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, err
	}
	r := &Result{Sweep: map[string][]string{}, Units: map[string]probe.Unit{}}
	br := benchfmt.NewReader(bytes.NewReader(data), fileName)
	rows := map[string]int{}
	var cfg map[string]string
	var cfgKeys []string
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			if cfg == nil {
				cfg = map[string]string{}
				for _, c := range rec.Config {
					if c.File {
						cfg[c.Key] = string(c.Value)
						cfgKeys = append(cfgKeys, c.Key)
					}
				}
				if err := r.setConfig(cfg, cfgKeys); err != nil {
					return nil, fmt.Errorf("%s: %w", fileName, err)
				}
			}
			params, err := r.paramsOf(rec.Name)
			if err != nil {
				file, line := rec.Pos()
				return nil, fmt.Errorf("%s:%d: %w", file, line, err)
			}
			run := probe.Values{}
			for _, v := range rec.Values {
				// benchfmt tidies "ns/round" into "sec/round" and keeps
				// the original beside it; other units stay as written.
				text, x := v.Unit, v.Value
				if v.OrigUnit != "" {
					text, x = v.OrigUnit, v.OrigValue
				}
				unit, metric := parseUnit(text)
				if unit == probe.Seconds {
					x /= 1e9
				}
				run[metric] = x
				r.Units[metric] = unit
			}
			key := params.Key()
			i, ok := rows[key]
			if !ok {
				i = len(r.Rows)
				rows[key] = i
				r.Rows = append(r.Rows, Row{Params: params})
			}
			r.Rows[i].Runs = append(r.Rows[i].Runs, run)
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	if cfg == nil {
		// A result whose every combination failed has no benchmark lines;
		// its configuration is all there is.
		cfg, cfgKeys = headerConfig(data)
		if err := r.setConfig(cfg, cfgKeys); err != nil {
			return nil, fmt.Errorf("%s: %w", fileName, err)
		}
	}
	return r, nil
}

// headerConfig parses the "key: value" lines of a file with no results.
func headerConfig(data []byte) (map[string]string, []string) {
	cfg := map[string]string{}
	var keys []string
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if ok && k != "" && !strings.ContainsAny(k, " \t") {
			cfg[k] = v
			keys = append(keys, k)
		}
	}
	return cfg, keys
}

func (r *Result) setConfig(cfg map[string]string, keys []string) error {
	r.Experiment = cfg["experiment"]
	if r.Experiment == "" {
		return errors.New(`missing "experiment:" configuration line`)
	}
	r.Probe = cfg["probe"]
	r.Hash = cfg["probe-hash"]
	r.Order = strings.Fields(cfg["params"])
	for _, k := range r.Order {
		r.Sweep[k] = strings.Fields(cfg["param-"+k])
	}
	r.Runs, _ = strconv.Atoi(cfg["runs"])
	r.Machine = machine.FromConfig(func(k string) string { return cfg[k] }, keys)
	r.Start, _ = time.Parse(time.RFC3339, cfg["start"])
	r.Duration, _ = time.ParseDuration(cfg["duration"])
	r.Source = cfg["source"]
	for i := 1; ; i++ {
		v, ok := cfg[fmt.Sprintf("failed-%d", i)]
		if !ok {
			break
		}
		key, cause, _ := strings.Cut(v, ": ")
		params := probe.Params{}
		for _, part := range strings.Split(key, "/") {
			if k, val, ok := strings.Cut(part, "="); ok {
				params[k] = val
			}
		}
		r.Failures = append(r.Failures, Failure{Params: params, Err: cause})
	}
	return nil
}

func (r *Result) paramsOf(name benchfmt.Name) (probe.Params, error) {
	_, parts := name.Parts()
	p := probe.Params{}
	for _, part := range parts {
		k, v, ok := strings.Cut(strings.TrimPrefix(string(part), "/"), "=")
		if !ok {
			return nil, fmt.Errorf("benchmark name part %q is not key=value", part)
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
// errors.Is(err, fs.ErrNotExist).
func Load(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Save writes r atomically (a temporary file renamed into place), so an
// interrupted measurement never leaves a half-written result.
func Save(path string, r *Result) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := Write(tmp, r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
