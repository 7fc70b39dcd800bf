package book

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"measuredbook/machine"
	"measuredbook/probe"
	"measuredbook/render"
	"measuredbook/runner"
	"measuredbook/templates"
)

// Options are the build's flags.
type Options struct {
	Chapters, Results, Out string
	Machine                string   // --machine: the set to build from
	Fresh                  bool     // measure everything on this machine first
	Only                   []string // measure only these experiments
	Strict                 bool     // fail on a failing claim or on anything that would need measuring
	Probes                 []probe.Probe
	Runner                 *runner.Runner
	This                   machine.Fingerprint // this machine
	Log                    io.Writer           // progress and warnings
}

// Report is what a build did.
type Report struct {
	Set      string   // the result set the numbers came from
	Measured []string // experiments measured by this build
	Warnings []error
	Claims   []render.Claim
}

// SetFor decides which result set a build draws from: --machine, else
// --fresh's own machine, else the book's machine, else this machine.
func SetFor(cfg Config, opts Options) string {
	switch {
	case opts.Machine != "":
		return opts.Machine
	case opts.Fresh:
		return opts.This.Name
	case cfg.Machine != "":
		return cfg.Machine
	}
	return opts.This.Name
}

// Build loads the chapters, measures what must be measured, evaluates and
// writes the site. Nothing is written to out/ unless everything succeeded.
func Build(ctx context.Context, opts Options) (*Report, error) {
	b, err := Load(opts.Chapters, opts.Probes)
	if err != nil {
		return nil, err
	}
	rep := &Report{Set: SetFor(b.Config, opts)}
	res := NewResults(opts.Results, rep.Set)
	only, err := b.Select(opts.Only)
	if err != nil {
		return nil, err
	}
	var need []string
	for _, st := range b.Status(res, opts.Probes, b.Order) {
		switch {
		case opts.Fresh && slices.Contains(only, st.ID):
			need = append(need, st.ID)
		case st.State == Missing || st.State == Stale:
			if len(opts.Only) > 0 && !slices.Contains(only, st.ID) {
				rep.Warnings = append(rep.Warnings, fmt.Errorf("%s: experiment %s is %s in set %s (not in --only)", b.Experiments[st.ID].Pos, st.ID, describe(st), rep.Set))
				continue
			}
			need = append(need, st.ID)
		case st.State == Failed:
			rep.Warnings = append(rep.Warnings, fmt.Errorf("%s: experiment %s: %s", b.Experiments[st.ID].Pos, st.ID, st.Why))
		}
	}
	if len(need) > 0 {
		switch {
		case rep.Set != opts.This.Name:
			var lines []string
			for _, id := range need {
				lines = append(lines, fmt.Sprintf("%s: experiment %s has no fresh result for machine %s; measure it there with: go run . run %s", b.Experiments[id].Pos, id, rep.Set, id))
			}
			if opts.Strict {
				return nil, errors.New(strings.Join(lines, "\n"))
			}
			for _, l := range lines {
				rep.Warnings = append(rep.Warnings, errors.New(l))
			}
		case opts.Strict && !opts.Fresh:
			return nil, fmt.Errorf("--strict: %d experiment(s) would have to be measured: %s (run: go run . run %s)", len(need), strings.Join(need, ", "), strings.Join(need, " "))
		default:
			m := &Measurer{Runner: opts.Runner, Probes: opts.Probes, Machine: opts.This, Dir: opts.Results, Log: opts.Log}
			for _, id := range need {
				if _, err := m.Measure(ctx, b, id); err != nil {
					// A probe that fails is reported; the build goes on
					// with whatever the set holds.
					rep.Warnings = append(rep.Warnings, err)
				}
				res.Forget("", id)
				rep.Measured = append(rep.Measured, id)
			}
		}
	}
	pages, warnings, claims, err := b.Render(res)
	rep.Warnings = append(rep.Warnings, warnings...)
	rep.Claims = claims
	if err != nil {
		return rep, err
	}
	if opts.Strict {
		var failing []string
		for _, c := range claims {
			if c.Verdict == "fails" {
				failing = append(failing, fmt.Sprintf("%s: claim does not hold: %s (%s)", c.Pos, c.Text, c.Explain))
			}
		}
		if len(failing) > 0 {
			return rep, errors.New(strings.Join(failing, "\n"))
		}
	}
	return rep, WriteSite(opts.Out, pages)
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
	var errs []error
	bodies := make([][]byte, len(b.Docs))
	for i, d := range b.Docs {
		w, err := d.Evaluate(res, b.Experiments)
		warnings = append(warnings, w...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		claims = append(claims, d.Claims()...)
		if bodies[i], err = d.HTML(); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, res.Errors()...)
	if err := errors.Join(errs...); err != nil {
		return nil, warnings, claims, err
	}
	site := siteData{Book: b.Config.Title, Lang: b.Config.Lang, Machine: res.Machine, MachineSummary: b.machineSummary(res)}
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
	if pages["index.html"], err = execute(tmpl, "index.html", index); err != nil {
		return nil, warnings, claims, err
	}
	for i, d := range b.Docs {
		page := site
		page.Page, page.Body = d.Front.Title, template.HTML(bodies[i])
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

type link struct {
	Title, Slug string
	Order       int
}

type siteData struct {
	Book, Lang, Machine, MachineSummary string
	Page                                string
	Preface, Body                       template.HTML
	Chapters                            []link
	Prev, Next                          *link
}

func execute(t *template.Template, name string, data siteData) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// WriteSite replaces dir with exactly pages, atomically: the new site is
// written beside it and renamed into place, so a reader (or a failed build)
// never sees half a site.
func WriteSite(dir string, pages map[string][]byte) error {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".out-new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for name, data := range pages {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + "-old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}
