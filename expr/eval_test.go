package expr

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func eval(t *testing.T, src string) (Value, error) {
	t.Helper()
	e, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return e.Eval(testEnv())
}

// TestEval evaluates and formats with the expression's own format, as the
// renderer does for {{ EXPR | FORMAT }}.
func TestEval(t *testing.T) {
	tests := []struct{ src, want string }{
		// The DESIGN examples.
		{"readiness.round[api=poll, idle=10000]", "5.25 ms"},
		{"readiness.round[api=poll,idle=10000] / readiness.round[api=epoll,idle=10000] | x", "5,712×"},
		{"blocking.ready_read[] | range", "298–1,207 ns"},
		// References and selector matching.
		{"blocking.ready_read", "500 ns"},
		{"readiness.round[idle=10000, api=poll]", "5.25 ms"},
		{"readiness.round[api=poll, idle=1e4]", "5.25 ms"},
		{"readiness.round[api=poll, idle=10000.0] | ns", "5,250,000 ns"},
		{"readiness.round[api=poll, idle=10000] | us", "5,250 μs"},
		{"readiness.round[api=poll, idle=10000] | ms", "5.25 ms"},
		{"readiness.round[api=poll, idle=100] | range", "48–53 μs"},
		{"sleep.actual[asked=500us]", "580 μs"},
		{"sleep.actual[asked=500μs]", "580 μs"},
		{"sleep.actual[asked=500µs]", "580 μs"},
		{"sleep.actual[asked=0.5ms]", "580 μs"},
		{`sleep.actual[asked="500µs"]`, "580 μs"},
		{"syscalls.switches[mode=block] | range", "2,587–2,645"},
		{"threads.ceiling.count", "4,068"},
		{"threads.ceiling.limit", "pid_max"},
		{"threads.ceiling.limit | int", "2"},
		{"threads.ceiling.limit | label", "pid_max"},
		{"threads.flaky.limit", "1.50"},
		{"max(threads.ceiling.limit)", "pid_max"},
		{"bufs.size[n=1]", "8 KiB"},
		{"bufs.size[n=8]", "62.1 KiB"},
		{"bufs.size[n=8] | int", "63,590"},
		{"bufs.size[n=8] * 4", "248 KiB"},
		// Literals and units.
		{"2 + 3", "5"},
		{"1 / 4", "0.25"},
		{"10 / 4 | f1", "2.5"},
		{"1 / 3 | f2", "0.33"},
		{"-1ms", "-1 ms"},
		{"500us + 1ms", "1.5 ms"},
		{"2 * 500us", "1 ms"},
		{"500us * 2", "1 ms"},
		{"1ms / 4", "250 μs"},
		{"1ms / 500us", "2.0×"},
		{"8KiB / 64B", "128×"},
		{"1MiB - 1KiB", "1,023 KiB"},
		{"threads.ceiling.count / 2", "2,034"},
		{"threads.ceiling.count / threads.ceiling.count", "1.0×"},
		{"threads.handoff.time[sleeping=0] / 1ms | pct", "1.0%"},
		{"1 / growth(readiness.round[api=poll], idle)", "0.0095×"},
		// Functions.
		{"growth(readiness.round[api=poll], idle)", "105×"},
		{"growth(readiness.round[api=epoll], idle) | pct", "102%"},
		{"growth(sleep.actual, asked)", "6.8×"},            // ordered as durations: 1ms over 100µs
		{"growth(readiness.round[idle=100], api)", "0.8×"}, // strings: the results' order, select over poll
		{"growth(threads.handoff.time, sleeping) | range", "2.3–4.4×"},
		{"slope(flat.t, n) | f2", "1.00"},
		{"slope(readiness.round[api=poll], idle) | f2", "1.01"},
		{"max(readiness.round[api=poll])", "5.25 ms"},
		{"min(readiness.round[idle=100])", "900 ns"},
		{"min(readiness.round)", "900 ns"},
		{"max(1ms, 2ms, 500us)", "2 ms"},
		{"min(3, 2, 5)", "2"},
		{"min(growth(readiness.round[api=poll], idle), 2)", "2.0×"},
		{"abs(1ms - 3ms)", "2 ms"},
		{"abs(-2)", "2"},
		// Strings from ?:.
		{`threads.ceiling.count > 4000 ? "many" : "few"`, "many"},
		{`1 > 2 ? "a" : 2 > 1 ? "b" : "c"`, "b"},
		{`1 < 2 ? 3ms : 4ms`, "3 ms"},
		// The reference set.
		{`ref("m1", readiness.round[api=epoll, idle=10000]) | ns`, "919 ns"},
		{`on("m1", readiness.round[api=epoll, idle=10000]) | ns`, "919 ns"}, // on is ref's other name
		{`ref("m1", readiness.round[api=poll, idle=10000]) / readiness.round[api=poll, idle=10000] | x`, "1.0×"},
		{`readiness.round[api=epoll, idle=10000] / ref("m1", readiness.round[api=epoll, idle=10000])`, "1.0×"},
		// Conditions.
		{"1 < 2", "holds"},
		{"2 < 1", "fails"},
		{"growth(readiness.round[api=epoll], idle) > 1.1", "inconclusive"},
		{"!(1 < 2)", "fails"},
		{"readiness.round[api=poll, idle=100] / readiness.round[api=epoll, idle=100] | range", "50.5–60.2×"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		v, err := e.Eval(testEnv())
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.src, err)
			continue
		}
		got, err := v.Format(e.Format())
		if err != nil || got != tt.want {
			t.Errorf("Eval(%q) = %q, %v; want %q", tt.src, got, err, tt.want)
		}
		if v.Kind == Number && !(v.Lo <= v.Num && v.Num <= v.Hi) {
			t.Errorf("Eval(%q): median %g outside its interval [%g, %g]", tt.src, v.Num, v.Lo, v.Hi)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		src string
		at  string // the culprit: its first occurrence in src gives the offset
		msg string
	}{
		{"readiness.round[idle=100]", "readiness", "selector matches 3 combinations; add one of api=poll|epoll|select"},
		{"readiness.round", "readiness", "selector matches 9 combinations; add one of api=poll|epoll|select, idle=100|1000|10000"},
		{"readiness.round[api=epol, idle=100]", "epol,", "no result has api=epol (did you mean epoll?); api is one of poll, epoll, select"},
		{"readiness.round[apo=epoll, idle=100]", "apo", `readiness has no param "apo" (did you mean api?)`},
		{"readiness.round[zzzzz=1]", "zzzzz", `readiness has no param "zzzzz"; its params are api, idle`},
		{"readines.round[api=epoll]", "readines", `unknown experiment "readines" (did you mean readiness?)`},
		{"nope.x + 1", "nope", "unknown metric nope.x"},
		{"blocking.ready_read[x=1]", "x=", "it has no params, so write blocking.ready_read[]"},
		{"threads.handoff.time[sleeping=5]", "5", "no result has sleeping=5; sleeping is one of 0, 10, 1000"},
		{"sparse.t[a=1, b=2]", "sparse", "no result for sparse.t[a=1, b=2]: that combination was not measured"},
		{`ref("m2", readiness.round)`, "readiness", `no data set "m2"`},
		{`on("m2", readiness.round)`, "readiness", `no data set "m2"`},
		{`ref("m1", readiness.round[api=select, idle=10000])`, "select", "no result has api=select; api is one of poll, epoll"},
		// Units.
		{"readiness.round[api=poll, idle=100] + bufs.size[n=1]", "+", "unit mismatch: duration + bytes"},
		{"1ms < 2", "<", "unit mismatch: duration < number; write the number with a unit: 2ns, 2us, 2ms or 2s"},
		{"1ms * 2ms", "*", "unit mismatch: duration × duration"},
		{"1 / 1ms", "/", "unit mismatch: number ÷ duration"},
		{"1KiB / 1ms", "/", "unit mismatch: bytes ÷ duration"},
		{"1ms - 1", "-", "unit mismatch: duration - number"},
		{"min(1ms, 2KiB)", "2KiB", "unit mismatch: min of duration and bytes"},
		// Division.
		{"1 / 0", "0", "division by zero"},
		{"threads.ceiling.count / syscalls.switches[mode=spin]", "syscalls", "division by a value whose runs range over zero (0–5)"},
		{"1ms / (1us - blocking.ready_read * 2)", "1us -", "range over zero (-1.41 μs–404 ns)"},
		// Kinds.
		{"1 && 2 < 3", "1", "&& joins conditions such as a < b, found a number"},
		{"1 < 2 || 1ms", "1ms", "|| joins conditions such as a < b, found a duration"},
		{"!1", "!", "! needs a condition, found a number"},
		{"-(1 < 2)", "-", "- needs a number, found a condition"},
		{"(1 < 2) + 1", "+", "+ needs numbers on both sides, found a condition"},
		{"(1 < 2) < 1", "< 1", "< compares numbers, found a condition"},
		{`(1 < 2 ? "a" : "b") < 1`, "< 1", "< compares numbers, found a string"},
		{"1 ? 2 : 3", "1", "the condition before ? must be a comparison such as a < b, found a number"},
		{"abs(1 < 2)", "1", "abs needs a number, found a condition"},
		{"max(1 < 2, 3)", "1", "max needs numbers, found a condition"},
		// growth and slope.
		{"growth(readiness.round, idle)", "readiness", "growth needs every param but idle fixed; add one of api=poll|epoll|select"},
		{"growth(readiness.round[api=poll], idel)", "idel", `readiness has no param "idel" (did you mean idle?)`},
		{"growth(readiness.round[api=poll, idle=100], idle)", "idle=100", "growth sweeps idle, so the selector must not fix it: remove idle=100"},
		{"growth(blocking.ready_read, n)", "n)", `blocking has no param "n"`},
		{"slope(readiness.round[idle=100], api)", "api)", "slope needs a param whose values are numbers or durations; api is poll, epoll, select"},
		{"slope(syscalls.switches, mode)", "mode)", "slope needs a param whose values are numbers"},
		{"slope(threads.handoff.time, sleeping)", "sleeping)", "slope takes logarithms, but sleeping=0 is not positive"},
		{`ref("m1", growth(readiness.round[api=poll], idle))`, "idle)", "idle has a single value (10000) in the results; growth needs at least two"},
		// Both branches are checked, whatever this machine's numbers pick.
		{`1 < 2 ? "a" : nope.x < 1 ? "b" : "c"`, "nope", "unknown metric nope.x"},
		{"2 < 1 && nope.x < 1", "nope", "unknown metric nope.x"},
		{"1 < 2 || nope.x < 1", "nope", "unknown metric nope.x"},
		// Formats that do not fit.
		{"readiness.round[api=poll, idle=100] | bytes", "bytes", "format bytes shows a size in bytes, but the value is a duration (use dur, ns, us or ms)"},
		{"bufs.size[n=1] | dur", "dur", "format dur shows a duration, but the value is a size in bytes (use bytes or int)"},
		{"blocking.ready_read | int", "int", "format int shows a plain number, but the value is a duration"},
		{"blocking.ready_read | x", "x", "format x shows a ratio, but the value is a duration"},
		{"bufs.size[n=1] | pct", "pct", "format pct shows a ratio"},
		{"1 < 2 | dur", "dur", "a condition has no format dur"},
		{`1 < 2 ? "a" : "b" | x`, "x", "a string has no format x"},
		{"threads.ceiling.count | label", "label", "format label needs a metric whose values have names"},
		{"threads.flaky.limit | label", "label", "value 1.5 is not a code with a name (codes are 0–3: cap, threads-max, pid_max, RLIMIT_NPROC)"},
	}
	for _, tt := range tests {
		_, err := eval(t, tt.src)
		if err == nil {
			t.Errorf("Eval(%q) succeeded, want error %q", tt.src, tt.msg)
			continue
		}
		pe, ok := err.(*Error)
		if !ok {
			t.Errorf("Eval(%q) error is %T, want *Error", tt.src, err)
			continue
		}
		off := strings.Index(tt.src, tt.at)
		if !strings.Contains(pe.Msg, tt.msg) || pe.Off != off {
			t.Errorf("Eval(%q) = error at %d %q,\nwant at %d (%q) %q", tt.src, pe.Off, pe.Msg, off, tt.at, tt.msg)
		}
		if pe.Off < 0 || pe.Len <= 0 || pe.Off+pe.Len > len(tt.src) {
			t.Errorf("Eval(%q): error span [%d,+%d) outside the source", tt.src, pe.Off, pe.Len)
		}
	}
}

