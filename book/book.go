// Package book is the generator's flow, in the order it happens: load the
// chapters (package parse) → decide which results to use and measure what
// is missing (package runner, package store) → evaluate every value,
// table, plot and claim (package evaluate) → render the pages (package
// render) through the templates and write out/ atomically.
package book

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"measuredbook/bib"
	"measuredbook/expr"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/store"
	"measuredbook/xref"
)

// Book is every chapter, parsed, with its experiments indexed by id.
type Book struct {
	Dir    string
	Config Config
	// Docs are the chapters in book order, each only its File, Front and
	// Experiments: the parsed chapter a render needs is handed over once
	// (see doc), so that a build does not hold every chapter's syntax tree
	// until its end.
	Docs        []*parse.Doc
	Experiments map[string]*parse.Experiment
	Order       []string // experiment ids in book order
	// Headline names, per experiment id, the metrics some chapter uses
	// (parse.Doc.Uses over the book): what runs: auto measures until known.
	Headline  map[string][]string
	Templates fs.FS // the layouts and style.css; nil: the embedded ones

	probes []probe.Probe
	cache  *renderCache        // nil: none
	fleet  fleetSite           // where the build stands in the fleet's site (Options.Fleet)
	src    [][sha256.Size]byte // each chapter's source's SHA-256, in Docs order
	full   []*parse.Doc        // Docs[i] parsed in full until rendered; nil when its parse came from the render cache
	mu     sync.Mutex
	hashes map[string]string // probe name → code hash (probeHash)
	// Xref numbers the book's figures and tables and holds its labels and
	// its bibliography (references.bib beside the chapters), every
	// reference and citation checked.
	Xref *xref.Index
}

// Load parses chapters/*.md and book.yaml. All problems are reported
// together, each as FILE:LINE:COL: message.
func Load(dir string, probes []probe.Probe) (*Book, error) {
	return load(dir, probes, nil, nil)
}

// MaxChapter is the largest chapter read, in bytes: a chapter is read
// whole, and /dev/zero named *.md must not take the machine's memory.
const MaxChapter = 16 << 20

// keepParsed bounds the chapters whose syntax tree Load keeps for the
// render, in bytes of their source: a tree takes about 14 times its
// source (a thousand 13 KB chapters held 220 MB), so past this a chapter
// is parsed again when its page is made, for a little CPU.
var keepParsed int64 = 4 << 20 // a variable for the tests

// load is Load taking what it can from a render cache: a chapter whose
// source was parsed before is not parsed again. The chapters are read and
// parsed in parallel.
func load(dir string, probes []probe.Probe, rc *renderCache, sources *Sources) (*Book, error) {
	cfg, err := LoadConfig(dir)
	b := &Book{Dir: dir, Config: cfg, Experiments: map[string]*parse.Experiment{}, probes: probes, cache: rc}
	errs := []error{err} // errors.Join, below, leaves out the nil ones
	files, err := chapterFiles(dir)
	if err != nil {
		return nil, err
	}
	chapters, err := readChapters(files, probes, rc, sources)
	if err != nil {
		return nil, err
	}
	for _, c := range chapters {
		errs = append(errs, c.err)
	}
	chapters = slices.DeleteFunc(chapters, func(c loaded) bool { return c.err != nil })
	slices.SortStableFunc(chapters, func(a, b loaded) int {
		return cmp.Or(cmp.Compare(a.doc.Front.Order, b.doc.Front.Order), cmp.Compare(a.doc.File, b.doc.File))
	})
	for _, c := range chapters {
		b.Docs = append(b.Docs, c.doc)
		b.src = append(b.src, c.sum)
		b.full = append(b.full, c.full)
	}
	errs = append(errs, b.index()...)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	refs, err := LoadBib(dir)
	if err == nil {
		b.Xref, err = xref.New(b.Docs, refs)
	}
	if err != nil {
		return nil, err
	}
	b.Config.Lang = cmp.Or(b.Config.Lang, "ko")
	return b, nil
}

// chapterFiles lists the chapters (*.md) of dir, which must be a folder
// that holds some.
func chapterFiles(dir string) ([]string, error) {
	files, err := store.Named(dir, "", ".md")
	// A file whose name starts with _ is a fragment chapters include
	// (Quarto's rule), not a chapter.
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasPrefix(filepath.Base(f), "_") })
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		return nil, &UsageError{fmt.Sprintf("%s: is a file, not a folder; --chapters names the folder that holds the chapters (*.md) and book.yaml", dir)}
	case errors.Is(err, fs.ErrNotExist):
		return nil, &UsageError{fmt.Sprintf("%s: no such folder; --chapters names the folder that holds the chapters (*.md) and book.yaml", dir)}
	case err != nil:
		return nil, err
	case len(files) == 0:
		return nil, fmt.Errorf("%s: no chapters (*.md) found", dir)
	}
	return files, nil
}

// loaded is one chapter as read by load: its summary (err: it does not
// parse), in full unless its parse came from the render cache or is let
// go (keepParsed), and its source's SHA-256.
type loaded struct {
	doc, full *parse.Doc
	sum       [sha256.Size]byte
	err       error
}

