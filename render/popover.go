package render

import (
	"html"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/util"

	"measuredbook/dataset"
	"measuredbook/render/ast"
)

// provenanceData is what a live value's popover says about the result it
// draws on (ast.Out.Data): its experiment, machine and measuring date,
// and whether it is a reference set's (not measured here).
func provenanceData(id, set string, r *dataset.Result) map[string]string {
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

// titleInData reports whether out's title says nothing its Data does not
// (the popover, or the stylesheet without a script, shows the Data):
// the range, the runs and the machine, or that the figure was transcribed
// from the original book (whose source the environment page gives).
func titleInData(out *ast.Out) bool {
	d := out.Data
	if d == nil {
		return false
	}
	if d["ref"] == "transcribed" {
		// One note and nothing else: a second set, a setting or a
		// stale result would follow " · ".
		return strings.HasPrefix(out.Title, d["machine"]+": 원 책에서 옮겨 적은 값") && !strings.Contains(out.Title, " · ")
	}
	var parts []string
	if d["range"] != "" {
		parts = append(parts, d["range"])
	}
	if d["runs"] != "" {
		parts = append(parts, plural(atoi(d["runs"]), "run", "runs"))
	}
	parts = append(parts, d["machine"])
	return out.Title == strings.Join(parts, " · ")
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
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
