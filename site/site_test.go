package site

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"measuredbook/dataset"
	"measuredbook/evaluate"
	"measuredbook/expr"
	"measuredbook/probe"
)

func TestNumbering(t *testing.T) {
	for _, tc := range []struct {
		orders []int
		want   string
	}{
		{[]int{1, 2, 5, 6}, "장 번호는 원서의 장 번호를 그대로 따릅니다. 3장과 4장은 아직 쓰지 않아 차례에 없습니다."},
		{[]int{1, 3, 5}, "장 번호는 원서의 장 번호를 그대로 따릅니다. 2장과 4장은 아직 쓰지 않아 차례에 없습니다."},
		{[]int{2, 5}, "장 번호는 원서의 장 번호를 그대로 따릅니다. 1장, 3장과 4장은 아직 쓰지 않아 차례에 없습니다."},
		{[]int{1, 2, 3}, ""},
		{nil, ""},
	} {
		if got := Numbering(tc.orders); got != tc.want {
			t.Errorf("Numbering(%v) = %q, want %q", tc.orders, got, tc.want)
		}
	}
}

func TestDecorate(t *testing.T) {
	body := `<h2 id="배경">배경 <code>x</code></h2>
<p>text</p>
<h3 id="a-b">A &amp; B</h3>
<h5>no id</h5>
<figure class="mb-experiment" id="experiment-e"><table class="mb-results">
<caption>넓은 &lt;표&gt;</caption><tr><td>1</td></tr></table></figure>
<table><tr><td>2</td></tr></table>
<figure class="mb-plot"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 480 300" width="100%" style="max-width:640px;height:auto" role="img"><title>그림 제목</title>
<path style="stroke:#0072B2;fill:#D55E00"/><text style="font-size:12px">a</text><text style="font-size:10px">b</text></svg></figure>`
	s, toc := Decorate([]byte(body), Links{})
	for _, want := range []string{
		`<h2 id="배경">배경 <code>x</code> <a class="anchor" href="#배경" aria-label="이 절의 링크: 배경 x">#</a></h2>`,
		`<h3 id="a-b">A &amp; B <a class="anchor" href="#a-b" aria-label="이 절의 링크: A &amp; B">#</a></h3>`,
		`<h5>no id</h5>`,
		`<div class="scroll" role="region" aria-label="표: 넓은 &lt;표&gt;" tabindex="0"><table class="mb-results">`,
		`<div class="scroll" role="region" aria-label="표" tabindex="0"><table>`,
		`stroke:var(--mb-s1);fill:var(--mb-s2)`,
		`max-width:640px;height:auto;min-width:528px`, // 480 × 11 / 10: the 10 px text shows at 11 px
		`<div class="scroll" role="region" aria-label="그림: 그림 제목" tabindex="0"><svg`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Decorate lacks %s\n%s", want, s)
		}
	}
	if len(toc) != 2 || toc[0] != (Heading{2, "배경", "배경 x"}) || toc[1] != (Heading{3, "a-b", "A & B"}) {
		t.Errorf("contents %+v", toc)
	}
	secs := Sections("장", "ch", s, toc)
	if len(secs) != 2 || secs[0].URL != "ch.html#배경" || secs[1].URL != "ch.html#a-b" || secs[1].Title != "A & B" ||
		strings.Contains(secs[1].Text, "#") || !strings.Contains(secs[1].Text, "넓은 <표>") || strings.Contains(secs[1].Text, "그림 제목") {
		t.Errorf("sections %+v", secs)
	}
	// The index joins the chapters' entries into one JSON array.
	var entries [][]byte
	for _, part := range [][]Section{secs[:1], nil, secs[1:]} {
		entries = append(entries, SearchEntries(part))
	}
	all, _ := json.Marshal(secs)
	if got, want := string(SearchIndex(entries)), "window.MB_SEARCH="+string(all)+";\n"; got != want {
		t.Errorf("index %s, want %s", got, want)
	}
	if got := string(SearchIndex([][]byte{nil})); got != "window.MB_SEARCH=null;\n" {
		t.Errorf("index of nothing: %s", got)
	}
}

