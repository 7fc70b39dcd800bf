package book

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"sync"

	"measuredbook/dataset"
	"measuredbook/evaluate"
	"measuredbook/parse"
	"measuredbook/probe"
	"measuredbook/probe/codehash"
	"measuredbook/rendercache"
	"measuredbook/store"
	"measuredbook/xref"
)

// CacheDir is the render cache's folder, beside the chapters folder: the
// book's root, .cache/measuredbook/. Deleting it only makes the next build
// slower.
const CacheDir = ".cache/measuredbook"

// renderCache is a build's use of the render cache. Every key starts with
// the program's build ID (any change to the code, the embedded layouts or
// probe sources makes every entry unreachable) and the probe registry's
// specs (tests hand the build other probes than the real ones).
type renderCache struct {
	c    *rendercache.Cache
	base rendercache.Key

	mu     sync.Mutex
	broken error // the first failure to keep something in the cache
}

// cacheError is a failure to keep a file of the site in the render cache,
// which the site does not need: the build goes on and warns (see fail).
type cacheError struct{ err error }

func (e cacheError) Error() string { return e.err.Error() }

// fail records err when it is a cacheError (and returns nil), so that a
// read-only, full or damaged cache costs the build its cache, never the
// build; any other error is returned.
func (rc *renderCache) fail(err error) error {
	var ce cacheError
	if !errors.As(err, &ce) {
		return err
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.broken = cmp.Or(rc.broken, ce.err)
	return nil
}

// openRenderCache opens the cache in dir for a build with probes.
func openRenderCache(dir string, probes []probe.Probe) (*renderCache, error) {
	program, err := rendercache.ProgramID()
	if err != nil {
		return nil, err
	}
	specs := make([]probe.Spec, len(probes))
	for i, p := range probes {
		specs[i] = p.Spec
	}
	registry, err := json.Marshal(specs)
	if err != nil {
		return nil, err
	}
	return &renderCache{c: rendercache.Open(dir), base: rendercache.NewHasher("build").String(program).Bytes(registry).Key()}, nil
}

// flush writes the entries this build made into the cache's folder. The
// cache is an aid: what it cannot write is simply made again next time.
func (rc *renderCache) flush() {
	if rc != nil {
		rc.c.Flush()
	}
}

// finish trims the cache after a build (of the entries no build has used
// for days) and warns, once, of what it could not keep: the site is whole
// either way.
func (rc *renderCache) finish(opts Options) {
	if rc == nil {
		return
	}
	rc.mu.Lock()
	err := rc.broken
	rc.mu.Unlock()
	if err == nil {
		err = rc.c.Trim()
	}
	if err != nil && opts.Log != nil {
		fmt.Fprintf(opts.Log, "warning: render cache %s: %v; the site was built in full without it (it is optional and safe to delete)\n", opts.Cache, err)
	}
}

func (rc *renderCache) hasher(kind string) *rendercache.Hasher {
	return rendercache.NewHasher(kind).Bytes(rc.base[:])
}

// probeHash is codehash.For(p, goos, goarch), kept in the cache when p's
// sources are embedded in the program, so that its build ID stands for
// them: hashing parses and prints every source file of the probe, and took
// a third of a rebuild after one edit.
func (rc *renderCache) probeHash(p probe.Probe, goos, goarch string) string {
	embedded := !slices.ContainsFunc(p.Sources, func(src fs.FS) bool {
		_, ok := src.(embed.FS)
		return !ok
	})
	if rc == nil || !embedded {
		return codehash.For(p, goos, goarch)
	}
	k := rc.hasher("probe").String(p.Name).String(goos).String(goarch).Key()
	if h, ok := rc.c.Get(k); ok {
		return string(h)
	}
	h := codehash.For(p, goos, goarch)
	rc.c.Put(k, []byte(h))
	return h
}

// parsed is what Load keeps of a chapter whose parse is cached: enough to
// check the book, compute the status and measure. Render parses the
// chapter again only if its page is not cached either.
type parsed struct {
	Front       parse.Front
	Experiments []storedExperiment
	Uses        map[string][]string
	Links       []parse.Link
	Anchors     []string
	Xref        parse.Xref
	Includes    []parse.Include // read again, to check they are as they were
}

// storedExperiment is an experiment as the cache keeps it: what its
// chapter says. Its probe's spec comes from the registry (whose specs are
// part of every key), and its combinations are its sweep's product: both
// are left out.
type storedExperiment parse.Experiment

func storeExperiment(x *parse.Experiment) storedExperiment {
	s := storedExperiment(*x)
	s.Spec, s.Combos = probe.Spec{}, nil
	return s
}

// experiment is s as Parse makes it; false when the registry has no such
// probe.
func (s storedExperiment) experiment(probes []probe.Probe) (*parse.Experiment, bool) {
	p, ok := probe.Lookup(probes, s.Probe)
	x := parse.Experiment(s)
	x.Spec, x.Combos = p.Spec, dataset.Combos(s.Order, s.Sweep)
	return &x, ok
}

func (rc *renderCache) parseKey(file string, sum [sha256.Size]byte) rendercache.Key {
	return rc.hasher("parse").String(file).Bytes(sum[:]).Key()
}

// parsed returns the cached parse of a chapter's source, if any.
func (rc *renderCache) parsed(file string, sum [sha256.Size]byte, probes []probe.Probe) (*parse.Doc, bool) {
	if rc == nil {
		return nil, false
	}
	// p is shared with the next rebuild's (rendercache.Decoded): the Doc
	// takes its parts to read only.
	p, ok := rendercache.Decoded(rc.c, rc.parseKey(file, sum), decodeJSON[parsed])
	if !ok {
		return nil, false
	}
	for _, inc := range p.Includes {
		if src, err := store.ReadFile(inc.File, MaxChapter); err != nil || sha256.Sum256(src) != inc.Sum {
			return nil, false
		}
	}
	d := &parse.Doc{File: file, Front: p.Front, Uses: p.Uses, Links: slices.Clip(p.Links), Anchors: slices.Clip(p.Anchors), Xref: parse.Xref{Labels: slices.Clip(p.Xref.Labels), Refs: slices.Clip(p.Xref.Refs), Cites: slices.Clip(p.Xref.Cites)}, Includes: slices.Clip(p.Includes)}
	for _, s := range p.Experiments {
		x, ok := s.experiment(probes)
		if !ok {
			return nil, false
		}
		d.Experiments = append(d.Experiments, x)
	}
	return d, true
}

// keepParsed stores what Load needs of a parsed chapter.
func (rc *renderCache) keepParsed(d *parse.Doc, sum [sha256.Size]byte) {
	if rc == nil {
		return
	}
	p := parsed{Front: d.Front, Uses: d.Uses, Links: d.Links, Anchors: d.Anchors, Xref: d.Xref, Includes: d.Includes}
	for _, x := range d.Experiments {
		p.Experiments = append(p.Experiments, storeExperiment(x))
	}
	if data, err := json.Marshal(p); err == nil {
		rc.c.Put(rc.parseKey(d.File, sum), data)
	}
}

// resultKey is the key of the header of the results file of id in set
// whose bytes have the SHA-256 sum: a file parses (and passes its checks
// against the registry) or not by its bytes alone.
func (rc *renderCache) resultKey(set, id string, sum [sha256.Size]byte) rendercache.Key {
	return rc.hasher("result").String(set).String(id).Bytes(sum[:]).Key()
}

// resultHeader returns the header (Results.Header) of a results file
// whose bytes parsed before, so that a rebuild reads the rows of only the
// results its changed chapters evaluate: parsing every file's rows took
// a third of a rebuild after one edit.
func (rc *renderCache) resultHeader(set, id string, sum [sha256.Size]byte) (*dataset.Result, bool) {
	if rc == nil {
		return nil, false
	}
	data, ok := rc.c.Get(rc.resultKey(set, id, sum))
	if !ok {
		return nil, false
	}
	h, ok := decodeJSON[*dataset.Result](data)
	return h, ok && h != nil
}

// keepResultHeader keeps the header of a results file that parsed.
func (rc *renderCache) keepResultHeader(set, id string, sum [sha256.Size]byte, head *dataset.Result) {
	if rc == nil {
		return
	}
	if data, err := json.Marshal(head); err == nil {
		rc.c.Put(rc.resultKey(set, id, sum), data)
	}
}

// chapterCache finds and keeps the chapters' pages of one build. A page
// depends on what every page of the build shares (the site key: the
// layouts, the book's settings, every chapter's title and place, every
// experiment's definition, which experiments have results, the set's
// provenance), on the chapter's source and on the results it read. Which
// results a chapter reads is known only once it is evaluated, so the
// entry found by the chapter's key (site and source) lists the results
// it read last time with their digests, as ccache's manifests do: it
// holds while each of them is still the same.
type chapterCache struct {
	rc   *renderCache
	b    *Book
	res  *Results
	site rendercache.Key
}

// chapters prepares the cache for the chapters of one build.
func (rc *renderCache) chapters(b *Book, l *layout) (*chapterCache, error) {
	if rc == nil {
		return nil, nil
	}
	var layouts [][2]string
	err := fs.WalkDir(l.layouts, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(l.layouts, path)
		layouts = append(layouts, [2]string{path, string(data)})
		return err
	})
	if err != nil {
		return nil, err
	}
	experiments := map[string]storedExperiment{}
	for id, x := range b.Experiments {
		// Where an experiment is written shows only on its own page,
		// whose source is in its key: a paragraph added above it must
		// not render every chapter again.
		s := storeExperiment(x)
		s.Pos = parse.Pos{}
		experiments[id] = s
	}
	shared, err := json.Marshal(struct {
		Layouts     [][2]string
		Config      Config
		Base        siteData
		Has         map[string]bool
		PageOf      map[string]string
		Experiments map[string]storedExperiment
		Xref        *xref.Index // a figure renumbered or a source changed renders every page that refers to it
	}{layouts, b.Config, l.base, l.has, l.pageOf, experiments, b.Xref})
	if err != nil {
		return nil, err
	}
	return &chapterCache{rc: rc, b: b, res: l.res, site: rc.hasher("site").Bytes(shared).Key()}, nil
}

