package book

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/probe"
	"measuredbook/render"
	"measuredbook/runner"
	"measuredbook/store"
	"measuredbook/templates"
)

// Options are the build's flags.
type Options struct {
	Chapters, Results, Out string
	Machine                string   // --machine: the set to build from
	Here                   bool     // --here: build from this machine's set, measuring what it lacks
	Fresh                  bool     // measure everything (or --only) anew into this machine's set
	Only                   []string // measure only these experiments; every page is still built
	Strict                 bool     // fail on a failing or undecidable claim, a gap, or anything that would need measuring
	Probes                 []probe.Probe
	Runner                 *runner.Runner
	This                   dataset.Fingerprint // this machine
	Log                    io.Writer           // notes: which set, what was not measured
	Progress               *Progress           // measurement progress; nil: silent
}

// Report is what a build did.
type Report struct {
	Set      string   // the result set the numbers came from
	Measures bool     // whether this build measures into Set (it is this machine's)
	Measured []string // experiments measured by this build
	Warnings []error
	Claims   []render.Claim
	// Gaps are the experiments the set has no usable result for after the
	// build (missing, stale, failed, unreadable), in book order, and Fill
	// the command that fills them, "" where nothing can (a transcribed set).
	Gaps []Status
	Fill string
	// GapFigures counts the places on the pages that show a gap instead
	// of a figure (warnings for which IsGap holds).
	GapFigures int
}

// WarningKind groups warnings for a summary: the warning's own kind when
// it has one (render's kinds), else the message itself without its
// position, so the same message at many places is one kind.
func WarningKind(warn error) string {
	var k interface{ Kind() string }
	if errors.As(warn, &k) && k.Kind() != "" {
		return k.Kind()
	}
	var pe *render.PosError
	if errors.As(warn, &pe) {
		return pe.Msg
	}
	return warn.Error()
}

// IsGap reports whether a warning is about a place that shows a gap where
// a figure could be measured: missing, or failed to measure. (An optional
// metric that does not apply to a combination is absent, not a gap.)
func IsGap(warn error) bool {
	k := WarningKind(warn)
	return k == render.KindMissing || k == render.KindFailed
}

// SetFor decides which result set a build draws from: --machine, else
// this machine's with --here, else the book's machine, else this machine.
func SetFor(cfg Config, opts Options) string {
	switch {
	case opts.Machine != "":
		return opts.Machine
	case opts.Here:
		return opts.This.Name
	case cfg.Machine != "":
		return cfg.Machine
	}
	return opts.This.Name
}

// ChooseSet is SetFor checked: the set's name is a valid name, --machine
// names a set that exists (a typo gets a did-you-mean), and the flags that
// measure (--fresh, --only) are given only where the build measures, that
// is, into this machine's set. Refusals are *UsageError.
func ChooseSet(cfg Config, opts Options) (string, error) {
	set := SetFor(cfg, opts)
	if err := store.CheckName("result set", set); err != nil {
		if set == cfg.Machine {
			return "", fmt.Errorf("%s: machine: %v", ConfigFile, err)
		}
		return "", &UsageError{err.Error()}
	}
	if opts.Machine != "" && opts.Machine != opts.This.Name {
		sets := NewResults(opts.Results, "", opts.Probes).Sets()
		if !slices.Contains(sets, opts.Machine) {
			return "", &UsageError{fmt.Sprintf("--machine %s: no such result set in %s%s; sets: %s",
				opts.Machine, opts.Results, expr.DidYouMean(opts.Machine, sets), strings.Join(sets, ", "))}
		}
	}
	if set != opts.This.Name {
		for _, f := range []struct {
			on            bool
			flag, example string
		}{{opts.Fresh, "--fresh", "--fresh"}, {len(opts.Only) > 0, "--only", "--only " + strings.Join(opts.Only, ",")}} {
			if !f.on {
				continue
			}
			if opts.Machine != "" {
				return "", &UsageError{fmt.Sprintf("%s measures on this machine (%s), but --machine %s builds from another set: nothing would be measured into it", f.flag, opts.This.Name, opts.Machine)}
			}
			return "", &UsageError{fmt.Sprintf("%s measures on this machine (%s), but the book's set is %s's; to measure here and build from this machine's numbers: go run . build --here %s", f.flag, opts.This.Name, set, f.example)}
		}
	}
	return set, nil
}

