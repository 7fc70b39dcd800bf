// Package plotsvg draws the book's line plots as SVG elements to inline in
// HTML pages.
//
// A Plot is plain data: a title, axis labels with units, log or linear
// axes, and series of points, each point with the min–max over runs. Draw
// checks it, lays it out with gonum.org/v1/plot, draws it with vg/vgsvg,
// and returns an <svg> element whose first child is
// <title>. The same input gives the same bytes. It also says where each
// point is drawn, so a page can lay a focusable mark over each one (the
// picture itself stays role="img": nothing in it is focusable).
//
// Each series is one line through its points, with a glyph at each point
// and a vertical bar from Lo to Hi where Lo < Hi. Series take colours
// (Okabe–Ito, readable by colour-blind readers) and glyph shapes in order,
// so series are told apart even in grey print; Dashed draws the line dashed
// (the reference machine's figures). Text, axes and the grid are drawn in currentColor (the
// grid faint) on a transparent background, so the page's CSS decides them
// and a dark theme needs no other SVG. The legend sits below the plot, never
// over the data. A linear Y axis starts at zero (magnitudes are compared by
// bar height and slope; a cut axis would overstate differences); a log axis
// spans the data and labels powers of ten as plain numbers (100, 1,000,
// 10,000).
//
// Text is emitted as <text> elements with a font list that ends in Korean
// fonts and sans-serif, so the browser draws Hangul with its own fonts.
// Layout is measured with Liberation Sans, which has no Hangul; see
// wideHandler for how Korean text still gets room.
package plotsvg

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot describes one figure.
type Plot struct {
	Title          string // also the <title> of the svg (accessibility)
	XLabel, YLabel string // with units, e.g. "유휴 연결 수", "round (μs)"
	XLog, YLog     bool
	Series         []Series
}

// Series is one line of a plot.
type Series struct {
	Name   string // legend entry
	Points []Point
	Dashed bool // e.g. the reference machine's figures
}

// Point is one measured value: Y at X, and Lo, Hi the min–max over runs,
// drawn as an error bar when Lo < Hi. Lo == Hi (e.g. both zero) means no
// spread is shown.
type Point struct{ X, Y, Lo, Hi float64 }

// The canvas size, in points.
const width, height float64 = 480, 300

// Layout, in points.
const (
	margin      = 8   // around everything, so that no text touches the edge
	legendGap   = 6   // between the x-axis label and the legend
	legendColSp = 14  // between legend columns
	thumbWidth  = 24  // a legend entry's line sample, long enough to show dashes
	legendRowSp = 3   // between legend rows (Hangul stands taller than Latin capitals)
	lineWidth   = 1.5 // series lines
	glyphRadius = 3
)

