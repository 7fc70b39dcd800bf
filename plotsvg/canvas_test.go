package plotsvg

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The canvas must write vgsvg's bytes, and an inline canvas what finish
// makes of them, for every plot: these tests draw the same plots and the
// same canvas calls both ways and compare.

// synthetic are plots beside the golden cases, each drawing something the
// canvas must get right.
var synthetic = []struct {
	name string
	plot Plot
}{
	{"one point", Plot{Series: []Series{{Points: []Point{{X: 5, Y: 7}}}}}},
	{"one point log", Plot{XLog: true, YLog: true, Series: []Series{{Points: []Point{{X: 5, Y: 7, Lo: 6, Hi: 9}}}}}},
	{"many series", Plot{
		Title: "스무 계열: 색과 모양이 두 번 넘게 돈다", XLabel: "x", YLabel: "y (ns)", Width: 640, Height: 480,
		Series: func() []Series {
			var ss []Series
			for i := range 20 {
				s := Series{Name: fmt.Sprintf("계열 %d", i), Dashed: i%3 == 0, Step: i%7 == 6}
				for k := range 6 {
					y := float64((i+1)*(k+1)) + 0.125*float64(k)
					s.Points = append(s.Points, Point{X: float64(k * 10), Y: y, Lo: y - float64(k%2), Hi: y + float64(k%3)})
				}
				ss = append(ss, s)
			}
			return ss
		}(),
	}},
	{"negative", Plot{Title: "음수", Series: []Series{
		{Name: "a", Points: []Point{{X: -2, Y: -3, Lo: -4, Hi: -2.5}, {X: 4, Y: -1}, {X: 0, Y: -0.001}}},
		{Name: "b", Dashed: true, Points: []Point{{X: -1e-3, Y: -7e-4}}},
	}}},
	{"flat", Plot{Series: []Series{{Name: "zero", Points: []Point{{X: 3, Y: 0}, {X: 3, Y: 0}}}}}},
	{"tiny and huge", Plot{
		Title: "10⁻⁷ to 10⁹", XLabel: "size (bytes)", YLabel: "time (s)", XLog: true, YLog: true, Width: 1000, Height: 200,
		Series: []Series{
			{Name: "tiny", Points: []Point{{X: 1, Y: 3e-7, Lo: 2e-7, Hi: 5e-7}, {X: 1e9, Y: 4e-3}}},
			{Name: "huge", Dashed: true, Points: []Point{{X: 10, Y: 1e9, Lo: 9e8, Hi: 1.1e9}, {X: 1e5, Y: 2e8}}},
		},
	}},
	{"escaped text", Plot{
		Title: `a <b> & "c" 'd'`, XLabel: "x & y", YLabel: "<y>",
		Series: []Series{{Name: "<poll>", Points: []Point{{X: 1, Y: 2}, {X: 2, Y: 1}}}, {Name: "&amp;", Dashed: true, Points: []Point{{X: 1, Y: 1}}}},
	}},
	{"smallest", Plot{Width: 100, Height: 100, Series: []Series{{Name: "a", Points: []Point{{X: 1, Y: 1}, {X: 2, Y: 3}}}}}},
	{"tall", Plot{
		Title: "세로로 긴 그림", Width: 200, Height: 1000,
		YLabel: "아주 긴 세로축 이름은 두 줄로 나뉘어 회전된 채로 그려진다: 여러 줄의 회전된 글자",
		Series: []Series{{Name: "a", Step: true, Points: []Point{{X: 1, Y: 0}, {X: 2, Y: 0.5}, {X: 3, Y: 1}}}},
	}},
	{"every shape", Plot{Series: func() []Series {
		var ss []Series
		for i := range len(shapes) {
			ss = append(ss, Series{Name: string(rune('a' + i)), Dashed: i%2 == 1, Points: []Point{{X: float64(i), Y: float64(i * i), Lo: float64(i*i) - 1, Hi: float64(i*i) + 1}}})
		}
		return ss
	}()}},
	// Text that finish rewrites: the inline canvas must step aside, and
	// Render falls back on vgsvg.
	{"rewritten text", Plot{
		Title: "stroke:#000000 fill:#000000 font-family:x; y", XLabel: "stroke:#E0E0E0",
		Series: []Series{{Name: "font-family:a", Points: []Point{{X: 1, Y: 1}}}},
	}},
}