// Build loads the chapters, measures what must be measured, evaluates and
// writes the site. Nothing is written to out/ unless everything succeeded;
// an interrupt (ctx cancelled) keeps the experiments measured so far and
// leaves out/ as it was.
func Build(ctx context.Context, opts Options) (*Report, error) {
	b, err := Load(opts.Chapters, opts.Probes)
	if err != nil {
		return nil, err
	}
	set, err := ChooseSet(b.Config, opts)
	if err != nil {
		return nil, err
	}
	only, err := b.Select(opts.Only)
	if err != nil {
		return nil, &UsageError{"--only: " + err.Error()}
	}
	if err := CheckOut(opts.Out); err != nil {
		return nil, err
	}
	rep := &Report{Set: set, Measures: set == opts.This.Name}
	// A build that may measure waits for another one on the same tree; one
	// that cannot (another machine's set, --strict) only cleans up when no
	// other build is at work.
	if rep.Measures && !opts.Strict {
		unlock, err := Lock(ctx, opts.Results, opts.Log)
		if err != nil {
			return nil, err
		}
		defer unlock()
		removeLeftovers(opts.Out, opts.Results)
	} else if unlock, ok := TryLock(opts.Results); ok {
		defer unlock()
		removeLeftovers(opts.Out, opts.Results)
	}

	res := NewResults(opts.Results, set, opts.Probes)
	switch {
	case rep.Measures || opts.Log == nil:
	case opts.Machine != "":
		fmt.Fprintf(opts.Log, "building from set %s (this machine is %s; nothing is measured)\n", set, opts.This.Name)
	default:
		fmt.Fprintf(opts.Log, "building the published book from %s's results (this machine is %s; nothing is measured). To build from this machine's numbers: go run . build --here\n", set, opts.This.Name)
	}
	var need []string
	for _, st := range b.Status(res, opts.Probes, b.Order) {
		switch {
		case !rep.Measures:
		case opts.Fresh && slices.Contains(only, st.ID):
			need = append(need, st.ID)
		case st.State == Missing || st.State == Stale || st.State == Unreadable:
			if slices.Contains(only, st.ID) {
				need = append(need, st.ID)
			}
		}
	}
	if opts.Strict && len(need) > 0 {
		return nil, fmt.Errorf("--strict: %d experiment(s) would have to be measured: %s (measure them with: go run . run %s)", len(need), strings.Join(need, ", "), strings.Join(need, " "))
	}
	m := &Measurer{Runner: opts.Runner, Probes: opts.Probes, Machine: opts.This, Dir: opts.Results, Progress: opts.Progress, Estimates: b.Config.Machine}
	for i, id := range need {
		_, err := m.measure(ctx, b, id, fmt.Sprintf("%s (%d/%d)", id, i+1, len(need)))
		if cause := context.Cause(ctx); cause != nil {
			return rep, &Interrupted{Cause: cause, Kept: rep.Measured, Left: need[i:], Out: opts.Out}
		}
		if isSaveError(err) {
			return rep, err
		}
		if err != nil {
			// A probe that fails is reported; the build goes on with
			// whatever the set holds.
			rep.Warnings = append(rep.Warnings, err)
		}
		res.Forget("", id)
		rep.Measured = append(rep.Measured, id)
	}
	res.MarkStale(b.Status(res, opts.Probes, b.Order))
	pages, warnings, claims, err := b.Render(res)
	rep.Warnings = append(rep.Warnings, warnings...)
	rep.Claims = claims
	if err != nil {
		return rep, err
	}
	rep.Gaps, rep.Fill = b.gaps(res, opts, set)
	var firstGap error
	for _, w := range rep.Warnings {
		if IsGap(w) {
			if rep.GapFigures == 0 {
				firstGap = w
			}
			rep.GapFigures++
		}
	}
	if cause := context.Cause(ctx); cause != nil {
		return rep, &Interrupted{Cause: cause, Kept: rep.Measured, Out: opts.Out}
	}
	if opts.Strict {
		var failing []string
		n := 0
		for _, c := range claims {
			if c.Verdict == expr.False {
				n++
			}
		}
		if n > 0 {
			// The command line names each one with its place.
			failing = append(failing, fmt.Sprintf("%d claim(s) do not hold", n))
		}
		for _, g := range rep.Gaps {
			failing = append(failing, fmt.Sprintf("%s: experiment %s has no usable result in set %s: %s", b.Experiments[g.ID].Pos, g.ID, set, describe(g)))
		}
		if rep.GapFigures > 0 {
			failing = append(failing, fmt.Sprintf("%d place(s) show a gap instead of a figure; the first: %v", rep.GapFigures, firstGap))
		}
		// A sentence picked by a condition the runs do not decide, with no
		// unsure branch to say so, states noise as a finding.
		for _, w := range rep.Warnings {
			if WarningKind(w) == render.KindInconclusive {
				failing = append(failing, w.Error())
			}
		}
		if len(rep.Gaps) > 0 && rep.Fill != "" {
			failing = append(failing, "fill the gaps with: "+rep.Fill)
		}
		if len(failing) > 0 {
			return rep, errors.New("--strict: " + strings.Join(failing, "\n"))
		}
	}
	if err := WriteSite(ctx, opts.Out, pages); err != nil {
		if cause := context.Cause(ctx); cause != nil {
			return rep, &Interrupted{Cause: cause, Kept: rep.Measured, Out: opts.Out}
		}
		return rep, err
	}
	return rep, nil
}

