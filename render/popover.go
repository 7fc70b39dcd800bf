package render

import (
	"html"
	"sort"
	"strings"

	"github.com/yuin/goldmark/util"

	"measuredbook/render/ast"
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

// writeData writes out's Data as data-KEY attributes in key order,
// skipping empty values, and makes a live value with something to tell
// (its provenance, or a title: a setting's) focusable, so a keyboard or a
// touch reaches it.
func writeData(w util.BufWriter, out *ast.Out) {
	keys := make([]string, 0, len(out.Data))
	for k, v := range out.Data {
		if v != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		w.WriteString(` data-` + k + `="` + html.EscapeString(out.Data[k]) + `"`)
	}
	if strings.HasPrefix(out.Class, "mb-value") && (len(keys) > 0 || out.Title != "") {
		w.WriteString(` tabindex="0"`)
	}
}