// dep is a result a chapter read: set is the set's name ("" is never
// used: the build's own set is named).
type dep struct{ Set, ID string }

func (cc *chapterCache) chapterKey(i int) rendercache.Key {
	return cc.rc.hasher("chapter").Bytes(cc.site[:]).String(strconv.Itoa(i)).String(cc.b.Docs[i].File).Bytes(cc.b.src[i][:]).Key()
}

// state is what the chapter sees of a result it read: the file's digest
// and, in the build's set, why it is stale ("" when it is not).
func (cc *chapterCache) state(d dep) (sum [sha256.Size]byte, stale string) {
	sum = cc.res.digest(d.Set, d.ID)
	if d.Set == cc.res.Machine {
		stale, _ = cc.res.Stale("", d.ID)
	}
	return sum, stale
}

// cachedWarning is a warning read back from the cache: the position and
// message of the *parse.PosError it was, and its kind (which render
// keeps to itself).
type cachedWarning struct {
	*parse.PosError
	kind string
}

func (w cachedWarning) Kind() string  { return w.kind }
func (w cachedWarning) Unwrap() error { return w.PosError }

// entry is a chapter's entry in the cache: the results it read as the
// chapter saw them, its output and the blob of its page. Its search text
// and its body (for the whole-book page and the EPUB), the largest parts,
// are entries of their own, found by their hash: kept as they are, they
// need not be encoded into JSON and validated back.
type entry struct {
	Deps     []entryDep
	Warnings []entryWarning
	Claims   []evaluate.Claim
	Search   rendercache.Key
	Body     rendercache.Key
	Sets     []string
	Page     rendercache.Blob
}

