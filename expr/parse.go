package expr

import (
	"fmt"
	"slices"
	"strings"
)

// Error is a parse or evaluation error, positioned in the expression's
// source: Off and Len are the byte offset and length of the culprit, so the
// caller can turn them into FILE:LINE:COL.
type Error struct {
	Off, Len int
	Msg      string
}

func (e *Error) Error() string { return e.Msg }

// Expr is a parsed expression, ready to be evaluated against any data set.
type Expr struct {
	src    string
	root   node
	format token // after |, as written
	refs   []Ref
	params []ParamRef
	facts  []Fact
	sets   []SetName
}

// SetName is one result set named by on("NAME", …) (or ref), as written:
// Off and Len span the quoted name, so that a caller that knows the sets
// can report an unknown one at its very place.
type SetName struct {
	Name     string
	Off, Len int
}

// Fact is one read of a machine fact, machine.FIELD.
type Fact struct {
	Set   string // as for Ref: whose machine
	Field string // "cores", "nofile_hard", …
}

// ParamRef is one read of an experiment's setting, ID.param.NAME, as
// written.
type ParamRef struct {
	Set        string // as for Ref
	Experiment string
	Name       string // the param
}

// Ref is one reference in an expression, as written.
type Ref struct {
	Set        string // "" for the build's data set, "m1" inside on("m1", …)
	Experiment string // the dotted path but its last segment
	Metric     string // the last segment
	Selector   []Sel  // as written; nil when omitted or []
}

// Sel is one k=v of a selector.
type Sel struct {
	Key, Value  string
	Off, ValOff int // of the key and of the value (inside any quotes)
}

// Format returns the format written after |, or "" when there is none.
func (e *Expr) Format() string { return formats[e.format.text] }

// Refs returns every reference in the expression, in source order, so the
// caller can collect the experiments a page depends on before evaluating.
func (e *Expr) Refs() []Ref { return append([]Ref(nil), e.refs...) }

// Params returns every read of a setting (ID.param.NAME), in source order.
func (e *Expr) Params() []ParamRef { return append([]ParamRef(nil), e.params...) }

// Sets returns every result set the expression names with on (or ref),
// in source order, each time it is named.
func (e *Expr) Sets() []SetName { return append([]SetName(nil), e.sets...) }

// Facts returns the machine facts the expression reads (machine.cores →
// {"", "cores"}), each once, in source order.
func (e *Expr) Facts() []Fact { return append([]Fact(nil), e.facts...) }

// String returns the expression's source.
func (e *Expr) String() string { return e.src }

// formats are the names accepted after |. Aliases map to their canonical name.
var formats = map[string]string{
	"dur": "dur", "ns": "ns", "us": "us", "µs": "us", "μs": "us", "ms": "ms",
	"int": "int", "f1": "f1", "f2": "f2", "x": "x", "pct": "pct",
	"bytes": "bytes", "range": "range", "label": "label",
}

// formatNames lists the formats in the order the manual gives them.
var formatNames = []string{"dur", "ns", "us", "ms", "int", "f1", "f2", "x", "pct", "bytes", "range", "label"}

var funcNames = []string{"growth", "slope", "min", "max", "abs", "on", "ref"}

// The syntax tree. Every node knows its span in the source, for errors and
// for Explain, which quotes the source of each operand.
type node interface{ span() (off, end int) }

type pos struct{ off, end int }

func (p pos) span() (int, int) { return p.off, p.end }

type numNode struct {
	pos
	v   float64
	dim Dim
}

type strNode struct {
	pos
	s string
}

// identNode is a bare name: only the PARAM of growth and slope.
type identNode struct {
	pos
	name string
}

type refNode struct {
	pos
	ref Ref
}

type unaryNode struct {
	pos
	op tokKind
	x  node
}

type binaryNode struct {
	pos
	op   token // the operator, as written
	x, y node
}

// condNode is COND ? A : B, or COND ? A : B ~ U with an unsure branch U
// (u is nil without one).
type condNode struct {
	pos
	c, a, b, u node
}

// paramNode is ID.param.NAME: a setting of an experiment as its block
// declares it.
type paramNode struct {
	pos
	ref ParamRef
}

