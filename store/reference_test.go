package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/perf/benchfmt"

	"measuredbook/dataset"
	"measuredbook/machine"
	"measuredbook/probe"
)

// refRead is Read as it was before its own parser replaced benchfmt's
// Reader (commit 12901e1): the reference that TestReadMatchesReference and
// FuzzReadMatchesReference hold Read to, result for result and error for
// error, and that BenchmarkRead measures it against.
func refRead(rd io.Reader, fileName string, all []probe.Probe) (*dataset.Result, error) {
	data, err := io.ReadAll(io.LimitReader(rd, MaxFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	if len(data) > MaxFile {
		return nil, fmt.Errorf("%s: larger than %s, not a results file", fileName, sizeText(MaxFile))
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// Write ends every line; a file cut short ends inside one, and
		// its last line could still parse with some metrics missing.
		return nil, fmt.Errorf("%s:%d: the last line is cut short (no line break at the end of the file)", fileName, bytes.Count(data, []byte("\n"))+1)
	}
	r := &dataset.Result{Sweep: map[string][]string{}, Units: map[string]probe.Unit{}}
	unitLines := map[string]int{} // the first line giving each metric's unit
	cfg, err := refReadConfig(data, fileName)
	if err != nil {
		return nil, err
	}
	if err := refSetConfig(r, cfg, fileName); err != nil {
		return nil, err
	}
	br := benchfmt.NewReader(bytes.NewReader(data), fileName)
	rows := map[string]int{}
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			file, line := rec.Pos()
			at := func(err error) error { return fmt.Errorf("%s:%d: %w", file, line, err) }
			params, err := refParamsOf(r, rec.Name)
			if err != nil {
				return nil, at(err)
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
				if metric == "" || strings.ContainsRune(metric, '/') {
					return nil, at(fmt.Errorf("unit %q is not ns/METRIC, B/METRIC or METRIC", text))
				}
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, at(fmt.Errorf("metric %q is %v, not a measurement", metric, x))
				}
				if _, dup := run[metric]; dup {
					return nil, at(fmt.Errorf("metric %q twice on one line", metric))
				}
				if unit == probe.Seconds {
					x /= 1e9
				}
				run[metric] = x
				if u, seen := r.Units[metric]; !seen {
					r.Units[metric] = unit
					unitLines[metric] = line
				} else if u != unit {
					return nil, at(fmt.Errorf("metric %q is written as %q here but as %q on line %d", metric, text, unitText(u, metric), unitLines[metric]))
				}
			}
			key := params.Key()
			i, ok := rows[key]
			if !ok {
				i = len(r.Rows)
				rows[key] = i
				r.Rows = append(r.Rows, dataset.Row{Params: params})
			}
			r.Rows[i].Runs = append(r.Rows[i].Runs, run)
		}
	}
	if err := br.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
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
		if err := refCheckUnits(r, fileName, unitLines, p.Spec); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// refConfigLine is configLine, as it was.
type refConfigLine struct {
	value string
	line  int
}

// refReadConfig is readConfig, as it was.
func refReadConfig(data []byte, file string) (map[string]refConfigLine, error) {
	cfg := map[string]refConfigLine{}
	for i, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(strings.TrimSuffix(line, "\r"), ":")
		if !ok || !refIsConfigKey(key) || (value != "" && value[0] != ' ' && value[0] != '\t') {
			continue
		}
		if prev, dup := cfg[key]; dup {
			return nil, fmt.Errorf("%s:%d: %q is given twice (first on line %d)", file, i+1, key, prev.line)
		}
		cfg[key] = refConfigLine{strings.TrimSpace(value), i + 1}
	}
	return cfg, nil
}

func refIsConfigKey(k string) bool {
	if k == "" || !unicode.IsLower([]rune(k)[0]) {
		return false
	}
	return !strings.ContainsFunc(k, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsUpper(c) })
}

