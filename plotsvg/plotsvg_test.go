package plotsvg

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

var update = flag.Bool("update", false, "rewrite testdata/*.svg from the current output")

// cases are the golden plots: each exercises a different part of the layout.
var cases = []struct {
	name string
	plot Plot
}{
	{"loglog", Plot{
		// The book's readiness figure: log–log, this machine solid with
		// min–max bars, the reference machine dashed.
		Title:  "유휴 연결이 늘 때 poll은 자라고 epoll은 평평하다",
		XLabel: "유휴 연결 수", YLabel: "round (μs)",
		XLog: true, YLog: true,
		Series: []Series{
			{Name: "poll", Points: []Point{{10, 2, 1.8, 2.5}, {100, 5, 4, 6}, {1000, 40, 35, 48}, {10000, 400, 380, 450}}},
			{Name: "epoll", Points: []Point{{10, 2, 0, 0}, {100, 2.1, 0, 0}, {1000, 2.2, 0, 0}, {10000, 2.3, 2.2, 2.6}}},
			{Name: "poll (M1)", Dashed: true, Points: []Point{{10, 1.5, 0, 0}, {100, 3, 0, 0}, {1000, 25, 0, 0}, {10000, 260, 0, 0}}},
			{Name: "epoll (M1)", Dashed: true, Points: []Point{{10, 1.4, 0, 0}, {100, 1.5, 0, 0}, {1000, 1.5, 0, 0}, {10000, 1.6, 0, 0}}},
		},
	}},
	{"linear", Plot{
		// Linear axes, thousands on Y, Korean legend entries, a title too
		// long for one line, points given out of order, a one-point series.
		Title:  "스레드 수에 따른 처리량: 스레드가 코어 수를 넘으면 문맥 전환 비용 때문에 처리량이 오히려 줄어든다",
		XLabel: "스레드 수", YLabel: "처리량 (요청/초)",
		Series: []Series{
			{Name: "스레드당 연결 하나", Points: []Point{{4, 21000, 20500, 21800}, {1, 9000, 8800, 9100}, {2, 17500, 17000, 18000}, {8, 19000, 17000, 20000}, {16, 15000, 14000, 15500}}},
			{Name: "이벤트 루프", Points: []Point{{1, 24000, 0, 0}, {2, 41000, 0, 0}, {4, 42000, 0, 0}, {8, 41500, 0, 0}, {16, 41000, 0, 0}}},
			{Name: "M1 기준", Dashed: true, Points: []Point{{2, 30000, 0, 0}}},
		},
	}},
	{"cdf", Plot{
		// A distribution from quantiles, drawn through them on a log X axis:
		// one curve per series, the reference machine's dashed.
		Title:  "깨우기 지연의 분포",
		XLabel: "깨우기 지연 (μs)", YLabel: "누적 비율",
		XLog: true,
		Series: []Series{
			{Name: "이 기계", Points: []Point{{20, 0, 0, 0}, {40, 0.1, 0, 0}, {55, 0.25, 0, 0}, {70, 0.5, 0, 0}, {90, 0.75, 0, 0}, {150, 0.9, 0, 0}, {800, 0.99, 0, 0}, {2000, 1, 0, 0}}},
			{Name: "M1", Dashed: true, Points: []Point{{5, 0, 0, 0}, {8, 0.5, 0, 0}, {30, 1, 0, 0}}},
		},
	}},
}

// TestThemeable: the SVG has no background of its own and draws text,
// axes and grid in currentColor, so the page's CSS (a dark theme) decides
// them.
func TestThemeable(t *testing.T) {
	b, err := render(cases[0].plot)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, bad := range []string{"#FFFFFF", "#000000", "#E0E0E0"} {
		if strings.Contains(s, bad) {
			t.Errorf("svg contains the fixed colour %s", bad)
		}
	}
	if !strings.Contains(s, `fill="currentColor"`) || !strings.Contains(s, "stroke:currentColor") {
		t.Error("svg does not draw in currentColor")
	}
}

