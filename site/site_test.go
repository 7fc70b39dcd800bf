package site

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"measuredbook/dataset"
	"measuredbook/evaluate"
	"measuredbook/expr"
	"measuredbook/probe"
	"measuredbook/view"
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
		if got := Numbering(view.Korean, tc.orders); got != tc.want {
			t.Errorf("Numbering(%v) = %q, want %q", tc.orders, got, tc.want)
		}
	}
}

// A chapter's search sections start at its h2–h4, as the renderer wrote
// them: an h4's goes by the chapter's title, and the text leaves out the
// heading links, plots and scripts.
func TestSections(t *testing.T) {
	body := `<p>앞</p>
<h2 id="배경">배경 <code>x</code> <a class="anchor" href="#배경" aria-label="이 절의 링크: 배경 x">#</a></h2>
<p>text</p><script>var x = "<h3 id=\"a-b\">";</script>
<h3 id="a-b">A &amp; B <a class="anchor" href="#a-b" aria-label="이 절의 링크: A &amp; B">#</a></h3>
<table><caption>넓은 &lt;표&gt;</caption><tr><td>1</td></tr></table>
<svg><title>그림 제목</title></svg>
<div class="scroll"><div class="mb-plotbox"><svg><title>그림</title></svg><span class="mb-value mb-pt"><span>poll · idle=100: 1 μs</span></span></div></div><details class="mb-points"><summary>표로</summary><table><tr><td>2 μs</td></tr></table></details><details class="mb-rerun"><summary>재기</summary><details class="mb-method"><summary>방법</summary><p>긴 설명</p></details><pre><code>go run . run x</code></pre></details>
<h4 id="넷">넷 <a class="anchor" href="#넷" aria-label="이 절의 링크: 넷">#</a></h4><p>끝<sup id="fnref:1"><a href="#fn:1" class="footnote-ref" role="doc-noteref">1</a></sup></p>
<div class="footnotes" role="doc-endnotes">
<hr>
<ol>
<li id="fn:1">
<p>각주&#160;<a href="#fnref:1" class="footnote-backref" title="본문으로 돌아가기" role="doc-backlink">&#x21a9;&#xfe0e;</a></p>
</li>
</ol>
</div>`
	secs := Sections("장", "ch", body, []view.Heading{{Level: 2, ID: "배경", Text: "배경 x"}, {Level: 3, ID: "a-b", Text: "A & B"}, {Level: 4, ID: "넷", Text: "넷"}})
	want := []Section{
		{"장", "ch.html", "장", "앞"},
		{"장", "ch.html#배경", "배경 x", "배경 x text"},
		{"장", "ch.html#a-b", "A & B", "A & B 넓은 <표> 1"},
		{"장", "ch.html#넷", "장", "넷 끝 각주"},
	}
	if !reflect.DeepEqual(secs, want) {
		t.Errorf("sections\n%+v, want\n%+v", secs, want)
	}
	// The index joins the chapters' entries into one JSON array, in book
	// order whatever order they came in.
	index := func(entries ...[]byte) map[string]string {
		files := map[string]string{}
		ix := NewSearchIndex(func(name string, data []byte) error { files[name] = string(data); return nil })
		for i := len(entries) - 1; i >= 0; i-- {
			ix.Add(i, entries[i])
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		return files
	}
	all, _ := json.Marshal(secs)
	got := index(SearchEntries(secs[:1]), nil, SearchEntries(secs[1:]))
	if want := map[string]string{"search-index.js": "mbSearchPart(" + string(all) + ",null);\n"}; !reflect.DeepEqual(got, want) {
		t.Errorf("index %q, want %q", got, want)
	}
	if got := index(nil); got["search-index.js"] != "mbSearchPart([],null);\n" || len(got) != 1 {
		t.Errorf("index of nothing: %q", got)
	}
	// A large index comes in parts, each naming the next; together they
	// hold every entry once, in order.
	big := Section{Chapter: "장", URL: "ch.html", Title: "장", Text: strings.Repeat("가", SearchPartSize/3/2)}
	var entries [][]byte
	for range 5 {
		entries = append(entries, SearchEntries([]Section{big}))
	}
	parts := index(entries...)
	var joined []Section
	for k, name := 0, SearchPart(0); name != ""; k++ {
		text, ok := parts[name]
		if !ok || !strings.HasPrefix(text, "mbSearchPart(") {
			t.Fatalf("part %d (%s) missing or malformed: %.40q", k, name, text)
		}
		var part []Section
		var next *string
		args := "[" + strings.TrimSuffix(strings.TrimPrefix(text, "mbSearchPart("), ");\n") + "]"
		var pair []json.RawMessage
		if err := json.Unmarshal([]byte(args), &pair); err != nil || len(pair) != 2 || json.Unmarshal(pair[0], &part) != nil || json.Unmarshal(pair[1], &next) != nil {
			t.Fatalf("part %s: %v", name, err)
		}
		if len(text) > SearchPartSize+len(entries[0])+64 {
			t.Errorf("part %s is %d bytes, more than a part and an entry", name, len(text))
		}
		joined = append(joined, part...)
		name = ""
		if next != nil {
			name = *next
		}
	}
	if len(parts) < 2 || len(joined) != len(entries) {
		t.Errorf("%d parts holding %d entries, want several holding %d", len(parts), len(joined), len(entries))
	}
}

// A section's text is what a reader reads in the page: an element that
// hides its text does so up to its own end tag, past elements of its kind
// inside it, or to the end of the page when it is left open; an
// attribute's '<' or '>' ends no tag; a script's text is not read for tags; entities are
// unescaped, comments and tags are spaces, white space is folded.
func TestSectionsText(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`앞<svg><svg><title>속</title></svg><text>밖</text></svg>뒤`, "앞 뒤"},
		{`앞<details class="mb-rerun"><p>닫히지 않은 채로`, "앞"},
		{`<span title="a > b">글</span> <a href="#x" title="1 < 2">링크</a>`, "글 링크"},
		{`앞<details><summary>겉</summary><details class="mb-points"><details><summary>속</summary></details>표</details>남음</details>`, "앞 겉 남음"},
		{`<details class="mb-rerun"><summary>재기</summary><details class="mb-method">방법</details>명령</details>끝`, "끝"},
		{`앞<p>닫히지 않은 <em>채로`, "앞 닫히지 않은 채로"},
		{`<script>if (a < b && c) { x = "</p>"; }</script>글`, "글"},
		{`a &lt; b &amp;&amp; c&gt;d &copy &#xAC00;&#160;&nbsp;e`, "a < b && c>d © 가\u00a0\u00a0e"},
		{"한\t\n 줄<br>\r\n다음 <!-- 주석 --> 줄", "한 줄 다음 줄"},
	} {
		want := []Section{{"장", "ch.html", "장", tc.want}}
		if got := Sections("장", "ch", tc.body, nil); !reflect.DeepEqual(got, want) {
			t.Errorf("Sections(%q)\n= %+v, want %+v", tc.body, got, want)
		}
	}
	// A heading the page does not have starts no section; the next does.
	body := `<p>앞</p><h2 id="a&amp;b">A&amp;B</h2><p>뒤</p>`
	got := Sections("장", "ch", body, []view.Heading{{Level: 2, ID: "없음", Text: "없음"}, {Level: 2, ID: "a&b", Text: "A&B"}})
	if want := []Section{{"장", "ch.html", "장", "앞"}, {"장", "ch.html#a&b", "A&B", "A&B 뒤"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("sections %+v, want %+v", got, want)
	}
}