// entryDep is a result a chapter read: its file's digest and why it was
// stale ("" when it was not).
type entryDep struct {
	Set, ID string
	Sum     []byte
	Stale   string
}

type entryWarning struct {
	Pos       parse.Pos
	Msg, Kind string
}

// encodeEntry encodes the results a chapter read as cc sees them, its
// output and the blob of its page; ok is false when the output holds a
// warning the cache could not give back as it was.
func (cc *chapterCache) encodeEntry(deps []dep, o chapterOut, page rendercache.Blob) (data []byte, ok bool) {
	e := entry{Claims: o.claims, Search: rendercache.NewHasher("search").Bytes(o.search).Key(), Body: rendercache.NewHasher("body").Bytes(o.body).Key(), Sets: o.sets, Page: page}
	for _, d := range deps {
		sum, stale := cc.state(d)
		e.Deps = append(e.Deps, entryDep{d.Set, d.ID, sum[:], stale})
	}
	for _, w := range o.warnings {
		var pe *parse.PosError
		var k interface{ Kind() string }
		if !errors.As(w, &pe) || !errors.As(w, &k) || w.Error() != pe.Error() {
			return nil, false
		}
		e.Warnings = append(e.Warnings, entryWarning{pe.Pos, pe.Msg, k.Kind()})
	}
	data, err := json.Marshal(e)
	if err != nil {
		return nil, false
	}
	cc.rc.c.Put(e.Search, o.search)
	cc.rc.c.Put(e.Body, o.body)
	return data, true
}

