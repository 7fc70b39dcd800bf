package book

import (
	"html/template"
	"slices"

	"measuredbook/render"
	"measuredbook/site"
	"measuredbook/templates"
)

// pageExtras is what the site adds to a page's layout data: the sidebar
// and, on the contents page, the note on chapter numbers.
type pageExtras struct {
	Nav       site.Nav
	Numbering string
	Search    bool // the page is the search page: it loads the index
}

// decorate gives every chapter body its heading links, scroll regions and
// links to its experiments' raw data (in place), and returns the chapters
// for the sidebar and each chapter's in-page contents.
func (b *Book) decorate(res *Results, bodies [][]byte) ([]site.Chapter, [][]site.Heading) {
	has := map[string]bool{}
	for _, id := range b.Order {
		if _, ok := res.Lookup("", id); ok {
			has[id] = true
		}
	}
	pageOf := map[string]string{}
	for _, d := range b.Docs {
		for _, e := range d.Experiments {
			pageOf[e.ID] = d.Front.Slug + ".html"
		}
	}
	chapters := make([]site.Chapter, len(b.Docs))
	tocs := make([][]site.Heading, len(b.Docs))
	for i, d := range b.Docs {
		chapters[i] = site.Chapter{Title: d.Front.Title, Slug: d.Front.Slug, Order: d.Front.Order}
		bodies[i], tocs[i] = site.Decorate(site.LinkData(bodies[i], has))
		bodies[i] = site.LinkExperiments(bodies[i], d.Front.Slug+".html", pageOf)
	}
	return chapters, tocs
}

func (b *Book) extras(chapters []site.Chapter, page string, toc []site.Heading) pageExtras {
	e := pageExtras{Nav: site.NewNav(chapters, page, toc), Search: page == "search.html"}
	if page == "index.html" {
		var orders []int
		for _, c := range chapters {
			orders = append(orders, c.Order)
		}
		e.Numbering = site.Numbering(orders)
	}
	return e
}

// extraPages adds to pages what the site holds beside the chapters: the
// claims, environment and search pages, the search index, the script, and
// each experiment's raw data under data/. shown lists the sets other than
// the build's own that the pages draw on.
func (b *Book) extraPages(res *Results, tmpl *template.Template, base siteData, chapters []site.Chapter, bodies [][]byte, tocs [][]site.Heading, docClaims [][]render.Claim, shown []string, pages map[string][]byte) error {
	var claims []site.ChapterClaims
	var sections []site.Section
	for i, d := range b.Docs {
		claims = append(claims, site.ChapterClaims{Title: d.Front.Title, Slug: d.Front.Slug, Claims: docClaims[i]})
		sections = append(sections, site.Sections(d.Front.Title, d.Front.Slug, bodies[i], tocs[i])...)
	}
	var sets []site.SetMachine
	for _, set := range append([]string{""}, shownSets(b.Config.Machines, shown)...) {
		s := site.SetMachine{Set: set, Reference: set != "", Sources: map[string]string{}}
		if set == "" {
			s.Set = res.Machine
		}
		for _, id := range b.Order {
			r, ok := res.Lookup(set, id)
			if !ok {
				continue
			}
			s.Machine = r.Machine
			s.Experiments = append(s.Experiments, id)
			if !r.Measured() {
				s.Sources[id] = r.Source
			}
			if set == "" {
				j, c, err := site.Export(res.Machine, r)
				if err != nil {
					return err
				}
				pages["data/"+id+".json"], pages["data/"+id+".csv"] = j, c
			}
		}
		// Every machine whose figures the pages show, and every one they
		// show a gap for (its set is not in results/).
		if set != "" || len(s.Experiments) > 0 {
			sets = append(sets, s)
		}
	}
	for _, p := range []struct {
		file, title string
		body        template.HTML
	}{
		{"claims.html", "검사한 주장", site.ClaimsBody(res.Machine, claims)},
		{"environment.html", "측정 환경", site.EnvironmentBody(sets)},
		{"search.html", "검색", ""},
	} {
		page := base
		body, toc := site.Decorate([]byte(p.body))
		page.Page, page.Body = p.title, template.HTML(body)
		page.pageExtras = b.extras(chapters, p.file, toc)
		var err error
		if pages[p.file], err = execute(tmpl, "page.html", page); err != nil {
			return err
		}
	}
	index, err := site.SearchIndex(sections)
	if err != nil {
		return err
	}
	pages["search-index.js"] = index
	layouts := b.Templates
	if layouts == nil {
		layouts = templates.Embedded()
	}
	pages["site.js"], err = templates.Script(layouts)
	return err
}

// shownSets orders the other sets the pages draw on: the book's machines
// first, in book.yaml's order, then the others by name; each once.
func shownSets(book, drawn []string) []string {
	var out []string
	for _, m := range book {
		if slices.Contains(drawn, m) {
			out = append(out, m)
		}
	}
	rest := slices.Clone(drawn)
	slices.Sort(rest)
	for _, m := range slices.Compact(rest) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