// readChapters reads and parses files in parallel, taking what it can
// from the render cache. Only a file that cannot be read is an error;
// a chapter that does not parse has its err.
func readChapters(files []string, probes []probe.Probe, rc *renderCache, sources *Sources) ([]loaded, error) {
	chapters := make([]loaded, len(files))
	reads := make([]error, len(files))
	var kept atomic.Int64 // source bytes of the chapters whose syntax tree is kept
	parallel(len(files), func(i int) {
		c := &chapters[i]
		if f, ok := sources.lookup(files[i]); ok {
			if d, ok := rc.parsed(files[i], f.sum, probes); ok {
				c.doc, c.sum = d, chapterSum(f.sum, d.Includes)
				return
			}
		}
		fi := sources.stat(files[i])
		src, err := store.ReadFile(files[i], MaxChapter) // a FIFO named *.md must not hang the build
		if err != nil {
			reads[i] = err
			return
		}
		srcSum := sha256.Sum256(src)
		sources.remember(files[i], fi, sourceFile{sum: srcSum})
		if d, ok := rc.parsed(files[i], srcSum, probes); ok {
			c.doc, c.sum = d, chapterSum(srcSum, d.Includes)
			return
		}
		if c.full, c.err = parse.Parse(files[i], src, probes); c.err == nil {
			rc.keepParsed(c.full, srcSum)
			c.doc, c.sum = c.full.Summary(), chapterSum(srcSum, c.full.Includes)
			if kept.Add(int64(len(src))) > keepParsed {
				c.full = nil
			}
		}
	})
	for _, err := range reads {
		if err != nil {
			return nil, err
		}
	}
	return chapters, nil
}

// index checks the chapters' titles, slugs and experiment ids, and
// indexes the experiments and the metrics the chapters use of each.
func (b *Book) index() []error {
	var errs []error
	slugs := map[string]*parse.Doc{}
	b.Headline = map[string][]string{}
	for _, d := range b.Docs {
		if strings.TrimSpace(d.Front.Title) == "" {
			errs = append(errs, fmt.Errorf("%s:1:1: front matter has no title (the contents page would show an empty link)", d.File))
		}
		if d.Front.Slug == "" {
			errs = append(errs, fmt.Errorf("%s:1:1: front matter has no slug", d.File))
		} else if other, dup := slugs[strings.ToLower(d.Front.Slug)]; dup {
			// In any case: on a case-insensitive disk A.html is a.html.
			errs = append(errs, &parse.PosError{Pos: d.Front.SlugAt, Msg: fmt.Sprintf("slug %q is already used by %s (%s.html), in any case", d.Front.Slug, other.File, other.Front.Slug)})
		}
		slugs[strings.ToLower(d.Front.Slug)] = d
		for _, e := range d.Experiments {
			if prev, dup := b.Experiments[e.ID]; dup {
				errs = append(errs, &parse.PosError{Pos: e.Pos, Msg: fmt.Sprintf("duplicate experiment id %q (first defined at %s)", e.ID, prev.Pos)})
				continue
			}
			b.Experiments[e.ID] = e
			b.Order = append(b.Order, e.ID)
		}
		for id, ms := range d.Uses {
			for _, m := range ms {
				if !slices.Contains(b.Headline[id], m) {
					b.Headline[id] = append(b.Headline[id], m)
				}
			}
		}
	}
	return errs
}

// doc returns chapter i parsed in full, and lets go of it: a render
// takes each chapter once. It parses the chapter again if Load took it
// from the render cache, or if it was handed over before.
func (b *Book) doc(i int) (*parse.Doc, error) {
	d, err := b.parse(i)
	b.full[i] = nil
	return d, err
}

// parse returns chapter i parsed in full and keeps it until it is
// rendered: a check before measuring (Check) parses what the render
// then takes.
func (b *Book) parse(i int) (*parse.Doc, error) {
	if d := b.full[i]; d != nil {
		return d, nil
	}
	d := b.Docs[i]
	src, err := store.ReadFile(d.File, MaxChapter)
	if err != nil {
		return nil, err
	}
	full, err := parse.Parse(d.File, src, b.probes)
	if err == nil && chapterSum(sha256.Sum256(src), full.Includes) != b.src[i] {
		return nil, fmt.Errorf("%s: changed while the book was being built (or a file it includes did); build again", d.File)
	}
	if err == nil {
		b.full[i] = full
	}
	return full, err
}

// chapterSum is what a chapter's cache entries key on: its source's
// SHA-256 and, when it includes files, theirs.
func chapterSum(src [sha256.Size]byte, includes []parse.Include) [sha256.Size]byte {
	if len(includes) == 0 {
		return src
	}
	h := sha256.New()
	h.Write(src[:])
	for _, inc := range includes {
		h.Write([]byte(inc.File + "\x00"))
		h.Write(inc.Sum[:])
	}
	return [sha256.Size]byte(h.Sum(nil))
}

// LoadBib reads the bibliography of the chapters in dir, references.bib
// beside them: nil, and no error, when there is none.
func LoadBib(dir string) (*bib.Bib, error) {
	name := filepath.Join(dir, "references.bib")
	src, err := store.ReadFile(name, MaxChapter)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return bib.Parse(name, src)
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

// CheckSafe refuses, in safe mode (safe, or book.yaml's safe: true), the
// raw HTML and the links that run code of every chapter, at their places.
func (b *Book) CheckSafe(safe bool) error {
	if !safe && !b.Config.Safe {
		return nil
	}
	var errs []error
	for i := range b.Docs {
		d, err := b.doc(i)
		if err == nil {
			err = d.CheckSafe()
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
