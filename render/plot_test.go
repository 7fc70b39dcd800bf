package render

import (
	"bytes"
	"measuredbook/evaluate"
	"testing"

	"measuredbook/plotsvg"
	"measuredbook/probes"
	"measuredbook/view"
)

// TestBookPlots renders every plot of the book's chapters, against the
// committed results, and holds each to plotsvg.Reference: Render draws
// with a canvas of its own that must write, byte for byte, what gonum's
// vgsvg canvas writes.
func TestBookPlots(t *testing.T) {
	all := probes.All()
	docs, exps := parseBook(t, all)
	res := bookResults(t, all)
	n := 0
	for _, d := range docs {
		page, err := evaluate.Evaluate(d, res, exps)
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range d.Directives() {
			pl, ok := page.Views.View(dir.Node).(*view.Plot)
			if !ok || pl.Missing != "" {
				continue
			}
			n++
			svg, err := plotsvg.Render(pl.Input)
			if err != nil {
				t.Errorf("%s: plot %q: %v", d.File, pl.Input.Title, err)
				continue
			}
			want, err := plotsvg.Reference(pl.Input)
			if err != nil {
				t.Errorf("%s: plot %q: %v", d.File, pl.Input.Title, err)
				continue
			}
			if !bytes.Equal(svg, want) {
				t.Errorf("%s: plot %q: Render's %d bytes differ from Reference's %d", d.File, pl.Input.Title, len(svg), len(want))
			}
		}
	}
	if n == 0 {
		t.Error("the book drew no plot")
	}
}