// refSetConfig is setConfig, as it was.
func refSetConfig(r *dataset.Result, cfg map[string]refConfigLine, file string) error {
	at := func(key, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s: %s", file, cfg[key].line, key, fmt.Sprintf(format, a...))
	}
	get := func(k string) string { return cfg[k].value }
	r.Source = get("source")
	required := []string{"experiment", "probe", "machine", "source"}
	if r.Measured() {
		required = append(required, "probe-hash", "params", "runs", "start")
	}
	for _, k := range required {
		v, ok := cfg[k]
		if !ok {
			return fmt.Errorf("%s: missing %q configuration line (the file is cut short, or was not written by this tool)", file, k)
		}
		if v.value == "" && k != "params" { // a probe may have no params
			return at(k, "is empty")
		}
	}
	r.Experiment = get("experiment")
	if base := filepath.Base(file); strings.HasSuffix(base, ".txt") && r.Experiment != strings.TrimSuffix(base, ".txt") {
		return at("experiment", "names experiment %q, but the file is %s's", r.Experiment, strings.TrimSuffix(base, ".txt"))
	}
	r.Probe = get("probe")
	r.Hash = get("probe-hash")
	r.Order = strings.Fields(get("params"))
	for _, k := range r.Order {
		if _, dup := r.Sweep[k]; dup {
			return at("params", "param %q is listed twice", k)
		}
		vals, ok := cfg["param-"+k]
		if !ok {
			return at("params", "lists %q, but there is no param-%s line", k, k)
		}
		r.Sweep[k] = strings.Fields(vals.value)
	}
	if v, ok := cfg["runs"]; ok {
		n, err := strconv.Atoi(v.value)
		if err != nil || n < 1 {
			return at("runs", "%q is not a number of runs (a whole number, 1 or more)", v.value)
		}
		r.Runs = n
	}
	if v, ok := cfg["start"]; ok {
		t, err := time.Parse(time.RFC3339, v.value)
		if err != nil {
			return at("start", "%q is not a time like 2026-11-29T20:31:00Z", v.value)
		}
		r.Start = t
	}
	if v, ok := cfg["duration"]; ok {
		d, err := time.ParseDuration(v.value)
		if err != nil || d < 0 {
			return at("duration", "%q is not a duration like 41.2s", v.value)
		}
		r.Duration = d
	}
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m, err := machine.FromConfig(get, keys)
	if err != nil {
		var ke *machine.KeyError
		if errors.As(err, &ke) {
			return at(ke.Key, "%v", ke.Err)
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	r.Machine = m
	for _, kind := range []string{"failed", "unavailable"} {
		for i := 1; ; i++ {
			key := fmt.Sprintf("%s-%d", kind, i)
			v, ok := cfg[key]
			if !ok {
				break
			}
			combo, cause, ok := strings.Cut(v.value, ": ")
			if !ok {
				return at(key, "expected \"k=v/k=v: %s\"", map[string]string{"failed": "cause", "unavailable": "reason"}[kind])
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

// refParamsOf is paramsOf, as it was.
func refParamsOf(r *dataset.Result, name benchfmt.Name) (probe.Params, error) {
	// benchfmt drops the "Benchmark" prefix from names.
	parts := strings.Split(string(name), "/")
	if want := strings.TrimPrefix(benchBase(r), "Benchmark"); parts[0] != want {
		return nil, fmt.Errorf("benchmark %q is not experiment %s's (Benchmark%s/…)", "Benchmark"+parts[0], r.Experiment, want)
	}
	parts = parts[1:]
	if len(parts) != len(r.Order) {
		return nil, fmt.Errorf("benchmark %q names %d params, the params line %d", name, len(parts), len(r.Order))
	}
	p := probe.Params{}
	for i, part := range parts {
		k, v, ok := strings.Cut(part, "=")
		if !ok || k != r.Order[i] {
			return nil, fmt.Errorf("benchmark name part %q: expected %s=VALUE, the params in the order of the params line", part, r.Order[i])
		}
		if !slices.Contains(r.Sweep[k], v) {
			return nil, fmt.Errorf("benchmark name part %q: %s is not one of param-%s's values (%s)", part, v, k, strings.Join(r.Sweep[k], " "))
		}
		p[k] = v
	}
	return p, nil
}

// refCheckUnits is checkUnits, as it was.
func refCheckUnits(r *dataset.Result, file string, unitLines map[string]int, spec probe.Spec) error {
	names := make([]string, 0, len(r.Units))
	for m := range r.Units {
		names = append(names, m)
	}
	sort.Slice(names, func(i, j int) bool { return unitLines[names[i]] < unitLines[names[j]] })
	var errs []error
	for _, name := range names {
		at := fmt.Sprintf("%s:%d", file, unitLines[name])
		m, ok := spec.Metric(name)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: metric %q is not one of probe %s's", at, name, spec.Name))
			continue
		}
		if got := r.Units[name]; got != m.Unit {
			errs = append(errs, fmt.Errorf("%s: metric %q is written as %q, but probe %s measures it in %q", at, name, unitText(got, name), spec.Name, unitText(m.Unit, name)))
		}
	}
	return errors.Join(errs...)
}
