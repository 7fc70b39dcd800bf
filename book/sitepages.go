package book

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"

	"measuredbook/dataset"
	"measuredbook/parse"
	"measuredbook/rendercache"
	"measuredbook/site"
	"measuredbook/templates"
	"measuredbook/view"
)

// pageExtras is what the site adds to a page's layout data: the sidebar
// and, on the contents page, the note on chapter numbers.
type pageExtras struct {
	Nav       site.Nav
	Numbering string
	Search    bool // the page is the search page: it loads the index
}

// page is the layout data of the site's page file, titled title, with
// what the site adds to it; at is the page's chapter (-1 for a page that
// is not one) and toc its in-page contents.
func (l *layout) page(file, title string, at int, body string, toc []view.Heading) siteData {
	page := l.base
	page.Page, page.Body = title, template.HTML(body)
	page.pageExtras = pageExtras{Nav: site.NavOf(file, l.base.Chapters, at, toc), Search: file == "search.html"}
	if file == "index.html" {
		var orders []int
		for _, c := range l.base.Chapters {
			orders = append(orders, c.Order)
		}
		page.Numbering = site.Numbering(l.base.W, orders)
	}
	return page
}

// extraPages writes what the site holds beside the chapters' pages (and
// their experiments' raw data, written with them): the claims,
// environment and search pages, the last part of the search index, the
// scripts and, at the root of the fleet's site, the machines page.
func (b *Book) extraPages(l *layout, outs []chapterOut) error {
	res, w := l.res, b.Config.Words
	var claims []site.ChapterClaims
	for i, d := range b.Docs {
		claims = append(claims, site.ChapterClaims{Title: d.Front.Title, Slug: d.Front.Slug, Claims: outs[i].claims})
	}
	sets := b.siteMachines(res, outs)
	pages := []extraPage{
		// The claims page lists every claim of the book, which a save
		// rarely changes and a book of many chapters takes a while to lay
		// out again.
		{"claims.html", w.ClaimsPage, func() ([]byte, []view.Heading) { return site.ClaimsBody(w, res.Machine, claims) }, claims},
		{"environment.html", w.EnvironmentPage, func() ([]byte, []view.Heading) { return site.EnvironmentBody(w, sets) }, nil},
		{"search.html", w.Search, func() ([]byte, []view.Heading) { return nil, nil }, nil},
	}
	if len(b.fleet.sets) > 0 && b.fleet.copy == "" {
		machines, err := b.machines(res, b.fleet)
		if err != nil {
			return err
		}
		pages = append(pages, extraPage{"fleet.html", w.MachinesTitle, func() ([]byte, []view.Heading) { return site.MachinesBody(w, machines) }, nil})
	}
	for _, p := range pages {
		if err := l.writeExtra(p); err != nil {
			return err
		}
	}
	if err := l.search.Close(); err != nil {
		return err
	}
	script, err := templates.Script(l.layouts, w)
	if err != nil {
		return err
	}
	if err := l.out.put("site.js", script); err != nil {
		return err
	}
	fill, err := templates.TOCScript(l.layouts)
	if err != nil {
		return err
	}
	return l.out.put("toc.js", site.TOC(l.base.Chapters, fill))
}

// siteMachines is the machines the environment page lists: the build's
// own when it has results, then every other set the pages draw on or
// the config names.
func (b *Book) siteMachines(res *Results, outs []chapterOut) (sets []site.SetMachine) {
	var shown []string // the other sets the pages draw on
	for _, o := range outs {
		shown = append(shown, o.sets...)
	}
	for _, set := range append([]string{""}, shownSets(b.Config.Machines, shown)...) {
		if set == res.Machine {
			continue
		}
		s := site.SetMachine{Set: cmp.Or(set, res.Machine), Reference: set != "", Sources: map[string]string{}}
		for _, id := range b.Order {
			r, ok := res.Header(set, id)
			if !ok {
				continue
			}
			s.Machine = r.Machine
			s.Experiments = append(s.Experiments, id)
			if !r.Measured() {
				s.Sources[id] = r.Source
			}
		}
		// Every machine whose figures the pages show, and every one they
		// show a gap for (its set is not in results/).
		if set != "" || len(s.Experiments) > 0 {
			sets = append(sets, s)
		}
	}
	return sets
}

