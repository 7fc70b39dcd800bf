package expr

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"measuredbook/probe"
)

// Kind is what a Value holds.
type Kind int

const (
	Number Kind = iota // Num with the interval [Lo, Hi]
	String             // Str: only as a result of ?:
	Bool               // Truth: a condition
)

func (k Kind) String() string {
	return name(k, []string{Number: "number", String: "string", Bool: "condition"}, "Kind")
}

// Dim is the physical dimension of a Number, which decides what arithmetic
// is allowed and how the value is shown. Values are in base units.
type Dim int

const (
	Dimensionless Dim = iota // counts, ratios, literal numbers
	Duration                 // seconds
	Bytes                    // bytes
)

// String names the dimension in a reader's words, for error messages.
func (d Dim) String() string {
	return name(d, []string{Dimensionless: "number", Duration: "duration", Bytes: "bytes"}, "Dim")
}

// name is the name of an enum's value n, or TYPE(n) for one it does not
// have.
func name[E ~int](n E, names []string, typ string) string {
	if n >= 0 && int(n) < len(names) {
		return names[n]
	}
	return fmt.Sprintf("%s(%d)", typ, int(n))
}

// Truth is a three-valued truth: a comparison of intervals can be decided
// either way or not at all.
type Truth int

const (
	Unknown Truth = iota // the runs disagree: inconclusive
	False
	True
)

// String returns the default rendering of a claim's verdict.
func (t Truth) String() string {
	switch t {
	case True:
		return "holds"
	case False:
		return "fails"
	}
	return "inconclusive"
}

// Value is the result of evaluating an expression or a part of one.
type Value struct {
	Kind   Kind
	Num    float64 // the median (Number), in base units
	Lo, Hi float64 // the interval: min–max over the runs, propagated by interval arithmetic
	Dim    Dim
	// Ratio marks a quotient of like quantities (duration/duration,
	// count/count, growth), whose default format is x.
	Ratio bool
	// Runs is the fewest runs among the references the value came from; 0
	// for a value made of literals only.
	Runs   int
	Str    string   // String
	Truth  Truth    // Bool
	Labels []string // names of code values, from a code metric
	// List holds every value of a swept setting (ID.param.NAME), in the
	// sweep's order; Lo and Hi are its smallest and largest. Such a value
	// can be shown (as the list, or with range) or reduced with min and
	// max, but not computed with.
	List []float64
	// Inconclusive holds the source text of every ?: condition that was
	// inconclusive, so that its else branch was taken: warnings for the build.
	Inconclusive []string
	// Res is the step within which the value cannot be told from another
	// (Metric.Resolution), carried through sums, differences and scaling
	// by a literal; 0 for none.
	Res float64
}

// dimName names a value's kind in a reader's words, for "unit mismatch:
// duration + bytes".
func (v Value) dimName() string {
	if v.Kind != Number {
		return v.Kind.String()
	}
	return v.Dim.String()
}

// Describe is dimName with an article, for "found a duration".
func (v Value) Describe() string {
	if v.Kind == Number && v.Dim == Bytes {
		return "a size in bytes"
	}
	return "a " + v.dimName()
}

// unitDims are the dimensions of a metric's units.
var unitDims = map[probe.Unit]Dim{probe.Seconds: Duration, probe.Bytes: Bytes, probe.Count: Dimensionless}

func point(x float64, d Dim) Value { return Value{Kind: Number, Num: x, Lo: x, Hi: x, Dim: d} }

// FromSample is the value of one stored sample of metric m, as a reference
// to it evaluates (and as tables and the CLI print it). A median outside its
// own min–max can only come from a damaged result; widening the interval
// keeps the invariant Lo <= Num <= Hi that interval arithmetic relies on.
func FromSample(m *Metric, s Sample) (Value, error) {
	dim, ok := unitDims[m.Unit]
	if !ok {
		return Value{}, fmt.Errorf("unit %q is not one of s, B, 1", m.Unit)
	}
	v := Value{Kind: Number, Num: s.Median, Lo: math.Min(s.Min, s.Median), Hi: math.Max(s.Max, s.Median), Dim: dim, Runs: s.Runs, Labels: m.Labels, Res: m.Resolution}
	if math.IsNaN(s.Median) || math.IsNaN(s.Min) || math.IsNaN(s.Max) {
		return Value{}, fmt.Errorf("the stored result is not a number")
	}
	return v, nil
}

// measured reports whether a number is a quantity rather than a plain
// literal: it came from a reference, or is a ratio, or has a unit.
func (v Value) measured() bool { return v.Runs > 0 || v.Ratio || v.Dim != Dimensionless }