// corpus is every plot the tests hold the canvas to.
func corpus() (names []string, plots []Plot) {
	for _, c := range cases {
		names, plots = append(names, c.name), append(plots, c.plot)
	}
	for _, c := range synthetic {
		names, plots = append(names, c.name), append(plots, c.plot)
	}
	return names, plots
}

func TestCanvasMatchesVgsvg(t *testing.T) {
	names, plots := corpus()
	for i, p := range plots {
		t.Run(names[i], func(t *testing.T) { matchVgsvg(t, p) })
	}
}

// matchVgsvg draws p on the canvas and on vgsvg's, and renders it with
// Render and Reference: the bytes must be the same.
func matchVgsvg(t *testing.T, p Plot) {
	t.Helper()
	want, err := Reference(p)
	got, gotErr := Render(p)
	if fmt.Sprint(err) != fmt.Sprint(gotErr) {
		t.Fatalf("Render's error %v, Reference's %v", gotErr, err)
	}
	if err != nil {
		return
	}
	if d := diff(got, want); d != "" {
		t.Errorf("Render differs from Reference: %s", d)
	}

	w, h := p.size()
	c := newCanvas(vg.Length(w), vg.Length(h))
	if err := p.draw(c); err != nil {
		t.Fatal(err)
	}
	if c.unsure != "" {
		t.Fatalf("the canvas cannot draw this plot: %s", c.unsure)
	}
	ref, err := p.vgsvgDocument()
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(c.document(), ref); d != "" {
		t.Errorf("the canvas differs from vgsvg's: %s", d)
	}

	// The inline canvas draws it unless a text holds what finish
	// rewrites, which only the test plot "rewritten text" does.
	inline := newInlineCanvas(vg.Length(w), vg.Length(h), p.accessibleName())
	if err := p.draw(inline); err != nil {
		t.Fatal(err)
	}
	rewrites := false
	for _, s := range p.Series {
		rewrites = rewrites || finishRewrites(html.EscapeString(s.Name))
	}
	for _, s := range []string{p.Title, p.XLabel, p.YLabel} {
		rewrites = rewrites || finishRewrites(html.EscapeString(s))
	}
	if (inline.unsure != "") != rewrites {
		t.Errorf("inline canvas unsure: %q; the text holds what finish rewrites: %v", inline.unsure, rewrites)
	}
}

// diff describes where a and b first differ, or returns "".
func diff(a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-60)
	return fmt.Sprintf("%d and %d bytes, first differing at byte %d:\n got …%q\nwant …%q",
		len(a), len(b), i, a[from:min(len(a), i+60)], b[from:min(len(b), i+60)])
}

// FuzzRender renders random plots, generated from the seed, both ways.
// go test -fuzz FuzzRender searches further.
func FuzzRender(f *testing.F) {
	for seed := range uint64(150) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		p := randomPlot(rand.New(rand.NewPCG(seed, 0x5eed)))
		matchVgsvg(t, p)
	})
}

// Texts for random plots: Korean, Latin, escaped characters, a long one
// that wraps, and none.
var texts = []string{
	"", "poll", "epoll (M1)", "유휴 연결 수", "round (μs)", "처리량 (요청/초)", `<a> & "b"`,
	"스레드 수에 따른 처리량: 스레드가 코어 수를 넘으면 문맥 전환 비용 때문에 처리량이 오히려 줄어든다",
	"a very long title in Latin letters that has to be wrapped over several lines of the plot",
}