// decodeEntry is encodeEntry undone, from the entry decoded; ok is false
// when a result the chapter read is no longer as it was. e is shared
// with the next rebuild's (rendercache.Decoded): o takes its claims and
// sets to read only.
func (cc *chapterCache) decodeEntry(e entry) (page rendercache.Blob, o chapterOut, ok bool) {
	for _, d := range e.Deps {
		if sum, why := cc.state(dep{d.Set, d.ID}); !bytes.Equal(d.Sum, sum[:]) || d.Stale != why {
			return page, o, false
		}
	}
	for _, w := range e.Warnings {
		o.warnings = append(o.warnings, cachedWarning{&parse.PosError{Pos: w.Pos, Msg: w.Msg}, w.Kind})
	}
	if o.search, ok = cc.rc.c.Get(e.Search); !ok {
		return page, o, false
	}
	o.body, ok = cc.rc.c.Get(e.Body)
	o.claims, o.sets = slices.Clip(e.Claims), slices.Clip(e.Sets)
	return e.Page, o, ok
}

// get returns the blob of chapter i's page and the chapter's output if
// the cache has them.
func (cc *chapterCache) get(i int) (page rendercache.Blob, o chapterOut, ok bool) {
	if cc == nil {
		return page, o, false
	}
	e, ok := rendercache.Decoded(cc.rc.c, cc.chapterKey(i), decodeJSON[entry])
	if !ok {
		return page, o, false
	}
	return cc.decodeEntry(e)
}

// decodeJSON is JSON's decoding of data into a T.
func decodeJSON[T any](data []byte) (T, bool) {
	var v T
	return v, json.Unmarshal(data, &v) == nil
}

// put keeps chapter i's output and the blob of its page, made reading
// what rec recorded.
func (cc *chapterCache) put(i int, rec evaluate.Results, page rendercache.Blob, o chapterOut) {
	r, ok := rec.(*recorder)
	if cc == nil || !ok {
		return
	}
	deps := slices.SortedFunc(maps.Keys(r.deps), func(a, b dep) int { return cmp.Or(cmp.Compare(a.Set, b.Set), cmp.Compare(a.ID, b.ID)) })
	if data, ok := cc.encodeEntry(deps, o, page); ok {
		cc.rc.c.Put(cc.chapterKey(i), data)
	}
}

// record returns the Results a chapter is evaluated against: res itself,
// or with a cache, res noting which results the chapter reads.
func (cc *chapterCache) record(res *Results) evaluate.Results {
	if cc == nil {
		return res
	}
	return &recorder{Results: res, deps: map[dep]bool{}}
}

// recorder is Results noting every result looked up, and every staleness
// asked, for the cache's key. One chapter's evaluation uses it, on one
// goroutine.
type recorder struct {
	*Results
	deps map[dep]bool
}

func (r *recorder) Lookup(set, id string) (*dataset.Result, bool) {
	r.deps[dep{r.setName(set), id}] = true
	return r.Results.Lookup(set, id)
}

func (r *recorder) Stale(set, id string) (string, bool) {
	r.deps[dep{r.setName(set), id}] = true
	return r.Results.Stale(set, id)
}