var (
	sans     = font.Font{Typeface: "Liberation", Variant: "Sans"}
	sansBold = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}

	// The Okabe–Ito palette without its yellow, which is too pale on white.
	palette = []color.RGBA{
		{0x00, 0x72, 0xB2, 0xFF}, // blue
		{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
		{0x00, 0x9E, 0x73, 0xFF}, // bluish green
		{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
		{0xE6, 0x9F, 0x00, 0xFF}, // orange
		{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
		{0x00, 0x00, 0x00, 0xFF}, // black
	}
	// Filled shapes first; the palette and shape lists have coprime
	// lengths, so colour and shape together stay distinct for 56 series.
	shapes = []draw.GlyphDrawer{
		draw.CircleGlyph{},
		draw.BoxGlyph{},
		draw.PyramidGlyph{},
		draw.RingGlyph{},
		draw.SquareGlyph{},
		draw.TriangleGlyph{},
		draw.CrossGlyph{},
		draw.PlusGlyph{},
	}
	dashes   = []vg.Length{5, 3}
	gridGrey = color.Gray{Y: 0xE0}
)

// Options are what a page may ask of a plot's picture.
type Options struct {
	// SeriesVar, if set, colours the series from CSS custom properties of
	// that prefix instead of the palette: with "--mb-s" the first series'
	// colour is var(--mb-s1), so a stylesheet gives each theme its own.
	SeriesVar string
	// MinText, if set, is the smallest size in CSS pixels the plot's text
	// may shrink to: the plot gets a min-width at which it is that size.
	MinText float64
}

// Picture is a drawn plot: its <svg> element (no XML prolog or doctype,
// its first child <title>Title</title>), where each point is in it, and the width bounds of its style attribute.
type Picture struct {
	SVG []byte
	// Marks are the points' centres, in p.Series order, each series'
	// in its Points' order: a page lays a focusable mark over each.
	Marks []Mark
	// MaxWidth and MinWidth are the picture's natural width and the
	// width below which its text would be smaller than Options.MinText,
	// in CSS pixels (0: none): a box that holds the picture and its marks
	// takes them, so the marks stay on their points.
	MaxWidth, MinWidth float64
}

// Mark is where point Point of series Series is drawn: its centre, in
// percent of the picture's width from the left and of its height from
// the top.
type Mark struct {
	Series, Point int
	Left, Top     float64
}

// Draw draws p, and says where its points are. It returns an error, naming
// the series and point, if p has no series, a series has no points, a
// value is NaN or infinite, a value on a log axis is not positive, or Lo,
// Y, Hi are out of order; all such problems are reported together.
func Draw(p Plot, o Options) (Picture, error) {
	if err := p.check(); err != nil {
		return Picture{}, err
	}
	// Drawn with vgsvg's canvas, which keeps the size of its smallest
	// text, in points.
	c := &smallestText{CanvasSizer: vgsvg.New(vg.Length(width), vg.Length(height))}
	marks, err := p.draw(c)
	if err != nil {
		return Picture{}, err
	}
	var doc bytes.Buffer
	if _, err := c.CanvasSizer.(*vgsvg.Canvas).WriteTo(&doc); err != nil {
		return Picture{}, fmt.Errorf("plotsvg: %w", err)
	}
	pic := Picture{Marks: marks, MaxWidth: width * 4 / 3}
	if o.MinText > 0 && c.points > 0 {
		pic.MinWidth = width * o.MinText / c.points
	}
	pic.SVG, err = finish(doc.Bytes(), p.AccessibleName(), o.SeriesVar, pic.MinWidth)
	return pic, err
}

// smallestText is a canvas that keeps the smallest size it writes text in.
type smallestText struct {
	vg.CanvasSizer
	points float64
}

func (c *smallestText) FillString(f font.Face, pt vg.Point, s string) {
	if size := f.Font.Size.Points(); size > 0 && (c.points == 0 || size < c.points) {
		c.points = size
	}
	c.CanvasSizer.FillString(f, pt, s)
}

// draw lays p, already checked, out on c and draws it, and returns where
// its points are.
func (p Plot) draw(c vg.CanvasSizer) (marks []Mark, err error) {
	// gonum/plot reports some bad input by panicking; check should have
	// caught all of it, but one bad figure must not bring down a whole
	// book build.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plotsvg: plot %q: gonum/plot panicked: %v", p.Title, r)
		}
	}()
	pl, lsty := p.frame()
	legend := make([]entry, 0, len(p.Series))
	for i, s := range p.Series {
		thumbs, err := addSeries(pl, i, s)
		if err != nil {
			return nil, fmt.Errorf("plotsvg: series[%d] %q: %w", i, s.Name, err)
		}
		if s.Name != "" {
			legend = append(legend, entry{s.Name, thumbs})
		}
	}
	fixRange(&pl.X, p.XLog, false)
	fixRange(&pl.Y, p.YLog, true)

	area := draw.Crop(draw.New(c), margin, -margin, margin, -margin)
	lh := legendHeight(lsty, legend, area)
	if lh > 0 {
		lh += legendGap
	}
	if area.Max.Y-area.Min.Y-lh < 80 {
		return nil, fmt.Errorf("plotsvg: %d legend entries leave no room for the plot in %gx%g points", len(legend), width, height)
	}
	data := draw.Crop(area, 0, 0, lh, 0)
	pl.Draw(data)
	drawLegend(lsty, legend, area)
	return p.marks(pl, data), nil
}

// frame is p's plot without its series: the title, both axes and the
// grid; and the style of the legend's text.
func (p Plot) frame() (*plot.Plot, text.Style) {
	pl := plot.New()
	handler := newHandler()
	pl.TextHandler = handler
	pl.BackgroundColor = nil // none: the page's background shows through (see TestThemeable)
	// The plot's own legend stays empty (drawLegend draws the legend), but
	// it is measured all the same.
	pl.Legend.TextStyle.Handler = handler
	style := func(f font.Font, size vg.Length) text.Style {
		return text.Style{Color: color.Black, Font: font.From(f, size), Handler: handler}
	}
	inner := vg.Length(width - 2*margin)

	pl.Title.TextStyle = style(sansBold, 12)
	pl.Title.TextStyle.XAlign = draw.XCenter
	pl.Title.TextStyle.YAlign = draw.YTop
	pl.Title.Padding = 8
	pl.Title.Text = wrap(pl.Title.TextStyle, p.Title, inner)

	styleAxis(&pl.X, p.XLabel, p.XLog, inner, style)
	styleAxis(&pl.Y, p.YLabel, p.YLog, vg.Length(height-2*margin), style)

	grid := plotter.NewGrid()
	grid.Vertical.Color = gridGrey
	grid.Horizontal.Color = gridGrey
	pl.Add(grid)
	return pl, style(sans, 10.5)
}

