package parse

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/tools/txtar"
)

// sameAsYAML checks fastYAML against yaml.Unmarshal on text: the same
// tree, or fastYAML declined; it declines whatever yaml rejects. It
// reports whether the fast path took the text.
func sameAsYAML(t *testing.T, text string) bool {
	t.Helper()
	got := fastYAML([]byte(text))
	var want yaml.Node
	err := yaml.Unmarshal([]byte(text), &want)
	switch {
	case got == nil:
		return false
	case err != nil:
		t.Errorf("%q: yaml fails (%v), the fast path gives %s", text, err, dumpNode(got))
	case !reflect.DeepEqual(*got, want):
		t.Errorf("%q:\nfast path %s\nyaml      %s", text, dumpNode(got), dumpNode(&want))
	}
	return true
}

// dumpNode prints a tree on one line, every field yaml sets.
func dumpNode(n *yaml.Node) string {
	s := fmt.Sprintf("{%d %d %s %q %d:%d %q %q %q %q", n.Kind, n.Style, n.Tag, n.Value, n.Line, n.Column,
		n.HeadComment, n.LineComment, n.FootComment, n.Anchor)
	for _, c := range n.Content {
		s += " " + dumpNode(c)
	}
	return s + "}"
}

// yamlBodies finds the YAML texts of a Markdown file: its front matter
// and the bodies of its directives, also those quoted in longer fences
// (as docs/authoring.md shows them) and in lists, with their indentation.
var (
	directiveBody = regexp.MustCompile("(?ms)^( *)```(experiment|table|plot|claim|when)\\b[^\n]*\n(.*?)^ *```")
	frontBody     = regexp.MustCompile(`(?s)\A---\n(.*?\n)---\n`)
)

func yamlBodies(src string) (kinds, bodies []string) {
	if m := frontBody.FindStringSubmatch(src); m != nil {
		kinds, bodies = append(kinds, "front"), append(bodies, m[1])
	}
	for _, m := range directiveBody.FindAllStringSubmatch(src, -1) {
		body := m[3]
		if ind := m[1]; ind != "" {
			body = strings.ReplaceAll("\n"+body, "\n"+ind, "\n")[1:]
		}
		kinds, bodies = append(kinds, m[2]), append(bodies, body)
	}
	return kinds, bodies
}

