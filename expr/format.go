package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"measuredbook/probe"
)

// Format renders the value in a format ("" = the default for its kind; see
// the package documentation for the list). A format that does not fit the
// value, such as bytes of a duration, is an error.
func (v Value) Format(format string) (string, error) {
	f, ok := formats[format]
	if !ok && format != "" {
		return "", fmt.Errorf("unknown format %q%s", format, DidYouMean(format, formatNames))
	}
	switch v.Kind {
	case Bool:
		if f != "" {
			return "", fmt.Errorf("a condition has no format %s: it shows as holds, fails or inconclusive", f)
		}
		return v.Truth.String(), nil
	case String:
		if f != "" {
			return "", fmt.Errorf("a string has no format %s", f)
		}
		return v.Str, nil
	}
	if !finite(v.Num) || !finite(v.Lo) || !finite(v.Hi) {
		return "", fmt.Errorf("the value is not a finite number")
	}
	if v.List != nil && f != "range" {
		// A swept setting: every value, each in the format.
		var parts []string
		for _, x := range v.List {
			s, err := point(x, v.Dim).Format(f)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", "), nil
	}
	if f == "" {
		f = v.defaultFormat()
	}
	if err := v.fits(f); err != nil {
		return "", err
	}
	switch f {
	case "dur", "bytes":
		return autoScaled(v.Num, dimUnits[v.Dim]), nil
	case "ns", "us", "ms":
		u := durUnits[map[string]int{"ns": 0, "us": 1, "ms": 2}[f]]
		return sig3(v.Num/u.size) + " " + u.name, nil
	case "int":
		return fixed(math.Round(v.Num), 0), nil
	case "f1":
		return fixed(v.Num, 1), nil
	case "f2":
		return fixed(v.Num, 2), nil
	case "x":
		return rounded(v.Num, 100) + "×", nil
	case "pct":
		return rounded(v.Num*100, 10) + "%", nil
	case "range":
		return v.rangeText(), nil
	case "label":
		return v.label()
	}
	panic("expr: format " + f + " not implemented")
}

func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// defaultFormat is the format a value shows in when the author gives none.
// A code metric with named values shows its name: a bare code such as "2"
// would tell the reader nothing.
func (v Value) defaultFormat() string {
	whole := v.Num == math.Trunc(v.Num)
	switch {
	case len(v.Labels) > 0 && whole && v.Num >= 0 && int(v.Num) < len(v.Labels):
		return "label"
	case v.Dim == Duration:
		return "dur"
	case v.Dim == Bytes:
		return "bytes"
	case v.Ratio:
		return "x"
	case whole:
		return "int"
	}
	return "f2"
}

// fits checks that format f makes sense for the value's dimension.
func (v Value) fits(f string) error {
	alt := map[Dim]string{Duration: "dur, ns, us or ms", Bytes: "bytes or int", Dimensionless: "int, f1, f2, x or pct"}[v.Dim]
	wrong := func(what string) error {
		return fmt.Errorf("format %s shows %s, but the value is %s (use %s)", f, what, v.Describe(), alt)
	}
	switch f {
	case "dur", "ns", "us", "ms":
		if v.Dim != Duration {
			return wrong("a duration")
		}
	case "bytes":
		if v.Dim != Bytes {
			return wrong("a size in bytes")
		}
	case "int", "f1", "f2":
		// A byte count printed plainly is still in bytes; a duration would
		// be in seconds, which nobody reading "5,250" expects.
		if v.Dim == Duration {
			return wrong("a plain number")
		}
	case "x", "pct":
		if v.Dim != Dimensionless {
			return wrong("a ratio")
		}
	case "label":
		if len(v.Labels) == 0 {
			return fmt.Errorf("format label needs a metric whose values have names; this one has none")
		}
	}
	return nil
}

type scale struct {
	name string
	size float64
}

// Durations print with the Greek small letter mu (U+03BC), not the micro
// sign (U+00B5) that Go's time.Duration.String uses: the two look alike but
// the Greek letter is what Korean and most CJK fonts shape consistently.
var (
	durUnits  = []scale{{"ns", 1e-9}, {"μs", 1e-6}, {"ms", 1e-3}, {"s", 1}}
	byteUnits = []scale{{"B", 1}, {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}}
	dimUnits  = map[Dim][]scale{Duration: durUnits, Bytes: byteUnits}
)

// DisplayUnit is the unit a quantity of unit u whose typical magnitude is
// x reads in: the largest of ns, μs, ms, s (or B, KiB, MiB, GiB, TiB) not
// above |x|, and its size in base units; a count has none ("", 1). It is
// the book's one table of display units: values scale with it through
// their formats, and plot axes with this function.
func DisplayUnit(u probe.Unit, x float64) (name string, size float64) {
	units := dimUnits[unitDims[u]]
	if units == nil {
		return "", 1
	}
	s := units[largestBelow(math.Abs(x), units)]
	return s.name, s.size
}

// largestBelow returns the index of the largest unit not above a ≥ 0 (the
// first unit when a is below them all).
func largestBelow(a float64, units []scale) int {
	i := 0
	for i+1 < len(units) && a >= units[i+1].size {
		i++
	}
	return i
}

