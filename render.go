package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/pflag"

	"measuredbook/book"
	"measuredbook/evaluate"
	"measuredbook/parse"
	"measuredbook/render"
	"measuredbook/store"
	"measuredbook/xref"
)

type renderFlags struct {
	bookSet
	verbose, safe bool
}

var renderVerb = verb{name: "render", args: "FILE|-", summary: "render one Markdown document to an HTML fragment on stdout (never measures)",
	example:  "go run . render chapters/02-select-to-epoll.md\n  echo '# hi' | go run . render -",
	newFlags: func() verbFlags { return new(renderFlags) }}

func (f *renderFlags) flags(fs *pflag.FlagSet) {
	f.bookSet.flags(fs)
	verboseFlag(fs, &f.verbose)
	safeFlag(fs, &f.safe)
}

func (f *renderFlags) run(ctx context.Context, c *cmd, args []string) error {
	if len(args) != 1 {
		return usagef("render needs one FILE, or - for stdin")
	}
	name := args[0]
	src, err := readDocument(ctx, name, c.stdin)
	if err != nil {
		return err
	}
	if name == "-" {
		name = "<stdin>"
	}
	opts, err := options(f.dirs, f.set, c.stderr)
	if err != nil {
		return err
	}
	// References may name experiments of other chapters: take the book's
	// experiments when there is a book, the document's own win.
	experiments := map[string]*parse.Experiment{}
	var cfg book.Config
	var chapters []*parse.Doc
	if b, err := book.Load(f.chapters, opts.Probes); err == nil {
		experiments, cfg, chapters = b.Experiments, b.Config, b.Docs
	}
	set, err := book.ChooseSet(cfg, opts)
	if err != nil {
		return err
	}
	res := book.NewResults(f.results, set, opts.Probes)
	res.BookMachines = cfg.Machines // machines: book
	res.Lang = cfg.Words            // the book's language (nil without a book: Korean)
	d, err := parse.Parse(name, src, opts.Probes)
	if err != nil {
		return err
	}
	if f.safe || cfg.Safe {
		if err := d.CheckSafe(); err != nil {
			return err
		}
	}
	// So may cross-references and citations: the book's labels and
	// sources, this document in place of its chapter.
	refs, err := book.LoadBib(f.chapters)
	if err != nil {
		return err
	}
	chapters = slices.DeleteFunc(slices.Clone(chapters), func(c *parse.Doc) bool { return c.File == d.File })
	x, err := xref.New(append(chapters, d), refs)
	if err != nil {
		return err
	}
	p, err := evaluate.Evaluate(d, res, experiments)
	printWarnings(c.stderr, p.Warnings, f.verbose, nil)
	if err != nil {
		return err
	}
	html, err := render.HTMLWith(d, p.Views, x)
	if err != nil {
		return err
	}
	_, err = c.stdout.Write(html)
	return err
}

// readDocument reads the document to render as the build reads a chapter:
// a regular file of at most book.MaxChapter bytes (a FIFO or /dev/zero is
// refused), or stdin up to as many bytes, given up on an interrupt.
func readDocument(ctx context.Context, name string, stdin io.Reader) ([]byte, error) {
	if name != "-" {
		return store.ReadFile(name, book.MaxChapter)
	}
	var src []byte
	var err error
	done := make(chan struct{})
	go func() {
		src, err = io.ReadAll(io.LimitReader(stdin, book.MaxChapter+1))
		close(done)
	}()
	select {
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-done:
	}
	if err == nil && len(src) > book.MaxChapter {
		err = fmt.Errorf("<stdin>: more than %d MiB; a document is read whole, at most that", book.MaxChapter>>20)
	}
	return src, err
}