func TestGolden(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := render(c.plot)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", c.name+".svg")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (%d bytes, want %d); if the change is intended, run go test -update and look at the result", path, len(got), len(want))
			}
		})
	}
}

// TestDeterministic renders each case twice in sequence and several times
// concurrently (a site build may render plots in parallel; gonum's font
// cache is shared): all the bytes must be equal.
func TestDeterministic(t *testing.T) {
	for _, c := range cases {
		first, err := render(c.plot)
		if err != nil {
			t.Fatal(err)
		}
		second, _ := render(c.plot)
		if !bytes.Equal(first, second) {
			t.Fatalf("%s: two renders differ", c.name)
		}
		var wg sync.WaitGroup
		outs := make([][]byte, 4)
		for i := range outs {
			wg.Go(func() { outs[i], _ = render(c.plot) })
		}
		wg.Wait()
		for i, o := range outs {
			if !bytes.Equal(first, o) {
				t.Fatalf("%s: concurrent render %d differs", c.name, i)
			}
		}
	}
}

// svgDoc is what the tests read back from an SVG.
type svgDoc struct {
	root     xml.StartElement
	children []string // names of the root's child elements, in order
	title    string
	texts    []string // character data of every <text>
}

// parse reads b as XML and fails the test if it is not one well-formed
// <svg> element.
func parse(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var d svgDoc
	dec := xml.NewDecoder(bytes.NewReader(b))
	depth := 0
	var in []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.ProcInst, xml.Directive, xml.Comment:
			t.Fatalf("unexpected %T at depth %d; the element is for inline HTML", tok, depth)
		case xml.StartElement:
			if depth == 0 {
				if d.root.Name.Local != "" {
					t.Fatalf("more than one root element")
				}
				d.root = tok.Copy()
			}
			if depth == 1 {
				d.children = append(d.children, tok.Name.Local)
			}
			in = append(in, tok.Name.Local)
			depth++
		case xml.EndElement:
			in = in[:len(in)-1]
			depth--
		case xml.CharData:
			switch {
			case len(in) == 2 && in[1] == "title":
				d.title += string(tok)
			case len(in) > 0 && in[len(in)-1] == "text":
				d.texts = append(d.texts, string(tok))
			}
		}
	}
	if d.root.Name.Local != "svg" {
		t.Fatalf("root element is <%s>, want <svg>", d.root.Name.Local)
	}
	return d
}

func ftoa(v float64) string { return fmt.Sprintf("%.5g", v) }

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func TestElement(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := render(c.plot)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte("<svg ")) {
				t.Errorf("output starts with %q, want <svg (no prolog or doctype)", b[:min(len(b), 20)])
			}
			d := parse(t, b)
			if len(d.children) == 0 || d.children[0] != "title" {
				t.Errorf("root's children %v: want <title> first", d.children)
			}
			if d.title != c.plot.Title {
				t.Errorf("<title> = %q, want %q", d.title, c.plot.Title)
			}
			w, h := width, height
			if got, want := attr(d.root, "viewBox"), "0 0 "+ftoa(w)+" "+ftoa(h); got != want {
				t.Errorf("viewBox = %q, want %q", got, want)
			}
			if got := attr(d.root, "width"); got != "100%" {
				t.Errorf("width = %q, want 100%% (responsive)", got)
			}
			if attr(d.root, "height") != "" {
				t.Errorf("fixed height %q would distort the responsive plot", attr(d.root, "height"))
			}
			if ff := attr(d.root, "font-family"); !strings.HasSuffix(ff, "sans-serif") {
				t.Errorf("font-family = %q, want a list ending in sans-serif", ff)
			}
			if bytes.Contains(b, []byte("font-family:")) {
				t.Errorf("a <text> still names its own font-family, overriding the root's list")
			}
			if bytes.Contains(b, []byte(" id=")) {
				t.Errorf("output has an id attribute; ids clash when several plots are inlined in one page")
			}

			// Every label, as text the browser shapes with its own fonts:
			// the title (possibly wrapped over several <text> lines), the
			// axis labels, and each legend entry.
			all := strings.Join(d.texts, "\n")
			if got := strings.Join(d.texts[:strings.Count(wrapOf(c.plot), "\n")+1], " "); got != c.plot.Title {
				t.Errorf("title drawn as %q, want %q", got, c.plot.Title)
			}
			for _, want := range []string{c.plot.XLabel, c.plot.YLabel} {
				if !slices.Contains(d.texts, want) {
					t.Errorf("axis label %q not among the <text> elements:\n%s", want, all)
				}
			}
			for _, s := range c.plot.Series {
				if !slices.Contains(d.texts, s.Name) {
					t.Errorf("legend entry %q not among the <text> elements:\n%s", s.Name, all)
				}
			}
		})
	}
}