// factNode is machine.FIELD: a fact of the fingerprint of the machine that
// measured the data set.
type factNode struct {
	pos
	set, field string
}

type callNode struct {
	pos
	name string
	args []node
}

// setNode is on("m1", x) (or ref): x evaluated against another data set. The set is
// also recorded in every refNode below it, so Refs and Eval need no context.
type setNode struct {
	pos
	set string
	x   node
}

// parser builds an Expr: the references, settings, facts and sets it
// meets are recorded in it as they are parsed.
type parser struct {
	*Expr
	toks  []token
	i     int
	set   string // the data set of references being parsed: on("m1", …) changes it
	depth int
}

// maxDepth bounds nesting, so that a pathological input fails with an
// error instead of a deep recursion. No sentence needs 100 parentheses.
const maxDepth = 100

// Parse parses "EXPR" or "EXPR | FORMAT". Errors are *Error.
func Parse(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	e := &Expr{src: src}
	p := &parser{Expr: e, toks: toks}
	if t := p.peek(); t.kind == tEOF || t.kind == tPipe {
		return nil, errAt(t, "expected an expression")
	}
	if e.root, err = p.cond(); err != nil {
		return nil, err
	}
	if p.peek().kind == tPipe {
		p.next()
		f := p.next()
		if f.kind != tIdent {
			return nil, errAt(f, "expected a format after | (one of %s)", strings.Join(formatNames, ", "))
		}
		if _, ok := formats[f.text]; !ok {
			return nil, errAt(f, "unknown format %q%s", f.text, suggest(f.text, formatNames, "formats are"))
		}
		e.format = f
	}
	if t := p.peek(); t.kind != tEOF {
		msg := "expected an operator or the end of the expression, found %s"
		if t.kind == tPipe {
			msg = "only one format may follow the expression; found a second %s"
		}
		return nil, errAt(t, msg, t.describe())
	}
	if err := checkStrings(e.root, false); err != nil {
		return nil, err
	}
	return e, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// expect consumes a token of kind k or reports what was expected instead.
func (p *parser) expect(k tokKind, what string) (token, error) {
	t := p.peek()
	if t.kind != k {
		return t, errAt(t, "expected %s, found %s", what, t.describe())
	}
	return p.next(), nil
}

// cond: OR [ '?' cond ':' cond [ '~' cond ] ]. Both branches are full
// conditionals, which makes ?: right-associative: a ? b : c ? d : e is
// a ? b : (c ? d : e), and a ~ U belongs to the nearest ?: on its left.
func (p *parser) cond() (node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, errAt(p.peek(), "expression nested more than %d deep", maxDepth)
	}
	c, err := p.or()
	if err != nil || p.peek().kind != tQuest {
		return c, err
	}
	p.next()
	a, err := p.operand("a value after ?")
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(tColon, `":" between the branches of COND ? A : B`); err != nil {
		return nil, err
	}
	b, err := p.operand("a value after :")
	if err != nil {
		return nil, err
	}
	var u node
	if p.peek().kind == tTilde {
		p.next()
		if u, err = p.operand("a value after ~ (shown when the runs disagree)"); err != nil {
			return nil, err
		}
	}
	off, _ := c.span()
	_, end := b.span()
	if u != nil {
		_, end = u.span()
	}
	return &condNode{pos: pos{off, end}, c: c, a: a, b: b, u: u}, nil
}

// operand parses a conditional where one is required, saying what was
// expected when the expression has ended or an operator stands there.
func (p *parser) operand(what string) (node, error) {
	if t := p.peek(); !startsValue(t.kind) {
		return nil, errAt(t, "expected %s, found %s", what, t.describe())
	}
	return p.cond()
}