// extraPage is a page of the site beside the chapters.
type extraPage struct {
	file, title string
	body        func() ([]byte, []view.Heading)
	inputs      any // what the body is made of beside the site's key, for the cache; nil: not kept
}

// writeExtra lays out p in the site's page and writes it, or places it
// from the render cache when the cache holds it (and keeps it there when
// it has inputs).
func (l *layout) writeExtra(p extraPage) error {
	var key *rendercache.Key
	if l.cache != nil && p.inputs != nil {
		inputs, err := json.Marshal(p.inputs)
		if err != nil {
			return err
		}
		k := l.cache.rc.hasher("page").Bytes(l.cache.site[:]).String(p.file).Bytes(inputs).Key()
		if placed, err := l.placeCached(k, p.file); placed || err != nil {
			return err
		}
		key = &k
	}
	body, toc := p.body()
	page := l.page(p.file, p.title, -1, string(body), toc)
	if p.file == "fleet.html" {
		page.Fleet = nil // the root's alone: there is no such page to switch to
	}
	html, err := execute(l.tmpl, "page.html", page)
	if err != nil {
		return err
	}
	if key == nil {
		return l.out.put(p.file, html)
	}
	blob, err := l.write(p.file, html)
	if err == nil {
		l.cache.rc.c.Put(*key, blob.AppendTo(nil))
	}
	return err
}

// placeCached places files from the blobs the render cache keeps under
// key, one after another; false when it keeps none, or a file could not
// be placed.
func (l *layout) placeCached(key rendercache.Key, files ...string) (bool, error) {
	c := l.cache.rc.c
	data, ok := c.Get(key)
	if !ok || len(data) != len(files)*rendercache.BlobSize {
		return false, nil
	}
	placed := true
	for i, f := range files {
		blob, _ := rendercache.BlobFrom(data[i*rendercache.BlobSize : (i+1)*rendercache.BlobSize])
		ok, err := l.out.place(f, c, blob)
		if err != nil {
			return false, err
		}
		placed = placed && ok
	}
	return placed, nil
}

// exportAll exports the raw data of the experiments chapter d defines
// that have a result in the build's set; held are those results where
// the caller holds them.
func (l *layout) exportAll(d *parse.Doc, held map[string]*dataset.Result) error {
	for _, e := range d.Experiments {
		if l.has[e.ID] {
			if err := l.export(e.ID, held[e.ID]); err != nil {
				return err
			}
		}
	}
	return nil
}

// export writes the raw data of experiment id in the build's set (r, or
// read when nil): taken from the render cache when it holds that very
// result's, else exported anew (and kept).
func (l *layout) export(id string, r *dataset.Result) error {
	files := []string{"data/" + id + ".json", "data/" + id + ".csv"}
	var key rendercache.Key
	if l.cache != nil {
		sum := l.res.digest("", id)
		key = l.cache.rc.hasher("export").String(l.res.Machine).String(id).Bytes(sum[:]).Key()
		if placed, err := l.placeCached(key, files...); placed || err != nil {
			return err
		}
	}
	if r == nil {
		var ok bool
		if r, ok = l.res.Lookup("", id); !ok {
			return fmt.Errorf("experiment %s: its result could not be read again: %v", id, l.res.Err("", id))
		}
	}
	j, c, err := site.Export(l.res.Machine, r)
	if err != nil {
		return err
	}
	var blobs []byte
	for i, data := range [][]byte{j, c} {
		blob, err := l.write(files[i], data)
		if err != nil {
			return err
		}
		blobs = blob.AppendTo(blobs)
	}
	if l.cache != nil {
		l.cache.rc.c.Put(key, blobs)
	}
	return nil
}

// shownSets orders the other sets the pages draw on: the book's machines
// first, in book.yaml's order, then the others by name; each once.
func shownSets(book, drawn []string) []string {
	out := slices.DeleteFunc(slices.Clone(book), func(m string) bool { return !slices.Contains(drawn, m) })
	for _, m := range slices.Compact(slices.Sorted(slices.Values(drawn))) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
