package epub

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"measuredbook/view"
	"slices"
	"strings"
	"testing"
	"time"
)

// testBook has what a chapter's HTML holds that XHTML must not take as
// it is: void elements, HTML's entities, inline SVG, a script, links to
// another chapter and out of the book, the site's heading links and raw
// data, live values with their provenance, images kept and not.
func testBook() Book {
	one := `<h2 id="배경">배경 <a class="anchor" href="#배경" aria-label="이 절의 링크: 배경">#</a></h2>
<p>a<br>b&nbsp;c &copy; <img src="img/p.png" alt="그림"> <img src="gone.png" alt="없는 그림"></p>
<p>poll은 <span class="mb-value" data-date="2026-12-02" data-exp="readiness" data-machine="box (AMD)" data-runs="3" data-range="1–2 ms" tabindex="0">1.5 ms</span>,
다시 <span class="mb-value" data-date="2026-12-02" data-exp="readiness" data-machine="box (AMD)" data-runs="3" data-range="1–2 ms" tabindex="0">1.5 ms</span>,
설정 <span class="mb-value" title="설정: 실험 readiness의 rounds" tabindex="0">1,000</span>.</p>
<figure class="mb-experiment" id="experiment-readiness"><figcaption class="mb-provenance" title="퍼짐 ±3 %">실측 · box <span class="mb-data">원자료 <a href="data/readiness.csv" download>CSV</a></span></figcaption></figure>
<figure class="mb-plot"><div class="scroll" role="region" aria-label="그림" tabindex="0"><svg viewBox="0 0 10 10" role="img"><title>t</title><path d="M0 0L1 1" style="stroke:var(--mb-s1)"/></svg></div></figure>
<div class="mb-claim mb-holds" title="growth = 1.1× &lt; 2"><span class="mb-verdict">✓ 성립</span> <span class="mb-claim-text">평평하다</span></div>
<script>var x = "<p>";</script>
<p><a href="two.html#끝">다음 장</a>, <a href="claims.html">주장</a>, <a href="https://example.org/">밖</a></p>
<h3 id="작은">작은</h3>`
	two := `<h2 id="끝">끝</h2><p>값 <span class="mb-value mb-ref" data-exp="readiness" data-page="one.html" data-machine="m1 (Apple M1)" data-ref="transcribed" tabindex="0">2 ms</span></p>`
	return Book{Title: "책 & 제목", Lang: "ko", Identifier: Identifier("책", "box"), Modified: time.Date(2026, 12, 2, 1, 51, 13, 0, time.UTC),
		Front:    []byte(`<p>머리말 <a href="one.html">1장</a></p>`),
		Chapters: []Chapter{{Slug: "one", Title: "1장", Body: []byte(one)}, {Slug: "two", Title: "2장", Body: []byte(two)}},
		Files:    map[string][]byte{"img/p.png": []byte("\x89PNG"), "img/unused.png": []byte("\x89PNG")}}
}