// binaryLevel parses a left-associative chain of the operators ops over
// sub. Comparisons are refused in a chain such as a < b < c: in C it
// compares a bool with c, which nobody means.
func (p *parser) binaryLevel(ops []tokKind, sub func() (node, error)) (node, error) {
	x, err := sub()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if !slices.Contains(ops, t.kind) {
			return x, nil
		}
		p.next()
		if nt := p.peek(); !startsValue(nt.kind) {
			return nil, errAt(nt, "expected a value after %s, found %s", t.text, nt.describe())
		}
		y, err := sub()
		if err != nil {
			return nil, err
		}
		if t2 := p.peek(); isComparison(t.kind) && isComparison(t2.kind) {
			return nil, errAt(t2, "comparisons do not chain: write a < b && b < c")
		}
		off, _ := x.span()
		_, end := y.span()
		x = &binaryNode{pos: pos{off, end}, op: t, x: x, y: y}
	}
}

func (p *parser) or() (node, error) { return p.binaryLevel([]tokKind{tOr}, p.and) }

func (p *parser) and() (node, error) { return p.binaryLevel([]tokKind{tAnd}, p.cmp) }

func (p *parser) cmp() (node, error) { return p.binaryLevel(comparisons, p.add) }

// startsValue reports whether a token can begin an operand; checking it
// before descending gives "expected a value after +" rather than an error
// about whatever token happens to stand there.
func startsValue(k tokKind) bool {
	switch k {
	case tNum, tStr, tIdent, tSel, tLParen, tMinus, tPlus, tNot:
		return true
	}
	return false
}

var comparisons = []tokKind{tLT, tLE, tGT, tGE, tEQ, tNE}

func isComparison(k tokKind) bool { return slices.Contains(comparisons, k) }

func (p *parser) add() (node, error) { return p.binaryLevel([]tokKind{tPlus, tMinus}, p.mul) }

func (p *parser) mul() (node, error) { return p.binaryLevel([]tokKind{tStar, tSlash}, p.unary) }

func (p *parser) unary() (node, error) {
	t := p.peek()
	if t.kind != tMinus && t.kind != tNot && t.kind != tPlus {
		return p.primary()
	}
	p.next()
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, errAt(t, "expression nested more than %d deep", maxDepth)
	}
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	if t.kind == tPlus {
		return x, nil
	}
	_, end := x.span()
	return &unaryNode{pos: pos{t.off, end}, op: t.kind, x: x}, nil
}

func (p *parser) primary() (node, error) {
	t := p.next()
	switch t.kind {
	case tNum:
		return &numNode{pos: pos{t.off, t.end}, v: t.num, dim: t.dim}, nil
	case tStr:
		return &strNode{pos: pos{t.off, t.end}, s: t.text}, nil
	case tLParen:
		x, err := p.operand("an expression after (")
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tRParen, ") to close the ( at offset "+fmt.Sprint(t.off)); err != nil {
			return nil, err
		}
		return x, nil
	case tIdent:
		if p.peek().kind == tLParen {
			return p.call(t)
		}
		if segs := strings.Split(t.text, "."); len(segs) == 2 && segs[0] == "machine" {
			return p.fact(t, segs[1])
		} else if len(segs) >= 3 && segs[len(segs)-2] == "param" {
			return p.param(t, strings.Join(segs[:len(segs)-2], "."), segs[len(segs)-1])
		}
		if strings.Contains(t.text, ".") {
			return p.reference(t)
		}
		if slices.Contains(funcNames, t.text) {
			return nil, errAt(t, "%s is a function: write %s(…)", t.text, t.text)
		}
		return nil, errAt(t, "expected a reference ID.METRIC[k=v], a number or a function, found %q", t.text)
	case tSel:
		return nil, errAt(t, "a selector %s must follow a reference such as readiness.round", t.text)
	case tEOF:
		return nil, errAt(t, "expected a value, found the end of the expression")
	}
	return nil, errAt(t, "expected a value, found %s", t.describe())
}

// reference parses ID.METRIC and an optional selector.
func (p *parser) reference(t token) (node, error) {
	dot := strings.LastIndexByte(t.text, '.')
	r := &refNode{pos: pos{t.off, t.end}}
	r.ref = Ref{Set: p.set, Experiment: t.text[:dot], Metric: t.text[dot+1:]}
	if s := p.peek(); s.kind == tSel {
		p.next()
		sels, err := parseSelector(s)
		if err != nil {
			return nil, err
		}
		r.ref.Selector, r.end = sels, s.end
	}
	p.refs = append(p.refs, r.ref)
	return r, nil
}

