package fleet

import (
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"

	"measuredbook/dataset"
	"measuredbook/probe"
	"measuredbook/store"
)

// Confidence and Alpha are benchstat's defaults: the confidence level of
// each median's interval, and the significance level below which the
// Mann-Whitney U-test's p-value says two samples differ.
const (
	Confidence = 0.95
	Alpha      = 0.05
)

// Side is one set's sample of one metric in one combination.
type Side struct {
	Median float64 `json:"median"` // in the metric's base unit
	// Lo and Hi bound the median's confidence interval; null when the
	// sample is too small for one (JSON has no infinity).
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
	N     int      `json:"n"`
	Notes []string `json:"notes,omitempty"` // benchmath's warnings, e.g. too few samples for an interval
}

// Line is one experiment, combination and metric compared across two
// sets. Without Test (a transcribed side has no runs to test), Note says
// why.
type Line struct {
	Experiment string            `json:"experiment"`
	Name       string            `json:"name"` // the benchmark name, as benchstat shows it
	Params     map[string]string `json:"params"`
	Metric     string            `json:"metric"`
	Unit       string            `json:"unit"` // as benchstat writes it: sec/METRIC, B/METRIC or METRIC
	A          Side              `json:"a"`
	B          Side              `json:"b"`
	Ratio      float64           `json:"ratio"` // B's median over A's (0 when A's is 0)
	Test       *Test             `json:"test,omitempty"`
	Note       string            `json:"note,omitempty"`
}

// Test is benchmath's comparison of the two samples.
type Test struct {
	P           float64  `json:"p"`
	Alpha       float64  `json:"alpha"`
	Significant bool     `json:"significant"`
	Delta       string   `json:"delta"` // benchstat's "vs base" column: "~" or "+12.34%"
	Notes       []string `json:"notes,omitempty"`
}

// Comparison is two sets compared experiment by experiment.
type Comparison struct {
	A     string `json:"a"`
	B     string `json:"b"`
	Lines []Line `json:"lines"`
	// Notes are what could not be compared: an experiment or a
	// combination only one set holds, probes whose code differs.
	Notes []string `json:"notes"`
}

// LoadSet reads every results file of results/SET/.
func LoadSet(results, set string, all []probe.Probe) (map[string]*dataset.Result, error) {
	b, err := ReadSet(results, set)
	if err != nil {
		return nil, err
	}
	out := map[string]*dataset.Result{}
	for _, f := range b.Files {
		res, err := store.Parse(f.Data, filepath.Join(results, set, f.Name), all)
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(f.Name, ".txt")] = res
	}
	return out, nil
}

// Compare compares sets a and b (named an and bn) on the experiments of
// only, or on every experiment either holds. An id of only that neither
// set holds is an error.
func Compare(an string, a map[string]*dataset.Result, bn string, b map[string]*dataset.Result, only []string) (*Comparison, error) {
	c := &Comparison{A: an, B: bn, Lines: []Line{}, Notes: []string{}}
	ids := only
	if len(ids) == 0 {
		either := maps.Clone(a)
		maps.Copy(either, b)
		ids = slices.Sorted(maps.Keys(either))
	}
	for _, id := range ids {
		ra, oka := a[id]
		rb, okb := b[id]
		switch {
		case !oka && !okb:
			return nil, fmt.Errorf("--only %s: neither %s nor %s holds this experiment", id, an, bn)
		case !oka:
			c.Notes = append(c.Notes, fmt.Sprintf("%s: only in %s", id, bn))
		case !okb:
			c.Notes = append(c.Notes, fmt.Sprintf("%s: only in %s", id, an))
		default:
			c.experiment(id, ra, rb)
		}
	}
	return c, nil
}