// Conditions used to build three-valued tests: blocking.ready_read runs over
// 298–1,207 ns around a median of 500 ns.
const (
	T = "1 < 2"
	F = "2 < 1"
	U = "blocking.ready_read < 1us"
)

func TestTruth(t *testing.T) {
	tests := []struct {
		src  string
		want Truth
	}{
		// Points.
		{"1 < 2", True}, {"2 < 1", False}, {"2 < 2", False},
		{"2 <= 2", True}, {"3 <= 2", False},
		{"2 > 2", False}, {"3 > 2", True},
		{"2 >= 2", True}, {"1 >= 2", False},
		{"2 == 2", True}, {"2 == 3", False}, {"2 != 2", False}, {"2 != 3", True},
		{"1ms == 1000us", True}, {"1KiB == 1024B", True},
		{"growth(readiness.round[api=epoll], idle) < 2", True},
		// Intervals: [298 ns, 1207 ns].
		{"blocking.ready_read < 2us", True},
		{"blocking.ready_read < 1us", Unknown},
		{"blocking.ready_read < 200ns", False},
		{"blocking.ready_read < 298ns", False},
		{"blocking.ready_read < 1207ns", Unknown},
		{"blocking.ready_read <= 1207ns", True},
		{"blocking.ready_read <= 297ns", False},
		{"blocking.ready_read <= 298ns", Unknown},
		{"blocking.ready_read > 100ns", True},
		{"blocking.ready_read > 298ns", Unknown},
		{"blocking.ready_read > 1207ns", False},
		{"blocking.ready_read >= 298ns", True},
		{"blocking.ready_read >= 1208ns", False},
		{"blocking.ready_read == 500ns", Unknown},
		{"blocking.ready_read == 2us", False},
		{"blocking.ready_read != 2us", True},
		{"blocking.ready_read != 500ns", Unknown},
		{"blocking.ready_read == blocking.ready_read", Unknown}, // two runs' worth of spread, not identity
		{"threads.ceiling.count == 4068", True},
		// A count known to ±1 ([4095, 4096]): within one step of a bound
		// an order is undecided, an equality holds; the step survives a
		// difference and scaling by a literal, not a product of figures.
		{"threads.park.threads > 4093", True},
		{"threads.park.threads > 4094", Unknown},
		{"threads.park.threads < 4097", Unknown},
		{"threads.park.threads < 4098", True},
		{"threads.park.threads >= 4098", False},
		{"threads.park.threads >= 4097", Unknown},
		{"threads.park.threads == 4096", True},
		{"threads.park.threads == 4095", True},
		{"threads.park.threads == 4094", Unknown},
		{"threads.park.threads == 4093", False},
		{"threads.park.threads != 4092", True},
		{"threads.park.threads - 96 > 3998", Unknown},
		{"threads.park.threads / 2 > 2047", Unknown},
		{"threads.park.threads / 2 > 2046", True},
		{"threads.park.threads * threads.ceiling.count > 4095 * 4068", Unknown},
		{"threads.park.threads * threads.ceiling.count >= 4095 * 4068", True},
		{"2 * blocking.ready_read > blocking.ready_read", Unknown},
		{"growth(readiness.round[api=epoll], idle) > 1.1", Unknown},
		{"growth(readiness.round[api=poll], idle) > 90", True},
		{"slope(readiness.round[api=poll], idle) > 0.9", True},
		{"slope(readiness.round[api=poll], idle) > 1", Unknown},
		// Kleene.
		{T + " && " + T, True}, {T + " && " + F, False}, {T + " && " + U, Unknown},
		{F + " && " + U, False}, {U + " && " + F, False}, {U + " && " + U, Unknown},
		{F + " || " + F, False}, {F + " || " + U, Unknown}, {T + " || " + U, True},
		{U + " || " + T, True}, {U + " || " + U, Unknown},
		{"!(" + U + ")", Unknown}, {"!(" + T + ")", False}, {"!(" + F + ")", True},
		{"!!(" + T + ")", True},
	}
	for _, tt := range tests {
		v, err := eval(t, tt.src)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.src, err)
			continue
		}
		if v.Kind != Bool || v.Truth != tt.want {
			t.Errorf("Eval(%q) = %v %v, want %v", tt.src, v.Kind, v.Truth, tt.want)
		}
	}
}

