package preview

import (
	"cmp"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"measuredbook/book"
	"measuredbook/rendercache"
	"measuredbook/store"
)

// Book builds the preview from the book's folders with package book: the
// same Load and Render as `go run . build`, against the same result set,
// never measuring.
type Book struct {
	Opts      book.Options // Chapters, Results, Machine, Probes, This; Runner for Measure
	Templates string       // a folder with the layouts and style.css; "": the embedded ones

	sources book.Sources // the chapters' hashes and results' parses, so a rebuild reads only what changed
}

// memoLimit bounds what serve keeps of the render cache in memory: a few
// times the pages of a book of a thousand chapters.
const memoLimit = 512 << 20

// Build is the Builder: (*book.Sources).LoadCached, book.SetFor, book.NewResults,
// (*book.Book).Status, (*book.Results).Hide and (*book.Book).RenderLater.
// An experiment whose stored result no longer matches what its chapter
// asks (missing, stale) is shown as not measured yet, with the command
// that measures it.
func (p *Book) Build() (*Site, error) {
	// With Opts.Cache, a save re-renders the chapter saved, not the book,
	// and the pages that did not change come from memory, not the disk.
	if p.Opts.Cache != "" {
		rendercache.Remember(p.Opts.Cache, memoLimit)
	}
	b, err := p.sources.LoadCached(p.Opts.Chapters, p.Opts.Probes, p.Opts.Cache)
	if err != nil {
		return nil, err
	}
	if p.Templates != "" {
		b.Templates = os.DirFS(p.Templates)
	}
	set := book.SetFor(b.Config, p.Opts)
	res := p.sources.NewResults(p.Opts.Results, set, p.Opts.Probes)
	res.This = p.Opts.This
	here := set == p.Opts.This.Name
	var pending []Pending
	for _, st := range b.Status(res, p.Opts.Probes, b.Order) {
		if st.State != book.Missing && st.State != book.Stale {
			continue
		}
		cmd := "go run . run " + st.ID
		if p.Opts.Chapters != "chapters" {
			cmd += " --chapters " + p.Opts.Chapters
		}
		if p.Opts.Results != "results" {
			cmd += " --results " + p.Opts.Results
		}
		if !here {
			cmd = "on " + set + ": " + cmd
		}
		pending = append(pending, Pending{ID: st.ID, Why: cmp.Or(st.Why, string(st.State)), Command: cmd, Here: here})
		res.Hide(st.ID)
	}
	// A chapter's mistakes fail the build before anything is queued to be
	// measured; a build that fails for want of results (every result
	// stale, hidden) still queues them, so that --measure fills the set.
	if err := b.Check(res); err != nil {
		return nil, err
	}
	if err := b.CheckSafe(p.Opts.Safe); err != nil {
		return nil, err
	}
	pages, whole, err := b.RenderLater(res)
	return &Site{Pages: pages, Later: whole, Pending: pending, Flush: b.FlushCache}, err
}

// Measure is the Measurer: book.Load again (the chapter may have changed)
// and book.Measurer into this machine's set, as `go run . run ID` does.
func (p *Book) Measure(ctx context.Context, id string, progress func(string)) error {
	b, err := book.Load(p.Opts.Chapters, p.Opts.Probes)
	if err != nil {
		return err
	}
	if _, ok := b.Experiments[id]; !ok {
		return nil // the chapter no longer has it
	}
	// A build or run measuring on the same tree takes turns with us.
	unlock, err := store.Lock(ctx, p.Opts.Results, lineWriter(progress))
	if err != nil {
		return err
	}
	defer unlock()
	m := &book.Measurer{Runner: p.Opts.Runner, Probes: p.Opts.Probes, Machine: p.Opts.This, Dir: p.Opts.Results, Progress: &book.Progress{W: lineWriter(progress)}}
	_, err = m.Measure(ctx, b, id)
	return err
}

// lineWriter calls f with each line written to it.
type lineWriter func(string)

func (f lineWriter) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		f(line)
	}
	return len(b), nil
}

// Folders are what a rebuild depends on: the chapters, the templates when
// read from disk, and the results (made if missing, so a first
// measurement is seen).
func (p *Book) Folders() ([]string, error) {
	dirs := []string{p.Opts.Chapters}
	if p.Templates != "" {
		dirs = append(dirs, p.Templates)
	}
	if err := os.MkdirAll(p.Opts.Results, 0o755); err != nil {
		return nil, err
	}
	return append(dirs, p.Opts.Results), nil
}

// TemplatesIn returns dir when it holds the site's layouts (the working
// copy of this repository), else "" for the embedded ones.
func TemplatesIn(dir string) string {
	if _, err := fs.Stat(os.DirFS(dir), "chapter.html"); err == nil {
		return filepath.Clean(dir)
	}
	return ""
}