// The fast path on every YAML text of the book, the docs, the test cases
// and the synthetic books: the same trees as yaml's, and most of the
// book's directives taken.
func TestYAMLFastPathCorpus(t *testing.T) {
	type tally struct{ fast, all int }
	count := map[string]map[string]*tally{} // source, kind
	add := func(source, src string) {
		kinds, bodies := yamlBodies(src)
		for i, body := range bodies {
			if count[source] == nil {
				count[source] = map[string]*tally{}
			}
			c := count[source][kinds[i]]
			if c == nil {
				c = &tally{}
				count[source][kinds[i]] = c
			}
			c.all++
			if sameAsYAML(t, body) {
				c.fast++
			}
		}
	}
	files, _ := filepath.Glob("../chapters/*.md")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add("chapters", string(src))
	}
	for _, glob := range []string{"../docs/*.md", "../testdata/*/chapters/*.md"} {
		more, _ := filepath.Glob(glob)
		for _, f := range more {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			add("docs, testdata", string(src))
		}
	}
	cases, _ := filepath.Glob("../render/testdata/*.txtar")
	for _, f := range cases {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range a.Files {
			if strings.HasSuffix(file.Name, ".md") {
				add("render/testdata", string(file.Data))
			}
		}
	}
	// The chapters the benchmarks generate (bench/gen.go, book/synth_test.go),
	// as they write them.
	for _, src := range []string{
		"---\ntitle: \"12장. 커널 epoll 준비 소켓\"\norder: 12\nslug: ch0012\nlang: ko\n---\n\n" +
			"```experiment c0012\nprobe: readiness\nparams:\n  api: [poll, epoll]\n  idle: [100, 1000, 10000]\n  rounds: 2000\nruns: 3\nshow: none\n```\n\n" +
			"```table\nfrom: c0012\nrows: idle\ncols: api\nvalue: round\nformat: us\n```\n\n" +
			"```plot\nfrom: c0012\nx: idle\ny: round\nseries: api\nxscale: log\nyscale: log\ntitle: 12장. 커널 epoll 준비 소켓\n```\n",
		"---\ntitle: \"합성 7장\"\norder: 8\nslug: s0007\nlang: ko\n---\n\n" +
			"```table\nfrom: r0007\nrows: idle\ncols: api\nvalue: round\n```\n\n" +
			"```plot\nfrom: r0007\nx: idle\ny: round\nseries: api\nxscale: log\nyscale: log\ntitle: 유휴 소켓이 늘 때 7\n```\n",
		"---\ntitle: \"사본 9\"\norder: 109\nslug: copy-0009\nlang: ko\n---\n",
	} {
		add("synthetic", src)
	}
	for _, source := range []string{"chapters", "docs, testdata", "render/testdata", "synthetic"} {
		for _, kind := range slices.Sorted(maps.Keys(count[source])) {
			c := count[source][kind]
			t.Logf("%-16s %-10s %3d of %3d on the fast path", source, kind, c.fast, c.all)
		}
	}
	book := count["chapters"]
	for _, kind := range []string{"experiment", "table", "plot"} {
		if c := book[kind]; c == nil || c.fast*10 < c.all*9 {
			t.Errorf("the book's %s bodies: %+v on the fast path, want at least 90%%", kind, c)
		}
	}
	for kind, c := range count["synthetic"] {
		if c.fast != c.all {
			t.Errorf("synthetic %s bodies: %d of %d on the fast path, want all", kind, c.fast, c.all)
		}
	}
}

// Near misses: each is yaml's tree or declined, and the first ones taken.
func TestYAMLFastPathNearMisses(t *testing.T) {
	taken := []string{
		"key: x\n",
		"key: x",
		"key: true\n",
		"key: 1e3\n",
		"key: 0x10\n",
		"key: 010\n",
		"key: .5\n",
		"key: ~\n",
		"key: null\n",
		"key: -1\n",
		"key: a:b\n",
		"key:  x\n",
		"key: [a, b]\n",
		"key: []\n",
		"key: [a,b]\n",
		"key: [ a , b ]\n",
		"key: {a: b, c: d e}\n",
		"key: {}\n",
		"key: 'x'\n",
		"key: \"x y\"\n",
		"key: 유휴 소켓 수\n",
		"key: |\n  a\n  b\n",
		"key: |\n  a\n\n    b\n\n\nnext: 1\n",
		"key: |\n  a",
		"params:\n  api: [poll, epoll]\n  idle: 1\nruns: 3\n",
		"\n\nkey: x\n\n",
		"a:\n  b:\n    c: 1\n  d: 2\ne: 3\n",
		"  key: x\n  k2: y\n",
		"key: 2024-01-02\n",
		"1: x\n",
		"key: a \"b\" c\n",
		"key: growth(x.y[a=b], c) < 2 && d | e\n",
		"key: x {{ y }}\n",
		"key: {\"-1\": a b, 'c': \"d, e\"}\n",
		"key: [\"a\", 'b c']\n",
	}
	for _, s := range taken {
		if !sameAsYAML(t, s) {
			t.Errorf("%q: declined", s)
		}
	}
	for _, s := range []string{
		"key: x # c\n",
		"# c\nkey: x\n",
		"key: -\n",
		"key:\n",
		"key:\nnext: 1\n",
		"key: x \n",
		"key: x\r\n",
		"key:\tx\n",
		"\tkey: x\n",
		"key: x\nkey: y\n",
		"key: [a, b,]\n",
		"key: [a, , b]\n",
		"key: [a\n",
		"key: [a, b] \n",
		"key: [a: b]\n",
		"key: {a: b\n",
		"key: {a:b}\n",
		"key: {{ x }}\n",
		"key: {{ x }}y\n",
		"key: \"a\" b\n",
		"key: \"a\" \n",
		"key: \"a\\\"b\"\n",
		"key: {\"a\":b}\n",
		"key: a: b\n",
		"key: a:\n",
		"key: &x a\n",
		"key: *x\n",
		"key: !!str a\n",
		"key: >\n  a\n",
		"key: |-\n  a\n",
		"key: |\n\n  a\n",
		"key: |\n  a\n \n  b\n",
		"key: \"a\\tb\"\n",
		"key: 'a''b'\n",
		"key: x\n  y\n",
		"key: x\n\n  y\n",
		"a:\n    b: 1\n  c: 2\n",
		"a:\n  b: 1\n   c: 2\n",
		"  a: 1\nb: 2\n",
		"- a\n- b\n",
		"---\nkey: x\n",
		"key: x\n---\n",
		"key: x\n...\n",
		"x\n",
		"",
		"\n",
		"\ufeffkey: x\n",
		"key: a\u2028b\n",
		"key: a\u0085b\n",
		"key: a\x01b\n",
		"key: a\xffb\n",
		"kéy: x\n",
		"key : x\n",
		"key:x\n",
		"? key\n: x\n",
		"<<: x\n",
	} {
		if sameAsYAML(t, s) {
			t.Errorf("%q: taken, want declined", s)
		}
	}
}