func (c *Comparison) experiment(id string, ra, rb *dataset.Result) {
	if ra.Probe != rb.Probe {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: measured with probe %s in %s but %s in %s: not compared", id, ra.Probe, c.A, rb.Probe, c.B))
		return
	}
	if ra.Hash != "" && rb.Hash != "" && ra.Hash != rb.Hash {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: probe %s's code differs between the sets (%.8s in %s, %.8s in %s): a difference may be the code's", id, ra.Probe, ra.Hash, c.A, rb.Hash, c.B))
	}
	var transcribed []string
	if !ra.Measured() {
		transcribed = append(transcribed, c.A)
	}
	if !rb.Measured() {
		transcribed = append(transcribed, c.B)
	}
	metrics := slices.DeleteFunc(slices.Sorted(maps.Keys(ra.Units)), func(m string) bool {
		ub, ok := rb.Units[m]
		return !ok || ub != ra.Units[m]
	})
	pairs, onlyA, onlyB, cannot := pairRows(ra, rb)
	// One table per metric, as benchstat makes one per unit.
	for _, m := range metrics {
		for _, pair := range pairs {
			sa, sb := sample(pair[0], m), sample(pair[1], m)
			if sa == nil || sb == nil {
				continue
			}
			c.Lines = append(c.Lines, line(id, ra, pair[0].Params, m, sa, sb, transcribed))
		}
	}
	if onlyA > 0 || onlyB > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: the sets sweep different params (%d combination(s) only in %s, %d only in %s): those are not compared", id, onlyA, c.A, onlyB, c.B))
	}
	if len(cannot) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%s: not compared where one machine cannot measure: %s", id, strings.Join(cannot, "; ")))
	}
}

// pairRows pairs the combinations both results have. A combination only
// one side has is either one the other machine cannot measure at all
// (kqueue on Linux), said with its reason in cannot, or one the other
// set's sweep lacks, counted in onlyA or onlyB.
// A count either set sized per combination (probe.Auto) is left out of
// the pairing: the two measured the same point with counts of their own.
func pairRows(ra, rb *dataset.Result) (pairs [][2]dataset.Row, onlyA, onlyB int, cannot []string) {
	key := func(p probe.Params) string {
		point := maps.Clone(p)
		maps.DeleteFunc(point, func(k, _ string) bool { return probe.IsAuto(ra.Sweep[k]) || probe.IsAuto(rb.Sweep[k]) })
		return point.Key()
	}
	rowsB := map[string]dataset.Row{}
	for _, row := range rb.Rows {
		rowsB[key(row.Params)] = row
	}
	gone := func(other *dataset.Result, p probe.Params) bool {
		i := slices.IndexFunc(other.Unavailable, func(u dataset.Unavailable) bool { return key(u.Params) == key(p) })
		if i >= 0 && !slices.Contains(cannot, other.Unavailable[i].Reason) {
			cannot = append(cannot, other.Unavailable[i].Reason)
		}
		return i >= 0
	}
	matched := map[string]bool{}
	for _, rowA := range ra.Rows {
		switch rowB, ok := rowsB[key(rowA.Params)]; {
		case ok:
			matched[key(rowA.Params)] = true
			pairs = append(pairs, [2]dataset.Row{rowA, rowB})
		case !gone(rb, rowA.Params):
			onlyA++
		}
	}
	for _, rowB := range rb.Rows {
		if !matched[key(rowB.Params)] && !gone(ra, rowB.Params) {
			onlyB++
		}
	}
	return pairs, onlyA, onlyB, cannot
}

// line compares one combination's metric: the two medians, their ratio
// and, unless a side is transcribed (no runs to test), the U-test.
func line(id string, ra *dataset.Result, params probe.Params, m string, sa, sb *benchmath.Sample, transcribed []string) Line {
	l := Line{Experiment: id, Name: strings.TrimPrefix(store.BenchName(ra, params), "Benchmark"), Params: params,
		Metric: m, Unit: unitOf(ra.Units[m], m), A: side(sa), B: side(sb)}
	if l.A.Median != 0 {
		l.Ratio = l.B.Median / l.A.Median
	}
	if len(transcribed) > 0 {
		l.Note = "no runs: transcribed in " + strings.Join(transcribed, " and ")
		return l
	}
	cmp := benchmath.AssumeNothing.Compare(sa, sb)
	l.Test = &Test{P: cmp.P, Alpha: cmp.Alpha, Significant: !(cmp.P > cmp.Alpha),
		Delta: cmp.FormatDelta(l.A.Median, l.B.Median), Notes: texts(cmp.Warnings)}
	return l
}

