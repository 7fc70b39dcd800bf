package parse

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"measuredbook/dataset"
	"measuredbook/expr"
	"measuredbook/parse/ast"
	"measuredbook/probe"
)

// Directive is a parsed directive: the node, the file offsets it reports
// errors at, and exactly one of the per-kind fields.
type Directive struct {
	Node   *ast.Directive
	Off    int // the opening fence
	ArgOff int // the info string's argument (an experiment's id)
	y      *ybody
	At     map[string]int // file offset of each field's value

	// Label names a numbered table or figure (label: tbl-NAME on an
	// experiment or a table, fig-NAME on a plot); "" for none.
	Label string

	Exp   *Experiment
	Table *TableDir
	Plot  *PlotDir
	Claim *ClaimDir
	When  *WhenDir
}

type TableDir struct {
	From, Rows, Cols, Value, Format, Caption string
	Where, Labels                            map[string]string
	Machines                                 *MachinesField // nil: the build's set alone
}

type PlotDir struct {
	From, X, Y, Series, Title, Ref, Caption string
	XLog, YLog                              bool
	Where, Labels                           map[string]string
	Cdf                                     bool       // kind: cdf
	Quantiles                               []Quantile // kind: cdf, by fraction
	Machines                                *MachinesField
}

// Quantile is one entry of a cdf plot's quantiles: a metric that holds
// the value below which a fraction of the samples fall.
type Quantile struct {
	Metric string
	Frac   float64
	Off    int // of the metric's name, for errors
}

type ClaimDir struct {
	Basis  string // "" (measured) or "rule": a probe decides it by rule, not by measurement
	Expect *expr.Expr
	Src    string // the expect expression as written
	M      Offmap // expect offsets → file
	Text   *Subdoc
	// machines: the claim is decided on each of these machines too.
	Machines *MachinesField
}

type WhenDir struct {
	Cond       *expr.Expr
	Src        string
	M          Offmap
	Then, Else *Subdoc
	Unsure     *Subdoc // nil without an unsure: branch
	// Unless leaves the whole block out where it holds (nil: none).
	Unless *expr.Expr
	UM     Offmap
}

var directiveFields = map[string][]string{
	"experiment": {"probe", "params", "runs", "precision", "budget", "show", "caption", "timeout", "labels", "label"},
	"table":      {"from", "rows", "cols", "value", "format", "caption", "where", "labels", "machines", "label"},
	"plot":       {"from", "kind", "x", "y", "quantiles", "series", "xscale", "yscale", "title", "ref", "machines", "where", "caption", "labels", "label"},
	"claim":      {"expect", "text", "basis", "machines"},
	"when":       {"if", "then", "else", "unsure", "unless"},
}

// parseDirective decodes a directive's YAML body. source is the text the
// node's lines point into and base maps it to the file.
func (d *Doc) parseDirective(n *ast.Directive, source []byte, base Offmap, probes []probe.Probe, e *Errs) *Directive {
	// The body is the concatenation of the block's lines; a line's
	// padding (columns of a tab the container's indentation split) is
	// spaces that map to the line's first byte.
	var body []byte
	var ps []piece
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		body = append(body, strings.Repeat(" ", seg.Padding)...)
		ps = append(ps, piece{from: len(body), to: seg.Start, n: seg.Stop - seg.Start})
		body = append(body, source[seg.Start:seg.Stop]...)
	}
	inner := pieces(ps, n.Pos())
	dir := &Directive{
		Node:   n,
		Off:    base(n.Pos()),
		ArgOff: base(n.Info + len(n.Name)),
		y:      newYBody(body, func(k int) int { return base(inner(k)) }),
		At:     map[string]int{},
	}
	dir.ArgOff = len(d.f.src) - len(bytes.TrimLeft(d.f.src[dir.ArgOff:], " "))
	if n.Name != "experiment" && n.Arg != "" {
		e.At(dir.ArgOff, "unexpected %q after %s: only an experiment takes an id on its fence line", n.Arg, n.Name)
	}
	root, ok := dir.y.parse(n.Name, e)
	if !ok {
		return nil
	}
	fs := dir.y.fields(n.Name, root, directiveFields[n.Name], e)
	for name, f := range fs {
		dir.At[name] = dir.y.at(f.val)
	}
	dir.Label = d.directiveLabel(dir, fs, e)
	switch n.Name {
	case "experiment":
		dir.Exp = d.parseExperiment(dir, fs, probes, e)
		if dir.Exp == nil {
			return nil
		}
		if dir.Label != "" && dir.Exp.Show == "none" {
			e.At(dir.At["label"], "label %s numbers the experiment's table, but show: none hides it; label a table or a plot of it instead", dir.Label)
		}
	case "table":
		dir.Table = dir.parseTable(fs, e)
	case "plot":
		dir.Plot = dir.parsePlot(fs, e)
	case "claim":
		if dir.Claim = d.parseClaim(dir, fs, e); dir.Claim == nil {
			return nil
		}
	case "when":
		if dir.When = d.parseWhen(dir, fs, e); dir.When == nil {
			return nil
		}
	}
	return dir
}

