package site_test

import (
	"os"
	"reflect"
	"testing"

	"measuredbook/book"
	"measuredbook/evaluate"
	"measuredbook/parse"
	"measuredbook/probes"
	"measuredbook/render"
	"measuredbook/site"
)

// chapter is one of the book's chapters rendered, before the site's work.
type chapter struct {
	title, slug string
	body        []byte
}

// bookChapters renders ../chapters against ../results as a build does,
// and says which experiments have data and where each is shown.
func bookChapters(tb testing.TB) (chs []chapter, has map[string]bool, pageOf map[string]string) {
	tb.Helper()
	all := probes.All()
	bk, err := book.Load("../chapters", all)
	if err != nil {
		tb.Fatal(err)
	}
	res := book.NewResults("../results", bk.Config.Machine, all)
	res.BookMachines = bk.Config.Machines
	has, pageOf = map[string]bool{}, map[string]string{}
	for _, id := range bk.Order {
		if _, ok := res.Lookup("", id); ok {
			has[id] = true
		}
	}
	for _, d := range bk.Docs {
		src, err := os.ReadFile(d.File)
		if err != nil {
			tb.Fatal(err)
		}
		doc, err := parse.Parse(d.File, src, all)
		if err != nil {
			tb.Fatal(err)
		}
		p, err := evaluate.Evaluate(doc, res, bk.Experiments)
		if err != nil {
			tb.Fatal(err)
		}
		body, err := render.HTML(doc, p.Views)
		if err != nil {
			tb.Fatal(err)
		}
		chs = append(chs, chapter{d.Front.Title, d.Front.Slug, body})
		for _, e := range d.Experiments {
			pageOf[e.ID] = d.Front.Slug + ".html"
		}
	}
	return chs, has, pageOf
}

// page is a chapter's per-page work, as book.renderChapter does it.
func page(c chapter, has map[string]bool, pageOf map[string]string) (string, []site.Heading, []site.Section) {
	body, toc := site.Decorate(c.body, links(c, has, pageOf))
	return body, toc, site.Sections(c.title, c.slug, body, toc)
}

func links(c chapter, has map[string]bool, pageOf map[string]string) site.Links {
	return site.Links{Page: c.slug + ".html", Has: has, PageOf: pageOf}
}

// On the book's chapters, the page, its contents and its search text
// are what the implementation first written made of them.
func TestBookPagesAsFirstWritten(t *testing.T) {
	chs, has, pageOf := bookChapters(t)
	for _, c := range chs {
		body, toc, secs := page(c, has, pageOf)
		wbody, wtoc, wsecs := site.RefPage(c.body, c.title, c.slug, links(c, has, pageOf))
		if body != wbody {
			t.Errorf("%s: the page differs", c.slug)
		}
		if !reflect.DeepEqual(toc, wtoc) {
			t.Errorf("%s: contents %v, want %v", c.slug, toc, wtoc)
		}
		if !reflect.DeepEqual(secs, wsecs) {
			t.Errorf("%s: search sections differ", c.slug)
		}
	}
}

// BenchmarkPage is the site's work on each of the book's pages, between
// render.HTML and the template: go test -bench Page -benchmem ./site.
func BenchmarkPage(b *testing.B) {
	chs, has, pageOf := bookChapters(b)
	size := 0
	for _, c := range chs {
		size += len(c.body)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, c := range chs {
			_, _, secs := page(c, has, pageOf)
			site.SearchEntries(secs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(chs))/1e6, "ms/chapter")
}
