package render

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"measuredbook/evaluate"
	"measuredbook/view"
)

// A site page is the body as HTML renders it with what the site adds,
// written by the renderers: heading links and the page's headings, tables
// and plots in scroll regions, the plot's width and series colours,
// focusable code, data links and the page of each value's experiment.
func TestSitePage(t *testing.T) {
	a, d := readinessChapter(t, "\n## 배경 `x<y` {{ readiness.round[api=poll, idle=10000] }}\n\n### A &amp; B\n\n#### 넷째\n\n##### 다섯째\n\n",
		"| a | b |\n|---|---|\n| 1 | 2 |\n\n```go\nfunc f() {}\n```\n")
	p, err := evaluate.Evaluate(d, loadResults(t, a), nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := HTMLWith(d, p.Views, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, headings, err := SitePage(d, p.Views, Site{Page: "this.html", Data: map[string]bool{"readiness": true},
		PageOf: map[string]string{"readiness": "other.html"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`5.25 ms</span> <a class="anchor" href="#배경-x-y" aria-label="이 절의 링크: 배경 x&lt;y 5.25 ms">#</a></h2>`,
		`<h3 id="a-amp-b">A &amp; B <a class="anchor" href="#a-amp-b" aria-label="이 절의 링크: A &amp; B">#</a></h3>`,
		`<h4 id="넷째">넷째 <a class="anchor" href="#넷째" aria-label="이 절의 링크: 넷째">#</a></h4>`,
		`<div class="scroll" role="region" aria-label="표: 유휴 연결 수에 따른 준비 확인 1회 비용" tabindex="0"><table class="mb-results">`,
		"<div class=\"scroll\" role=\"region\" aria-label=\"표\" tabindex=\"0\"><table>\n<thead>",
		"</table></div>\n",
		`<div class="scroll" role="region" aria-label="그림: 유휴 연결이 늘 때 poll은 자라고 epoll은 평평하다" tabindex="0"><div class="mb-plotbox" style="max-width:640px;min-width:528px"><svg`,
		`max-width:640px;height:auto;min-width:528px"`, // 480 × 11 / 10: the 10 px text shows at 11 px
		"stroke:var(--mb-s1)", "fill:var(--mb-s2)",
		// Each point a live value over its glyph, named by its series and x.
		"</svg><span class=\"mb-value mb-pt\" style=\"left:",
		`data-exp="readiness" data-page="other.html" data-machine="linux-amd64-test-cpu-2c (Test CPU)" data-range="5.1–5.4 ms" data-runs="3" tabindex="0"><span>poll · idle=10,000: 5.25 ms</span></span>`,
		`" tabindex="0"><span>poll · idle=10,000: 5.25 ms</span></span>`,
		"</span></div></div>\n<details class=\"mb-points\"><summary>그림의 수치를 표로 보기</summary>\n",
		"<th>계열</th><th>idle</th><th class=\"mb-num\">round</th><th class=\"mb-num\">범위 (최소–최대)</th><th class=\"mb-num\">실행 횟수</th>",
		`<tr><th scope="row">poll</th><td>10,000</td><td class="mb-num">5.25 ms</td>`,
		// How the experiment was measured, and the command that measures it.
		"<details class=\"mb-rerun\"><summary>직접 재어 보기: 어떻게 쟀고, 내 기계에서는 어떻게 재나</summary>\n<p>어떻게 쟀나 — 프로브 <code>readiness</code>:</p>",
		"<li><code>idle: 100, 1000, 10000</code> — idle connections</li>",
		"<p>조합마다 3회, 실행마다 새 자식 프로세스에서 쟀습니다.</p>",
		`<pre tabindex="0"><code>go run . run readiness</code></pre>`,
		`<span class="mb-data">원자료 <a href="data/readiness.csv" download>CSV</a> · <a href="data/readiness.json" download>JSON</a></span></figcaption>`,
		`data-exp="readiness" data-page="other.html" data-machine=`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the site page lacks %s", want)
		}
		if bytes.Contains(plain, []byte(want)) {
			t.Errorf("HTML has %s", want)
		}
	}
	// A code block is focusable on every page: chroma's pre-wrapper writes it.
	if !bytes.Contains(out, []byte(`<pre class="chroma" tabindex="0"><code>`)) {
		t.Error("the site page's code block is not focusable")
	}
	if !bytes.Contains(out, []byte(`<h5 id="다섯째">다섯째</h5>`)) {
		t.Error("an h5 is not as HTML writes it")
	}
	if bytes.Contains(out, []byte("#0072B2")) {
		t.Error("a series keeps its palette colour")
	}
	want := []view.Heading{{Level: 2, ID: "배경-x-y", Text: "배경 x<y 5.25 ms"}, {Level: 3, ID: "a-amp-b", Text: "A & B"}, {Level: 4, ID: "넷째", Text: "넷째"}}
	if !reflect.DeepEqual(headings, want) {
		t.Errorf("headings %+v, want %+v", headings, want)
	}
	// On the experiment's own page, a value does not link to it.
	own, _, _ := SitePage(d, p.Views, Site{Page: "other.html", PageOf: map[string]string{"readiness": "other.html"}})
	if bytes.Contains(own, []byte("data-page")) || bytes.Contains(own, []byte("mb-data")) {
		t.Error("a page links its own experiment's values to itself, or to data the site lacks")
	}
}

// A Markdown table whose caption is only a label names its scroll region
// with the word for a table alone, as a table without a caption does,
// when the site does not number it.
func TestTableRegionOfLabelOnly(t *testing.T) {
	a, d := readinessChapter(t, "", "| a |\n|---|\n| 1 |\n\n: {#tbl-x}\n")
	p, err := evaluate.Evaluate(d, loadResults(t, a), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := SitePage(d, p.Views, Site{Page: "this.html"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `<div class="scroll" role="region" aria-label="표" tabindex="0"><table id="tbl-x">`; !strings.Contains(string(out), want) {
		t.Errorf("the page lacks %s:\n%s", want, out)
	}
}