func TestExport(t *testing.T) {
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
}

// A claim about what the machine cannot measure is neither held nor
// undecided on the claims page: it says 해당 없음, with the reason; so
// does a per-machine verdict on a machine that cannot measure it.
func TestClaimsPageSaysNotApplicable(t *testing.T) {
	kq := "kqueue is not available on linux"
	b, headings := ClaimsBody(view.Korean, "linux-box", []ChapterClaims{{Title: "2장", Slug: "ch2", Claims: []evaluate.Claim{
		{Text: "epoll은 평평하다", Verdict: expr.True, Explain: "growth = 1.1× < 2"},
		{Text: "kqueue는 평평하다", Verdict: expr.Unknown, Explain: "이 기계에서는 잴 수 없음: " + kq, Unavailable: kq},
		{Text: "kqueue는 기계마다 평평하다", Verdict: expr.Unknown, Explain: "이 기계에서는 잴 수 없음: " + kq, Unavailable: kq, On: []evaluate.MachineVerdict{
			{Machine: "linux-box", Verdict: expr.Unknown, Explain: "이 기계에서는 잴 수 없음: " + kq, Unavailable: kq},
			{Machine: "m1", Verdict: expr.True, Explain: "growth = 1.2× < 2"},
		}},
	}}})
	body := string(b)
	if want := []view.Heading{{Level: 2, ID: "ch2", Text: "2장"}}; !reflect.DeepEqual(headings, want) {
		t.Errorf("headings %+v, want %+v", headings, want)
	}
	for _, want := range []string{
		`<h2 id="ch2"><a href="ch2.html">2장</a> <a class="anchor" href="#ch2" aria-label="이 절의 링크: 2장">#</a></h2>`,
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

// Whatever the page, a section's text is folded: not empty, no white
// space at its ends, only single spaces inside.
func FuzzSections(f *testing.F) {
	f.Add(`<p>앞</p><h2 id="x">X <a class="anchor" href="#x">#</a></h2><svg><svg></svg>`)
	f.Add("a &lt;\t\r\n<details class=\"mb-rerun\"><details></details>b</details>  c")
	f.Fuzz(func(t *testing.T, body string) {
		for _, s := range Sections("장", "ch", body, []view.Heading{{Level: 2, ID: "x", Text: "X"}}) {
			if s.Text == "" || s.Text != strings.TrimSpace(s.Text) || strings.ContainsAny(s.Text, "\t\n\f\r") || strings.Contains(s.Text, "  ") {
				t.Errorf("Sections(%q): text %q not folded", body, s.Text)
			}
		}
	})
}