// styleAxis sets an axis's label (wrapped to span), its ticks and its
// scale.
func styleAxis(a *plot.Axis, label string, log bool, span vg.Length,
	style func(font.Font, vg.Length) text.Style) {
	rot := a.Label.TextStyle.Rotation // the Y axis label is turned
	a.Label.TextStyle = style(sans, 11)
	a.Label.TextStyle.Rotation = rot
	a.Label.TextStyle.XAlign = draw.XCenter
	a.Label.Padding = 4
	a.Label.Text = wrap(a.Label.TextStyle, label, span*0.9)
	xa, ya := a.Tick.Label.XAlign, a.Tick.Label.YAlign
	a.Tick.Label = style(sans, 10)
	a.Tick.Label.XAlign, a.Tick.Label.YAlign = xa, ya
	a.Tick.Length = 5
	if log {
		a.Scale = plot.LogScale{}
		a.Tick.Marker = &lastTicks{Ticker: logTicks{}}
	} else {
		a.Tick.Marker = &lastTicks{Ticker: linearTicks{}}
	}
}

// marks are where p's points are drawn on pl, whose data takes the part
// data of the canvas: through the transforms gonum drew the glyphs with
// (their y runs up from the bottom).
func (p Plot) marks(pl *plot.Plot, data draw.Canvas) []Mark {
	dc := pl.DataCanvas(data)
	tx, ty := pl.Transforms(&dc)
	var marks []Mark
	for i, s := range p.Series {
		for k, pt := range s.Points {
			marks = append(marks, Mark{Series: i, Point: k, Left: 100 * float64(tx(pt.X)) / width, Top: 100 * (1 - float64(ty(pt.Y))/height)})
		}
	}
	return marks
}

// addSeries adds series i to pl: error bars, then the line, then the glyphs
// on top. It returns what the legend shows for it.
func addSeries(pl *plot.Plot, i int, s Series) ([]plot.Thumbnailer, error) {
	pts := slices.Clone(s.Points)
	// A line plot reads left to right; the caller's order need not.
	slices.SortStableFunc(pts, func(a, b Point) int { return cmp.Compare(a.X, b.X) })

	xys := make(plotter.XYs, len(pts))
	var bars spread
	for k, pt := range pts {
		xys[k].X, xys[k].Y = pt.X, pt.Y
		if pt.Lo < pt.Hi {
			bars = append(bars, pt)
		}
	}
	col := palette[i%len(palette)]

	if len(bars) > 0 {
		eb, err := plotter.NewYErrorBars(bars)
		if err != nil {
			return nil, err
		}
		eb.LineStyle = draw.LineStyle{Color: col, Width: 1}
		eb.CapWidth = 5
		pl.Add(eb)
	}

	line, scatter, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, err
	}
	line.LineStyle = draw.LineStyle{Color: col, Width: lineWidth}
	if s.Dashed {
		line.LineStyle.Dashes = dashes
	}
	scatter.GlyphStyle = draw.GlyphStyle{Color: col, Radius: glyphRadius, Shape: shapes[i%len(shapes)]}
	pl.Add(line, scatter)
	return []plot.Thumbnailer{line, scatter}, nil
}

// spread is the points of a series that have a min–max to show, as
// plotter.YErrorBars wants them: errors relative to Y.
type spread []Point

func (s spread) Len() int                      { return len(s) }
func (s spread) XY(i int) (x, y float64)       { return s[i].X, s[i].Y }
func (s spread) YError(i int) (lo, hi float64) { return s[i].Y - s[i].Lo, s[i].Hi - s[i].Y }

// fixRange settles an axis range that gonum would otherwise get wrong or
// make hard to read: a linear value axis is stretched to include zero; a
// log axis holding a single value is widened around it (gonum's ±1 could go
// to zero or below); and each end of a log axis moves out to the next power
// of ten when that is within a factor of two, so that a range like 1.4…400
// gets its labels at 1, 10 and 100 instead of only 10 and 100.
func fixRange(a *plot.Axis, log, values bool) {
	switch {
	case log:
		if a.Min == a.Max {
			a.Min, a.Max = a.Min/2, a.Max*2
		}
		if d := math.Pow10(int(math.Floor(math.Log10(a.Min)))); a.Min/d <= 2 {
			a.Min = d
		}
		if u := math.Pow10(int(math.Ceil(math.Log10(a.Max)))); u/a.Max <= 2 {
			a.Max = u
		}
	default:
		if values && a.Min > 0 {
			a.Min = 0
		}
		if values && a.Max < 0 {
			a.Max = 0
		}
		if a.Min == a.Max {
			return // gonum widens it by ±1
		}
		// Each end moves out to the next label if that is within half a
		// step, so that the data's ends are not left unlabelled: threads
		// 1…16 get an axis from 0 with labels at 0, 5, 10 and 15.
		step, _ := niceStep(a.Min, a.Max)
		if lo := math.Floor(a.Min/step) * step; a.Min-lo <= step/2 {
			a.Min = lo
		}
		if hi := math.Ceil(a.Max/step) * step; hi-a.Max <= step/2 {
			a.Max = hi
		}
	}
}

