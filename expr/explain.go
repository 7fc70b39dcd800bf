package expr

import (
	"strconv"
	"strings"
)

// Explain shows why a condition came out as it did: each operand of each
// comparison with its measured value and run interval substituted, as in
//
//	growth(readiness.round[api=epoll], idle) = 1.04× (0.981×–1.1×) < 2
//
// Operands of && and || are followed by their own verdict in brackets, so a
// failing compound claim says which part failed. Numbers are shown to 3
// significant digits whatever the expression's format, since the point is
// to see how close to the bound the value came. An operand that cannot be
// evaluated shows its error instead.
func (e *Expr) Explain(env Env) string {
	ev := &evaluator{env: env, src: e.src, metrics: map[[3]string]*Metric{}}
	return ev.explain(e.root)
}

func (ev *evaluator) explain(n node) string {
	switch n := n.(type) {
	case *binaryNode:
		if isComparison(n.op.kind) {
			return ev.explainOperand(n.x) + " " + n.op.text + " " + ev.explainOperand(n.y)
		}
		if n.op.kind == tAnd || n.op.kind == tOr {
			return ev.tagged(n.x) + " " + n.op.text + " " + ev.tagged(n.y)
		}
	case *unaryNode:
		if n.op == tNot {
			return "!(" + ev.tagged(n.x) + ")"
		}
	}
	return ev.explainOperand(n)
}

// tagged explains a condition and appends its verdict.
func (ev *evaluator) tagged(n node) string {
	s := ev.explain(n)
	if v, err := ev.eval(n); err == nil && v.Kind == Bool {
		s += " [" + v.Truth.String() + "]"
	}
	return s
}

// explainOperand is "SOURCE = VALUE (LO–HI)", or just the source for a
// literal, whose value the reader can already see.
func (ev *evaluator) explainOperand(n node) string {
	switch x := n.(type) {
	case *numNode, *strNode:
		return ev.text(n)
	case *unaryNode:
		if _, ok := x.x.(*numNode); ok && x.op == tMinus {
			return ev.text(n)
		}
	}
	v, err := ev.eval(n)
	if err != nil {
		return ev.text(n) + " = (" + err.Error() + ")"
	}
	return ev.text(n) + " = " + explainValue(v)
}

func explainValue(v Value) string {
	switch v.Kind {
	case Bool:
		return v.Truth.String()
	case String:
		return strconv.Quote(v.Str)
	}
	s := precise(v, v.Num)
	if v.defaultFormat() == "label" {
		l, _ := v.label()
		s += " (" + l + ")"
	}
	if v.Lo != v.Hi {
		s += " (" + explainRange(v) + ")"
	}
	return s
}

// explainRange is a number's run interval at explanation precision.
func explainRange(v Value) string {
	return precise(v, v.Lo) + "–" + precise(v, v.Hi)
}

// precise shows x in v's kind at 3 significant digits.
func precise(v Value, x float64) string {
	if !finite(x) {
		return strings.ToLower(strconv.FormatFloat(x, 'g', -1, 64))
	}
	if units := dimUnits[v.Dim]; units != nil {
		return autoScaled(x, units)
	}
	if v.Ratio {
		return sig3(x) + "×"
	}
	return sig3(x)
}