// parseTable reads a table directive's fields.
func (dir *Directive) parseTable(fs map[string]field, e *Errs) *TableDir {
	t := &TableDir{}
	dir.strings(fs, e, map[string]*string{"from": &t.From, "rows": &t.Rows, "cols": &t.Cols,
		"value": &t.Value, "format": &t.Format, "caption": &t.Caption})
	dir.require(fs, e, "from", "value")
	dir.plainText(e, map[string]string{"caption": t.Caption})
	t.Where = dir.where(fs, e)
	t.Labels = dir.labels(fs, e)
	t.Machines = dir.machines(fs, e)
	// Package expr knows the formats and suggests the closest one.
	if _, err := expr.Parse("0 | " + t.Format); t.Format != "" && err != nil {
		e.Expr(func(int) int { return dir.At["format"] }, err)
	}
	return t
}

// parsePlot reads a plot directive's fields.
func (dir *Directive) parsePlot(fs map[string]field, e *Errs) *PlotDir {
	p := &PlotDir{}
	var xscale, yscale string
	dir.strings(fs, e, map[string]*string{"from": &p.From, "x": &p.X, "y": &p.Y, "series": &p.Series,
		"title": &p.Title, "ref": &p.Ref, "caption": &p.Caption, "xscale": &xscale, "yscale": &yscale})
	dir.plainText(e, map[string]string{"caption": p.Caption, "title": p.Title})
	switch kind, good := dir.choice(fs, "kind", e, "line", "cdf"); {
	case kind == "cdf":
		p.Cdf = true
		dir.require(fs, e, "from", "quantiles")
		for _, f := range []string{"x", "y"} {
			if _, has := fs[f]; has {
				e.At(dir.At[f], "a cdf plot takes its axes from quantiles (x: the metrics' values, y: the fractions); remove %s", f)
			}
		}
		p.Quantiles = dir.quantiles(fs, e)
	case good: // a line plot
		dir.require(fs, e, "from", "x", "y")
		if _, has := fs["quantiles"]; has {
			e.At(dir.At["quantiles"], "quantiles belong to a distribution plot: add kind: cdf")
		}
	}
	p.XLog = dir.scale("xscale", xscale, e)
	p.YLog = dir.scale("yscale", yscale, e)
	p.Where = dir.where(fs, e)
	p.Labels = dir.labels(fs, e)
	p.Machines = dir.machines(fs, e)
	if p.Machines != nil && p.Ref != "" {
		e.At(dir.At["ref"], "a plot takes ref: or machines:, not both; machines: [%s] draws what ref: %s does, every line labelled with its machine", p.Ref, p.Ref)
	}
	return p
}

// parseClaim reads a claim directive's fields; nil when it has no
// expression to decide.
func (d *Doc) parseClaim(dir *Directive, fs map[string]field, e *Errs) *ClaimDir {
	c := &ClaimDir{}
	if !dir.require(fs, e, "expect") {
		return nil
	}
	c.Expect, c.Src, c.M = dir.expr(fs["expect"], e)
	if f, ok := fs["text"]; ok {
		c.Text = dir.markdown(d, f, "a claim's text", e)
	}
	if c.Text == nil { // without a text, the claim shows its expression as code
		c.Text = d.parseSub("`"+c.Src+"`", func(k int) int { return c.M(k - 1) }, "a claim's text", e)
	}
	if basis, _ := dir.choice(fs, "basis", e, "measurement", "rule"); basis == "rule" {
		c.Basis = basis
	}
	c.Machines = dir.machines(fs, e)
	if c.Expect == nil {
		return nil
	}
	return c
}