// Interrupted is a build stopped by a signal (or a cancelled context):
// out/ is as it was, the experiments in Kept were measured and stored,
// and those in Left were not (the next build measures them).
type Interrupted struct {
	Cause      error
	Kept, Left []string
	Out        string // the site left as it was; "" when there is none (run)
}

func (e *Interrupted) Error() string {
	s := fmt.Sprintf("interrupted (%v)", e.Cause)
	if e.Out != "" {
		s += fmt.Sprintf(": %s was left as it was", e.Out)
	}
	if len(e.Kept) > 0 {
		s += fmt.Sprintf("; kept the %d experiment(s) measured: %s", len(e.Kept), strings.Join(e.Kept, ", "))
	}
	if len(e.Left) > 0 {
		s += fmt.Sprintf("; not measured: %s (the same command carries on with them)", strings.Join(e.Left, ", "))
	}
	return s
}

func (e *Interrupted) Unwrap() error { return e.Cause }

// gaps lists the experiments set cannot show after the build, and the
// command that fills them where one can.
func (b *Book) gaps(res *Results, opts Options, set string) ([]Status, string) {
	var gaps []Status
	transcribed := false
	for _, st := range b.Status(res, opts.Probes, b.Order) {
		switch st.State {
		case Transcribed:
			transcribed = true
		case Missing, Stale, Failed, Unreadable:
			gaps = append(gaps, st)
		}
	}
	switch {
	case len(gaps) == 0, transcribed:
		return gaps, ""
	case set == opts.This.Name:
		// A build measures what is missing or stale; a failed probe is
		// tried again only when asked, with run.
		build := "go run . build"
		if opts.Here || opts.Machine != "" {
			build += " --here"
		}
		var failed []string
		measures := false
		for _, g := range gaps {
			if g.State == Failed {
				failed = append(failed, g.ID)
			} else {
				measures = true
			}
		}
		var cmds []string
		if measures {
			cmds = append(cmds, build)
		}
		if len(failed) > 0 {
			cmds = append(cmds, "go run . run "+strings.Join(failed, " "))
		}
		return gaps, strings.Join(cmds, " and ")
	}
	return gaps, "go run . build --here (builds from this machine's numbers; " + set + "'s can only be measured on " + set + ")"
}

func describe(st Status) string {
	if st.Why != "" {
		return string(st.State) + " (" + st.Why + ")"
	}
	return string(st.State)
}