func write(t *testing.T, b Book) []byte {
	t.Helper()
	docs := make([]Doc, len(b.Chapters))
	for i := range docs {
		var err error
		if docs[i], err = b.Chapter(i); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, b, docs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestContainer(t *testing.T) {
	data := write(t, testBook())
	if again := write(t, testBook()); !bytes.Equal(data, again) {
		t.Error("the same book gives different bytes")
	}
	// OCF: the mimetype's bytes right after its local header, which has
	// no extra field (offset 30 + len("mimetype")).
	if want := "PK\x03\x04"; string(data[:4]) != want || string(data[30:38]) != "mimetype" || string(data[38:58]) != "application/epub+zip" {
		t.Errorf("the mimetype is not first, stored, with no extra field: % x", data[:60])
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	var names []string
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		files[f.Name] = string(b)
		names = append(names, f.Name)
		if f.Name == "mimetype" && f.Method != zip.Store {
			t.Error("mimetype is compressed")
		}
	}
	if !strings.Contains(files["META-INF/container.xml"], `full-path="EPUB/package.opf"`) {
		t.Errorf("container.xml does not name the package: %s", files["META-INF/container.xml"])
	}
	var opf struct {
		Metadata struct {
			Identifier string `xml:"http://purl.org/dc/elements/1.1/ identifier"`
			Title      string `xml:"http://purl.org/dc/elements/1.1/ title"`
			Language   string `xml:"http://purl.org/dc/elements/1.1/ language"`
			Meta       []struct {
				Property string `xml:"property,attr"`
				Value    string `xml:",chardata"`
			} `xml:"meta"`
		} `xml:"metadata"`
		Items []struct {
			ID         string `xml:"id,attr"`
			Href       string `xml:"href,attr"`
			Properties string `xml:"properties,attr"`
		} `xml:"manifest>item"`
		Spine []struct {
			IDRef string `xml:"idref,attr"`
		} `xml:"spine>itemref"`
	}
	if err := xml.Unmarshal([]byte(files["EPUB/package.opf"]), &opf); err != nil {
		t.Fatal(err)
	}
	m := opf.Metadata
	if m.Title != "책 & 제목" || m.Language != "ko" || m.Identifier != Identifier("책", "box") || len(m.Meta) != 1 || m.Meta[0].Value != "2026-12-02T01:51:13Z" {
		t.Errorf("metadata %+v", m)
	}
	// The manifest lists every file of the container but its own, and
	// only those; the spine is the title page, the contents, the chapters.
	href := map[string]string{}
	var listed []string
	for _, it := range opf.Items {
		href[it.ID] = it.Href
		listed = append(listed, "EPUB/"+it.Href)
		if _, ok := files["EPUB/"+it.Href]; !ok {
			t.Errorf("the manifest lists %s, which the container does not hold", it.Href)
		}
		if it.Href == "chapters/one.xhtml" && it.Properties != "svg" {
			t.Errorf("a chapter with inline SVG has properties %q", it.Properties)
		}
	}
	for _, n := range names {
		if !slices.Contains(listed, n) && n != "mimetype" && n != "META-INF/container.xml" && n != "EPUB/package.opf" {
			t.Errorf("%s is not in the manifest", n)
		}
	}
	if _, ok := files["EPUB/chapters/img/unused.png"]; ok {
		t.Error("a file no chapter shows is in the container")
	}
	var spine []string
	for _, s := range opf.Spine {
		spine = append(spine, href[s.IDRef])
	}
	if want := []string{"title.xhtml", "nav.xhtml", "chapters/one.xhtml", "chapters/two.xhtml"}; !slices.Equal(spine, want) {
		t.Errorf("spine %v, want %v", spine, want)
	}
	for name, doc := range files {
		if strings.HasSuffix(name, ".xhtml") {
			d := xml.NewDecoder(strings.NewReader(doc))
			for {
				if _, err := d.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Errorf("%s is not well-formed XML: %v\n%s", name, err, doc)
					break
				}
			}
		}
	}
	one, nav := files["EPUB/chapters/one.xhtml"], files["EPUB/nav.xhtml"]
	for _, want := range []string{
		"a<br/>b\u00a0c ©", `<img src="img/p.png" alt="그림"/>`, " 없는 그림</p>",
		`<svg viewBox="0 0 10 10" role="img" xmlns="http://www.w3.org/2000/svg">`,
		`<a href="two.xhtml#끝">다음 장</a>, 주장, <a href="https://example.org/">밖</a>`,
		// The two values with one provenance share a note; the setting has its own.
		`1.5 ms</span><sup><a epub:type="noteref" role="doc-noteref" class="mb-noteref" href="#mb-note-1" id="mb-noteref-1">1</a></sup>`,
		`1.5 ms</span><sup><a epub:type="noteref" role="doc-noteref" class="mb-noteref" href="#mb-note-1">1</a></sup>`,
		`<li id="mb-note-1" epub:type="endnote" role="doc-endnote"><p><strong>1.5 ms (중앙값 기준)</strong> — 범위: 1–2 ms (최소–최대); 실행: 3회; 기계: box (AMD); 측정일: 2026-12-02 <a href="#experiment-readiness">실험 readiness 보기</a>`,
		`<strong>1,000</strong> — 설정: 실험 readiness의 rounds`,
		`<span class="mb-claim-text">평평하다</span><div class="mb-explain">growth = 1.1× &lt; 2</div>`,
		`실측 · box  <span class="mb-explain">퍼짐 ±3 %</span></figcaption>`,
	} {
		if !strings.Contains(one, want) {
			t.Errorf("chapter one lacks %q:\n%s", want, one)
		}
	}
	for _, gone := range []string{"<script", `class="anchor"`, "data/readiness.csv", "download"} {
		if strings.Contains(one, gone) {
			t.Errorf("chapter one still has %q", gone)
		}
	}
	if two := files["EPUB/chapters/two.xhtml"]; !strings.Contains(two, `<a href="one.xhtml#experiment-readiness">실험 readiness 보기</a>`) || !strings.Contains(two, "(참고값)</strong> — 기계: m1 (Apple M1); 출처: 원서에서 옮겨 적은 값") {
		t.Errorf("chapter two's note does not lead to the experiment in chapter one:\n%s", two)
	}
	if want := `<li><a href="chapters/one.xhtml">1장</a><ol><li><a href="chapters/one.xhtml#배경">배경</a><ol><li><a href="chapters/one.xhtml#작은">작은</a></li></ol></li></ol></li>`; !strings.Contains(nav, want) {
		t.Errorf("nav.xhtml lacks %s:\n%s", want, nav)
	}
	if title := files["EPUB/title.xhtml"]; !strings.Contains(title, `<a href="chapters/one.xhtml">1장</a>`) {
		t.Errorf("the title page's link to a chapter:\n%s", title)
	}
}

func TestIdentifier(t *testing.T) {
	a, b := Identifier("책", "box"), Identifier("책", "other")
	if a == b || a != Identifier("책", "box") || !strings.HasPrefix(a, "urn:uuid:") || len(a) != len("urn:uuid:")+36 || a[len("urn:uuid:")+14] != '5' {
		t.Errorf("identifiers %s, %s", a, b)
	}
}

// The EPUB writes its own words in the book's language: Korean unless
// the book gives its words.
func TestWords(t *testing.T) {
	if got := (&Book{}).words().Contents; got != "차례" {
		t.Errorf("a book without words: %q", got)
	}
	if got := (&Book{Words: view.English}).words().Contents; got != "Contents" {
		t.Errorf("an English book: %q", got)
	}
}
