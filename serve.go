package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/preview"
)

type serveFlags struct {
	bookSet
	addr                   string
	measure, noCache, safe bool
}

// serveVerb is `go run . serve`: the book in the browser, rebuilt and
// reloaded on every save.
var serveVerb = verb{name: "serve", summary: "preview the book in a browser, rebuilt from chapters/, templates/ and results/ and reloaded on every save; never measures unless --measure",
	example:  "go run . serve            # then open http://127.0.0.1:8000/\n  go run . serve --here --measure   # this machine's numbers, measured as you write\n  go run . serve --addr 127.0.0.1:8080 --machine m1",
	newFlags: func() verbFlags { return new(serveFlags) }}

func (f *serveFlags) flags(fs *pflag.FlagSet) {
	f.bookSet.flags(fs)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8000", "host:port to listen on (loopback unless you name another host)")
	fs.BoolVar(&f.measure, "measure", false, "measure what is not measured yet in the background, one experiment at a time")
	fs.BoolVar(&f.noCache, "no-cache", false, "rebuild every page on every save, without reading or filling the render cache")
	safeFlag(fs, &f.safe)
}

func (f *serveFlags) run(ctx context.Context, c *cmd, args []string) error {
	opts, err := options(f.dirs, f.set, c.stderr)
	if err != nil {
		return err
	}
	cfg, err := book.LoadConfig(opts.Chapters)
	if err != nil {
		return err
	}
	fmt.Fprintln(c.stderr, previewNote(book.SetFor(cfg, opts), cfg.Machine, opts.This.Name, f.measure))
	if opts.Runner, err = c.probeRunner(); err != nil {
		return err
	}
	opts.Cache, opts.Safe = f.cache(f.noCache), f.safe
	src := &preview.Book{Opts: opts, Templates: preview.TemplatesIn("templates")}
	dirs, err := src.Folders()
	if err != nil {
		return err
	}
	po := preview.Options{Addr: f.addr, Watch: dirs, Build: src.Build, Log: c.stderr}
	if f.measure {
		po.Measure = src.Measure
	}
	return preview.Serve(ctx, po)
}

// previewNote says which set serve shows, and what can fill it.
func previewNote(set, books, this string, measure bool) string {
	switch {
	case set == this && measure:
		return fmt.Sprintf("previewing set %s, this machine's; what it lacks is measured in the background", set)
	case set == this:
		return fmt.Sprintf("previewing set %s, this machine's; --measure measures what it lacks in the background", set)
	case set == books:
		return fmt.Sprintf("previewing the book's set %s, measured on that machine only; --here previews this machine's (%s), and --here --measure fills it", set, this)
	}
	return fmt.Sprintf("previewing set %s (this machine is %s; nothing is measured into it)", set, this)
}
