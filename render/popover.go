package render

import (
	"html"
	"sort"

	"github.com/yuin/goldmark/util"

	"measuredbook/view"
)

// writeData writes out's Data as data-KEY attributes in key order,
// skipping empty values, and makes a live value with something to tell
// (its provenance, or a title: a setting's) focusable, so a keyboard or a
// touch reaches it.
func writeData(w util.BufWriter, out *view.Out) {
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
	if out.State == view.Figure && (len(keys) > 0 || out.Title != "") {
		w.WriteString(` tabindex="0"`)
	}
}