// randomPlot makes a plot, mostly valid, from r: random sizes, axes, series
// counts, styles, magnitudes and spreads.
func randomPlot(r *rand.Rand) Plot {
	pick := func() string { return texts[r.IntN(len(texts))] }
	p := Plot{Title: pick(), XLabel: pick(), YLabel: pick(), XLog: r.IntN(2) == 0, YLog: r.IntN(2) == 0}
	if r.IntN(3) == 0 {
		p.Width, p.Height = float64(100+r.IntN(900)), float64(100+r.IntN(900))
	}
	n := 1 + r.IntN(9)
	for i := range n {
		s := Series{Name: fmt.Sprintf("%s %d", pick(), i), Dashed: r.IntN(3) == 0, Step: r.IntN(5) == 0}
		if n == 1 && r.IntN(2) == 0 {
			s.Name = ""
		}
		xScale, yScale := math.Pow10(r.IntN(13)-6), math.Pow10(r.IntN(13)-6)
		for range 1 + r.IntN(12) {
			x, y := r.Float64()*xScale, r.Float64()*yScale
			if !p.XLog && r.IntN(4) == 0 {
				x = -x
			}
			if !p.YLog && r.IntN(4) == 0 {
				y = -y
			}
			if p.XLog && x == 0 || p.YLog && y == 0 {
				continue
			}
			pt := Point{X: x, Y: y, Lo: y, Hi: y}
			if r.IntN(2) == 0 {
				pt.Lo, pt.Hi = y*(1-r.Float64()/2), y*(1+r.Float64())
				if y < 0 {
					pt.Lo, pt.Hi = pt.Hi, pt.Lo
				}
			}
			s.Points = append(s.Points, pt)
		}
		p.Series = append(p.Series, s)
	}
	return p
}

// TestCanvasCalls makes random sequences of canvas calls, beyond what the
// plots make (transforms, arcs of every angle, curves, colours with alpha,
// fonts of every style), and makes each on the canvas, an inline canvas and
// vgsvg's.
func TestCanvasCalls(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 0xca11))
		calls := randomCalls(r)
		w, h := vg.Length(50+r.IntN(900)), vg.Length(50+r.IntN(900))

		ref := vgsvg.New(w, h)
		c := newCanvas(w, h)
		inline := newInlineCanvas(w, h, "t")
		var rewrites bool
		for _, call := range calls {
			call.do(ref)
			call.do(c)
			call.do(inline)
			rewrites = rewrites || finishRewrites(html.EscapeString(call.text))
		}
		var doc bytes.Buffer
		if _, err := ref.WriteTo(&doc); err != nil {
			t.Fatal(err)
		}
		if c.unsure != "" {
			t.Fatalf("seed %d: the canvas is unsure: %s", seed, c.unsure)
		}
		if d := diff(c.document(), doc.Bytes()); d != "" {
			t.Fatalf("seed %d: the canvas differs from vgsvg's: %s", seed, d)
		}
		if (inline.unsure != "") != rewrites {
			t.Fatalf("seed %d: inline canvas unsure: %q; a text holds what finish rewrites: %v", seed, inline.unsure, rewrites)
		}
		if rewrites {
			continue
		}
		want, err := finish(doc.Bytes(), "t", float64(w), float64(h))
		if err != nil {
			t.Fatal(err)
		}
		if d := diff(inline.document(), want); d != "" {
			t.Fatalf("seed %d: the inline canvas differs from vgsvg's, finished: %s", seed, d)
		}
	}
}

// call is one canvas call; text is what it writes as text, if anything.
type call struct {
	do   func(vg.Canvas)
	text string
}