// parseWhen reads a when directive's fields; nil when a branch or its
// condition does not parse.
func (d *Doc) parseWhen(dir *Directive, fs map[string]field, e *Errs) *WhenDir {
	w := &WhenDir{}
	if !dir.require(fs, e, "if", "then") {
		return nil
	}
	w.Cond, w.Src, w.M = dir.expr(fs["if"], e)
	w.Then = dir.markdown(d, fs["then"], "when", e)
	if f, ok := fs["else"]; ok {
		w.Else = dir.markdown(d, f, "when", e)
	} else {
		w.Else = d.parseSub("", shift(dir.Off), "when", e)
	}
	if f, ok := fs["unsure"]; ok {
		if w.Unsure = dir.markdown(d, f, "when", e); w.Unsure == nil {
			return nil
		}
	}
	if f, ok := fs["unless"]; ok {
		if w.Unless, _, w.UM = dir.expr(f, e); w.Unless == nil {
			return nil
		}
	}
	if w.Cond == nil || w.Then == nil || w.Else == nil {
		return nil
	}
	return w
}

// value is the single value of the field name, when the directive has
// it; a field that is not a single value is reported.
func (dir *Directive) value(fs map[string]field, name string, e *Errs) (string, bool) {
	f, has := fs[name]
	if !has {
		return "", false
	}
	return dir.y.scalar(dir.Node.Name, name, f, e)
}

// choice is the value of the field name, trimmed, which is a or b; ""
// when the directive does not have it. Any other value is reported with
// the closer of the two, and choice returns "" and false.
func (dir *Directive) choice(fs map[string]field, name string, e *Errs, a, b string) (string, bool) {
	v, has := dir.value(fs, name, e)
	if v = strings.TrimSpace(v); !has || v == a || v == b {
		return v, true
	}
	e.At(dir.At[name], "%s wants %s or %s, got %q%s", name, a, b, v, expr.DidYouMean(v, []string{a, b}))
	return "", false
}

// strings decodes single-valued string fields.
func (dir *Directive) strings(fs map[string]field, e *Errs, dst map[string]*string) {
	for name, p := range dst {
		if v, ok := dir.value(fs, name, e); ok {
			*p = strings.TrimSpace(v)
		}
	}
}

// plainText refuses an inline value in the text fields (field → value)
// that are shown as written: a caption or a title is not evaluated, and
// {{ … }} printed as is would pass for a figure.
func (dir *Directive) plainText(e *Errs, fields map[string]string) {
	for name, v := range fields {
		if strings.Contains(v, "{{") {
			e.At(dir.At[name], "%s is shown as written, so {{ … }} is not evaluated there: put the value in the prose around the %s", name, dir.Node.Name)
		}
	}
}

// require reports every missing required field at the opening fence.
func (dir *Directive) require(fs map[string]field, e *Errs, names ...string) bool {
	errs := len(e.list)
	for _, name := range names {
		if _, has := fs[name]; !has {
			e.At(dir.Off, "%s needs a %q field", dir.Node.Name, name)
		}
	}
	return len(e.list) == errs
}

func (dir *Directive) scale(name, v string, e *Errs) bool {
	switch v {
	case "", "linear":
		return false
	case "log":
		return true
	}
	e.At(dir.At[name], "%s wants linear or log, got %q", name, v)
	return false
}

// where decodes the optional where: mapping that pins params.
func (dir *Directive) where(fs map[string]field, e *Errs) map[string]string {
	f, ok := fs["where"]
	if !ok {
		return nil
	}
	if f.val.Kind != yaml.MappingNode {
		e.At(dir.y.at(f.val), "where wants a mapping of params to values, e.g. where: {rounds: 2000}")
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(f.val.Content); i += 2 {
		k, v := f.val.Content[i], f.val.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			e.At(dir.y.at(v), "where: %s wants a single value, got %s", k.Value, nodeKind(v))
			continue
		}
		out[k.Value] = v.Value
		dir.At["where."+k.Value] = dir.y.at(k)
		dir.At["where="+k.Value] = dir.y.at(v)
	}
	return out
}

