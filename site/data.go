package site

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"

	"measuredbook/dataset"
)

// Data is an experiment's raw result for download: every run of every
// combination, the combinations that failed and those the machine cannot
// measure.
type Data struct {
	Experiment string              `json:"experiment"`
	Probe      string              `json:"probe"`
	Set        string              `json:"set"`
	Machine    string              `json:"machine"`
	Source     string              `json:"source"`
	Start      string              `json:"start,omitempty"`
	Units      map[string]string   `json:"units"`
	Params     []string            `json:"params"`
	Runs       []map[string]any    `json:"runs"`
	Failures   []map[string]string `json:"failures,omitempty"`
	// Unavailable are the combinations the machine cannot measure, each
	// with its params and the probe's reason.
	Unavailable []map[string]string `json:"unavailable,omitempty"`
}

// Export is r (of set) as data/ID.json and data/ID.csv: the JSON holds
// everything, the CSV one line per run (the params, the run's number,
// then each metric in its unit).
func Export(set string, r *dataset.Result) (jsonFile, csvFile []byte, err error) {
	d := Data{Experiment: r.Experiment, Probe: r.Probe, Set: set, Machine: r.Machine.Name,
		Source: cmp.Or(r.Source, "measured"), Units: map[string]string{}, Params: r.Order}
	if !r.Start.IsZero() {
		d.Start = r.Start.UTC().Format(time.RFC3339)
	}
	seen := map[string]bool{}
	for m, u := range r.Units {
		d.Units[m] = string(u)
		seen[m] = true
	}
	for _, row := range r.Rows {
		for _, run := range row.Runs {
			for m := range run {
				seen[m] = true
			}
		}
	}
	metrics := slices.Sorted(maps.Keys(seen))
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := append(append(slices.Clone(r.Order), "run"), metrics...)
	for i, m := range metrics {
		if u := d.Units[m]; u != "" {
			head[len(r.Order)+1+i] = m + " (" + u + ")"
		}
	}
	w.Write(head)
	for _, row := range r.Rows {
		for i, run := range row.Runs {
			line := make([]string, 0, len(head))
			rec := map[string]any{"run": i + 1}
			for _, p := range r.Order {
				line = append(line, row.Params[p])
				rec[p] = row.Params[p]
			}
			line = append(line, strconv.Itoa(i+1))
			for _, m := range metrics {
				v, ok := run[m]
				if !ok {
					line = append(line, "")
					continue
				}
				line = append(line, strconv.FormatFloat(v, 'g', -1, 64))
				rec[m] = v
			}
			w.Write(line)
			d.Runs = append(d.Runs, rec)
		}
	}
	w.Flush()
	for _, f := range r.Failures {
		rec := map[string]string{"error": f.Err}
		for _, p := range r.Order {
			rec[p] = f.Params[p]
		}
		d.Failures = append(d.Failures, rec)
	}
	for _, u := range r.Unavailable {
		rec := map[string]string{"reason": u.Reason}
		for _, p := range r.Order {
			rec[p] = u.Params[p]
		}
		d.Unavailable = append(d.Unavailable, rec)
	}
	// Compact: the file is for programs (the CSV is the one to read);
	// indented, it would be 60 % larger, once for every experiment.
	if jsonFile, err = json.Marshal(d); err != nil {
		return nil, nil, err
	}
	return append(jsonFile, '\n'), buf.Bytes(), w.Error()
}