func randomCalls(r *rand.Rand) []call {
	num := func() float64 {
		switch r.IntN(8) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return float64(r.IntN(500))
		case 3:
			return (r.Float64() - 0.5) * math.Pow10(r.IntN(20)-10)
		}
		return r.Float64() * 500
	}
	pt := func() vg.Point { return vg.Point{X: vg.Length(num()), Y: vg.Length(num())} }
	angle := func() float64 {
		switch r.IntN(5) {
		case 0:
			return 2 * math.Pi
		case 1:
			return -2 * math.Pi
		case 2:
			return float64(r.IntN(9)-4) * math.Pi / 2
		}
		return (r.Float64() - 0.5) * 7 * math.Pi // up to 3.5 turns either way
	}
	colors := []color.Color{
		nil, color.Black, color.White, color.Gray{Y: 0xE0}, color.Gray16{Y: 0x1234}, palette[2],
		color.RGBA{R: 10, G: 20, B: 30, A: 40}, color.NRGBA{R: 200, G: 100, B: 50, A: 128},
		color.RGBA{R: 255, A: 128}, // not premultiplied: a component over 255
		color.RGBA{},               // transparent: vgsvg divides by zero
		color.Alpha16{A: 0x8000},
	}
	var faces []font.Face
	for _, v := range []font.Variant{"Sans", "Serif", "Mono"} {
		for _, s := range []xfont.Style{xfont.StyleNormal, xfont.StyleItalic} {
			for _, w := range []xfont.Weight{xfont.WeightNormal, xfont.WeightBold} {
				faces = append(faces, font.DefaultCache.Lookup(font.Font{Typeface: "Liberation", Variant: v, Style: s, Weight: w}, vg.Length(6+r.IntN(20))))
			}
		}
	}
	// Descriptions that no Liberation file has, on one of its faces.
	for _, v := range []font.Variant{"", "SmallCaps", "Cursive"} {
		f := faces[0]
		f.Font.Variant, f.Font.Style, f.Font.Weight = v, xfont.StyleOblique, xfont.Weight(r.IntN(9)-4)
		f.Font.Size = 10.5
		faces = append(faces, f)
	}
	strs := slices.Concat(texts[1:], []string{"0.001", "10,000", "stroke:#000000", "x font-family:y; z", "fill:#000000", "stroke:#E0E0E0"})

	var calls []call
	depth := 0
	for range 5 + r.IntN(60) {
		switch r.IntN(12) {
		case 0:
			w := vg.Length([]float64{0, -1, 1, 1.5, 0.5, num()}[r.IntN(6)])
			calls = append(calls, call{do: func(c vg.Canvas) { c.SetLineWidth(w) }})
		case 1:
			dashes := [][]vg.Length{nil, {}, {5, 3}, {vg.Length(num()), vg.Length(num()), vg.Length(num())}}[r.IntN(4)]
			offs := vg.Length(num())
			calls = append(calls, call{do: func(c vg.Canvas) { c.SetLineDash(dashes, offs) }})
		case 2:
			clr := colors[r.IntN(len(colors))]
			calls = append(calls, call{do: func(c vg.Canvas) { c.SetColor(clr) }})
		case 3:
			depth++
			calls = append(calls, call{do: func(c vg.Canvas) { c.Push() }})
		case 4:
			if depth > 0 {
				depth--
				calls = append(calls, call{do: func(c vg.Canvas) { c.Pop() }})
			}
		case 5:
			a := angle()
			calls = append(calls, call{do: func(c vg.Canvas) { c.Rotate(a) }})
		case 6:
			p := pt()
			calls = append(calls, call{do: func(c vg.Canvas) { c.Translate(p) }})
		case 7:
			x, y := num(), num()
			calls = append(calls, call{do: func(c vg.Canvas) { c.Scale(x, y) }})
		case 8, 9, 10:
			var path vg.Path
			for range 1 + r.IntN(8) {
				switch r.IntN(6) {
				case 0:
					path.Move(pt())
				case 1:
					path.Line(pt())
				case 2:
					path.Arc(pt(), vg.Length(num()), angle(), angle())
				case 3:
					path.QuadTo(pt(), pt())
				case 4:
					path.CubeTo(pt(), pt(), pt())
				case 5:
					path.Close()
				}
			}
			if r.IntN(2) == 0 {
				calls = append(calls, call{do: func(c vg.Canvas) { c.Stroke(path) }})
			} else {
				calls = append(calls, call{do: func(c vg.Canvas) { c.Fill(path) }})
			}
		case 11:
			f, p, s := faces[r.IntN(len(faces))], pt(), strs[r.IntN(len(strs))]
			if !knownWeight(f.Font.Weight) {
				continue // vgsvg panics; TestCanvasUnsure has it
			}
			calls = append(calls, call{do: func(c vg.Canvas) { c.FillString(f, p, s) }, text: s})
		}
	}
	return calls
}