// labels decodes the optional labels: mapping, which names params,
// metrics and values in the chapter's language: {idle: 유휴 연결, round:
// 한 바퀴}.
func (dir *Directive) labels(fs map[string]field, e *Errs) map[string]string {
	f, ok := fs["labels"]
	if !ok {
		return nil
	}
	if f.val.Kind != yaml.MappingNode {
		e.At(dir.y.at(f.val), "labels wants a mapping of names to labels, e.g. labels: {idle: 유휴 연결, round: 한 바퀴}")
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(f.val.Content); i += 2 {
		k, v := f.val.Content[i], f.val.Content[i+1]
		if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
			e.At(dir.y.at(v), "labels: %s wants a text, got %s", k.Value, nodeKind(v))
			continue
		}
		out[k.Value] = strings.TrimSpace(v.Value)
		dir.At["labels."+k.Value] = dir.y.at(k)
	}
	return out
}

// quantiles decodes a cdf plot's quantiles: a mapping of metric to
// fraction, {wake_min: 0, wake: 0.5, wake_max: 1}, sorted by fraction.
func (dir *Directive) quantiles(fs map[string]field, e *Errs) []Quantile {
	f, ok := fs["quantiles"]
	if !ok {
		return nil
	}
	if f.val.Kind != yaml.MappingNode || len(f.val.Content) == 0 {
		e.At(dir.y.at(f.val), "quantiles wants a mapping of metrics to fractions, e.g. quantiles: {wake_min: 0, wake: 0.5, wake_max: 1}")
		return nil
	}
	var out []Quantile
	for i := 0; i+1 < len(f.val.Content); i += 2 {
		k, v := f.val.Content[i], f.val.Content[i+1]
		x, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
		if v.Kind != yaml.ScalarNode || err != nil || !(x >= 0 && x <= 1) {
			e.At(dir.y.at(v), "quantiles: %s wants a fraction from 0 to 1 (0.5 for the median), got %q", k.Value, v.Value)
			continue
		}
		for _, q := range out {
			if q.Frac == x {
				e.At(dir.y.at(v), "quantiles: %s and %s are both at %g", q.Metric, k.Value, x)
			}
		}
		out = append(out, Quantile{Metric: k.Value, Frac: x, Off: dir.y.at(k)})
	}
	slices.SortStableFunc(out, func(a, b Quantile) int { return cmp.Compare(a.Frac, b.Frac) })
	return out
}

// checkLabels reports a label for a name the directive cannot show: a
// misspelt param, metric or value would silently keep its raw name.
// Names in extra (the machines a view shows) may be labelled too.
func (dir *Directive) CheckLabels(labels map[string]string, x *Experiment, e *Errs, extra ...string) {
	known := append(slices.Clone(x.Order), extra...)
	for _, m := range x.Spec.Metrics {
		known = append(known, m.Name)
		known = append(known, m.Labels...) // names of code values
	}
	for _, vals := range x.Sweep {
		known = append(known, vals...)
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if !slices.Contains(known, k) {
			e.At(dir.At["labels."+k], "labels: %s is not a param, metric, value or code name of experiment %s%s", k, x.ID, expr.DidYouMean(k, known))
		}
	}
}

// expr parses an expression field; a syntax error is reported at the very
// character and a nil Expr returned.
func (dir *Directive) expr(f field, e *Errs) (*expr.Expr, string, Offmap) {
	src, ok := dir.y.scalar(dir.Node.Name, f.key.Value, f, e)
	m := dir.y.scalarMap(f.val, f.key.Column)
	if !ok {
		return nil, "", m
	}
	x, err := expr.Parse(src)
	if err != nil {
		e.Expr(m, err)
		return nil, src, m
	}
	return x, src, m
}

func (dir *Directive) markdown(d *Doc, f field, what string, e *Errs) *Subdoc {
	src, ok := dir.y.scalar(dir.Node.Name, f.key.Value, f, e)
	if !ok {
		return nil
	}
	return d.parseSub(src, dir.y.scalarMap(f.val, f.key.Column), what, e)
}

