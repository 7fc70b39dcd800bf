package plotsvg

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// logTicks marks a log axis: a labelled tick at each power of ten, minor
// ticks at 2…9 times it. plot.LogTicks labels only powers of ten, and a
// range inside one decade (say 120…900) would get no label at all; so when
// fewer than three powers of ten fall in the range, the 2× and 5× ticks are
// labelled too, and if that still makes fewer than two labels, every tick. Over many decades only every
// n-th power is labelled so that labels do not collide. A range too narrow
// for any of that gets linear ticks. Labels are plain
// numbers with thousands separators (10,000, not 1e+04).
type logTicks struct{}

// maxLogLabels bounds the labelled powers of ten on one axis.
const maxLogLabels = 7

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil // Draw never asks for this; draw no ticks rather than panic
	}
	first := int(math.Floor(math.Log10(lo)))
	last := int(math.Ceil(math.Log10(hi)))
	// Ticks within a relative hair of the range ends count as inside, so that
	// an axis from exactly 100 to exactly 10000 labels both ends.
	const eps = 1e-9
	in := func(v float64) bool { return v >= lo*(1-eps) && v <= hi*(1+eps) }

	type cand struct {
		m, e int // the tick is m·10^e
		v    float64
	}
	var all []cand
	for e := first; e <= last; e++ {
		for m := 1; m <= 9; m++ {
			if v := float64(m) * math.Pow10(e); in(v) {
				all = append(all, cand{m, e, v})
			}
		}
	}
	count := func(label func(c cand) bool) int {
		n := 0
		for _, c := range all {
			if label(c) {
				n++
			}
		}
		return n
	}
	decade := func(c cand) bool { return c.m == 1 }
	label := decade
	if n := count(decade); n > maxLogLabels {
		step := (n + maxLogLabels - 1) / maxLogLabels
		label = func(c cand) bool { return c.m == 1 && c.e%step == 0 }
	} else if n < 3 {
		label = func(c cand) bool { return c.m == 1 || c.m == 2 || c.m == 5 }
		if count(label) < 2 {
			label = func(cand) bool { return true }
		}
		if len(all) < 2 {
			// A sliver of a decade (say 1100…1200): even 1…9 times a
			// power of ten leaves it unlabelled, and there the log and
			// linear scales look alike anyway.
			return linearTicks{}.Ticks(lo, hi)
		}
	}
	ticks := make([]plot.Tick, len(all))
	for i, c := range all {
		ticks[i].Value = c.v
		if label(c) {
			// Formatting m and e separately avoids 3*0.1 = 0.30000000000000004.
			ticks[i].Label = group(strconv.FormatFloat(float64(c.m)*math.Pow10(c.e), 'f', max(-c.e, 0), 64))
		}
	}
	return ticks
}

// linearTicks labels a linear axis at multiples of a step of 1, 2 or 5
// times a power of ten, chosen so that about four to seven labels fall in
// the range, with unlabelled ticks between. (plot.DefaultTicks aims for
// three and is content with steps like 6, which left a thread-count axis
// labelled 3, 9, 15.) Labels are plain numbers with thousands separators:
// 20,000 rather than 20000, 0.0000002 rather than 2e-07.
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	step, e := niceStep(lo, hi)
	minor := step / 5
	if step/math.Pow10(e) == 2 {
		minor = step / 4
	}
	var ticks []plot.Tick
	// Work in whole multiples of minor so that values carry no accumulated
	// error; labels are formatted to the step's decimals.
	first, last := math.Ceil(lo/minor-1e-9), math.Floor(hi/minor+1e-9)
	per := math.Round(step / minor)
	for k := first; k <= last; k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if math.Mod(k, per) == 0 {
			l := strconv.FormatFloat(v, 'f', max(-e, 0), 64)
			if strings.Trim(l, "-0.") == "" {
				l = "0" // not -0 or 0.00
			}
			t.Label = group(l)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// lastTicks remembers the last ticks its Ticker made: gonum asks an axis
// for its ticks a dozen times while it lays one plot out, always for the
// same range, and only reads them.
type lastTicks struct {
	plot.Ticker
	min, max uint64      // the range's bits: -0 is not taken for 0
	ticks    []plot.Tick // nil: none made yet (or none to make)
}

// Ticks implements plot.Ticker.
func (l *lastTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Float64bits(min), math.Float64bits(max)
	if l.ticks == nil || lo != l.min || hi != l.max {
		l.min, l.max, l.ticks = lo, hi, l.Ticker.Ticks(min, max)
	}
	return l.ticks
}

// niceStep returns the label step for [min, max]: the smallest of 1, 2, 5
// times 10^e that is at least a fifth of the range; and e.
func niceStep(min, max float64) (step float64, e int) {
	raw := (max - min) / 5
	e = int(math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if step = m * math.Pow10(e); step >= raw*(1-1e-9) {
			break
		}
	}
	if step == 10*math.Pow10(e) {
		e++
	}
	return step, e
}

// group inserts a comma between each three digits of the integer part of a
// plain decimal number: "-12345.678" → "-12,345.678".
func group(s string) string {
	intPart, frac, dot := strings.Cut(s, ".")
	for i := len(intPart) - 3; i > 0 && intPart[:i] != "-"; i -= 3 {
		intPart = intPart[:i] + "," + intPart[i:]
	}
	if dot {
		return intPart + "." + frac
	}
	return intPart
}