// yamlPieces are what fuzzText builds lines from, one piece of each
// list per line: the fast path's grammar and its near misses, so that
// many fuzzed texts are close to what it takes.
var yamlPieces = [][]string{
	{"", "", "  ", "    ", " ", "\t", "- ", "? ", "---", "\ufeff"},
	{"a", "b", "k1", "x.y", "a-b", "_z", "1", "true", "y", "<<", "é", "\"q\"", "a b", "#"},
	{": ", ": ", ":  ", ":", ":", ": |", ": |\n  l1\n\n  l2", ": |\n    ", " : ", ":\t"},
	{"", "x", "x y", "1e3", "0x10", "010", "~", "null", "-1", "-", ".5", "a:b", "a: b", "2024-01-02", "+.inf", "0b11", "1_000",
		"유휴 연결", "a\"b", "'q'", "\"d q\"", "'a''b'", "\"a\\tb\"", "#c", "x #c", "x ", "{{ x }}", "x {{ y }}",
		"[a, b]", "[]", "[ a , b ]", "[a,b,]", "[-1, \"x\"]", "{k: v, \"-1\": w}", "{}", "{a:b}", "[a, {b: c}]",
		"&a x", "*a", "!!str x", "> ", "x\u2028y", "\u0085", "x\r"},
	{"\n", "\n", "\n\n", "\n  \n", "\n  l", "\n   l", "", "\r\n"},
}

// fuzzText reads data as lines of pieces.
func fuzzText(data string) string {
	var b strings.Builder
	for i := 0; i < len(data); i++ {
		list := yamlPieces[i%len(yamlPieces)]
		b.WriteString(list[int(data[i])%len(list)])
	}
	return b.String()
}

// FuzzYAMLFastPath: on any text, the fast path gives yaml's tree or
// declines (go test -fuzz FuzzYAMLFastPath ./render). The input is tried
// as it is and as a list of yamlPieces.
func FuzzYAMLFastPath(f *testing.F) {
	for _, s := range []string{
		"probe: readiness\nparams:\n  api: [poll, epoll, kqueue]\n  idle: [100, 1000, 10000]\n  rounds: 1000\nruns: 3\nshow: none\ncaption: 유휴 소켓 수에 따른 \"준비됐나?\" 비용\n",
		"from: readiness\nx: idle\ny: round\nlabels: {idle: 유휴 소켓 수, round: 한 라운드, api: API}\n",
		"if: machine.linux\nthen: |\n  > **요약** {{ a | int }}\n\n  둘째\nelse: |\n  셋째\n",
		"title: \"2장. select에서 epoll까지\"\norder: 2\nslug: s\nlang: ko\n",
		"a: 'x'\nb: 1e3\nc: 0x10\nd: .5\ne: ~\nf: [a,b]\ng: {}\n",
		"a:\n  b:\n    c: -1\n  d: 2024-01-02\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		defer watchdog(s)()
		sameAsYAML(t, s)
		sameAsYAML(t, fuzzText(s))
	})
}