// fewestRuns combines run counts: literals (0) do not lower the count.
func fewestRuns(a, b int) int {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

// merge carries what both operands contribute besides the number.
func merge(v, a, b Value) Value {
	v.Runs = fewestRuns(a.Runs, b.Runs)
	v.Inconclusive = unionStrings(a.Inconclusive, b.Inconclusive)
	return v
}

func unionStrings(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

var opSymbol = map[tokKind]string{tPlus: "+", tMinus: "-", tStar: "×", tSlash: "÷"}

// arith applies + - * / to two numbers. The median of the result is the
// operation on the medians; its interval is every result the operands'
// intervals allow. Since each operand's median lies in its interval, so does
// the result's. The error message is positioned by the caller.
func arith(op tokKind, a, b Value) (Value, error) {
	if err := numbers(opSymbol[op]+" needs numbers on both sides", a, b); err != nil {
		return Value{}, err
	}
	mismatch := fmt.Errorf("unit mismatch: %s %s %s", a.dimName(), opSymbol[op], b.dimName())
	var v Value
	switch op {
	case tPlus, tMinus:
		if a.Dim != b.Dim {
			return Value{}, mismatch
		}
		v = Value{Kind: Number, Dim: a.Dim, Ratio: a.Ratio || b.Ratio}
		if op == tPlus {
			v.Num, v.Lo, v.Hi = a.Num+b.Num, a.Lo+b.Lo, a.Hi+b.Hi
		} else {
			v.Num, v.Lo, v.Hi = a.Num-b.Num, a.Lo-b.Hi, a.Hi-b.Lo
		}
		v.Res = a.Res + b.Res
	case tStar:
		// A product of two quantities with units (seconds², byte-seconds)
		// has no format to show it in and no use in the book.
		if a.Dim != Dimensionless && b.Dim != Dimensionless {
			return Value{}, mismatch
		}
		v = Value{Kind: Number, Dim: max(a.Dim, b.Dim), Ratio: a.Dim == b.Dim && (a.Ratio || b.Ratio)}
		v.Num = a.Num * b.Num
		v.Lo, v.Hi = corners(a, b, func(x, y float64) float64 { return x * y })
		// A resolution scales with a literal factor; a product of two
		// measured figures has no step of its own.
		switch {
		case b.isLiteral():
			v.Res = a.Res * math.Abs(b.Num)
		case a.isLiteral():
			v.Res = b.Res * math.Abs(a.Num)
		}
	case tSlash:
		switch {
		case a.Dim == b.Dim && (a.Dim != Dimensionless || (a.measured() && b.measured())):
			// Like over like: duration/duration, bytes/bytes, count/count.
			v = Value{Kind: Number, Dim: Dimensionless, Ratio: true}
		case b.Dim == Dimensionless:
			// Per item: a duration over a count is a time per item.
			v = Value{Kind: Number, Dim: a.Dim, Ratio: a.Dim == Dimensionless && (a.Ratio || b.Ratio)}
		default:
			// number/duration, bytes/duration: rates the book never shows.
			return Value{}, mismatch
		}
		if b.Lo <= 0 && b.Hi >= 0 {
			if b.Lo == b.Hi {
				return Value{}, fmt.Errorf("division by zero")
			}
			// An interval through zero makes the quotient unbounded:
			// refuse it rather than return an infinite interval nobody
			// can format or compare meaningfully.
			return Value{}, fmt.Errorf("division by a value whose runs range over zero (%s)", explainRange(b))
		}
		v.Num = a.Num / b.Num
		v.Lo, v.Hi = corners(a, b, func(x, y float64) float64 { return x / y })
		if b.isLiteral() {
			v.Res = a.Res / math.Abs(b.Num)
		}
	}
	if math.IsInf(v.Lo, 0) || math.IsInf(v.Hi, 0) || math.IsNaN(v.Num) {
		return Value{}, fmt.Errorf("result of %s is out of range", opSymbol[op])
	}
	return merge(v, a, b), nil
}

// isLiteral reports whether v is a number written in the expression (or
// a setting): a point that no run measured.
func (v Value) isLiteral() bool { return v.Kind == Number && v.Runs == 0 && v.Lo == v.Hi }

// corners is the interval of f over the box [a.Lo,a.Hi]×[b.Lo,b.Hi] for f
// monotonic in each argument (× everywhere, ÷ away from zero): the extremes
// are at the corners.
func corners(a, b Value, f func(x, y float64) float64) (lo, hi float64) {
	c := []float64{f(a.Lo, b.Lo), f(a.Lo, b.Hi), f(a.Hi, b.Lo), f(a.Hi, b.Hi)}
	return slices.Min(c), slices.Max(c)
}

func negate(a Value) Value {
	a.Num, a.Lo, a.Hi = -a.Num, -a.Hi, -a.Lo
	return a
}

func absValue(a Value) Value {
	switch {
	case a.Lo >= 0:
	case a.Hi <= 0:
		a = negate(a)
	default:
		a.Num, a.Lo, a.Hi = math.Abs(a.Num), 0, math.Max(-a.Lo, a.Hi)
	}
	return a
}

// compare decides a comparison over whole intervals. a < b holds when every
// value a's runs allow is below every value b's allow (a.Hi < b.Lo), fails
// when none is (a.Lo >= b.Hi), and is Unknown when the intervals overlap.
func compare(op tokKind, a, b Value) (Value, error) {
	if err := numbers(tokNames[op]+" compares numbers", a, b); err != nil {
		return Value{}, err
	}
	// A bare 0 is zero of any unit, as in physical-units libraries:
	// x > 0 needs no 0ns.
	switch {
	case a.Dim == b.Dim:
	case isBareZero(a):
		a.Dim = b.Dim
	case isBareZero(b):
		b.Dim = a.Dim
	default:
		return Value{}, fmt.Errorf("unit mismatch: %s %s %s%s", a.dimName(), tokNames[op], b.dimName(), unitHint(a, b))
	}
	// Counts known to a step (Res) compare as if a's interval reached a
	// step further each way: an order within one step is undecided.
	res := a.Res + b.Res
	lo, hi := a.Lo-res, a.Hi+res
	var t Truth
	switch op {
	case tLT:
		t = decide(hi < b.Lo, lo >= b.Hi)
	case tLE:
		t = decide(hi <= b.Lo, lo > b.Hi)
	case tGT:
		t = decide(b.Hi < lo, b.Lo >= hi)
	case tGE:
		t = decide(b.Hi <= lo, b.Lo > hi)
	case tEQ, tNE:
		// Equal only as equal points, or within the step of counts known
		// to one; unequal as soon as the intervals are further apart than
		// that step. Overlapping intervals could be equal or not.
		equal := a.Lo == a.Hi && b.Lo == b.Hi && a.Lo == b.Lo
		if res > 0 {
			equal = math.Max(a.Hi-b.Lo, b.Hi-a.Lo) <= res
		}
		t = decide(equal, a.Hi+res < b.Lo || b.Hi+res < a.Lo)
		if op == tNE {
			t = not(t)
		}
	}
	return merge(Value{Kind: Bool, Truth: t}, a, b), nil
}

// isBareZero reports whether v is the literal 0 with no unit.
func isBareZero(v Value) bool {
	return v.Kind == Number && v.Dim == Dimensionless && !v.measured() && v.Lo == 0 && v.Hi == 0
}

// unitHint suggests the unit literal a comparison of a quantity with a
// plain number lacks: "; write the bound with a unit, such as 2us".
func unitHint(a, b Value) string {
	q, n := a, b
	if q.Dim == Dimensionless {
		q, n = b, a
	}
	if n.Dim != Dimensionless || n.measured() {
		return ""
	}
	num := strconv.FormatFloat(n.Num, 'g', -1, 64)
	switch q.Dim {
	case Duration:
		return fmt.Sprintf("; write the number with a unit: %sns, %sus, %sms or %ss", num, num, num, num)
	case Bytes:
		return fmt.Sprintf("; write the number with a unit: %sB, %sKiB or %sMiB", num, num, num)
	}
	return ""
}

// numbers refuses operands that are not one number each: a swept setting
// before anything else, then a condition or a string ("WHAT, found a
// condition").
func numbers(what string, a, b Value) error {
	for _, v := range []Value{a, b} {
		if v.List != nil {
			return fmt.Errorf("a swept setting takes several values (%s): reduce it with min(…) or max(…)", v.rangeText())
		}
	}
	for _, v := range []Value{a, b} {
		if v.Kind != Number {
			return fmt.Errorf("%s, found %s", what, v.Describe())
		}
	}
	return nil
}

// truth is a decided condition.
func truth(holds bool) Value { return Value{Kind: Bool, Truth: decide(holds, !holds)} }

func decide(holds, fails bool) Truth {
	switch {
	case holds:
		return True
	case fails:
		return False
	}
	return Unknown
}

// Kleene's strong three-valued logic: a decided operand that decides the
// result wins over an unknown one.
func not(t Truth) Truth {
	switch t {
	case True:
		return False
	case False:
		return True
	}
	return Unknown
}

func and(a, b Truth) Truth {
	switch {
	case a == False || b == False:
		return False
	case a == True && b == True:
		return True
	}
	return Unknown
}

func or(a, b Truth) Truth {
	switch {
	case a == True || b == True:
		return True
	case a == False && b == False:
		return False
	}
	return Unknown
}
