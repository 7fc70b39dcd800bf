package book

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"measuredbook/epub"
	"measuredbook/pdf"
	"measuredbook/rendercache"
	"measuredbook/site"
	"measuredbook/store"
)

// EPUBFile is the EPUB's name in the site, when book.yaml's epub: true
// puts it there.
const EPUBFile = "book.epub"

// wholeBook writes the book as one page (print.html) and, when book.yaml
// asks for it in the site or the build for a file (l.epub), as an EPUB,
// whose bytes it returns. Both are made of the chapters' bodies as their
// pages have them (outs).
func (b *Book) wholeBook(l *layout, outs []chapterOut, preface []byte, static []string) ([]byte, error) {
	chapters := make([]site.PrintChapter, len(b.Docs))
	for i, d := range b.Docs {
		chapters[i] = site.PrintChapter{Title: d.Front.Title, Slug: d.Front.Slug, Lang: d.Front.Lang, Body: outs[i].body}
	}
	contents, body, err := l.printBook(chapters)
	if err != nil {
		return nil, err
	}
	page := l.base
	page.Preface, page.Contents, page.Body = template.HTML(preface), template.HTML(contents), template.HTML(body)
	html, err := execute(l.tmpl, "print.html", page)
	if err != nil {
		return nil, err
	}
	if err := l.out.put("print.html", html); err != nil {
		return nil, err
	}
	if !b.Config.EPUB && !l.epub {
		return nil, nil
	}
	machine, err := execute(l.tmpl, "machine-section", l.base)
	if err != nil {
		return nil, err
	}
	e := epub.Book{Title: b.Config.Title, Lang: b.Config.Lang, Words: b.Config.Words, Identifier: epub.Identifier(b.Config.Title, l.res.Machine),
		Modified: b.newest(l.res), Front: slices.Concat(preface, machine), Files: map[string][]byte{}}
	for i, d := range b.Docs {
		e.Chapters = append(e.Chapters, epub.Chapter{Slug: d.Front.Slug, Title: d.Front.Title, Lang: d.Front.Lang, Body: outs[i].body})
	}
	for _, f := range static {
		data, err := os.ReadFile(filepath.Join(b.Dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		e.Files[f] = data
	}
	docs, err := l.epubChapters(&e)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := epub.Write(&buf, e, docs); err != nil {
		return nil, err
	}
	if b.Config.EPUB {
		err = l.out.put(EPUBFile, buf.Bytes())
	}
	return buf.Bytes(), err
}

// hasher starts a key of the render cache (of any, without one).
func (l *layout) hasher(kind string) *rendercache.Hasher {
	if l.cache == nil {
		return rendercache.NewHasher(kind)
	}
	return l.cache.rc.hasher(kind)
}

// cached fills v and raw from what the render cache holds under key,
// or else by make, and keeps them there: v as JSON and raw, the large
// part (nil: none), as it is after a zero byte, which JSON never holds.
func (l *layout) cached(key rendercache.Key, v any, raw *[]byte, make func() error) error {
	var c *rendercache.Cache
	if l.cache != nil {
		c = l.cache.rc.c
	}
	if data, ok := c.Get(key); ok {
		if meta, rest, ok := bytes.Cut(data, []byte{0}); ok && json.Unmarshal(meta, v) == nil {
			if raw != nil {
				*raw = rest
			}
			return nil
		}
	}
	if err := make(); err != nil {
		return err
	}
	data, err := json.Marshal(v)
	if err == nil {
		data = append(data, 0)
		if raw != nil {
			data = append(data, *raw...)
		}
		c.Put(key, data)
	}
	return err
}

// printBook is the whole-book page's contents and chapters. Each
// chapter's ids and its section are made in parallel and kept in the
// render cache, so that after an edit only the chapter edited is parsed
// again (and every section only when an id changed its name).
func (l *layout) printBook(chapters []site.PrintChapter) (contents, body []byte, err error) {
	n := len(chapters)
	ids, parts, errs := make([][]string, n), make([]site.PrintPart, n), make([]error, n)
	parallel(n, func(i int) {
		errs[i] = l.cached(l.hasher("print-ids").Bytes(chapters[i].Body).Key(), &ids[i], nil, func() (err error) {
			ids[i], err = site.ChapterIDs(chapters[i].Body)
			return err
		})
	})
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	names := site.PrintNames(l.base.W, chapters, ids)
	// A section depends on its own chapter and on every chapter's slug
	// and names (where its links lead).
	slugs := make([]string, n)
	for i, c := range chapters {
		slugs[i] = c.Slug
	}
	all, err := json.Marshal(struct {
		Slugs []string
		Names []map[string]string
	}{slugs, names})
	if err != nil {
		return nil, nil, err
	}
	shared := sha256.Sum256(all) // hashed once, not once a chapter
	parallel(n, func(i int) {
		ch := chapters[i]
		key := l.hasher("print-section").Bytes(shared[:]).String(ch.Title).String(ch.Slug).String(ch.Lang).Bytes(ch.Body).Key()
		errs[i] = l.cached(key, &parts[i].Heads, &parts[i].Section, func() (err error) {
			parts[i], err = site.PrintSection(chapters, i, names)
			return err
		})
	})
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	// Concat grows the body once: doubling up to a book's size cleared and
	// copied it over and again.
	sections := make([][]byte, n)
	for i, p := range parts {
		sections[i] = p.Section
	}
	return site.PrintContents(chapters, parts), slices.Concat(sections...), nil
}

// epubChapters makes e's chapters into their content documents in
// parallel, each kept in the render cache under what it depends on.
func (l *layout) epubChapters(e *epub.Book) ([]epub.Doc, error) {
	var slugs []string
	for _, c := range e.Chapters {
		slugs = append(slugs, c.Slug)
	}
	files := slices.Sorted(maps.Keys(e.Files))
	all, err := json.Marshal(struct {
		Lang         string
		Slugs, Files []string
	}{e.Lang, slugs, files})
	if err != nil {
		return nil, err
	}
	shared := sha256.Sum256(all)
	docs, errs := make([]epub.Doc, len(e.Chapters)), make([]error, len(e.Chapters))
	parallel(len(docs), func(i int) {
		c := e.Chapters[i]
		key := l.hasher("epub-chapter").Bytes(shared[:]).String(c.Title).String(c.Slug).String(c.Lang).Bytes(c.Body).Key()
		errs[i] = l.cached(key, &docs[i], &docs[i].Deflated, func() (err error) {
			docs[i], err = e.Chapter(i)
			return err
		})
	})
	return docs, errors.Join(errs...)
}

// newest is when the newest result of the build's set the book shows
// was measured: the EPUB's date, which a rebuild from the same results
// keeps. A set with no dates (transcribed) gives the zip format's first
// day.
func (b *Book) newest(res *Results) time.Time {
	t := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range b.Order {
		if r, ok := res.Header("", id); ok && r.Start.After(t) {
			t = r.Start
		}
	}
	return t.UTC().Truncate(time.Second)
}

// checkBookFiles refuses, before anything is measured or built, an
// --epub or --pdf file that could not be written or that the next build
// would remove (inside the site's folder), and a --pdf without Chromium;
// it returns the Chromium --pdf prints with.
func checkBookFiles(opts Options) (browser string, err error) {
	for _, f := range []struct{ flag, path string }{{"--epub", opts.EPUB}, {"--pdf", opts.PDF}} {
		if f.path == "" {
			continue
		}
		abs, errA := filepath.Abs(f.path)
		out, errB := filepath.Abs(opts.Out)
		if errA == nil && errB == nil && strings.HasPrefix(abs, out+string(filepath.Separator)) {
			return "", &UsageError{fmt.Sprintf("%s %s: is inside the site's folder %s, which every build replaces; name a file outside it", f.flag, f.path, opts.Out)}
		}
		if fi, err := os.Stat(f.path); err == nil && fi.IsDir() {
			return "", &UsageError{fmt.Sprintf("%s %s: is a folder; name the file to write, as in %s %s", f.flag, f.path, f.flag, filepath.Join(f.path, "book."+strings.TrimPrefix(f.flag, "--")))}
		}
		if fi, err := os.Stat(filepath.Dir(f.path)); err != nil || !fi.IsDir() {
			return "", &UsageError{fmt.Sprintf("%s %s: the folder %s does not exist", f.flag, f.path, filepath.Dir(f.path))}
		}
	}
	if opts.PDF == "" {
		return "", nil
	}
	browser, err = pdf.Browser()
	if err != nil {
		return "", &UsageError{err.Error()}
	}
	return browser, nil
}

// writeBookFiles writes the EPUB (its bytes) and the PDF the options ask
// for, once the site is in place: the PDF is print.html printed by
// Chromium (browser).
func (b *Book) writeBookFiles(ctx context.Context, opts Options, epub []byte, browser string) error {
	if opts.EPUB != "" {
		if err := store.ReplaceFile(opts.EPUB, epub); err != nil {
			return err
		}
	}
	if opts.PDF == "" {
		return nil
	}
	if note := pdf.FontNote(b.Config.Lang); note != "" && opts.Log != nil {
		fmt.Fprintln(opts.Log, note)
	}
	data, err := pdf.Print(ctx, browser, filepath.Join(opts.Out, "print.html"))
	if cause := context.Cause(ctx); cause != nil {
		return &Interrupted{Cause: cause} // the site is written; the PDF is not
	}
	if err != nil {
		return err
	}
	return store.ReplaceFile(opts.PDF, data)
}