func TestExportAndLinks(t *testing.T) {
	r := &dataset.Result{Experiment: "e", Probe: "p.q", Order: []string{"api", "n"}, Machine: dataset.Fingerprint{Name: "box"},
		Start: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), Source: "measured", Units: map[string]probe.Unit{"wall": probe.Seconds},
		Rows:        []dataset.Row{{Params: probe.Params{"api": "poll", "n": "10"}, Runs: []probe.Values{{"wall": 1.5e-6}, {"wall": 2e-6, "n_ok": 3}}}},
		Failures:    []dataset.Failure{{Params: probe.Params{"api": "select", "n": "10"}, Err: "EINVAL"}},
		Unavailable: []dataset.Unavailable{{Params: probe.Params{"api": "kqueue", "n": "10"}, Reason: "kqueue is not available on linux"}}}
	j, c, err := Export("box", r)
	if err != nil {
		t.Fatal(err)
	}
	wantCSV := "api,n,run,n_ok,wall (s)\npoll,10,1,,1.5e-06\npoll,10,2,3,2e-06\n"
	if string(c) != wantCSV {
		t.Errorf("csv:\n%s\nwant\n%s", c, wantCSV)
	}
	var d Data
	if err := json.Unmarshal(j, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 2 || d.Runs[1]["wall"] != 2e-6 || d.Start != "2026-11-29T10:00:00Z" || len(d.Failures) != 1 || d.Failures[0]["error"] != "EINVAL" {
		t.Errorf("json %+v", d)
	}
	if len(d.Unavailable) != 1 || d.Unavailable[0]["api"] != "kqueue" || d.Unavailable[0]["reason"] != "kqueue is not available on linux" {
		t.Errorf("json unavailable %+v", d.Unavailable)
	}
	body := `<figure class="mb-experiment" id="experiment-bare"><p>x</p></figure>
<figure class="mb-experiment" id="experiment-e"><p>y</p>
<figcaption class="mb-provenance">✅ box</figcaption></figure>
<figure class="mb-experiment" id="experiment-none"><figcaption class="mb-provenance">측정 없음</figcaption></figure>
<span class="mb-value" data-exp="e">1</span><span class="mb-value" data-exp="f">2</span>`
	got, _ := Decorate([]byte(body), Links{Page: "this.html", Has: map[string]bool{"e": true, "bare": true},
		PageOf: map[string]string{"e": "this.html", "f": "other.html"}})
	for _, want := range []string{
		`✅ box <span class="mb-data">원자료 <a href="data/e.csv" download>CSV</a> · <a href="data/e.json" download>JSON</a></span></figcaption>`,
		`<figcaption class="mb-provenance">측정 없음</figcaption>`,
		`<figure class="mb-experiment" id="experiment-bare"><p>x</p></figure>`,
		`data-exp="e">1`,
		`data-exp="f" data-page="other.html">2`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("links lack %s\n%s", want, got)
		}
	}
}

// A claim about what the machine cannot measure is neither held nor
// undecided on the claims page: it says 해당 없음, with the reason; so
// does a per-machine verdict on a machine that cannot measure it.
func TestClaimsPageSaysNotApplicable(t *testing.T) {
	kq := "kqueue is not available on linux"
	body := string(ClaimsBody("linux-box", []ChapterClaims{{Title: "2장", Slug: "ch2", Claims: []evaluate.Claim{
		{Text: "epoll은 평평하다", Verdict: expr.True, Explain: "growth = 1.1× < 2"},
		{Text: "kqueue는 평평하다", Verdict: expr.Unknown, Explain: "이 기계에서는 잴 수 없음: " + kq, Unavailable: kq},
		{Text: "kqueue는 기계마다 평평하다", Verdict: expr.Unknown, Explain: "이 기계에서는 잴 수 없음: " + kq, Unavailable: kq, On: []evaluate.MachineVerdict{
			{Machine: "linux-box", Verdict: expr.Unknown, Explain: "이 기계에서는 잴 수 없음: " + kq, Unavailable: kq},
			{Machine: "m1", Verdict: expr.True, Explain: "growth = 1.2× < 2"},
		}},
	}}}))
	for _, want := range []string{
		"주장 3개: 성립 1, 불성립 0, 판정 보류 0, 이 기계에서는 잴 수 없는 것에 관한 주장이라 해당 없음 2.",
		`<li class="mb-claim mb-unavailable"><span class="mb-verdict">– 해당 없음</span> kqueue는 평평하다`,
		`<li class="mb-unavailable"><span class="mb-machine">linux-box</span> <span class="mb-verdict">– 해당 없음</span>`,
		`<li class="mb-holds"><span class="mb-machine">m1</span> <span class="mb-verdict">✓ 성립</span>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("claims page lacks %q:\n%s", want, body)
		}
	}
}