func sample(row dataset.Row, metric string) *benchmath.Sample {
	vals := row.Values(metric)
	if len(vals) == 0 {
		return nil
	}
	t := benchmath.DefaultThresholds
	t.CompareAlpha = Alpha
	return benchmath.NewSample(vals, &t)
}

func side(s *benchmath.Sample) Side {
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	sd := Side{Median: sum.Center, N: len(s.Values), Notes: texts(sum.Warnings)}
	if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
		sd.Lo, sd.Hi = &sum.Lo, &sum.Hi
	}
	return sd
}

func texts(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// unitOf is the unit as benchstat shows it: benchfmt tidies ns into sec.
func unitOf(u probe.Unit, metric string) string {
	switch u {
	case probe.Seconds:
		return "sec/" + metric
	case probe.Bytes:
		return "B/" + metric
	}
	return metric
}

// Headline keeps only the lines of the metrics headline names for their
// experiment (the metrics the chapters use, book.Book.Headline), and says
// how many it left out; an experiment no chapter names a metric of keeps
// all of its lines.
func (c *Comparison) Headline(headline map[string][]string) {
	n := len(c.Lines)
	c.Lines = slices.DeleteFunc(c.Lines, func(l Line) bool {
		return len(headline[l.Experiment]) > 0 && !slices.Contains(headline[l.Experiment], l.Metric)
	})
	if left := n - len(c.Lines); left > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d line(s) of metrics no chapter uses are left out (--all shows them)", left))
	}
}

