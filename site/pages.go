package site

import (
	"bytes"
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"

	"measuredbook/dataset"
	"measuredbook/evaluate"
	"measuredbook/render"
	"measuredbook/view"
)

// ChapterClaims is one chapter's claims, for the claims page.
type ChapterClaims struct {
	Title, Slug string
	Claims      []evaluate.Claim
}

// ClaimsBody is the claims page: every claim of every chapter, its
// verdict on the build's set (own) and the figures it was decided on; a
// claim decided on other machines' figures names them, and a claim stated
// per machine gives its verdict on each. It also returns the page's h2s.
func ClaimsBody(w *view.Words, own string, chapters []ChapterClaims) ([]byte, []view.Heading) {
	var b bytes.Buffer
	var headings []view.Heading
	count := map[view.Verdict]int{}
	total := 0
	for _, c := range chapters {
		for _, cl := range c.Claims {
			count[cl.Shown()]++
			total++
		}
	}
	b.Grow(512 * (total + 1)) // a claim takes ~400 bytes
	na := ""
	if n := count[view.Unavailable]; n > 0 {
		na = fmt.Sprintf(w.ClaimsNAFormat, w.Verdict(view.Unavailable), n)
	}
	fmt.Fprintf(&b, "<p>"+w.ClaimsIntro+"</p>\n",
		total, w.Verdict(view.Holds), count[view.Holds], w.Verdict(view.Fails), count[view.Fails], w.Verdict(view.Inconclusive), count[view.Inconclusive], na, html.EscapeString(own))
	for _, c := range chapters {
		if len(c.Claims) == 0 {
			continue
		}
		headings = writeH2(&b, w, headings, c.Slug, fmt.Sprintf("<a href=\"%s.html\">%s</a>", html.EscapeString(c.Slug), html.EscapeString(c.Title)), c.Title)
		b.WriteString("<ul class=\"claims\">\n")
		for _, cl := range c.Claims {
			v := cl.Shown()
			basis := ""
			if cl.Basis == "rule" {
				basis = `<span class="mb-basis">` + html.EscapeString(w.RuleWord) + `</span>`
			}
			if len(cl.Machines) > 0 && !slices.Equal(cl.Machines, []string{own}) {
				basis += `<span class="mb-machine">` + html.EscapeString(strings.Join(cl.Machines, " + ")) + "</span> "
			}
			fmt.Fprintf(&b, "<li class=\"mb-claim mb-%s\"><span class=\"mb-verdict\">%s</span> %s%s", v.Class(), w.Shown(v), basis, html.EscapeString(cl.Text))
			if len(cl.On) == 0 {
				fmt.Fprintf(&b, "<br><code class=\"explain\">%s</code>", html.EscapeString(cl.Explain))
			} else {
				// The first machine is the build's own: its values are
				// the claim's.
				b.WriteString("<ul class=\"mb-on\">")
				for _, o := range cl.On {
					ov := view.VerdictOf(o.Verdict, o.Unavailable)
					fmt.Fprintf(&b, "<li class=\"mb-%s\"><span class=\"mb-machine\">%s</span> <span class=\"mb-verdict\">%s</span> <code class=\"explain\">%s</code></li>",
						ov.Class(), html.EscapeString(o.Machine), w.Shown(ov), html.EscapeString(o.Explain))
				}
				b.WriteString("</ul>")
			}
			b.WriteString("</li>\n")
		}
		b.WriteString("</ul>\n")
	}
	return b.Bytes(), headings
}

// writeH2 writes an h2 of id, holding inner (HTML) whose text is text,
// with a link to itself, and adds it to headings.
func writeH2(b *bytes.Buffer, w *view.Words, headings []view.Heading, id, inner, text string) []view.Heading {
	h := view.Heading{Level: 2, ID: id, Text: text}
	fmt.Fprintf(b, "<h2 id=\"%s\">%s %s</h2>\n", html.EscapeString(id), inner, render.HeadingLink(w, h.ID, h.Text))
	return append(headings, h)
}

// SetMachine is one result set whose figures appear in the book.
type SetMachine struct {
	Set         string
	Machine     dataset.Fingerprint
	Reference   bool              // not the build's own set
	Experiments []string          // the experiments the set has results for; none: the set is not in results/
	Sources     map[string]string // experiment → where a transcribed figure comes from
}