// TestInconclusive checks that an undecided ?: takes its else branch and
// says so, and that a decided one does not.
func TestInconclusive(t *testing.T) {
	// The warning names the condition with its operands' values.
	const lt = "blocking.ready_read = 500 ns (298 ns–1.21 μs) < 1us"
	const gt = "blocking.ready_read = 500 ns (298 ns–1.21 μs) > 1us"
	tests := []struct {
		src  string
		want string
		inc  []string
	}{
		{`blocking.ready_read < 1us ? "fast" : "slow"`, "slow", []string{lt}},
		{`(blocking.ready_read < 1us) ? "fast" : "slow"`, "slow", []string{lt}},
		{`blocking.ready_read < 2us ? "fast" : "slow"`, "fast", nil},
		{`blocking.ready_read < 200ns ? "fast" : "slow"`, "slow", nil},
		{`1 < 2 ? (blocking.ready_read < 1us ? "a" : "b") : "c"`, "b", []string{lt}},
		{`2 < 1 ? (blocking.ready_read < 1us ? "a" : "b") : "c"`, "c", nil}, // the untaken branch does not warn
		// With an unsure branch, the undecided condition picks it and is
		// not a warning; a decided one ignores it.
		{`blocking.ready_read < 1us ? "fast" : "slow" ~ "unsure"`, "unsure", nil},
		{`blocking.ready_read < 2us ? "fast" : "slow" ~ "unsure"`, "fast", nil},
		{`blocking.ready_read < 200ns ? "fast" : "slow" ~ "unsure"`, "slow", nil},
		// ~ belongs to the nearest ?: on its left.
		{`blocking.ready_read < 2us ? "a" : blocking.ready_read < 1us ? "b" : "c" ~ "d"`, "a", nil},
		{`blocking.ready_read < 200ns ? "a" : blocking.ready_read < 1us ? "b" : "c" ~ "d"`, "d", nil},
		{`blocking.ready_read < 1us ? "a" : (blocking.ready_read < 2us ? "b" : "c") ~ "d"`, "d", nil},
		{`(blocking.ready_read < 1us ? 1 : 2) < 3 ? "a" : "b"`, "a", []string{lt}},
		{`(blocking.ready_read < 1us ? 1ms : 2ms) + (blocking.ready_read > 1us ? 1ms : 2ms)`, "4 ms",
			[]string{lt, gt}},
	}
	for _, tt := range tests {
		v, err := eval(t, tt.src)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.src, err)
			continue
		}
		got, _ := v.Format("")
		if got != tt.want || !slices.Equal(v.Inconclusive, tt.inc) {
			t.Errorf("Eval(%q) = %q inconclusive %q; want %q, %q", tt.src, got, v.Inconclusive, tt.want, tt.inc)
		}
	}
}