// wrapOf is the title as Draw lays it out.
func wrapOf(p Plot) string {
	w := width
	sty := text.Style{Font: font.From(sansBold, 12), Handler: newHandler()}
	return wrap(sty, p.Title, vg.Length(w-2*margin))
}

func TestTitleWraps(t *testing.T) {
	p := cases[1].plot // its title is far wider than 480 points
	lines := strings.Split(wrapOf(p), "\n")
	if len(lines) < 2 {
		t.Fatalf("long title not wrapped: %q", lines)
	}
	sty := text.Style{Font: font.From(sansBold, 12), Handler: newHandler()}
	w := width
	for _, l := range lines {
		if got := sty.Width(l); float64(got) > w-2*margin {
			t.Errorf("title line %q is %.1f points wide; the canvas has %g inside the margins", l, got, w-2*margin)
		}
	}
}

// TestLegendRows: with many series the legend wraps into rows of several
// columns, each entry drawn once.
func TestLegendRows(t *testing.T) {
	var p Plot
	for i := range 14 {
		s := Series{Name: string(rune('A'+i)) + " 계열", Dashed: i%2 == 1}
		for _, x := range []float64{128, 256, 512, 900} {
			s.Points = append(s.Points, Point{X: x, Y: float64(i+1) * math.Sqrt(x) / 10})
		}
		p.Series = append(p.Series, s)
	}
	b, err := render(p)
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`<text x="([-\d.]+)" y="([-\d.]+)"[^>]*>[A-Z] 계열</text>`)
	xs, ys := map[string]bool{}, map[string]bool{}
	ms := entry.FindAllSubmatch(b, -1)
	for _, m := range ms {
		xs[string(m[1])], ys[string(m[2])] = true, true
	}
	if len(ms) != len(p.Series) || len(xs) < 2 || len(ys) < 2 {
		t.Errorf("%d legend entries in %d columns and %d rows; want %d in a grid", len(ms), len(xs), len(ys), len(p.Series))
	}
}

// TestWideHandler checks that Hangul is given room: Liberation Sans has no
// Hangul glyphs, so plain measuring undercounts it.
func TestWideHandler(t *testing.T) {
	fnt := font.From(sans, 10)
	ko := "유휴 연결 수"
	handler := newHandler()
	plain, _, _ := handler.Plain.Box(ko, fnt)
	wide, _, _ := handler.Box(ko, fnt)
	if wide <= plain {
		t.Errorf("estimated width %v of %q not above Liberation's own %v", wide, ko, plain)
	}
	space, _, _ := handler.Box(" ", fnt)
	if want := 5*fnt.Size + 2*space; math.Abs(float64(wide-want)) > 1e-9 {
		t.Errorf("width of %q = %v, want 5 em + 2 spaces = %v", ko, wide, want)
	}
	// Text the font covers is measured exactly as gonum does.
	for _, s := range []string{"round (μs)", "10,000", "epoll (M1)"} {
		a, _, _ := handler.Plain.Box(s, fnt)
		b, _, _ := handler.Box(s, fnt)
		if a != b {
			t.Errorf("width of %q = %v, want Liberation's %v", s, b, a)
		}
	}
}