// Render evaluates every chapter against res and lays out every page:
// file name → bytes. It never measures.
func (b *Book) Render(res *Results) (pages map[string][]byte, warnings []error, claims []render.Claim, err error) {
	layouts := b.Templates
	if layouts == nil {
		layouts = templates.Embedded()
	}
	tmpl, err := templates.Parse(layouts)
	if err != nil {
		return nil, nil, nil, err
	}
	res.BookMachines = b.Config.Machines // what machines: book shows
	var errs []error
	bodies := make([][]byte, len(b.Docs))
	docClaims := make([][]render.Claim, len(b.Docs)) // per chapter, for the claims page
	var shown []string                               // the other sets the pages draw on, for the environment page
	for i, d := range b.Docs {
		p, err := render.Evaluate(d, res, b.Experiments)
		warnings = append(warnings, p.Warnings...)
		shown = append(shown, p.Sets...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		claims = append(claims, p.Claims...)
		docClaims[i] = p.Claims
		if bodies[i], err = render.HTML(d, p); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, res.Errors()...)
	if err := errors.Join(errs...); err != nil {
		return nil, warnings, claims, err
	}
	chapters, tocs := b.decorate(res, bodies)
	site := siteData{Book: b.Config.Title, Lang: b.Config.Lang, Machine: res.Machine, MachineSummary: b.machineSummary(res), Provenance: b.provenance(res)}
	for _, d := range b.Docs {
		site.Chapters = append(site.Chapters, link{Title: d.Front.Title, Slug: d.Front.Slug, Order: d.Front.Order})
	}
	var preface bytes.Buffer
	if err := render.Markdown().Convert([]byte(b.Config.Preface), &preface); err != nil {
		return nil, warnings, claims, err
	}
	css, err := templates.Stylesheet(layouts)
	if err != nil {
		return nil, warnings, claims, err
	}
	pages = map[string][]byte{"style.css": css}
	index := site
	index.Preface = template.HTML(preface.String())
	index.pageExtras = b.extras(chapters, "index.html", nil)
	if pages["index.html"], err = execute(tmpl, "index.html", index); err != nil {
		return nil, warnings, claims, err
	}
	for i, d := range b.Docs {
		page := site
		page.Page, page.Body = d.Front.Title, template.HTML(bodies[i])
		page.pageExtras = b.extras(chapters, d.Front.Slug+".html", tocs[i])
		if d.Front.Lang != "" {
			page.Lang = d.Front.Lang // a chapter may be in another language than the book
		}
		if i > 0 {
			page.Prev = &site.Chapters[i-1]
		}
		if i+1 < len(b.Docs) {
			page.Next = &site.Chapters[i+1]
		}
		if pages[d.Front.Slug+".html"], err = execute(tmpl, "chapter.html", page); err != nil {
			return nil, warnings, claims, err
		}
	}
	if err := b.extraPages(res, tmpl, site, chapters, bodies, tocs, docClaims, shown, pages); err != nil {
		return nil, warnings, claims, err
	}
	return pages, warnings, claims, nil
}

// machineSummary describes the set's machine from any of its results.
func (b *Book) machineSummary(res *Results) string {
	for _, id := range b.Order {
		if r, ok := res.Lookup("", id); ok {
			return r.Machine.Name + " — " + r.Machine.Summary()
		}
	}
	return res.Machine + " (측정 결과 없음)"
}

// provenance describes where the set's figures come from, for the
// sentences the layouts print about them.
func (b *Book) provenance(res *Results) templates.Provenance {
	p := templates.Provenance{Set: res.Machine, Machine: b.machineSummary(res), Book: res.Machine == b.Config.Machine,
		Experiments: len(b.Order)}
	for _, id := range b.Order {
		r, ok := res.Lookup("", id)
		switch {
		case !ok:
			p.Missing++
			continue
		case !r.Measured():
			p.Transcribed = true
		case len(r.Failures) > 0:
			p.Failed++
		}
		if _, stale := res.Stale("", id); stale {
			p.Stale++
		}
	}
	return p
}

type link struct {
	Title, Slug string
	Order       int
}

type siteData struct {
	Book, Lang, Machine, MachineSummary string
	Provenance                          templates.Provenance
	Page                                string
	Preface, Body                       template.HTML
	Chapters                            []link
	Prev, Next                          *link
	pageExtras
}

func execute(t *template.Template, name string, data siteData) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	return buf.Bytes(), nil
}