// param parses ID.param.NAME, which takes no selector: a swept param is
// the list of its values.
func (p *parser) param(t token, exp, name string) (node, error) {
	if s := p.peek(); s.kind == tSel {
		return nil, errAt(s, "a setting %s takes no selector: it is the value (or the list of values) the experiment's block declares", t.text)
	}
	r := ParamRef{Set: p.set, Experiment: exp, Name: name}
	p.params = append(p.params, r)
	return &paramNode{pos: pos{t.off, t.end}, ref: r}, nil
}

// fact parses machine.FIELD.
func (p *parser) fact(t token, field string) (node, error) {
	if !slices.Contains(factNames, field) {
		msg := fmt.Sprintf("unknown machine fact %q", field)
		if c := Closest(field, factNames); c != "" {
			msg += fmt.Sprintf(" (did you mean machine.%s?)", c)
		}
		return nil, errAt(t, "%s; facts are machine.%s", msg, strings.Join(factNames, ", machine."))
	}
	if s := p.peek(); s.kind == tSel {
		return nil, errAt(s, "machine.%s takes no selector", field)
	}
	if f := (Fact{Set: p.set, Field: field}); !slices.Contains(p.facts, f) {
		p.facts = append(p.facts, f)
	}
	return &factNode{pos: pos{t.off, t.end}, set: p.set, field: field}, nil
}

// parseSelector splits a raw [k=v, ...] token. Values are raw text (trimmed,
// optional double quotes removed), because they are compared with canonical
// param values, not evaluated: 500µs, 1e4 and epoll are all fine.
func parseSelector(t token) ([]Sel, error) {
	inner := t.text[1 : len(t.text)-1]
	base := t.off + 1
	if strings.TrimSpace(inner) == "" {
		return nil, nil
	}
	var sels []Sel
	off := 0
	for _, part := range strings.Split(inner, ",") {
		partOff := base + off
		off += len(part) + 1
		eq := strings.IndexByte(part, '=')
		if strings.TrimSpace(part) == "" {
			return nil, &Error{Off: partOff, Len: max(len(part), 1), Msg: "empty entry in selector: expected k=v"}
		}
		if eq < 0 {
			lead := len(part) - len(strings.TrimLeft(part, " \t"))
			return nil, &Error{Off: partOff + lead, Len: len(strings.TrimSpace(part)), Msg: fmt.Sprintf("expected k=v in selector, found %q", strings.TrimSpace(part))}
		}
		key, keyOff := trimmed(part[:eq], partOff)
		val, valOff := trimmed(part[eq+1:], partOff+eq+1)
		if key == "" {
			return nil, &Error{Off: partOff + eq, Len: 1, Msg: "expected a param name before = in selector"}
		}
		if strings.ContainsFunc(key, func(r rune) bool { return !isIdentPart(r) }) {
			return nil, &Error{Off: keyOff, Len: len(key), Msg: fmt.Sprintf("param name %q in selector is not a name", key)}
		}
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			val, valOff = val[1:len(val)-1], valOff+1
		}
		if val == "" {
			return nil, &Error{Off: partOff + eq, Len: 1, Msg: fmt.Sprintf("expected a value after %s= in selector", key)}
		}
		if slices.ContainsFunc(sels, func(s Sel) bool { return s.Key == key }) {
			return nil, &Error{Off: keyOff, Len: len(key), Msg: fmt.Sprintf("param %s appears twice in the selector", key)}
		}
		sels = append(sels, Sel{Key: key, Value: val, Off: keyOff, ValOff: valOff})
	}
	return sels, nil
}

func trimmed(s string, off int) (string, int) {
	t := strings.TrimLeft(s, " \t")
	off += len(s) - len(t)
	return strings.TrimRight(t, " \t"), off
}

