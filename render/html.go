package render

// The HTML of the directive views. Class names are in English (mb- for
// measured book) so the site's CSS can style them; the words a reader sees
// are Korean, as the book is.

import (
	"bytes"
	"cmp"
	"fmt"
	"html"
	"strings"

	"github.com/yuin/goldmark/util"

	"measuredbook/expr"
	"measuredbook/plotsvg"
	"measuredbook/view"
)

func esc(s string) string { return html.EscapeString(s) }

// MinPlotText is the smallest plot text, in CSS pixels, a site page
// shows: a plot narrower than that scrolls in its region instead.
const MinPlotText = 11

// RegionStart opens a labelled, focusable region that scrolls what it
// holds, a wide table or plot, on a narrow screen.
func RegionStart(label string) string {
	return `<div class="scroll" role="region" aria-label="` + esc(label) + `" tabindex="0">`
}

// HeadingLink is the link a heading of a site page ends with, to itself:
// its id and text.
func HeadingLink(w *view.Words, id, text string) string {
	return `<a class="anchor" href="#` + esc(id) + `" aria-label="` + esc(w.SectionLink+text) + `">#</a>`
}

// number is a numbered figure's or table's anchor (its label) and its
// number ("표 1.2"); zero for one without a label.
type number struct{ id, text string }

// attr is the id attribute of a numbered figure or table, "" for none.
func (n number) attr() string {
	if n.id == "" {
		return ""
	}
	return ` id="` + esc(n.id) + `"`
}

// caption is a caption with the number before it: "표 1.2: 캡션".
func (n number) caption(caption string) string {
	caption = strings.TrimSpace(caption)
	switch {
	case n.text == "":
		return caption
	case caption == "":
		return n.text
	}
	return n.text + ": " + caption
}

// tableLabel names a table's scroll region: its number and caption, the
// word for a table before a caption without a number, or the word alone.
func (n number) tableLabel(w *view.Words, caption string) string {
	c := n.caption(caption)
	switch {
	case c == "":
		return w.TableWord
	case n.text == "":
		return w.TableWord + ": " + c
	}
	return c
}

// captionHTML is caption with the number before it, marked up.
func (n number) captionHTML(caption string) string {
	if n.text == "" {
		return esc(caption)
	}
	out := `<span class="mb-number">` + esc(n.text) + `</span>`
	if caption = strings.TrimSpace(caption); caption != "" {
		out += ": " + esc(caption)
	}
	return out
}