// WriteText prints c as benchstat does: one table per experiment and
// metric, each row the two medians with their confidence intervals, the
// change ("~" when not significant) with its p-value and sample sizes,
// and B's median as a multiple of A's; warnings as numbered footnotes.
func (c *Comparison) WriteText(w io.Writer) error {
	var notes []string
	mark := func(ws []string) string {
		s := ""
		for _, n := range ws {
			i := slices.Index(notes, n)
			if i < 0 {
				notes = append(notes, n)
				i = len(notes) - 1
			}
			s += superscripts.Replace(strconv.Itoa(i + 1))
		}
		if s != "" {
			s = " " + s
		}
		return s
	}
	for _, group := range c.groups() {
		cls := benchunit.ClassOf(group[0].Unit)
		// The experiment's part of a name ("Readiness"), left out of each
		// row as benchstat's own rows leave out "Benchmark".
		base, _, _ := strings.Cut(group[0].Name, "/")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\t│ %s\t│ %s\t\t\t\n", group[0].Experiment, c.A, c.B)
		fmt.Fprintf(tw, "\t│ %s\t│ %s\tvs base\tratio\t\n", group[0].Unit, group[0].Unit)
		for _, l := range group {
			a := benchunit.Scale(l.A.Median, cls) + " " + pctRange(l.A) + mark(l.A.Notes)
			b := benchunit.Scale(l.B.Median, cls) + " " + pctRange(l.B) + mark(l.B.Notes)
			ratio := "—" // no ratio to a zero median
			if l.A.Median != 0 {
				ratio = fmt.Sprintf("×%.3g", l.Ratio)
			}
			verdict := l.Note
			if l.Test != nil {
				cmp := benchmath.Comparison{P: l.Test.P, N1: l.A.N, N2: l.B.N}
				verdict = l.Test.Delta + " (" + cmp.String() + ")" + mark(l.Test.Notes)
			}
			fmt.Fprintf(tw, "%s\t  %s\t  %s\t%s\t%s\t\n", strings.TrimPrefix(l.Name, base+"/"), a, b, verdict, ratio)
		}
		if ga, gb, ok := geomeans(group); ok && len(group) > 1 {
			fmt.Fprintf(tw, "geomean\t  %s\t  %s\t\t×%.3g\t\n", benchunit.Scale(ga, cls), benchunit.Scale(gb, cls), gb/ga)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	for i, n := range notes {
		fmt.Fprintf(w, "%s %s\n", superscripts.Replace(strconv.Itoa(i+1)), n)
	}
	if len(notes) > 0 && len(c.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if len(c.Lines) == 0 {
		fmt.Fprintf(w, "nothing to compare between %s and %s\n", c.A, c.B)
		return nil
	}
	fmt.Fprintln(w, c.summary())
	return nil
}

// groups cuts c's lines into benchstat's tables, one per experiment and
// metric; the tables with a significant change come first, and in each
// table its significant lines, each in c's order otherwise.
func (c *Comparison) groups() [][]Line {
	var gs [][]Line
	for i := 0; i < len(c.Lines); {
		j := i
		for j < len(c.Lines) && c.Lines[j].Experiment == c.Lines[i].Experiment && c.Lines[j].Metric == c.Lines[i].Metric {
			j++
		}
		g := slices.Clone(c.Lines[i:j])
		slices.SortStableFunc(g, func(a, b Line) int { return rank(a) - rank(b) })
		gs = append(gs, g)
		i = j
	}
	slices.SortStableFunc(gs, func(a, b []Line) int { return rank(a[0]) - rank(b[0]) })
	return gs
}

// rank orders a significant change before the others.
func rank(l Line) int {
	if l.Test != nil && l.Test.Significant {
		return 0
	}
	return 1
}

// geomeans are the geometric means of a table's medians, as benchstat's
// geomean row; false when a median is not positive.
func geomeans(g []Line) (a, b float64, ok bool) {
	for _, l := range g {
		if l.A.Median <= 0 || l.B.Median <= 0 {
			return 0, 0, false
		}
		a += math.Log(l.A.Median)
		b += math.Log(l.B.Median)
	}
	n := float64(len(g))
	return math.Exp(a / n), math.Exp(b / n), true
}

// Tally is a comparison in numbers: how many lines were compared, how
// many changed significantly and which way (Higher: B's median above A's),
// how many did not, how many had no runs to test, and the geometric mean
// of B's medians over A's (0 when no line has two positive medians).
type Tally struct {
	Compared, Higher, Lower, Same, Untested int
	Geomean                                 float64
}

// Tally counts c's lines.
func (c *Comparison) Tally() Tally {
	t := Tally{Compared: len(c.Lines)}
	logs, n := 0.0, 0
	for _, l := range c.Lines {
		switch {
		case l.Test == nil:
			t.Untested++
		case !l.Test.Significant:
			t.Same++
		case l.B.Median > l.A.Median:
			t.Higher++
		default:
			t.Lower++
		}
		if l.A.Median > 0 && l.B.Median > 0 {
			logs += math.Log(l.Ratio)
			n++
		}
	}
	if n > 0 {
		t.Geomean = math.Exp(logs / float64(n))
	}
	return t
}

// summary is the one line under every table: the Tally in words.
func (c *Comparison) summary() string {
	t := c.Tally()
	s := fmt.Sprintf("%s vs %s: %d compared, %d significantly higher in %s, %d lower, %d ~", c.A, c.B, t.Compared, t.Higher, c.B, t.Lower, t.Same)
	if t.Untested > 0 {
		s += fmt.Sprintf(", %d without runs to test", t.Untested)
	}
	if t.Geomean > 0 {
		s += fmt.Sprintf("; geomean ratio ×%.3g", t.Geomean)
	}
	return s
}

func pctRange(s Side) string {
	sum := benchmath.Summary{Center: s.Median, Lo: math.Inf(-1), Hi: math.Inf(1)}
	if s.Lo != nil {
		sum.Lo, sum.Hi = *s.Lo, *s.Hi
	}
	return "± " + sum.PctRangeString()
}

// superscripts writes a footnote's number.
var superscripts = strings.NewReplacer("0", "⁰", "1", "¹", "2", "²", "3", "³", "4", "⁴",
	"5", "⁵", "6", "⁶", "7", "⁷", "8", "⁸", "9", "⁹")