// pickScale returns the index of the largest unit not above |x|. Rounding
// to 3 significant digits can carry into the next unit (999.96 ns is
// "1,000 ns" rounded), so the choice is made on the rounded value.
func pickScale(x float64, units []scale) int {
	a := math.Abs(x)
	i := largestBelow(a, units)
	if i+1 < len(units) && roundSig(a/units[i].size) >= units[i+1].size/units[i].size {
		i++
	}
	return i
}

func autoScaled(x float64, units []scale) string {
	u := units[pickScale(x, units)]
	return sig3(x/u.size) + " " + u.name
}

// sigDecimals is how many decimals show 3 significant digits of x, never
// fewer than 0: significant digits never round away the integer part
// (1,234 ns stays 1,234, not 1,230), since those digits were measured.
func sigDecimals(x float64, sig int) int {
	if x == 0 {
		return 0
	}
	return max(0, sig-1-int(math.Floor(math.Log10(math.Abs(x)))))
}

func roundSig(x float64) float64 {
	p := math.Pow(10, float64(sigDecimals(x, 3)))
	return math.Round(x*p) / p
}

// sig3 is x with 3 significant digits, trailing zeros trimmed, thousands
// separated: 873, 31.2, 5.25, 2.3, 674,705.
func sig3(x float64) string { return trimZeros(fixed(x, sigDecimals(x, 3))) }

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// fixed is x with dec decimals and thousands separators; never "-0".
//
// Rounding is the schoolbook kind, half away from zero, on the decimal the
// reader would compute: 1.08 ms / 160 μs is 6.75, shown as 6.8, although
// the float quotient is 6.7499999999999991 and strconv alone (exact binary
// value, half to even) would print 6.7. Cutting x to 12 significant digits
// first removes that binary noise, far below anything measured.
func fixed(x float64, dec int) string {
	if c, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64); err == nil {
		x = c
	}
	if p := math.Pow(10, float64(dec)); math.Abs(x*p) < 1e15 {
		x = math.Round(x*p) / p
	}
	s, neg := strings.CutPrefix(strconv.FormatFloat(x, 'f', dec, 64), "-")
	intPart, frac, _ := strings.Cut(s, ".")
	out := intPart[:(len(intPart)-1)%3+1]
	for i := len(out); i < len(intPart); i += 3 {
		out += "," + intPart[i:i+3]
	}
	if frac != "" {
		out += "." + frac
	}
	if neg && strings.Trim(out, "0.,") != "" {
		out = "-" + out
	}
	return out
}

// rounded is x with no decimal from big on, 1 decimal below, and 2
// significant digits below 0.1: a ratio (big 100) or a percentage (big 10).
func rounded(x, big float64) string {
	a := math.Abs(x)
	switch {
	case math.Round(a*10)/10 >= big:
		return fixed(x, 0)
	case a < 0.1 && a != 0:
		return trimZeros(fixed(x, sigDecimals(x, 2)))
	}
	return fixed(x, 1)
}

// rangeText is Lo–Hi with the unit written once, in the unit the smaller
// end would use on its own (298–1,207 ns), unless the larger end would then
// need more than 5 digits: 80 ns–12 ms reads better than 80–12,000,000 ns.
func (v Value) rangeText() string {
	if v.Lo == v.Hi {
		w := v
		w.Num = v.Lo
		s, _ := w.Format("")
		return s
	}
	switch units := dimUnits[v.Dim]; {
	case units != nil:
		u := units[pickScale(math.Min(math.Abs(v.Lo), math.Abs(v.Hi)), units)]
		if math.Max(math.Abs(v.Lo), math.Abs(v.Hi))/u.size >= 1e5 {
			return autoScaled(v.Lo, units) + "–" + autoScaled(v.Hi, units)
		}
		return sig3(v.Lo/u.size) + "–" + sig3(v.Hi/u.size) + " " + u.name
	case v.Ratio:
		return rounded(v.Lo, 100) + "–" + rounded(v.Hi, 100) + "×"
	case v.Lo == math.Trunc(v.Lo) && v.Hi == math.Trunc(v.Hi):
		return fixed(v.Lo, 0) + "–" + fixed(v.Hi, 0)
	}
	return fixed(v.Lo, 2) + "–" + fixed(v.Hi, 2)
}

// label names a code value. When the runs disagree on the code the median
// alone would hide it, so the names of both ends follow.
func (v Value) label() (string, error) {
	name := func(x float64) (string, bool) {
		if x != math.Trunc(x) || x < 0 || x >= float64(len(v.Labels)) {
			return "", false
		}
		return v.Labels[int(x)], true
	}
	s, ok := name(v.Num)
	if !ok {
		return "", fmt.Errorf("value %s is not a code with a name (codes are 0–%d: %s)", sig3(v.Num), len(v.Labels)-1, strings.Join(v.Labels, ", "))
	}
	if v.Lo != v.Hi {
		lo, ok1 := name(v.Lo)
		hi, ok2 := name(v.Hi)
		if ok1 && ok2 {
			s += " (runs: " + lo + "–" + hi + ")"
		}
	}
	return s, nil
}
