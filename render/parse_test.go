package render

import (
	"fmt"
	"maps"
	"measuredbook/evaluate"
	"measuredbook/parse"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"measuredbook/dataset"
	"measuredbook/probe"
)

func TestParseExperiment(t *testing.T) {
	src := `---
title: 제목
order: 2
slug: two
lang: ko
---
intro

` + "```experiment handoff" + `
probe: threads.handoff
params:
  sleeping: [100, 0, 1_000]
  delay: 0.5ms
runs: 5
show: none
caption: 인계
timeout: 45s
` + "```\n"
	d, err := parse.Parse("ch.md", []byte(src), fakeProbes)
	if err != nil {
		t.Fatal(err)
	}
	if want := (parse.Front{Title: "제목", Order: 2, Slug: "two", Lang: "ko", SlugAt: parse.Pos{File: "ch.md", Line: 4, Col: 7}}); d.Front != want {
		t.Errorf("front = %+v, want %+v", d.Front, want)
	}
	if len(d.Experiments) != 1 {
		t.Fatalf("%d experiments", len(d.Experiments))
	}
	x := d.Experiments[0]
	if x.ID != "handoff" || x.Probe != "threads.handoff" || x.Runs != 5 || x.Show != "none" || x.Caption != "인계" || x.Timeout != 45*time.Second {
		t.Errorf("experiment = %+v", x)
	}
	if x.Pos != (parse.Pos{File: "ch.md", Line: 9, Col: 1}) {
		t.Errorf("pos = %v", x.Pos)
	}
	if !reflect.DeepEqual(x.Order, []string{"sleeping", "delay"}) {
		t.Errorf("order = %v", x.Order)
	}
	// Canonical values, in the author's order; 0.5ms is Go's 500µs.
	want := map[string][]string{"sleeping": {"100", "0", "1000"}, "delay": {"500µs"}}
	if !reflect.DeepEqual(x.Sweep, want) {
		t.Errorf("sweep = %v, want %v", x.Sweep, want)
	}
	var keys []string
	for _, c := range x.Combos {
		keys = append(keys, c.Key())
	}
	if got := strings.Join(keys, " "); got != "delay=500µs/sleeping=100 delay=500µs/sleeping=0 delay=500µs/sleeping=1000" {
		t.Errorf("combos = %s", got)
	}
}

// TestUnevaluated: Markdown().Convert without Parse and Evaluate shows a
// directive's YAML and a value's source rather than dropping them.
func TestUnevaluated(t *testing.T) {
	var b strings.Builder
	src := "x {{ a.b[] }}\n\n```claim\nexpect: 1 < 2\n```\n"
	if err := Markdown().Convert([]byte(src), &b); err != nil {
		t.Fatal(err)
	}
	want := "<p>x <span class=\"mb-unevaluated\">{{ a.b[] }}</span></p>\n<pre class=\"mb-directive\" data-directive=\"claim\"><code>expect: 1 &lt; 2\n</code></pre>\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

type oneResult struct{ r *dataset.Result }

func (o oneResult) Lookup(set, id string) (*dataset.Result, bool) {
	return o.r, set == "" && id == o.r.Experiment
}

func Example() {
	probes := []probe.Probe{{Spec: probe.Spec{
		Name:    "syscall",
		Params:  []probe.Param{{Name: "calls", Kind: probe.Int, Default: "1000"}},
		Metrics: []probe.Metric{{Name: "getpid", Unit: probe.Seconds}},
	}}}
	res := &dataset.Result{
		Experiment: "syscall", Probe: "syscall", Order: []string{"calls"},
		Sweep: map[string][]string{"calls": {"1000"}}, Runs: 3,
		Units: map[string]probe.Unit{"getpid": probe.Seconds},
		Rows: []dataset.Row{{Params: probe.Params{"calls": "1000"}, Runs: []probe.Values{
			{"getpid": 251e-9}, {"getpid": 248e-9}, {"getpid": 262e-9},
		}}},
	}
	res.Machine.Name = "box"
	src := "```experiment syscall\nshow: none\n```\n\n`getpid` 한 번은 {{ syscall.getpid[] }}입니다.\n"
	html, warnings, err := renderFragment("ch.md", []byte(src), probes, oneResult{res}, nil)
	fmt.Print(string(html), warnings, err)
	// Output:
	// <figure class="mb-experiment" id="experiment-syscall">
	// <p class="mb-fixed">고정: calls=1,000</p>
	// <figcaption class="mb-provenance" title="편차: 지표마다, 조합별 (최댓값 − 최솟값) ÷ 중앙값의 절반 가운데 가장 큰 값. 중앙값이 1보다 작은 횟수는 상대 편차가 뜻이 없어 뺍니다.">✅ 실측 · box · 3회 실행 · 편차 getpid ±2.8%</figcaption>
	// </figure>
	// <p><code>getpid</code> 한 번은 <span class="mb-value" data-exp="syscall" data-machine="box" data-range="248–262 ns" data-runs="3" tabindex="0">251 ns</span>입니다.</p>
	// [] <nil>
}

// TestWarningKinds: evaluation's warnings carry their kind, which a build
// counts, e.g. to fail --strict on inconclusive conditions and to print
// stale results.
func TestWarningKinds(t *testing.T) {
	src := []byte("```experiment blocking\nruns: 2\n```\n\n{{ blocking.ready_read[] < 1us ? \"a\" : \"b\" }} {{ blocking.ready_read[] < 1us ? \"a\" : \"b\" ~ \"c\" }}\n")
	d, err := parse.Parse("c.md", src, fakeProbes)
	if err != nil {
		t.Fatal(err)
	}
	a, err := txtar.ParseFile("testdata/inconclusive.txtar")
	if err != nil {
		t.Fatal(err)
	}
	res := staleSets{sets: loadSets(t, a), why: map[string]string{"blocking": "runs changed"}}
	p, err := evaluate.Evaluate(d, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, w := range p.Warnings {
		if pe, ok := w.(*parse.PosError); ok && pe.Kind() != "" {
			got[pe.Kind()]++
		}
	}
	want := map[string]int{parse.KindInconclusive: 1, parse.KindStale: 1}
	if !maps.Equal(got, want) {
		t.Errorf("warnings by kind = %v, want %v", got, want)
	}
}

// TestUses: a chapter's headline metrics are those its values, tables,
// plots, claims and conditions name, per experiment; runs: auto is the
// default and precision and budget are read.
func TestUses(t *testing.T) {
	src := "```experiment readiness\nparams:\n  idle: [100, 1000]\nprecision: 2.5%\nbudget: 20s\n```\n\n" +
		"Poll costs {{readiness.round[api=poll, idle=100]}}.\n\n" +
		"```table\nfrom: readiness\nrows: idle\ncols: api\nvalue: usable\n```\n\n" +
		"```experiment blocking\nruns: 4\n```\n\n" +
		"```claim\nexpect: blocking.ready_read < 1s\n```\nA read is fast.\n"
	d, err := parse.Parse("ch.md", []byte(src), fakeProbes)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"readiness": {"round", "usable"}, "blocking": {"ready_read"}}
	if !reflect.DeepEqual(d.Uses, want) {
		t.Errorf("uses = %v, want %v", d.Uses, want)
	}
	r, b := d.Experiments[0], d.Experiments[1]
	if r.Runs != 0 || r.Precision != 0.025 || r.Budget != 20*time.Second || b.Runs != 4 || b.Precision != 0 {
		t.Errorf("readiness %d %v %v, blocking %d %v", r.Runs, r.Precision, r.Budget, b.Runs, b.Precision)
	}
}