// call parses a function call; name is the identifier before '('.
func (p *parser) call(name token) (node, error) {
	if strings.Contains(name.text, ".") {
		return nil, errAt(name, "%q is not a function: functions are %s", name.text, strings.Join(funcNames, ", "))
	}
	if !slices.Contains(funcNames, name.text) {
		return nil, errAt(name, "unknown function %q%s", name.text, suggest(name.text, funcNames, "functions are"))
	}
	p.next() // (
	switch name.text {
	case "on", "ref":
		return p.setCall(name)
	case "growth", "slope":
		return p.sweepCall(name)
	}
	c := &callNode{pos: pos{off: name.off}, name: name.text}
	for {
		arg, err := p.operand("an argument of " + name.text)
		if err != nil {
			return nil, err
		}
		c.args = append(c.args, arg)
		t := p.next()
		if t.kind == tRParen {
			c.end = t.end
			break
		}
		if t.kind != tComma {
			return nil, errAt(t, "expected , or ) in the arguments of %s, found %s", name.text, t.describe())
		}
	}
	if name.text == "abs" && len(c.args) != 1 {
		return nil, errAt(c, "abs takes one argument, found %d", len(c.args))
	}
	return c, nil
}

// setCall parses on("SET", EXPR), and ref("SET", EXPR), its other name.
func (p *parser) setCall(name token) (node, error) {
	s := p.next()
	if s.kind != tStr {
		return nil, errAt(s, `expected the name of a data set in quotes, as in %s("m1", …), found %s`, name.text, s.describe())
	}
	if s.text == "" || strings.ContainsAny(s.text, " \t/\\") {
		return nil, errAt(s, "data set name %q is not a plain name such as \"m1\"", s.text)
	}
	if _, err := p.expect(tComma, `"," after the data set name`); err != nil {
		return nil, err
	}
	p.sets = append(p.sets, SetName{Name: s.text, Off: s.off, Len: s.end - s.off})
	saved := p.set
	p.set = s.text
	x, err := p.operand(fmt.Sprintf(`an expression after %s("%s",`, name.text, s.text))
	p.set = saved
	if err != nil {
		return nil, err
	}
	end, err := p.expect(tRParen, `")" to close `+name.text+"(")
	if err != nil {
		return nil, err
	}
	return &setNode{pos: pos{name.off, end.end}, set: s.text, x: x}, nil
}

// sweepCall parses growth(REF, PARAM) and slope(REF, PARAM).
func (p *parser) sweepCall(name token) (node, error) {
	r, err := p.operand("a reference as the first argument of " + name.text)
	if err != nil {
		return nil, err
	}
	if _, ok := r.(*refNode); !ok {
		return nil, errAt(r, "%s's first argument must be a reference such as readiness.round[api=epoll]", name.text)
	}
	if _, err := p.expect(tComma, fmt.Sprintf(`"," and the param that varies, as in %s(readiness.round[api=epoll], idle)`, name.text)); err != nil {
		return nil, err
	}
	t := p.next()
	if t.kind != tIdent || strings.Contains(t.text, ".") {
		return nil, errAt(t, "expected the name of the param that varies as %s's second argument, found %s", name.text, t.describe())
	}
	end, err := p.expect(tRParen, `")" to close `+name.text+"(")
	if err != nil {
		return nil, err
	}
	return &callNode{pos: pos{name.off, end.end}, name: name.text,
		args: []node{r, &identNode{pos: pos{t.off, t.end}, name: t.text}}}, nil
}

// checkStrings refuses strings anywhere but as a result of ?:. A string
// elsewhere could only be compared or added, which means nothing here.
func checkStrings(n node, allowed bool) error {
	var operands []node // where no string may stand
	switch n := n.(type) {
	case *strNode:
		if !allowed {
			return &Error{Off: n.off, Len: n.end - n.off, Msg: `a string can only be a result of ?:, as in COND ? "grows" : "stays flat"`}
		}
	case *condNode:
		if err := checkStrings(n.c, false); err != nil {
			return err
		}
		for _, branch := range []node{n.a, n.u, n.b} { // n.u may be nil, which passes
			if err := checkStrings(branch, true); err != nil {
				return err
			}
		}
	case *unaryNode:
		operands = []node{n.x}
	case *binaryNode:
		operands = []node{n.x, n.y}
	case *callNode:
		operands = n.args
	case *setNode:
		return checkStrings(n.x, allowed)
	}
	for _, x := range operands {
		if err := checkStrings(x, false); err != nil {
			return err
		}
	}
	return nil
}
