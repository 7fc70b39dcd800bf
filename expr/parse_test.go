package expr

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// dump prints a syntax tree as an s-expression, to test precedence and
// associativity without depending on evaluation.
func dump(n node) string {
	switch n := n.(type) {
	case *numNode:
		if n.dim == Dimensionless {
			return fmt.Sprint(n.v)
		}
		return fmt.Sprintf("%g%s", n.v, map[Dim]string{Duration: "s", Bytes: "B"}[n.dim])
	case *strNode:
		return fmt.Sprintf("%q", n.s)
	case *identNode:
		return n.name
	case *refNode:
		s := n.ref.Experiment + "." + n.ref.Metric
		if n.ref.Set != "" {
			s = n.ref.Set + ":" + s
		}
		for _, sel := range n.ref.Selector {
			s += "[" + sel.Key + "=" + sel.Value + "]"
		}
		return s
	case *unaryNode:
		return "(" + tokNames[n.op] + " " + dump(n.x) + ")"
	case *binaryNode:
		return "(" + tokNames[n.op.kind] + " " + dump(n.x) + " " + dump(n.y) + ")"
	case *condNode:
		return "(? " + dump(n.c) + " " + dump(n.a) + " " + dump(n.b) + ")"
	case *callNode:
		var args []string
		for _, a := range n.args {
			args = append(args, dump(a))
		}
		return "(" + n.name + " " + strings.Join(args, " ") + ")"
	case *setNode:
		return "(ref " + n.set + " " + dump(n.x) + ")"
	}
	return "?"
}

