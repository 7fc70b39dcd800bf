package site

import (
	"measuredbook/view"
	"strings"
	"testing"
)

// Two chapters with the same heading, a heading named like a chapter,
// and links within a chapter, to the other and out of the book: on the
// whole-book page every id is once, and every link leads where it did.
func TestPrintBook(t *testing.T) {
	contents, body, err := printBook([]PrintChapter{
		{Title: "1장", Slug: "one", Body: []byte(`<h2 id="정리">정리 <a class="anchor" href="#정리" aria-label="이 절의 링크: 정리">#</a></h2>
<h2 id="two">two</h2><p><a href="#정리">위</a> <a href="two.html#정리">2장의 정리</a> <a href="two.html">2장</a> <a href="claims.html#x">주장</a>
<span class="mb-value" data-exp="e" data-page="two.html" tabindex="0">1 ms</span></p>
<div id="only-here" aria-labelledby="정리 only-here"></div>`)},
		{Title: "2장", Slug: "two", Lang: "en", Body: []byte(`<h2 id="정리">Summary</h2><p><a href="#정리">up</a> <a href="one.html#only-here">there</a></p><figure id="experiment-e"></figure>`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<section class="print-chapter" id="one">` + "\n<h1>1장</h1>\n" + `<h2 id="one-정리">정리 <a aria-label="이 절의 링크: 정리" class="anchor" href="#one-정리">#</a></h2>`,
		`<h2 id="one-two">two</h2>`,
		`<a href="#one-정리">위</a> <a href="#two-정리">2장의 정리</a> <a href="#two">2장</a> <a href="claims.html#x">주장</a>`,
		`<span class="mb-value" data-exp="e" tabindex="0">1 ms</span>`,
		`<div id="only-here" aria-labelledby="one-정리 only-here"></div>`,
		`<section class="print-chapter" id="two" lang="en">`,
		`<h2 id="two-정리">Summary</h2><p><a href="#two-정리">up</a> <a href="#only-here">there</a></p><figure id="experiment-e"></figure>`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the whole-book page lacks %q:\n%s", want, body)
		}
	}
	want := `<ol class="toc">
<li><a href="#one">1장</a>
<ol><li><a href="#one-정리">정리</a></li><li><a href="#one-two">two</a></li></ol></li>
<li><a href="#two">2장</a>
<ol><li><a href="#two-정리">Summary</a></li></ol></li>
</ol>
`
	if string(contents) != want {
		t.Errorf("contents\n%s\nwant\n%s", contents, want)
	}
}

// printBook makes the whole-book page's contents and chapters in the
// steps a build takes.
func printBook(chapters []PrintChapter) (contents, body []byte, err error) {
	ids := make([][]string, len(chapters))
	for i, c := range chapters {
		if ids[i], err = ChapterIDs(c.Body); err != nil {
			return nil, nil, err
		}
	}
	names := PrintNames(view.Korean, chapters, ids)
	parts := make([]PrintPart, len(chapters))
	var b []byte
	for i := range chapters {
		if parts[i], err = PrintSection(chapters, i, names); err != nil {
			return nil, nil, err
		}
		b = append(b, parts[i].Section...)
	}
	return PrintContents(chapters, parts), b, nil
}
