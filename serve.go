package main

import (
	"context"

	"github.com/spf13/pflag"

	"measuredbook/preview"
)

type serveFlags struct {
	dirs
	addr             string
	measure, noCache bool
}

// serveVerb is `go run . serve`: the book in the browser, rebuilt and
// reloaded on every save.
var serveVerb = verb{name: "serve", summary: "preview the book in a browser, rebuilt from chapters/, templates/ and results/ and reloaded on every save; never measures unless --measure",
	example: "go run . serve            # then open http://127.0.0.1:8000/\n  go run . serve --addr 127.0.0.1:8080 --measure",
	setup:   withFlags[serveFlags]}

func (f *serveFlags) flags(fs *pflag.FlagSet) {
	f.dirs.flags(fs)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8000", "host:port to listen on (loopback unless you name another host)")
	fs.BoolVar(&f.measure, "measure", false, "measure what is not measured yet in the background, one experiment at a time")
	fs.BoolVar(&f.noCache, "no-cache", false, "rebuild every page on every save, without reading or filling the render cache")
}

func (f *serveFlags) run(ctx context.Context, c *cmd, args []string) error {
	if len(args) > 0 {
		return usagef("serve takes no arguments, got %q", args)
	}
	opts, err := options(f.dirs, setChoice{}, c.stderr)
	if err != nil {
		return err
	}
	if opts.Runner, err = c.probeRunner(); err != nil {
		return err
	}
	opts.Cache = f.cache(f.noCache)
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