func TestParseTree(t *testing.T) {
	tests := []struct{ src, want string }{
		{"1 + 2 * 3", "(+ 1 (* 2 3))"},
		{"(1 + 2) * 3", "(* (+ 1 2) 3)"},
		{"1 - 2 - 3", "(- (- 1 2) 3)"},
		{"8 / 4 / 2", "(/ (/ 8 4) 2)"},
		{"-2 * 3", "(* (- 2) 3)"},
		{"--2", "(- (- 2))"},
		{"+2", "2"},
		{"!a.b < 1", "(< (! a.b) 1)"},
		{"1 + 2 < 3 * 4", "(< (+ 1 2) (* 3 4))"},
		{"1 < 2 && 3 < 4 || 5 < 6", "(|| (&& (< 1 2) (< 3 4)) (< 5 6))"},
		{"1 < 2 || 3 < 4 && 5 < 6", "(|| (< 1 2) (&& (< 3 4) (< 5 6)))"},
		{"a.b < 1 ? 2 : 3", "(? (< a.b 1) 2 3)"},
		{`a.b < 1 ? "x" : a.b < 2 ? "y" : "z"`, `(? (< a.b 1) "x" (? (< a.b 2) "y" "z"))`},
		{`(a.b < 1 ? 1 : 2) < 3 ? "x" : "y"`, `(? (< (? (< a.b 1) 1 2) 3) "x" "y")`},
		{"1 || 2 ? 3 : 4", "(? (|| 1 2) 3 4)"},
		{"500us + 1ms", "(+ 0.0005s 0.001s)"},
		{"500µs + 500μs + 100ns + 2s", "(+ (+ (+ 0.0005s 0.0005s) 1e-07s) 2s)"},
		{"8KiB + 64B + 1MiB + 1GiB", "(+ (+ (+ 8192B 64B) 1.048576e+06B) 1.073741824e+09B)"},
		{"1e3 + 2.5E-1 + 0.5", "(+ (+ 1000 0.25) 0.5)"},
		{"threads.handoff.time[sleeping=100]", "threads.handoff.time[sleeping=100]"},
		{"a.b [ k = v , j=w ]", "a.b[k=v][j=w]"},
		{`a.b[k="v"]`, "a.b[k=v]"},
		{"a.b[]", "a.b"},
		{"growth(a.b[k=1], n)", "(growth a.b[k=1] n)"},
		{"slope(a.b, n) > 1", "(> (slope a.b n) 1)"},
		{"min(a.b, 2, 3)", "(min a.b 2 3)"},
		{"max(a.b[k=v])", "(max a.b[k=v])"},
		{"abs(1 - 2)", "(abs (- 1 2))"},
		{`ref("m1", a.b / c.d) / a.b`, "(/ (ref m1 (/ m1:a.b m1:c.d)) a.b)"},
		{`ref("m1", ref("m2", a.b) + a.b)`, "(ref m1 (+ (ref m2 m2:a.b) m1:a.b))"},
		{`on("arm", a.b) / a.b`, "(/ (ref arm arm:a.b) a.b)"},
		{`on("m1", on("arm", a.b) + a.b)`, "(ref m1 (+ (ref arm arm:a.b) m1:a.b))"},
		{"1 == 2 != (3 < 4)", ""}, // chain: error, tested below
	}
	for _, tt := range tests {
		if tt.want == "" {
			continue
		}
		e, err := Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if got := dump(e.root); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// Sets lists every set an expression names, at the quoted name, so that
// a misspelt one can be reported there.
func TestParseSets(t *testing.T) {
	src := `on("m1", a.b) / ref("arm", on("m1", c.d)) + e.f`
	e, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []SetName{{"m1", 3, 4}, {"arm", 20, 5}, {"m1", 30, 4}}
	if got := e.Sets(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Sets() = %+v, want %+v", got, want)
	}
	for _, s := range want {
		if text := src[s.Off : s.Off+s.Len]; text != `"`+s.Name+`"` {
			t.Errorf("set %s spans %q", s.Name, text)
		}
	}
	if e, _ := Parse("a.b"); e.Sets() != nil {
		t.Errorf("a.b names sets %v", e.Sets())
	}
}

func TestParseRefsAndFormat(t *testing.T) {
	tests := []struct {
		src    string
		format string
		refs   []Ref
	}{
		{"readiness.round[api=poll, idle=10000] | dur", "dur", []Ref{{
			Experiment: "readiness", Metric: "round",
			Selector: []Sel{{"api", "poll", 16, 20}, {"idle", "10000", 26, 31}},
		}}},
		{"threads.handoff.time", "", []Ref{{Experiment: "threads.handoff", Metric: "time"}}},
		{"blocking.ready_read[] | range", "range", []Ref{{Experiment: "blocking", Metric: "ready_read"}}},
		{`ref("m1", a.b[k="v"]) / a.b`, "", []Ref{
			{Set: "m1", Experiment: "a", Metric: "b", Selector: []Sel{{"k", "v", 14, 17}}},
			{Experiment: "a", Metric: "b"},
		}},
		{"1 | μs", "us", nil},
		{"1 | µs", "us", nil},
		{"1|x", "x", nil},
		{"growth(x.y[a=1], n) | pct", "pct", []Ref{{Experiment: "x", Metric: "y", Selector: []Sel{{"a", "1", 11, 13}}}}},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if e.Format() != tt.format {
			t.Errorf("Parse(%q).Format() = %q, want %q", tt.src, e.Format(), tt.format)
		}
		if got := e.Refs(); !reflect.DeepEqual(got, tt.refs) {
			t.Errorf("Parse(%q).Refs() =\n%+v\nwant\n%+v", tt.src, got, tt.refs)
		}
		for _, r := range e.Refs() {
			for _, s := range r.Selector {
				if !strings.HasPrefix(tt.src[s.Off:], s.Key) {
					t.Errorf("Parse(%q): selector key %s not at offset %d", tt.src, s.Key, s.Off)
				}
				if !strings.HasPrefix(tt.src[s.ValOff:], s.Value) {
					t.Errorf("Parse(%q): selector value %s not at offset %d", tt.src, s.Value, s.ValOff)
				}
			}
		}
	}
}

// TestParseErrors checks each error's message and that it points at the
// culprit: the byte offset is what the renderer turns into a column.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		src string
		off int
		msg string
	}{
		{"", 0, "expected an expression"},
		{"   ", 3, "expected an expression"},
		{"| dur", 0, "expected an expression"},
		{"1 +", 3, "expected a value after +, found the end of the expression"},
		{"1 + * 2", 4, `expected a value after +, found "*"`},
		{"(1 + 2", 6, "expected ) to close the ( at offset 0"},
		{"()", 1, "expected an expression after ("},
		{"1 < 2 < 3", 6, "comparisons do not chain"},
		{"1 == 2 != 3", 7, "comparisons do not chain"},
		{"a.b | xx", 6, `unknown format "xx" (did you mean x?)`},
		{"a.b | dru", 6, `unknown format "dru" (did you mean dur?)`},
		{"a.b | MS", 6, `unknown format "MS" (did you mean ms?)`},
		{"a.b | zzzzzz", 6, `unknown format "zzzzzz"; formats are dur, ns`},
		{"a.b | ", 6, "expected a format after |"},
		{"a.b | 2", 6, "expected a format after |"},
		{"a.b | dur | ns", 10, "only one format"},
		{"a.b | dur x", 10, "expected an operator or the end"},
		{"growht(a.b, n)", 0, `unknown function "growht" (did you mean growth?)`},
		{"frobnicate(1)", 0, `unknown function "frobnicate"; functions are growth, slope`},
		{"x.y(1)", 0, `"x.y" is not a function`},
		{"5ks", 1, `unknown unit "ks" in 5ks (did you mean ns?)`},
		{"growth(a.b, n) < 2x", 18, "write a ratio as a plain number: 2, not 2x"},
		{strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200), 100, "nested more than 100 deep"},
		{strings.Repeat("-", 200) + "1", 99, "nested more than 100 deep"},
		{"5 + 3kb", 5, `unknown unit "kb" in 3kb`},
		{`"x"`, 0, "a string can only be a result of ?:"},
		{`a.b + "x"`, 6, "a string can only be a result of ?:"},
		{`"x" ? 1 : 2`, 0, "a string can only be a result of ?:"},
		{`min("x", 2)`, 4, "a string can only be a result of ?:"},
		{`"abc`, 0, "string is not closed"},
		{`1 < 2 ? "a\n" : "b"`, 10, `unknown escape`},
		{"a.b[api=epoll", 3, "selector is not closed"},
		{"a.b[api=[x]]", 3, "selector is not closed"},
		{"a.b[api]", 4, "expected k=v in selector"},
		{"a.b[k v]", 4, "expected k=v in selector"},
		{"a.b[api=]", 7, "expected a value after api="},
		{"a.b[api=1, api=2]", 11, "param api appears twice"},
		{"a.b[=1]", 4, "expected a param name before ="},
		{"a.b[x=1,]", 8, "empty entry in selector"},
		{"a.b[x-y=1]", 4, `param name "x-y" in selector is not a name`},
		{"[a=1]", 0, "a selector [a=1] must follow a reference"},
		{"a.b]", 3, "unexpected ] without a ["},
		{"idle", 0, `expected a reference ID.METRIC[k=v], a number or a function, found "idle"`},
		{"growth", 0, "growth is a function: write growth(…)"},
		{"growth(1, idle)", 7, "growth's first argument must be a reference"},
		{`growth(ref("m1", a.b), n)`, 7, "growth's first argument must be a reference"},
		{"slope(a.b + 1, n)", 6, "slope's first argument must be a reference"},
		{"growth(a.b, 2)", 12, "expected the name of the param that varies"},
		{"growth(a.b, c.d)", 12, "expected the name of the param that varies"},
		{"growth(a.b)", 10, `expected "," and the param that varies`},
		{"growth(a.b, n, m)", 13, `expected ")" to close growth(`},
		{"ref(m1, a.b)", 4, "expected the name of a data set in quotes"},
		{`ref("", a.b)`, 4, `data set name "" is not a plain name`},
		{`ref("m1" a.b)`, 9, `expected "," after the data set name`},
		{`ref("m1", a.b`, 13, `expected ")" to close ref(`},
		{`on(m1, a.b)`, 3, `expected the name of a data set in quotes, as in on("m1", …)`},
		{`on("m1", a.b`, 12, `expected ")" to close on(`},
		{`onn("m1", a.b)`, 0, `unknown function "onn" (did you mean on?)`},
		{"abs(1, 2)", 0, "abs takes one argument, found 2"},
		{"max()", 4, "expected an argument of max"},
		{"min(1,)", 6, "expected an argument of min"},
		{"min(1 2)", 6, "expected , or ) in the arguments of min"},
		{"a = b", 2, "expected == to compare"},
		{"a & b", 2, "expected && (a single & is not an operator)"},
		{"1 ? 2", 5, `expected ":" between the branches`},
		{"1 ?", 3, "expected a value after ?"},
		{"1 ? 2 :", 7, "expected a value after :"},
		{"1 2", 2, "expected an operator or the end of the expression, found \"2\""},
		{"a.b.", 3, "unexpected character '.'"},
		{"#", 0, "unexpected character '#'"},
		{"1 × 2", 2, "unexpected character '×'"},
		{"\xff", 0, "invalid UTF-8"},
		{"1e999", 0, "number 1e999 is out of range"},
		{"1 < ", 4, "expected a value after <"},
		{"a.b < 1 &&", 10, "expected a value after &&"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want error %q", tt.src, tt.msg)
			continue
		}
		pe, ok := err.(*Error)
		if !ok {
			t.Errorf("Parse(%q) error is %T, want *Error", tt.src, err)
			continue
		}
		if !strings.Contains(pe.Msg, tt.msg) || pe.Off != tt.off {
			t.Errorf("Parse(%q) = error at %d %q, want at %d %q", tt.src, pe.Off, pe.Msg, tt.off, tt.msg)
		}
		if pe.Off < 0 || pe.Len < 0 || pe.Off+pe.Len > len(tt.src) {
			t.Errorf("Parse(%q): error span [%d,+%d) outside the source", tt.src, pe.Off, pe.Len)
		}
	}
}

func TestClosest(t *testing.T) {
	tests := []struct {
		name       string
		candidates []string
		want       string
	}{
		{"idel", []string{"api", "idle"}, "idle"},
		{"xx", formatNames, "x"},
		{"raedy", []string{"round", "ready"}, "ready"},
		{"MS", formatNames, "ms"},
		{"rnd", []string{"round"}, "round"},
		{"byte", formatNames, "bytes"},
		{"zzzzzz", formatNames, ""},
		{"", formatNames, ""},
		{"anything", nil, ""},
		{"epoll", []string{"epoll", "poll"}, "epoll"},
		{"pol", []string{"epoll", "poll"}, "poll"},    // 1 insertion from poll, 2 from epoll
		{"readinessround", []string{"readiness"}, ""}, // 5 edits: too far
	}
	for _, tt := range tests {
		if got := Closest(tt.name, tt.candidates); got != tt.want {
			t.Errorf("Closest(%q, %v) = %q, want %q", tt.name, tt.candidates, got, tt.want)
		}
	}
}