// parseExperiment validates an experiment against its probe: the probe
// exists, every param exists and every value has the param's type.
func (d *Doc) parseExperiment(dir *Directive, fs map[string]field, probes []probe.Probe, e *Errs) *Experiment {
	x := &Experiment{ID: dir.Node.Arg, Pos: d.f.pos(dir.Off), Show: "table", Sweep: map[string][]string{}}
	if x.ID == "" {
		e.At(dir.Off, "experiment needs an id after the fence: ```experiment ID")
		return nil
	}
	ok := true
	if !idRE.MatchString(x.ID) {
		e.At(dir.ArgOff, "experiment id %q: use letters, digits and _ (dots separate words)", x.ID)
		ok = false
	}
	p := dir.findProbe(x, fs, probes, e)
	if p == nil {
		return nil
	}
	x.Spec = p.Spec
	sweep := x.Spec.NewSweep(expr.DidYouMean)
	x.Order = sweep.Order()
	if f, has := fs["params"]; has {
		ok = parseParams(dir, sweep, f, e) && ok
	}
	if err := sweep.Fill(); err != nil {
		e.At(dir.Off, "%v", err)
		ok = false
	}
	x.Sweep = sweep.Values
	// runs is auto (the default) or a count; precision and budget are auto's.
	x.Runs = parsed(dir, fs, "runs", &ok, e, func(v string) (int, error) {
		if strings.TrimSpace(v) == "auto" {
			return 0, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return n, fmt.Errorf("runs wants auto or a whole number of at least 1, got %q", Short(v))
		}
		return n, nil
	})
	x.Precision = parsed(dir, fs, "precision", &ok, e, ParsePrecision)
	x.Budget = parsed(dir, fs, "budget", &ok, e, func(v string) (time.Duration, error) { return ParseDuration("budget", v, "20s") })
	// How the experiment's own table is shown.
	show, shown := dir.choice(fs, "show", e, "table", "none")
	x.Show = cmp.Or(show, x.Show)
	ok = shown && ok
	dir.strings(fs, e, map[string]*string{"caption": &x.Caption})
	dir.plainText(e, map[string]string{"caption": x.Caption})
	x.Labels = dir.labels(fs, e)
	x.Timeout = parsed(dir, fs, "timeout", &ok, e, func(v string) (time.Duration, error) { return ParseDuration("timeout", v, "60s") })
	if !ok || !dir.checkBounds(x, sweep, e) {
		return nil
	}
	x.Combos = dataset.Combos(x.Order, x.Sweep)
	dir.CheckLabels(x.Labels, x, e)
	return x
}

// findProbe is the probe an experiment runs: the one its probe: field
// names, or by default the one named as its id. Nil when there is none.
func (dir *Directive) findProbe(x *Experiment, fs map[string]field, probes []probe.Probe, e *Errs) *probe.Probe {
	x.Probe = x.ID
	off := dir.ArgOff
	if v, good := dir.value(fs, "probe", e); good {
		x.Probe = strings.TrimSpace(v)
		off = dir.At["probe"]
	}
	var names []string
	for i := range probes {
		if probes[i].Name == x.Probe {
			return &probes[i]
		}
		names = append(names, probes[i].Name)
	}
	e.At(off, "unknown probe %q%s", x.Probe, expr.DidYouMean(x.Probe, names))
	return nil
}

// checkBounds reports an experiment that asks too much of a build: more
// combinations, or more runs of each, than one experiment may.
func (dir *Directive) checkBounds(x *Experiment, sweep *probe.Sweep, e *Errs) bool {
	errs := len(e.list)
	if err := sweep.CheckSize(); err != nil {
		e.At(dir.ArgOff, "experiment %s: %v", x.ID, err)
	}
	if x.Runs > probe.MaxRuns {
		e.At(dir.At["runs"], "runs is %d, more than the %d runs per combination an experiment may ask", x.Runs, probe.MaxRuns)
	}
	return len(e.list) == errs
}

// MaxDuration bounds a timeout or a budget: a longer one is a slip
// (timeout: 100000h), and would hold the build for years.
const MaxDuration = 24 * time.Hour

