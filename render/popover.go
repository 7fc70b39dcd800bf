package render

import (
	"html"
	"io"
	"maps"
	"slices"

	"measuredbook/view"
)

// writeData writes out's Data as data-KEY attributes in key order,
// skipping empty values, and makes a live value with something to tell
// (its provenance, or a title: a setting's) focusable, so a keyboard or a
// touch reaches it. On a site page (s) a value drawing on an experiment
// shown on another page says which (data-page), for its popover's link.
func writeData(w io.StringWriter, s *Site, out *view.Out) {
	keys := slices.DeleteFunc(slices.Sorted(maps.Keys(out.Data)), func(k string) bool { return out.Data[k] == "" })
	for _, k := range keys {
		w.WriteString(` data-` + k + `="` + html.EscapeString(out.Data[k]) + `"`)
		if k != "exp" || s == nil {
			continue
		}
		if p, ok := s.PageOf[out.Data[k]]; ok && p != s.Page {
			w.WriteString(` data-page="` + html.EscapeString(p) + `"`)
		}
	}
	if out.State == view.Figure && (len(keys) > 0 || out.Title != "") {
		w.WriteString(` tabindex="0"`)
	}
}