// writeTable writes t, numbered num, on a site page (s) in a scroll
// region named by its number and caption.
func writeTable(b util.BufWriter, s *Site, w *view.Words, t *view.Table, num number) {
	if s != nil {
		b.WriteString(RegionStart(num.tableLabel(w, t.Caption)))
	}
	b.WriteString(`<table class="mb-results"` + num.attr() + `>` + "\n")
	if t.Caption != "" || num.text != "" {
		b.WriteString("<caption>" + num.captionHTML(t.Caption) + "</caption>\n")
	}
	if len(t.Head) > 0 {
		b.WriteString("<thead>\n<tr>")
		for _, c := range t.Head {
			writeCell(b, c, true)
		}
		b.WriteString("</tr>\n</thead>\n")
	}
	b.WriteString("<tbody>\n")
	for _, row := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range row {
			writeCell(b, c, false)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>")
	if s != nil {
		b.WriteString("</div>")
	}
	b.WriteString("\n")
}

func writeCell(b util.BufWriter, c view.Cell, head bool) {
	tag := "td"
	if c.Head {
		tag = "th"
	}
	b.WriteString("<" + tag)
	if !head && c.Head {
		b.WriteString(` scope="row"`)
	}
	class := cellGapClass[c.Gap]
	if c.Number {
		class = strings.TrimSpace(class + " mb-num")
	}
	if class != "" {
		b.WriteString(` class="` + esc(class) + `"`)
	}
	if c.Title != "" {
		b.WriteString(` title="` + esc(c.Title) + `"`)
	}
	b.WriteString(">" + esc(c.Text) + "</" + tag + ">")
}

// outStateClass is the class of an inline value in each state.
var outStateClass = [...]string{view.Figure: "mb-value", view.Missing: "mb-missing", view.Failed: "mb-error", view.Unevaluated: "mb-unevaluated"}

// outClass is an inline value's classes: its state's, and a figure's marks.
func outClass(out *view.Out) string {
	class := outStateClass[out.State]
	if out.Ref {
		class += " mb-ref"
	}
	if out.Stale {
		class += " mb-stale"
	}
	if out.Words {
		class += " mb-text"
	}
	return class
}

// cellGapClass is the class of a table cell with each gap.
var cellGapClass = [...]string{view.NoGap: "", view.GapMissing: "mb-missing", view.GapFailed: "mb-failed"}

// writeExperiment writes an experiment's table of results and its
// provenance line. With show: none the table goes (the chapter shows the
// figures its own way) but the provenance line stays: every experiment on
// a page says who measured it, when and how often.
// On a site page its provenance links to its raw data, if the site has it.
func writeExperiment(b util.BufWriter, s *Site, w *view.Words, v *view.Experiment, num number) {
	if v.Missing != "" && v.Hidden {
		return
	}
	b.WriteString(`<figure class="mb-experiment" id="experiment-` + esc(v.ID) + `">` + "\n")
	if v.Missing != "" {
		writeMissing(b, v.Missing, num)
		if s != nil {
			writeRerun(b, w, v)
		}
		b.WriteString("</figure>\n")
		return
	}
	if !v.Hidden {
		writeTable(b, s, w, v.Table, num)
	}
	if v.Fixed != "" {
		b.WriteString(`<p class="mb-fixed">` + esc(w.FixedPrefix+v.Fixed) + "</p>\n")
	}
	if s != nil {
		writeRerun(b, w, v)
	}
	class := "mb-provenance"
	if !v.Measured {
		class += " mb-transcribed"
	}
	title := ""
	if v.SpreadNote != "" {
		title = ` title="` + esc(v.SpreadNote) + `"`
	}
	b.WriteString(`<figcaption class="` + class + `"` + title + ">" + esc(v.Provenance))
	if s != nil && s.Data[v.ID] {
		writeDataLinks(b, w, v.ID)
	}
	b.WriteString("</figcaption>\n</figure>\n")
}

// writeMissing writes the placeholder of a figure or table with no
// result; a numbered one keeps its anchor and number.
func writeMissing(b util.BufWriter, missing string, num number) {
	text := missing
	if num.text != "" {
		text = num.text + ": " + missing
	}
	b.WriteString(`<p class="mb-missing"` + num.attr() + `>` + esc(text) + "</p>\n")
}

// writeRerun writes, folded, how experiment v was measured (its probe's
// method, the chapter's params, the runs rule) and the commands that
// measure it on the reader's machine, compare the result with the
// book's set and take it further.
func writeRerun(b util.BufWriter, w *view.Words, v *view.Experiment) {
	r := v.Rerun
	code := func(s string) string { return "<code>" + esc(s) + "</code>" }
	command := func(s string) { b.WriteString(`<pre tabindex="0"><code>` + esc(s) + "</code></pre>\n") }
	b.WriteString(`<details class="mb-rerun"><summary>` + esc(w.Rerun) + "</summary>\n")
	b.WriteString("<p>" + fmt.Sprintf(esc(w.ProbeFormat), code(r.Probe)) + "</p>\n")
	// The method's first line says what is measured; the rest, how,
	// well enough to redo it in C: folded again, with its line breaks.
	if first, rest, _ := strings.Cut(strings.TrimSpace(r.Method), "\n"); first != "" {
		b.WriteString(`<p class="mb-method">` + esc(first) + "</p>\n")
		if rest = strings.TrimSpace(rest); rest != "" {
			b.WriteString(`<details class="mb-method"><summary>` + esc(w.MethodMore) + "</summary>\n<p>" + esc(rest) + "</p>\n</details>\n")
		}
	}
	if len(r.Params) > 0 {
		b.WriteString("<ul class=\"mb-params\">\n")
		for _, p := range r.Params {
			b.WriteString("<li>" + code(p.Name+": "+p.Values))
			if p.Doc != "" {
				b.WriteString(" — " + esc(p.Doc))
			}
			b.WriteString("</li>\n")
		}
		b.WriteString("</ul>\n")
	}
	if r.Runs > 0 {
		b.WriteString("<p>" + esc(w.RunsFixed.Of(r.Runs)) + "</p>\n")
	} else {
		precision := w.RunsAutoAny
		if r.Precision > 0 {
			precision = fmt.Sprintf("±%g %%", 100*r.Precision)
		}
		b.WriteString("<p>" + esc(fmt.Sprintf(w.RunsAutoFormat, precision)) + "</p>\n")
	}
	b.WriteString("<p>" + esc(w.MeasureHere) + "</p>\n")
	command("go run . run " + v.ID)
	if r.BookSet != "" {
		b.WriteString("<p>" + esc(fmt.Sprintf(w.CompareFormat, r.BookSet)) + "</p>\n")
		command("go run . compare " + r.BookSet + " here --only " + v.ID)
	}
	b.WriteString("<p>" + fmt.Sprintf(esc(w.AfterFormat), code("go run . build --here"), code("go run . bundle > here.bundle"), code("go run . import here.bundle")) + "</p>\n")
	b.WriteString("</details>\n")
}

// writeDataLinks links experiment id's raw data, as CSV and JSON.
func writeDataLinks(b util.BufWriter, w *view.Words, id string) {
	e := esc(id)
	b.WriteString(` <span class="mb-data">` + esc(w.RawData) + ` <a href="data/` + e + `.csv" download>CSV</a> · <a href="data/` + e + `.json" download>JSON</a></span>`)
}

func writeTableView(b util.BufWriter, s *Site, w *view.Words, v *view.TableView, num number) {
	if v.Missing != "" {
		writeMissing(b, v.Missing, num)
		return
	}
	b.WriteString(`<figure class="mb-table">` + "\n")
	writeTable(b, s, w, v.Table, num)
	b.WriteString(`<figcaption class="mb-provenance">` + esc(v.Provenance) + "</figcaption>\n</figure>\n")
}

// writePlot draws the plot's input here, at render time: evaluation
// gives the figures, the renderer their picture. On a site page (s) the
// stylesheet colours its series, it scrolls in a region where its text
// would be smaller than MinPlotText, a focusable mark over each point
// tells its figure as an inline value does (on hover, focus and tap), a
// table of the points follows for a reader who cannot see the plot, and
// its experiment's raw data is linked.
func writePlot(b util.BufWriter, s *Site, w *view.Words, v *view.Plot, num number) error {
	if v.Missing != "" {
		writeMissing(b, v.Missing, num)
		return nil
	}
	var o plotsvg.Options
	if s != nil {
		o = plotsvg.Options{SeriesVar: "--mb-s", MinText: MinPlotText}
	}
	pic, err := plotsvg.Draw(v.Input, o)
	if err != nil {
		return fmt.Errorf("%s: plot: %v", v.At, err)
	}
	b.WriteString(`<figure class="mb-plot"` + num.attr() + `>` + "\n")
	if s == nil {
		b.Write(pic.SVG)
	} else {
		// The region closes right after </svg>, before the line's end.
		end := bytes.TrimRight(pic.SVG, "\n")
		b.WriteString(RegionStart(cmp.Or(num.text, w.PlotWord) + ": " + v.Input.AccessibleName()))
		writeMarked(b, s, v, pic, end)
		b.WriteString("</div>")
		b.Write(pic.SVG[len(end):])
		writePointTable(b, w, v)
	}
	b.WriteString("\n<figcaption>")
	if c := num.captionHTML(v.Caption); c != "" {
		b.WriteString(c + " ")
	}
	b.WriteString(`<span class="mb-provenance">` + esc(v.Provenance) + "</span>")
	if s != nil && s.Data[v.Exp] {
		writeDataLinks(b, w, v.Exp)
	}
	b.WriteString("</figcaption>\n</figure>\n")
	return nil
}

// writeMarked writes the plot's picture (svg) in a box of its size, with
// a mark over each point: a live value whose text (hidden but to a
// screen reader and the popover) says which point it is and its figure.
func writeMarked(b util.BufWriter, s *Site, v *view.Plot, pic plotsvg.Picture, svg []byte) {
	b.WriteString(`<div class="mb-plotbox" style="max-width:` + fmt.Sprintf("%.5g", pic.MaxWidth) + "px")
	if pic.MinWidth > 0 {
		b.WriteString(fmt.Sprintf(";min-width:%.0fpx", pic.MinWidth))
	}
	b.WriteString(`">`)
	b.Write(svg)
	for _, m := range pic.Marks {
		if m.Series >= len(v.Points) || m.Point >= len(v.Points[m.Series]) {
			continue
		}
		pt := v.Points[m.Series][m.Point]
		// What the point is: its series (when the plot has names for
		// them) and where it is, "poll · idle=1,000".
		name := v.XName + "=" + pt.X
		if pt.Series != "" {
			name = pt.Series + " · " + name
		}
		fmt.Fprintf(b, `<span class="mb-value mb-pt" style="left:%.2f%%;top:%.2f%%"`, m.Left, m.Top)
		writeData(b, s, pt.Value)
		b.WriteString("><span>" + esc(name) + ": " + esc(pt.Value.Text) + "</span></span>")
	}
	b.WriteString("</div>")
}

// writePointTable writes, folded, the table of the plot's points: its
// series, where each is, its figure, min–max and runs.
func writePointTable(b util.BufWriter, w *view.Words, v *view.Plot) {
	named := len(v.Points) > 1 // one series needs no column of its name
	b.WriteString("<details class=\"mb-points\"><summary>" + esc(w.PlotTable) + "</summary>\n")
	b.WriteString(RegionStart(w.TableWord + ": " + v.Input.AccessibleName()))
	b.WriteString("<table>\n<thead><tr>")
	if named {
		b.WriteString("<th>" + esc(w.SeriesHead) + "</th>")
	}
	b.WriteString("<th>" + esc(v.XName) + "</th><th class=\"mb-num\">" + esc(v.YName) + "</th><th class=\"mb-num\">" + esc(w.RangeHead) + "</th><th class=\"mb-num\">" + esc(w.RunsHead) + "</th></tr></thead>\n<tbody>\n")
	for _, series := range v.Points {
		for _, pt := range series {
			b.WriteString("<tr>")
			if named {
				b.WriteString(`<th scope="row">` + esc(pt.Series) + "</th>")
			}
			d := pt.Value.Data
			b.WriteString("<td>" + esc(pt.X) + `</td><td class="mb-num">` + esc(pt.Value.Text) + `</td><td class="mb-num">` + esc(d["range"]) + `</td><td class="mb-num">` + esc(d["runs"]) + "</td></tr>\n")
		}
	}
	b.WriteString("</tbody>\n</table></div>\n</details>")
}

// writeClaim writes a claim's verdict; text is its text as inline HTML.
func writeClaim(b util.BufWriter, w *view.Words, v *view.Claim, text []byte) {
	if v.Unavailable != "" {
		// Not a verdict: the claim is about what this machine cannot
		// measure, and says so in place of one.
		b.WriteString(`<div class="mb-claim mb-unavailable"><span class="mb-verdict">` + esc(w.Shown(view.Unavailable)) + `</span> <span class="mb-claim-text">`)
		b.Write(text)
		b.WriteString(`</span><div class="mb-explain">` + esc(w.UnavailableNote(v.Unavailable)) + "</div></div>\n")
		return
	}
	class := "mb-claim mb-" + view.VerdictOf(v.Verdict, "").Class()
	if v.Rule {
		class += " mb-rule"
	}
	b.WriteString(`<div class="` + class + `"`)
	switch {
	case v.Rule && v.Verdict == expr.True:
		b.WriteString(` title="` + esc(w.RuleNote+" · "+v.Explain) + `"`)
	case v.Rule:
		b.WriteString(` title="` + esc(w.RuleNote) + `"`)
	case v.Verdict == expr.True:
		b.WriteString(` title="` + esc(v.Explain) + `"`)
	}
	b.WriteString(">")
	b.WriteString(`<span class="mb-verdict">` + esc(w.Shown(view.VerdictOf(v.Verdict, ""))) + "</span> ")
	if len(v.Machines) > 0 {
		b.WriteString(`<span class="mb-machine">` + esc(strings.Join(v.Machines, " + ")) + "</span> ")
	}
	if v.Rule {
		b.WriteString(`<span class="mb-basis">` + esc(w.RuleWord) + `</span> `)
	}
	b.WriteString(`<span class="mb-claim-text">`)
	b.Write(text)
	b.WriteString("</span>")
	switch {
	case len(v.On) > 0:
		writeVerdicts(b, w, v.On)
	case v.Verdict != expr.True:
		b.WriteString(`<div class="mb-explain">` + esc(w.MeasuredPrefix) + `<code>` + esc(v.Explain) + "</code></div>")
	}
	b.WriteString("</div>\n")
}

// writeVerdicts lists a claim's verdict on each machine: its name and
// verdict, with the values it was decided on on hover, and shown where it
// does not hold.
func writeVerdicts(b util.BufWriter, w *view.Words, on []view.MachineVerdict) {
	b.WriteString(`<ul class="mb-on">`)
	for _, o := range on {
		b.WriteString(`<li class="mb-` + view.VerdictOf(o.Verdict, "").Class() + `" title="` + esc(o.Explain) + `">`)
		b.WriteString(`<span class="mb-machine">` + esc(o.Machine) + `</span> <span class="mb-verdict">` + esc(w.Shown(view.VerdictOf(o.Verdict, ""))) + "</span>")
		if o.Verdict != expr.True {
			b.WriteString(` <code>` + esc(o.Explain) + "</code>")
		}
		b.WriteString("</li>")
	}
	b.WriteString("</ul>")
}