func TestErrors(t *testing.T) {
	pts := func(ps ...Point) []Point { return ps }
	for _, c := range []struct {
		name string
		plot Plot
		want []string // substrings of the error
	}{
		{"no series", Plot{Title: "t"}, []string{"no series"}},
		{"no points", Plot{Series: []Series{{Name: "a"}, {Name: "b", Points: pts(Point{X: 1, Y: 1})}}},
			[]string{`series[0] "a" has no points`}},
		{"NaN", Plot{Series: []Series{{Name: "a", Points: pts(Point{X: 1, Y: 1}, Point{X: 2, Y: math.NaN()})}}},
			[]string{`series[0] "a" point[1]`, "NaN"}},
		{"Inf", Plot{Series: []Series{{Name: "a", Points: pts(Point{X: math.Inf(1), Y: 1})}}},
			[]string{"point[0]", "infinite"}},
		{"log X zero", Plot{XLog: true, Series: []Series{{Name: "x", Points: pts(Point{X: 1, Y: 1}), Dashed: true}, {Name: "poll", Points: pts(Point{X: 10, Y: 1}, Point{X: 0, Y: 2})}}},
			[]string{`series[1] "poll" point[1] {X:0 Y:2`, "positive on a log X axis"}},
		{"log Y negative", Plot{YLog: true, Series: []Series{{Name: "a", Points: pts(Point{X: 1, Y: -3})}}},
			[]string{"point[0]", "Y must be positive on a log Y axis"}},
		{"log Y Lo zero", Plot{YLog: true, Series: []Series{{Name: "a", Points: pts(Point{X: 1, Y: 3, Lo: 0, Hi: 4})}}},
			[]string{"Lo must be positive"}},
		{"Lo > Hi", Plot{Series: []Series{{Name: "a", Points: pts(Point{X: 1, Y: 3, Lo: 4, Hi: 2})}}},
			[]string{"Lo > Hi"}},
		{"Y outside", Plot{Series: []Series{{Name: "a", Points: pts(Point{X: 1, Y: 5, Lo: 2, Hi: 4})}}},
			[]string{"Y outside [Lo, Hi]"}},
		{"unnamed", Plot{Series: []Series{{Points: pts(Point{X: 1, Y: 1})}, {Name: "b", Points: pts(Point{X: 1, Y: 1})}}},
			[]string{"series[0]", "no name"}},
		{"duplicate", Plot{Series: []Series{{Name: "a", Points: pts(Point{X: 1, Y: 1})}, {Name: "a", Points: pts(Point{X: 1, Y: 1})}}},
			[]string{"series[1]", "same name as series[0]"}},
		{"legend too tall", Plot{Series: func() []Series {
			var ss []Series
			for i := range 60 {
				ss = append(ss, Series{Name: strings.Repeat("x", i+1), Points: pts(Point{X: 1, Y: 1})})
			}
			return ss
		}()}, []string{"leave no room"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := render(c.plot)
			if err == nil {
				t.Fatalf("no error; got %d bytes", len(b))
			}
			if b != nil {
				t.Errorf("output beside an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}

	// All problems are reported at once.
	err := Plot{XLog: true, Series: []Series{
		{Name: "a", Points: pts(Point{X: 0, Y: 1}, Point{X: 1, Y: math.NaN()})},
		{Name: "b"},
	}}.check()
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 3 {
		t.Errorf("want 3 joined errors, got %v", err)
	}
}

// TestEdgeInputs renders inputs that are legal but easy to get wrong.
func TestEdgeInputs(t *testing.T) {
	for _, p := range []Plot{
		{Series: []Series{{Points: []Point{{X: 5, Y: 7}}}}},                                            // one unnamed point, no title
		{XLog: true, YLog: true, Series: []Series{{Points: []Point{{X: 5, Y: 7}}}}},                    // the same on log axes
		{YLog: true, Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: 1100}, {X: 2, Y: 1200}}}}}, // a sliver of a decade
		{Series: []Series{{Name: "neg", Points: []Point{{X: -2, Y: -3}, {X: 4, Y: -1}}}}},
		{Series: []Series{{Name: "zero", Points: []Point{{X: 0, Y: 0}, {X: 0, Y: 0}}}}},
		{Title: `a <b> & "c"`, XLabel: "x & y", Series: []Series{{Name: "<poll>", Points: []Point{{X: 1, Y: 2}}}}},
		{YLog: true, Series: []Series{{Name: "tiny", Points: []Point{{X: 1, Y: 3e-7, Lo: 2e-7, Hi: 5e-7}, {X: 2, Y: 4e-3}}}}},
	} {
		b, err := render(p)
		if err != nil {
			t.Errorf("%+v: %v", p, err)
			continue
		}
		d := parse(t, b)
		if d.children[0] != "title" || d.title == "" {
			t.Errorf("%+v: <title> %q missing or empty", p, d.title)
		}
		for _, s := range d.texts {
			if s != "" && strings.ContainsAny(s[:1], "-0123456789") && strings.ContainsAny(s, "eE+") {
				t.Errorf("%+v: tick label %q is not a plain number", p, s)
			}
		}
	}
}

func TestDashes(t *testing.T) {
	for _, c := range cases {
		b, _ := render(c.plot)
		// Each dashed series strokes its legend thumbnail, and its line if
		// it has two points or more, with the dash pattern; solid ones never.
		want := 0
		for _, s := range c.plot.Series {
			if s.Dashed {
				want++
				if len(s.Points) > 1 {
					want++
				}
			}
		}
		if got := bytes.Count(b, []byte("stroke-dasharray:5,3")); got != want {
			t.Errorf("%s: %d dashed strokes, want %d", c.name, got, want)
		}
	}
}

func TestFixRange(t *testing.T) {
	for _, c := range []struct {
		min, max         float64
		log, values      bool
		wantMin, wantMax float64
	}{
		{5, 10, false, true, 0, 10},        // a value axis starts at zero
		{-9, -2, false, true, -10, 0},      // and ends at zero when all negative
		{1, 16, false, false, 0, 16},       // x: out to the label 0, not to 20 (4 > half a step)
		{1.4, 450, true, true, 1, 450},     // log: out to 1 (factor 1.4), not 1000 (factor 2.2)
		{120, 900, true, false, 100, 1000}, // both within a factor of two
		{7, 7, true, true, 3.5, 14},        // one value on a log axis
	} {
		a := plot.Axis{Min: c.min, Max: c.max}
		fixRange(&a, c.log, c.values)
		if a.Min != c.wantMin || a.Max != c.wantMax {
			t.Errorf("fixRange(%g, %g, log=%v) = %g, %g; want %g, %g", c.min, c.max, c.log, a.Min, a.Max, c.wantMin, c.wantMax)
		}
	}
}

func TestLogTicks(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     []string
	}{
		{10, 10000, []string{"10", "100", "1,000", "10,000"}},
		{1, 400, []string{"1", "10", "100"}},
		{120, 900, []string{"200", "500"}},             // one decade: 2× and 5× too
		{3.5, 4.5, []string{"4"}},                      // still one tick: all of them
		{0.001, 0.5, []string{"0.001", "0.01", "0.1"}}, // no 0.30000000000000004
		{1e-6, 1e9, []string{"0.000001", "0.001", "1", "1,000", "1,000,000", "1,000,000,000"}},
	} {
		var got []string
		for _, tk := range (logTicks{}).Ticks(c.min, c.max) {
			if tk.Value < c.min*(1-1e-9) || tk.Value > c.max*(1+1e-9) {
				t.Errorf("[%g, %g]: tick %g outside the range", c.min, c.max, tk.Value)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if c.min == 3.5 {
			// Only 4 is a whole multiple of a power of ten here; linear
			// ticks take over and must label at least two points.
			if len(got) < 2 {
				t.Errorf("[%g, %g]: labels %q, want at least two", c.min, c.max, got)
			}
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("[%g, %g]: labels %q, want %q", c.min, c.max, got, c.want)
		}
	}
}

func TestLinearTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 42000}, {0, 1}, {-5000, 5000}, {0, 3e-7}, {1e7, 5e7}} {
		ticks := (linearTicks{}).Ticks(r[0], r[1])
		n := 0
		for _, tk := range ticks {
			if tk.Label == "" {
				continue
			}
			n++
			if strings.ContainsAny(tk.Label, "eE+") {
				t.Errorf("%v: label %q is not a plain number", r, tk.Label)
			}
			if math.Abs(tk.Value) >= 1000 && !strings.Contains(tk.Label, ",") {
				t.Errorf("%v: label %q has no thousands separator", r, tk.Label)
			}
		}
		if n < 2 {
			t.Errorf("%v: %d labels", r, n)
		}
	}
}