// ParseDuration reads the duration v of the field named what (example: a
// good value): positive, at most MaxDuration.
func ParseDuration(what, v, example string) (time.Duration, error) {
	t, err := time.ParseDuration(strings.ReplaceAll(strings.TrimSpace(v), "μ", "µ"))
	switch {
	case err != nil || t <= 0:
		return 0, fmt.Errorf("%s wants a positive duration such as %s, got %q", what, example, Short(v))
	case t > MaxDuration:
		return 0, fmt.Errorf("%s is %v, longer than the %v an experiment may take; give a duration such as %s", what, t, MaxDuration, example)
	}
	return t, nil
}

// parsed is the value of the field name as parse reads it, when the
// directive has the field; a value parse refuses is reported at it, and
// ok set to false.
func parsed[T any](dir *Directive, fs map[string]field, name string, ok *bool, e *Errs, parse func(string) (T, error)) (t T) {
	if v, good := dir.value(fs, name, e); good {
		var err error
		if t, err = parse(v); err != nil {
			e.At(dir.At[name], "%v", err)
			*ok = false
		}
	}
	return t
}

// uses collects Doc.Uses: every metric a reference, a table or a plot of
// d names, per experiment, in first-use order.
func (d *Doc) uses() map[string][]string {
	u := map[string][]string{}
	add := func(id, metric string) {
		if id != "" && metric != "" && !slices.Contains(u[id], metric) {
			u[id] = append(u[id], metric)
		}
	}
	refs := func(x *expr.Expr) {
		if x != nil {
			for _, r := range x.Refs() {
				add(r.Experiment, r.Metric)
			}
		}
	}
	values := func(s *Subdoc) {
		if s != nil {
			for _, v := range s.Values {
				refs(v.E)
			}
		}
	}
	for _, v := range d.values {
		refs(v.E)
	}
	for _, dir := range d.directives {
		switch {
		case dir.Table != nil:
			add(dir.Table.From, dir.Table.Value)
		case dir.Plot != nil:
			add(dir.Plot.From, dir.Plot.Y)
			for _, q := range dir.Plot.Quantiles {
				add(dir.Plot.From, q.Metric)
			}
		case dir.Claim != nil:
			refs(dir.Claim.Expect)
			values(dir.Claim.Text)
		case dir.When != nil:
			refs(dir.When.Cond)
			refs(dir.When.Unless)
			values(dir.When.Then)
			values(dir.When.Else)
			values(dir.When.Unsure)
		}
	}
	return u
}

// ParsePrecision reads runs: auto's precision, a percentage ("5%") or a
// fraction ("0.05") of the median, above 0 and below 100 %.
func ParsePrecision(v string) (float64, error) {
	v = strings.TrimSpace(v)
	pct := strings.HasSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(v, "%")), 64)
	if pct {
		f /= 100
	}
	if err != nil || !(f > 0 && f < 1) {
		return 0, fmt.Errorf("precision wants a percentage of the median such as 5%% (above 0, below 100%%), got %q", v)
	}
	return f, nil
}

func parseParams(dir *Directive, sweep *probe.Sweep, f field, e *Errs) bool {
	if f.val.Kind != yaml.MappingNode {
		e.At(dir.y.at(f.val), "params wants a mapping of param names to values, got %s", nodeKind(f.val))
		return false
	}
	errs := len(e.list)
	for i := 0; i+1 < len(f.val.Content); i += 2 {
		k, v := f.val.Content[i], f.val.Content[i+1]
		// No param's name is longer than a message repeats (Short), so the
		// lookup of the short form fails alike and its message stays short.
		prm, err := sweep.Param(Short(k.Value))
		if err != nil {
			e.At(dir.y.at(k), "%v", err)
			continue
		}
		var items []*yaml.Node
		switch v.Kind {
		case yaml.ScalarNode:
			items = []*yaml.Node{v}
		case yaml.SequenceNode:
			items = v.Content
			if len(items) == 0 {
				e.At(dir.y.at(v), "param %s: an empty list sweeps nothing", prm.Name)
				continue
			}
		default:
			e.At(dir.y.at(v), "param %s wants a value or a list of values, got %s", prm.Name, nodeKind(v))
			continue
		}
		for _, it := range items {
			if it.Kind != yaml.ScalarNode {
				e.At(dir.y.at(it), "param %s wants a value, got %s", prm.Name, nodeKind(it))
				continue
			}
			if err := sweep.Add(prm, it.Value); err != nil {
				e.At(dir.y.at(it), "%v", err)
			}
		}
	}
	return len(e.list) == errs
}
