package render

import (
	"bytes"
	"fmt"
	"maps"
	"measuredbook/evaluate"
	"measuredbook/parse"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/probe"
)

// readinessChapter is testdata/readiness.txtar and its chapter, parsed;
// more is Markdown added at the chapter's end.
func readinessChapter(t *testing.T, more ...string) (*txtar.Archive, *parse.Doc) {
	t.Helper()
	a, err := txtar.ParseFile("testdata/readiness.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	for _, f := range a.Files {
		if f.Name == "chapter.md" {
			src = []byte(string(f.Data) + strings.Join(more, ""))
		}
	}
	d, err := parse.Parse("chapter.md", src, fakeProbes)
	if err != nil {
		t.Fatal(err)
	}
	return a, d
}

// TestEvaluateTwice evaluates one parsed chapter against two result sets:
// two pages that differ where the results differ, and a document that is
// the same, deep down, before and after.
func TestEvaluateTwice(t *testing.T) {
	a, d := readinessChapter(t)
	before := dump(d)
	unevaluated, err := HTMLWith(d, nil, nil)
	if err != nil {
		t.Fatal(err)
	}

	first := loadSets(t, a)
	// The second set: epoll's round grows with the idle connections as
	// poll's does, so the claim that it is flat fails.
	second := sets{"": {"readiness": grown(first[""]["readiness"], "epoll")}, "m1": first["m1"]}

	p1, err := evaluate.Evaluate(d, first, nil)
	if err != nil {
		t.Fatal(err)
	}
	html1, err := HTMLWith(d, p1.Views, nil)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := evaluate.Evaluate(d, second, nil)
	if err != nil {
		t.Fatal(err)
	}
	html2, err := HTMLWith(d, p2.Views, nil)
	if err != nil {
		t.Fatal(err)
	}

	if after := dump(d); after != before {
		t.Errorf("evaluating changed the document:\nbefore: %.2000s\nafter:  %.2000s", before, after)
	}
	if again, _ := HTMLWith(d, nil, nil); !bytes.Equal(again, unevaluated) {
		t.Errorf("the unevaluated document renders otherwise after two evaluations:\n%s", again)
	}
	// The first page still renders as it did, after the second evaluation.
	if again, _ := HTMLWith(d, p1.Views, nil); !bytes.Equal(again, html1) {
		t.Error("the first page changed when the document was evaluated again")
	}
	if bytes.Equal(html1, html2) {
		t.Fatal("two result sets gave the same page")
	}
	verdicts := func(p *evaluate.Page) []expr.Truth {
		var v []expr.Truth
		for _, c := range p.Claims {
			v = append(v, c.Verdict)
		}
		return v
	}
	if got, want := verdicts(p1), []expr.Truth{expr.True, expr.False}; !slices.Equal(got, want) {
		t.Errorf("first page's verdicts = %v, want %v", got, want)
	}
	if got, want := verdicts(p2), []expr.Truth{expr.False, expr.False}; !slices.Equal(got, want) {
		t.Errorf("second page's verdicts = %v, want %v", got, want)
	}
	// Where the results are the same (the reference set m1), so are the
	// pages' values.
	same := 0
	for _, v := range d.Values() {
		if v1, v2 := p1.Views.Value(v.Node), p2.Views.Value(v.Node); v1.Ref {
			if !reflect.DeepEqual(*v1, *v2) {
				t.Errorf("a value from the unchanged set m1 differs: %+v, %+v", v1, v2)
			}
			same++
		}
	}
	if same == 0 {
		t.Error("no value drawn from m1")
	}
}

// grown copies r with api=API's every run's round scaled by its idle
// count over 100.
func grown(r *dataset.Result, api string) *dataset.Result {
	c := *r
	c.Rows = nil
	for _, row := range r.Rows {
		nr := dataset.Row{Params: row.Params}
		for _, run := range row.Runs {
			v := probe.Values{}
			for k, x := range run {
				if row.Params["api"] == api && k == "round" {
					var idle float64
					fmt.Sscan(row.Params["idle"], &idle)
					x *= idle / 100
				}
				v[k] = x
			}
			nr.Runs = append(nr.Runs, v)
		}
		c.Rows = append(c.Rows, nr)
	}
	return &c
}