func TestGroup(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "999": "999", "1000": "1,000", "10000": "10,000", "123456": "123,456",
		"1234567.891": "1,234,567.891", "-1000": "-1,000", "-100": "-100", "0.0001": "0.0001",
	} {
		if got := group(in); got != want {
			t.Errorf("group(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkRender renders the golden plots and reports the cost per plot.
func BenchmarkRender(b *testing.B) {
	for b.Loop() {
		for _, c := range cases {
			if _, err := render(c.plot); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cases))/1e6, "ms/plot")
}

// TestMarksOnPoints: each mark is the centre of its point's glyph as
// drawn (the first series' circles, found in the SVG), one mark per point
// in the series' order, whatever the order the line was drawn in.
func TestMarksOnPoints(t *testing.T) {
	for _, c := range cases[:2] {
		pic, err := Draw(c.plot, Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range c.plot.Series {
			n += len(s.Points)
		}
		if len(pic.Marks) != n {
			t.Fatalf("%s: %d marks for %d points", c.name, len(pic.Marks), n)
		}
		w, h := width, height
		circle := regexp.MustCompile(`^M([-\d.]+),([-\d.]+)A3,3 0 1 1 ([-\d.]+),[-\d.]+A3,3 0 1 1 [-\d.,]+Z$`)
		var centres [][2]float64
		for _, p := range paths(t, pic.SVG) {
			m := circle.FindStringSubmatch(p.d)
			if m == nil || p.style != "fill:#0072B2" {
				continue
			}
			x1, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			x2, _ := strconv.ParseFloat(m[3], 64)
			centres = append(centres, [2]float64{100 * (x1 + x2) / 2 / w, 100 * (1 - y/h)})
		}
		// The first series' glyphs, plus its legend sample.
		if len(centres) != len(c.plot.Series[0].Points)+1 {
			t.Fatalf("%s: %d circles in the SVG", c.name, len(centres))
		}
		for _, m := range pic.Marks {
			if m.Series != 0 {
				continue
			}
			pt := c.plot.Series[0].Points[m.Point]
			found := false
			for _, ctr := range centres {
				found = found || math.Abs(ctr[0]-m.Left) < 0.05 && math.Abs(ctr[1]-m.Top) < 0.05
			}
			if !found {
				t.Errorf("%s: the mark of %+v at (%.2f%%, %.2f%%) is on no glyph: %v", c.name, pt, m.Left, m.Top, centres)
			}
		}
		if pic.MaxWidth != w*4/3 {
			t.Errorf("%s: MaxWidth %g", c.name, pic.MaxWidth)
		}
	}
}

// render is the SVG of Draw without options.
func render(p Plot) ([]byte, error) {
	pic, err := Draw(p, Options{})
	return pic.SVG, err
}

// path is a <path>'s data and the style in effect: its own, or else its
// group's.
type path struct{ d, style string }

func paths(t *testing.T, svg []byte) []path {
	t.Helper()
	var out []path
	styles := []string{""}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			style := cmp.Or(attr(tok, "style"), styles[len(styles)-1])
			styles = append(styles, style)
			if tok.Name.Local == "path" {
				out = append(out, path{attr(tok, "d"), style})
			}
		case xml.EndElement:
			styles = styles[:len(styles)-1]
		}
	}
}