// TestInterval checks interval arithmetic against intervals worked out by
// hand. a = blocking.ready_read: 500 ns in [298, 1207] ns; b =
// threads.handoff.time[sleeping=0]: 10 μs in [9, 11] μs.
func TestInterval(t *testing.T) {
	const a, b = "blocking.ready_read", "threads.handoff.time[sleeping=0]"
	ns := 1e-9
	tests := []struct {
		src         string
		num, lo, hi float64
		dim         Dim
		ratio       bool
		runs        int
	}{
		{a, 500 * ns, 298 * ns, 1207 * ns, Duration, false, 3},
		{b + " - " + a, 9500 * ns, 9000*ns - 1207*ns, 11000*ns - 298*ns, Duration, false, 3},
		{a + " + " + b, 10500 * ns, 9298 * ns, 12207 * ns, Duration, false, 3},
		{a + " * 2", 1000 * ns, 596 * ns, 2414 * ns, Duration, false, 3},
		{a + " * -1", -500 * ns, -1207 * ns, -298 * ns, Duration, false, 3},
		{"-" + a, -500 * ns, -1207 * ns, -298 * ns, Duration, false, 3},
		{a + " / 2", 250 * ns, 149 * ns, 603.5 * ns, Duration, false, 3},
		{b + " / " + a, 20, 9000.0 / 1207, 11000.0 / 298, Dimensionless, true, 3},
		{a + " / " + b, 0.05, 298.0 / 11000, 1207.0 / 9000, Dimensionless, true, 3},
		{"abs(" + a + " - 1us)", 500 * ns, 0, 702 * ns, Duration, false, 3},
		{"abs(" + a + " - 2us)", 1500 * ns, 793 * ns, 1702 * ns, Duration, false, 3},
		{"min(" + a + ", " + b + ")", 500 * ns, 298 * ns, 1207 * ns, Duration, false, 3},
		{"max(" + a + ", 1us)", 1000 * ns, 1000 * ns, 1207 * ns, Duration, false, 3},
		{"min(" + a + ", 1us)", 500 * ns, 298 * ns, 1000 * ns, Duration, false, 3},
		{"(" + a + " / 1us - 1) * (" + a + " / 1us - 1)", 0.25, -0.702 * 0.207, 0.702 * 0.702, Dimensionless, true, 3},
		// growth: last over first, [last.Min/first.Max, last.Max/first.Min].
		{"growth(threads.handoff.time, sleeping)", 3, 25.0 / 11, 40.0 / 9, Dimensionless, true, 5},
		{"growth(readiness.round[idle=100], api)", 0.8, 39.0 / 53, 41.0 / 48, Dimensionless, true, 2},
		// Literal only: runs 0, a point.
		{"1ms + 2ms", 3e-3, 3e-3, 3e-3, Duration, false, 0},
		// Runs: the fewest among references.
		{"readiness.round[api=select, idle=100] + readiness.round[api=poll, idle=100]", 90e-6, 87e-6, 94e-6, Duration, false, 2},
	}
	for _, tt := range tests {
		v, err := eval(t, tt.src)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.src, err)
			continue
		}
		near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))+1e-30 }
		if !near(v.Num, tt.num) || !near(v.Lo, tt.lo) || !near(v.Hi, tt.hi) || v.Dim != tt.dim || v.Ratio != tt.ratio || v.Runs != tt.runs {
			t.Errorf("Eval(%q) = %g [%g, %g] %v ratio=%v runs=%d;\nwant %g [%g, %g] %v ratio=%v runs=%d",
				tt.src, v.Num, v.Lo, v.Hi, v.Dim, v.Ratio, v.Runs, tt.num, tt.lo, tt.hi, tt.dim, tt.ratio, tt.runs)
		}
	}
}

