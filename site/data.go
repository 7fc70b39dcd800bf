package site

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"sort"
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
	d := Data{Experiment: r.Experiment, Probe: r.Probe, Set: set, Machine: r.Machine.Name, Source: r.Source,
		Units: map[string]string{}, Params: r.Order}
	if d.Source == "" {
		d.Source = "measured"
	}
	if !r.Start.IsZero() {
		d.Start = r.Start.UTC().Format(time.RFC3339)
	}
	var metrics []string
	for m, u := range r.Units {
		d.Units[m] = string(u)
		metrics = append(metrics, m)
	}
	for _, row := range r.Rows {
		for _, run := range row.Runs {
			for m := range run {
				if !slices.Contains(metrics, m) {
					metrics = append(metrics, m)
				}
			}
		}
	}
	sort.Strings(metrics)
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
	if jsonFile, err = json.MarshalIndent(d, "", "  "); err != nil {
		return nil, nil, err
	}
	return append(jsonFile, '\n'), buf.Bytes(), w.Error()
}

var experimentRE = regexp.MustCompile(`<figure class="mb-experiment" id="experiment-([^"]+)">`)

// LinkData adds to each experiment's provenance line (its figure's
// caption) the links to its raw data, for the experiments with data (has).
func LinkData(body []byte, has map[string]bool) []byte {
	var out bytes.Buffer
	out.Grow(len(body) + 1024)
	for {
		loc := experimentRE.FindSubmatchIndex(body)
		if loc == nil {
			out.Write(body)
			return out.Bytes()
		}
		end := bytes.Index(body[loc[1]:], []byte("</figure>"))
		if end < 0 {
			out.Write(body)
			return out.Bytes()
		}
		fig := body[:loc[1]+end]
		caption := bytes.LastIndex(fig, []byte("</figcaption>"))
		id := html.UnescapeString(string(body[loc[2]:loc[3]]))
		if caption < loc[1] || !has[id] {
			out.Write(fig)
			body = body[len(fig):]
			continue
		}
		cut := caption
		if bytes.HasSuffix(fig[:cut], []byte("</span>")) {
			cut -= len("</span>")
		}
		e := html.EscapeString(id)
		out.Write(fig[:cut])
		fmt.Fprintf(&out, ` <span class="mb-data">원자료 <a href="data/%s.csv" download>CSV</a> · <a href="data/%s.json" download>JSON</a></span>`, e, e)
		out.Write(fig[cut:])
		body = body[len(fig):]
	}
}

// LinkExperiments tells each live value drawing on an experiment shown on
// another page where that page is (data-page), for its popover's link.
func LinkExperiments(body []byte, page string, pageOf map[string]string) []byte {
	return replaceAttrs(body, "data-exp", func(m, value []byte) []byte {
		id := html.UnescapeString(string(value))
		if p, ok := pageOf[id]; ok && p != page {
			return fmt.Appendf(nil, `%s data-page="%s"`, m, html.EscapeString(p))
		}
		return m
	})
}