// EnvironmentBody is the environment page: each machine whose figures
// appear, its fingerprint, kernel and limits, and for a transcribed set
// where each experiment's figures were taken from. A machine the book
// shows whose set is not here is listed as such: its places are gaps. It
// also returns the page's h2s.
func EnvironmentBody(w *view.Words, sets []SetMachine) ([]byte, []view.Heading) {
	var b bytes.Buffer
	var headings []view.Heading
	b.WriteString("<p>" + html.EscapeString(w.EnvIntro) + "</p>\n")
	for _, s := range sets {
		what := w.OwnSet
		switch {
		case !s.Reference:
		case len(s.Experiments) == 0:
			what = w.NoResults
		case len(s.Sources) > 0:
			what = w.ReferenceSet
		default:
			what = w.OtherSet
		}
		headings = writeH2(&b, w, headings, "set-"+s.Set, fmt.Sprintf("%s <small>(%s)</small>", html.EscapeString(s.Set), html.EscapeString(what)), s.Set+" ("+what+")")
		if len(s.Experiments) == 0 {
			fmt.Fprintf(&b, "<p>"+w.AbsentSetFormat+"</p>\n", html.EscapeString(s.Set))
			continue
		}
		f := s.Machine
		row := func(k, v string) {
			if v != "" {
				fmt.Fprintf(&b, "<tr><th scope=\"row\">%s</th><td>%s</td></tr>\n", html.EscapeString(k), html.EscapeString(v))
			}
		}
		caption := fmt.Sprintf(w.FingerprintOf, s.Set)
		fmt.Fprintf(&b, "%s<table class=\"env\">\n<caption>%s</caption>\n", render.RegionStart(w.TableWord+": "+caption), html.EscapeString(caption))
		row(w.EnvRows["name"], f.Name)
		row("CPU", f.CPU)
		if f.Cores > 0 {
			row(w.EnvRows["cores"], fmt.Sprint(f.Cores))
		}
		if f.Memory > 0 {
			row(w.EnvRows["memory"], fmt.Sprintf("%.1f GiB", float64(f.Memory)/(1<<30)))
		}
		row(w.EnvRows["os"], f.OS)
		row(w.EnvRows["kernel"], f.Kernel)
		row(w.EnvRows["arch"], f.Arch)
		row("Go", f.Go)
		row(w.EnvRows["virtual"], map[string]string{"yes": w.Yes, "no": w.No}[f.Virtual])
		for _, k := range slices.Sorted(maps.Keys(f.Limits)) {
			row(w.Limit(k, f.Limits[k]))
		}
		b.WriteString("</table></div>\n")
		fmt.Fprintf(&b, "<p>%s: %s</p>\n", html.EscapeString(w.ExperimentsCount.Of(len(s.Experiments))), html.EscapeString(strings.Join(s.Experiments, ", ")))
		if len(s.Sources) > 0 {
			b.WriteString("<details><summary>" + html.EscapeString(w.SourcesHead) + "</summary>\n<dl class=\"sources\">\n")
			for _, id := range slices.Sorted(maps.Keys(s.Sources)) {
				fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>\n", html.EscapeString(id), html.EscapeString(s.Sources[id]))
			}
			b.WriteString("</dl></details>\n")
		}
	}
	return b.Bytes(), headings
}

// FleetMachine is one machine of the fleet's site, for the machines page:
// its set, its fingerprint in words, where its copy of the book is, and
// how its figures compare with the book's set (view.Words.CompareSummary).
type FleetMachine struct {
	Set, Machine, Href, Compare string
}

// MachinesBody is the machines page of the fleet's site: each machine
// with a link to its copy of the book and its comparison with the book's
// set. It also returns the page's h2s.
func MachinesBody(w *view.Words, machines []FleetMachine) ([]byte, []view.Heading) {
	var b bytes.Buffer
	var headings []view.Heading
	fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(w.MachinesIntro))
	for _, m := range machines {
		headings = writeH2(&b, w, headings, "machine-"+m.Set, html.EscapeString(m.Set), m.Set)
		for _, p := range []string{m.Machine, m.Compare} {
			if p != "" {
				fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(p))
			}
		}
		fmt.Fprintf(&b, "<p><a href=\"%s\">%s</a></p>\n", html.EscapeString(m.Href), html.EscapeString(w.MachineEdition))
	}
	return b.Bytes(), headings
}
