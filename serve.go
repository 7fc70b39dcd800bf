package main

import (
	"context"

	"github.com/spf13/pflag"

	"measuredbook/preview"
)

// serveVerb is `go run . serve`: the book in the browser, rebuilt and
// reloaded on every save.
func serveVerb() verb {
	return verb{name: "serve", summary: "preview the book in a browser, rebuilt from chapters/, templates/ and results/ and reloaded on every save; never measures unless --measure",
		example: "go run . serve            # then open http://127.0.0.1:8000/\n  go run . serve --addr 127.0.0.1:8080 --measure",
		flags: func(fs *pflag.FlagSet, e *cliEnv) {
			bookFlags(fs, e)
			fs.StringVar(&e.addr, "addr", "127.0.0.1:8000", "host:port to listen on (loopback unless you name another host)")
			fs.BoolVar(&e.measure, "measure", false, "measure what is not measured yet in the background, one experiment at a time")
			fs.BoolVar(&e.noCache, "no-cache", false, "rebuild every page on every save, without reading or filling the render cache")
		}, run: runServe}
}

func runServe(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) > 0 {
		return usagef("serve takes no arguments, got %q", args)
	}
	opts, err := e.options()
	if err != nil {
		return err
	}
	opts.Cache = e.cache()
	src := &preview.Book{Opts: opts, Templates: preview.TemplatesIn("templates")}
	dirs, err := src.Folders()
	if err != nil {
		return err
	}
	po := preview.Options{Addr: e.addr, Watch: dirs, Build: src.Build, Log: e.stderr}
	if e.measure {
		po.Measure = src.Measure
	}
	return preview.Serve(ctx, po)
}
