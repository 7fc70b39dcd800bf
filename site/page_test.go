package site

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// pageLinks are the links the page tests decorate with.
var pageLinks = Links{Page: "this.html", Has: map[string]bool{"e": true, "a&b": true},
	PageOf: map[string]string{"e": "other.html", "f": "this.html", "g": "x&y.html"}}

// checkPage compares a page's decoration and search sections with those
// the implementation first written makes of it.
func checkPage(t *testing.T, body string) {
	t.Helper()
	got, toc := Decorate([]byte(body), pageLinks)
	secs := Sections("장", "ch", got, toc)
	want, wtoc, wsecs := refPage([]byte(body), "장", "ch", pageLinks)
	if got != want {
		t.Errorf("Decorate(%q):\n got %q\nwant %q", body, got, want)
	}
	if !reflect.DeepEqual(toc, wtoc) {
		t.Errorf("Decorate(%q) contents:\n got %+v\nwant %+v", body, toc, wtoc)
	}
	if !reflect.DeepEqual(secs, wsecs) {
		t.Errorf("Sections of %q:\n got %+v\nwant %+v", got, secs, wsecs)
	}
}

// pageWords are the pieces of the markup the decorations look for, and
// what lies around them.
var pageWords = []string{`<h2 id="a">`, `<h3 id="e">`, `<h4 id="x&amp;y">`, `<h2 id="">`, `</h2>`, `</h3>`, `</h5>`, `<h5>`,
	`<table>`, `<table class="t">`, `</table>`, `<caption>`, `</caption>`,
	`<svg `, `<svg>`, `viewBox="0 0 480 300"`, `viewBox="0 0 1.5 2"`, `style="max-width:640px;height:auto"`, `px;height:auto`,
	`font-size:12px`, `font-size:0px`, `font-size:1.2.3px`, `<title>`, `</title>`, `</svg>`,
	`stroke:#0072B2`, `fill:#D55E00`, `fill:#000000`, `<pre class="chroma">`, `</pre>`,
	`<figure class="mb-experiment" id="experiment-e">`, `<figure class="mb-experiment" id="experiment-a&amp;b">`,
	`<figure class="mb-experiment" id="experiment-f">`, `</figure>`, `<figcaption>`, `</figcaption>`, `<span>`, `</span>`,
	`data-exp="e"`, `data-exp="f"`, `data-exp="g"`, `<script>`, `</script>`, `<style>`, `</style>`, `<a class="anchor" href="#a">#</a>`,
	"&amp;", "&lt;", "&#34;", "&nbsp;", "&notit;", "&#x41;", "&#10;", "&", "<", ">", `"`, " ", "\n", "\t", "\v", "\u00a0",
	"텍스트", "x", "<b>", "</b>", "<p>", "\xff"}

// soup is a page of n words drawn at random.
func soup(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(pageWords[r.IntN(len(pageWords))])
	}
	return b.String()
}

// On pages of the markup's pieces shuffled at random, the page and its
// search sections are byte for byte those the regexps first made.
func TestPagesAsFirstWritten(t *testing.T) {
	for _, s := range []string{"", `<h2 id="a">x</h2>`,
		// The min-width goes into the title when it holds the first px;height:auto.
		`<svg viewBox="0 0 480 300"><title>a px;height:auto b</title><text style="font-size:10px">x</text></svg>`,
		`<svg viewBox="0 0 480 300"><title>a px;height:auto</title><text style="font-size:10px">x</text></svg>`,
		`<svg viewBox="0 0 480 300" style="max-width:640px;height:auto"><title>a px;height:auto</title><text style="font-size:10px">x</text></svg>`,
		`<h2 id="a<script>x</script>b">t</h2>`, `<b <svg>x</svg> >y`, `<h2 id="a>b">c</h2>`} {
		checkPage(t, s)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		checkPage(t, soup(r, r.IntN(40)))
	}
}

func FuzzPage(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		f.Add(soup(r, 30))
	}
	f.Fuzz(checkPage)
}