// TestSlopeInterval checks slope against a fit done by hand and the
// interval's defining property: no choice of values inside the run
// intervals gives a slope outside it, and its ends are reached.
func TestSlopeInterval(t *testing.T) {
	v, err := eval(t, "slope(threads.handoff.time, sleeping)")
	if err == nil {
		t.Fatalf("slope over sleeping=0 should fail, got %v", v)
	}
	v, err = eval(t, "slope(readiness.round[api=poll], idle)")
	if err != nil {
		t.Fatal(err)
	}
	m := testEnv()[""]["readiness.round"]
	var xs []float64
	var pts []Sample
	for _, s := range m.Samples {
		if s.Params["api"] == "poll" {
			pts = append(pts, s)
			xs = append(xs, map[string]float64{"100": 100, "1000": 1000, "10000": 10000}[s.Params["idle"]])
		}
	}
	fit := func(ys []float64) float64 {
		var mx, my float64
		for i := range xs {
			mx += math.Log(xs[i]) / float64(len(xs))
			my += math.Log(ys[i]) / float64(len(xs))
		}
		var num, den float64
		for i := range xs {
			num += (math.Log(xs[i]) - mx) * (math.Log(ys[i]) - my)
			den += (math.Log(xs[i]) - mx) * (math.Log(xs[i]) - mx)
		}
		return num / den
	}
	med := []float64{pts[0].Median, pts[1].Median, pts[2].Median}
	if got := fit(med); math.Abs(got-v.Num) > 1e-12 {
		t.Errorf("slope = %v, hand fit %v", v.Num, got)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for corner := range 8 { // every point at its min or max
		ys := make([]float64, 3)
		for i := range ys {
			ys[i] = pts[i].Min
			if corner&(1<<i) != 0 {
				ys[i] = pts[i].Max
			}
		}
		s := fit(ys)
		lo, hi = math.Min(lo, s), math.Max(hi, s)
	}
	if math.Abs(lo-v.Lo) > 1e-12 || math.Abs(hi-v.Hi) > 1e-12 {
		t.Errorf("slope interval [%v, %v], corners give [%v, %v]", v.Lo, v.Hi, lo, hi)
	}
}

func TestExplain(t *testing.T) {
	tests := []struct{ src, want string }{
		{"growth(readiness.round[api=epoll], idle) < 2", "growth(readiness.round[api=epoll], idle) = 1.02× (0.947×–1.13×) < 2"},
		{"readiness.round[api=poll, idle=100] > 2 * readiness.round[api=select, idle=100]",
			"readiness.round[api=poll, idle=100] = 50 μs (48 μs–53 μs) > 2 * readiness.round[api=select, idle=100] = 80 μs (78 μs–82 μs)"},
		{U + " && " + T, "blocking.ready_read = 500 ns (298 ns–1.21 μs) < 1us [inconclusive] && 1 < 2 [holds]"},
		{"!(" + F + ")", "!(2 < 1 [fails])"},
		{"nope.x < -1", "nope.x = (unknown metric nope.x) < -1"},
		{"threads.ceiling.limit == 2", "threads.ceiling.limit = 2 (pid_max) == 2"},
		{"bufs.size[n=8] > 64KiB", "bufs.size[n=8] = 62.1 KiB (61.5 KiB–62.5 KiB) > 64KiB"},
		{`growth(readiness.round[api=poll], idle) > 2 ? "grows" : "flat"`, `growth(readiness.round[api=poll], idle) > 2 ? "grows" : "flat" = "grows"`},
		{`ref("m1", readiness.round[api=epoll, idle=10000]) < 1us`, `ref("m1", readiness.round[api=epoll, idle=10000]) = 919 ns < 1us`},
	}
	for _, tt := range tests {
		e, err := Parse(tt.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.src, err)
		}
		if got := e.Explain(testEnv()); got != tt.want {
			t.Errorf("Explain(%q) =\n%s\nwant\n%s", tt.src, got, tt.want)
		}
	}
}

func TestEvalNilEnv(t *testing.T) {
	e, err := Parse("a.b + 1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(nil); err == nil || err.(*Error).Off != 0 {
		t.Errorf("Eval(nil) = %v, want an error at the reference", err)
	}
	if v, err := mustParse(t, "1 + 1").Eval(nil); err != nil || v.Num != 2 {
		t.Errorf("literals need no data: %v %v", v, err)
	}
}

func mustParse(t *testing.T, src string) *Expr {
	t.Helper()
	e, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