// dump writes out everything reachable from v, unexported fields, maps
// (in sorted order) and pointers (each once; a pointer seen before is
// written as its first visit's number; inside a map entry, numbered apart
// from the rest, since a map has no order) included: two dumps are equal
// when nothing reachable changed.
func dump(v any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(v), map[uintptr]int{})
	return b.String()
}

func dumpValue(b *strings.Builder, v reflect.Value, seen map[uintptr]int) {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("invalid")
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if n, ok := seen[v.Pointer()]; ok {
			fmt.Fprintf(b, "&%d", n)
			return
		}
		seen[v.Pointer()] = len(seen)
		fmt.Fprintf(b, "&%d=", len(seen)-1)
		dumpValue(b, v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString(v.Elem().Type().String() + ":")
		dumpValue(b, v.Elem(), seen)
	case reflect.Struct:
		b.WriteString(v.Type().String() + "{")
		for i := range v.NumField() {
			b.WriteString(v.Type().Field(i).Name + ":")
			dumpValue(b, v.Field(i), seen)
			b.WriteString(" ")
		}
		b.WriteString("}")
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("[")
		for i := range v.Len() {
			dumpValue(b, v.Index(i), seen)
			b.WriteString(",")
		}
		b.WriteString("]")
	case reflect.Map:
		var entries []string
		for it := v.MapRange(); it.Next(); {
			var e strings.Builder
			own := maps.Clone(seen)
			dumpValue(&e, it.Key(), own)
			e.WriteString(":")
			dumpValue(&e, it.Value(), own)
			entries = append(entries, e.String())
		}
		slices.Sort(entries)
		b.WriteString("map[" + strings.Join(entries, ",") + "]")
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		fmt.Fprintf(b, "%s(nil=%v)", v.Kind(), v.IsNil())
	default:
		fmt.Fprintf(b, "%v", v)
	}
}

// TestClaimPlainText: a claim's text in reports is what a reader sees,
// without markup, read from the fragment and the page (nothing is rendered
// to HTML during evaluation).
func TestClaimPlainText(t *testing.T) {
	src := "```experiment readiness\nparams:\n  api: [poll, epoll]\n  idle: [100]\n```\n\n" +
		"```claim\nexpect: readiness.round[api=epoll, idle=100] < 1s\ntext: |\n" +
		"  **a** &amp; _b_ \\* `c &amp; <d>` [e](http://x) ![alt](i.png) <b>f</b> &copy;\n" +
		"  <https://g.example> ~~h~~ {{ readiness.round[api=epoll, idle=100] }}\n```\n\n" +
		"```claim\nexpect: readiness.round[api=epoll, idle=100] < 1s\ntext: |\n  one *x*\n\n  - two\n  - three\n```\n"
	d, err := parse.Parse("c.md", []byte(src), fakeProbes)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := evaluate.Evaluate(d, sets{}, nil)
	var got []string
	for _, c := range p.Claims {
		got = append(got, c.Text)
	}
	want := []string{
		"a & b * c &amp; <d> e  f ©\nhttps://g.example h —",
		"one x\ntwo\nthree",
	}
	if !slices.Equal(got, want) {
		t.Errorf("claims' text = %q, want %q", got, want)
	}
}

// TestEvaluateConcurrently: a parse.Doc is only read, so pages of it may be
// evaluated and rendered at once (go test -race checks it).
func TestEvaluateConcurrently(t *testing.T) {
	a, d := readinessChapter(t)
	res := loadSets(t, a)
	p0, err := evaluate.Evaluate(d, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := HTMLWith(d, p0.Views, nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			p, err := evaluate.Evaluate(d, res, nil)
			if err != nil {
				t.Error(err)
				return
			}
			if got, _ := HTMLWith(d, p.Views, nil); !bytes.Equal(got, want) {
				t.Error("a page evaluated beside others renders otherwise")
			}
		})
	}
	wg.Wait()
}