// entry is one legend line.
type entry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// legendGrid returns how many columns the legend uses in area, and the width
// of each (entries are laid out row by row, all columns as wide as the widest
// entry).
func legendGrid(sty text.Style, es []entry, area draw.Canvas) (cols int, colW vg.Length) {
	for _, e := range es {
		colW = max(colW, thumbWidth+sty.Width(" "+e.name))
	}
	colW += legendColSp
	cols = int((area.Max.X - area.Min.X + legendColSp) / colW)
	return min(max(cols, 1), len(es)), colW
}

// legendHeight is the height the legend takes at the bottom of area.
func legendHeight(sty text.Style, es []entry, area draw.Canvas) vg.Length {
	if len(es) == 0 {
		return 0
	}
	cols, _ := legendGrid(sty, es, area)
	rows := (len(es) + cols - 1) / cols
	var rowH vg.Length // as plot.Legend computes it
	for _, e := range es {
		rowH = max(rowH, sty.Rectangle(e.name).Max.Y)
	}
	return vg.Length(rows)*rowH + vg.Length(rows-1)*legendRowSp + sty.FontExtents().Descent
}

// drawLegend draws the legend centred along the bottom of area, one
// plot.Legend per column so that gonum draws the thumbnails and text.
func drawLegend(sty text.Style, es []entry, area draw.Canvas) {
	cols, colW := legendGrid(sty, es, area)
	blockW := vg.Length(cols)*colW - legendColSp
	x0 := area.Min.X + (area.Max.X-area.Min.X-blockW)/2
	top := area.Min.Y + legendHeight(sty, es, area)
	for c := range cols {
		l := plot.NewLegend()
		l.TextStyle = sty
		l.Top, l.Left = true, true
		l.ThumbnailWidth = thumbWidth
		l.Padding = legendRowSp
		for k := c; k < len(es); k += cols {
			l.Add(es[k].name, es[k].thumbs...)
		}
		col := area
		col.Min.X = x0 + vg.Length(c)*colW
		col.Max.X = col.Min.X + colW - legendColSp
		col.Max.Y = top
		l.Draw(col)
	}
}

// AccessibleName is the text of <title>: the title, or failing that what
// the axes show.
func (p Plot) AccessibleName() string {
	axes := slices.DeleteFunc([]string{p.YLabel, p.XLabel}, func(s string) bool { return s == "" })
	return cmp.Or(p.Title, strings.Join(axes, " / "), "plot")
}

// check reports every problem with p, joined.
func (p Plot) check() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("plotsvg: "+format, args...))
	}
	if len(p.Series) == 0 {
		bad("plot %q has no series", p.Title)
	}
	nonFinite := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	for i, s := range p.Series {
		where := fmt.Sprintf("series[%d] %q", i, s.Name)
		if s.Name == "" && len(p.Series) > 1 {
			bad("%s: no name, but the legend needs one when there are %d series", where, len(p.Series))
		}
		first := slices.IndexFunc(p.Series, func(t Series) bool { return t.Name == s.Name })
		if first < i && s.Name != "" {
			bad("%s: same name as series[%d]", where, first)
		}
		if len(s.Points) == 0 {
			bad("%s has no points", where)
		}
		for k, pt := range s.Points {
			// Named only when it is bad: checking a plot costs next to
			// nothing then.
			at := func() string {
				return fmt.Sprintf("%s point[%d] {X:%g Y:%g Lo:%g Hi:%g}", where, k, pt.X, pt.Y, pt.Lo, pt.Hi)
			}
			if slices.ContainsFunc([]float64{pt.X, pt.Y, pt.Lo, pt.Hi}, nonFinite) {
				bad("%s: NaN or infinite value", at())
				continue
			}
			if p.XLog && pt.X <= 0 {
				bad("%s: X must be positive on a log X axis", at())
			}
			if p.YLog && pt.Y <= 0 {
				bad("%s: Y must be positive on a log Y axis", at())
			}
			switch {
			case pt.Lo > pt.Hi:
				bad("%s: Lo > Hi", at())
			case pt.Lo < pt.Hi && (pt.Y < pt.Lo || pt.Y > pt.Hi):
				bad("%s: Y outside [Lo, Hi]", at())
			case pt.Lo < pt.Hi && p.YLog && pt.Lo <= 0:
				bad("%s: Lo must be positive on a log Y axis", at())
			}
		}
	}
	return errors.Join(errs...)
}
