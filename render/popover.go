package render

import (
	"html"
	"sort"

	"github.com/yuin/goldmark/util"

	"measuredbook/store"
)

// provenanceData is what a live value's popover says about the result it
// draws on (ast.Out.Data): its experiment, machine and measuring date,
// and whether it is a reference set's (not measured here).
func provenanceData(id, set string, r *store.Result) map[string]string {
	d := map[string]string{"exp": id, "machine": r.Machine.Name}
	if d["machine"] == "" {
		d["machine"] = set
	}
	if r.Machine.CPU != "" {
		d["machine"] += " (" + r.Machine.CPU + ")"
	}
	if !r.Start.IsZero() {
		d["date"] = r.Start.UTC().Format("2006-01-02")
	}
	if !r.Measured() {
		d["ref"] = "transcribed"
	} else if set != "" {
		d["ref"] = set
	}
	return d
}

// writeData writes data as data-KEY attributes in key order, skipping
// empty values, and makes the value focusable so a keyboard or a touch
// reaches its provenance.
func writeData(w util.BufWriter, data map[string]string) {
	if data == nil {
		return
	}
	keys := make([]string, 0, len(data))
	for k, v := range data {
		if v != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		w.WriteString(` data-` + k + `="` + html.EscapeString(data[k]) + `"`)
	}
	w.WriteString(` tabindex="0"`)
}
