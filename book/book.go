// Package book is the generator's flow, in the order it happens: load the
// chapters (parse, via package render) → decide which results to use and
// measure what is missing (package runner, package store) → evaluate every
// value, table, plot and claim → render the pages through the templates and
// write out/ atomically.
package book

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"measuredbook/expr"
	"measuredbook/probe"
	"measuredbook/render"
	"measuredbook/store"
)

// Book is every chapter, parsed, with its experiments indexed by id.
type Book struct {
	Dir         string
	Config      Config
	Docs        []*render.Doc // in chapter order
	Experiments map[string]*render.Experiment
	Order       []string // experiment ids in book order
	Templates   fs.FS    // the layouts and style.css; nil: the embedded ones
}

// Load parses chapters/*.md and book.yaml. All problems are reported
// together, each as FILE:LINE:COL: message.
func Load(dir string, probes []probe.Probe) (*Book, error) {
	b := &Book{Dir: dir, Experiments: map[string]*render.Experiment{}}
	var errs []error
	cfg, err := LoadConfig(dir)
	if err != nil {
		errs = append(errs, err)
	}
	b.Config = cfg
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no chapters (*.md) found", dir)
	}
	for _, f := range files {
		src, err := store.ReadFile(f, 16<<20) // a FIFO named *.md must not hang the build
		if err != nil {
			return nil, err
		}
		doc, err := render.Parse(f, src, probes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		b.Docs = append(b.Docs, doc)
	}
	sort.SliceStable(b.Docs, func(i, j int) bool {
		if b.Docs[i].Front.Order != b.Docs[j].Front.Order {
			return b.Docs[i].Front.Order < b.Docs[j].Front.Order
		}
		return b.Docs[i].File < b.Docs[j].File
	})
	slugs := map[string]string{}
	for _, d := range b.Docs {
		if strings.TrimSpace(d.Front.Title) == "" {
			errs = append(errs, fmt.Errorf("%s:1:1: front matter has no title (the contents page would show an empty link)", d.File))
		}
		if d.Front.Slug == "" {
			errs = append(errs, fmt.Errorf("%s:1:1: front matter has no slug", d.File))
		} else if other, dup := slugs[d.Front.Slug]; dup {
			errs = append(errs, fmt.Errorf("%s:1:1: slug %q is already used by %s", d.File, d.Front.Slug, other))
		}
		slugs[d.Front.Slug] = d.File
		for _, e := range d.Experiments {
			if prev, dup := b.Experiments[e.ID]; dup {
				errs = append(errs, &render.PosError{Pos: e.Pos, Msg: fmt.Sprintf("duplicate experiment id %q (first defined at %s)", e.ID, prev.Pos)})
				continue
			}
			b.Experiments[e.ID] = e
			b.Order = append(b.Order, e.ID)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if b.Config.Lang == "" {
		b.Config.Lang = "ko"
	}
	return b, nil
}

// Select returns the ids to act on: all, or those named (each must exist).
func (b *Book) Select(ids []string) ([]string, error) {
	if len(ids) == 0 {
		return b.Order, nil
	}
	for _, id := range ids {
		if _, ok := b.Experiments[id]; !ok {
			return nil, fmt.Errorf("unknown experiment %q%s", id, expr.DidYouMean(id, b.Order))
		}
	}
	return ids, nil
}

// Sweep formats an experiment's params for messages: "api=poll,epoll idle=100".
func Sweep(e *render.Experiment) string {
	var parts []string
	for _, k := range e.Order {
		parts = append(parts, k+"="+strings.Join(e.Sweep[k], ","))
	}
	return strings.Join(parts, " ")
}