// Random texts near the fast path's grammar (fuzzing rarely builds a
// whole valid one): nested mappings of yamlPieces' keys and values, a
// piece now and then from the other lists.
func TestYAMLFastPathRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	keys, values := yamlPieces[1], yamlPieces[3]
	value := func() string {
		if r.IntN(10) > 0 {
			return pick([]string{"x", "x y", "1e3", "0x10", "010", "~", "null", "-1", ".5", "a:b", "2024-01-02", "+.inf",
				"0b11", "1_000", "유휴 연결", "a\"b", "'q'", "\"d q\"", "x {{ y }}", "[a, b]", "[]", "[ a , b ]", "[-1, \"x\"]",
				"{k: v, \"-1\": w}", "{}"})
		}
		return pick(values)
	}
	taken := 0
	const n = 5000
	for range n {
		var b strings.Builder
		var gen func(indent string, depth int)
		gen = func(indent string, depth int) {
			for range 1 + r.IntN(4) {
				b.WriteString(indent)
				if r.IntN(30) == 0 {
					b.WriteString(pick(yamlPieces[0]))
				}
				b.WriteString(pick(keys))
				switch {
				case depth < 2 && r.IntN(4) == 0:
					b.WriteString(":\n")
					gen(indent+strings.Repeat(" ", 1+r.IntN(3)), depth+1)
					continue
				case r.IntN(8) == 0:
					b.WriteString(": |\n")
					for range 1 + r.IntN(3) {
						if r.IntN(4) > 0 {
							b.WriteString(indent + "  " + strings.Repeat(" ", r.IntN(2)) + value())
						}
						b.WriteString("\n")
					}
					continue
				case r.IntN(20) == 0:
					b.WriteString(pick(yamlPieces[2]))
				default:
					b.WriteString(": ")
				}
				b.WriteString(value())
				if r.IntN(20) == 0 {
					b.WriteString(pick(yamlPieces[4]))
				} else {
					b.WriteString("\n")
				}
			}
		}
		gen(strings.Repeat(" ", r.IntN(2)*r.IntN(3)), 0)
		if sameAsYAML(t, b.String()) {
			taken++
		}
	}
	t.Logf("%d of %d random texts on the fast path", taken, n)
	if taken < n/10 {
		t.Errorf("only %d of %d random texts on the fast path: the test checks too little", taken, n)
	}
}

// BenchmarkParseYAML decodes the book's YAML texts (front matter and
// directive bodies) as ybody.decode does (yaml=fast) and with
// yaml.Unmarshal alone, as before fastYAML (yaml=unmarshal).
func BenchmarkParseYAML(b *testing.B) {
	files, _ := filepath.Glob("../chapters/*.md")
	var texts [][]byte
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		_, ts := yamlBodies(string(src))
		for _, t := range ts {
			texts = append(texts, []byte(t))
		}
	}
	for _, c := range []struct {
		name   string
		decode func([]byte) (*yaml.Node, error)
	}{
		{"yaml=fast", func(t []byte) (*yaml.Node, error) { return newYBody(t, nil).decode() }},
		{"yaml=unmarshal", unmarshalYAML},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, t := range texts {
					if _, err := c.decode(t); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts))/1e3, "µs/text")
		})
	}
}

// watchdog panics, naming input, if the call it returns is not made
// within 3 s: a fuzz input that makes the parser crawl fails as a crash
// would, instead of stalling the run.
func watchdog(input string) (stop func()) {
	done := make(chan bool)
	go func() {
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			panic(fmt.Sprintf("slow input %q", input))
		}
	}()
	return func() { close(done) }
}