func knownWeight(w xfont.Weight) bool {
	_, err := fontWeightName(w)
	return err == nil
}

// TestCanvasUnsure: where vgsvg panics, or draws what the canvas does not,
// the canvas says it is unsure, and Render would draw with vgsvg.
func TestCanvasUnsure(t *testing.T) {
	face := font.DefaultCache.Lookup(sans, 10)
	for name, do := range map[string]func(vg.Canvas){
		"image": func(c vg.Canvas) {
			c.DrawImage(vg.Rectangle{Max: vg.Point{X: 1, Y: 1}}, image.NewGray(image.Rect(0, 0, 1, 1)))
		},
		"three control points": func(c vg.Canvas) {
			c.Stroke(vg.Path{{Type: vg.CurveComp, Control: make([]vg.Point, 3)}})
		},
		"unknown component": func(c vg.Canvas) { c.Fill(vg.Path{{Type: 99}}) },
		"weight":            func(c vg.Canvas) { f := face; f.Font.Weight = 42; c.FillString(f, vg.Point{}, "x") },
		"style":             func(c vg.Canvas) { f := face; f.Font.Style = 7; c.FillString(f, vg.Point{}, "x") },
		"no face":           func(c vg.Canvas) { c.FillString(font.Face{}, vg.Point{}, "x") },
	} {
		c := newCanvas(100, 100)
		do(c)
		if c.unsure == "" {
			t.Errorf("%s: the canvas is sure", name)
		}
	}
}

// TestNumbers: the canvas's number formats are fmt's, which vgsvg and svgo
// use.
func TestNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e21, 1e20, 123456, 99999.5, 1e-5, 1e-4, 5e-324,
		math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}
	for range 10000 {
		vals = append(vals, (r.Float64()-0.5)*math.Pow10(r.IntN(40)-20), math.Float64frombits(r.Uint64()))
	}
	for _, v := range vals {
		if got, want := string(g5(nil, v)), fmt.Sprintf("%.5g", v); got != want {
			t.Errorf("g5(%v) = %q, want %q", v, got, want)
		}
		c := newCanvas(10, 10)
		c.Rotate(v)
		c.Scale(v, -v)
		ref := vgsvg.New(10, 10)
		ref.Rotate(v)
		ref.Scale(v, -v)
		var doc bytes.Buffer
		if _, err := ref.WriteTo(&doc); err != nil {
			t.Fatal(err)
		}
		if d := diff(c.document(), doc.Bytes()); d != "" {
			t.Errorf("rotate and scale by %v: %s", v, d)
		}
	}
}

// BenchmarkRender renders the golden plots with vgsvg's canvas
// (Reference, which Render falls back on) and with Render's own, and
// reports the cost of each per plot.
func BenchmarkRender(b *testing.B) {
	for _, r := range []struct {
		name   string
		render func(Plot) ([]byte, error)
	}{{"vgsvg", Reference}, {"canvas", Render}} {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				for _, c := range cases {
					if _, err := r.render(c.plot); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cases))/1e6, "ms/plot")
		})
	}
}
