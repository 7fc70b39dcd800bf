// Package expr evaluates the expressions a chapter writes inside inline
// values {{ EXPR | FORMAT }}, in claim.expect and in when.if.
//
// An expression is arithmetic over measured results. The figures it shows
// come from references to stored results, never from typed numbers (a
// literal is a bound or a factor: < 2, * 1000), so a sentence built on it
// stays true when the book is rebuilt on a machine where the numbers come
// out otherwise. The renderer holds chapters to it: an inline value or a
// when condition must refer to a result, a setting or a machine fact, and a
// claim to a result ({{ 5 * 3 }} and expect: 1 < 2 are errors); Refs,
// Params and Facts say what an expression refers to.
//
// # References
//
// A reference names one metric of one experiment and picks one parameter
// combination with a selector:
//
//	readiness.round[api=poll, idle=10000]
//	threads.handoff.time[sleeping=100]
//	syscall.overhead.getpid
//	blocking.ready_read[]
//
// The reference is a dotted path whose last segment is the metric; everything
// before it is the experiment id, which may itself contain dots (the second
// example is metric "time" of experiment "threads.handoff"). Ids and metrics
// are made of letters, digits and underscores; a '-' is always subtraction.
//
// The selector [k=v, ...] may be omitted, or written [], when the experiment
// has a single parameter combination. Otherwise it must pick exactly one; a
// selector that leaves a param free is an error that names the params to add
// and their values. A value matches a stored one when the texts are equal,
// when both are numbers and equal (1e4 matches 10000), or when both are
// durations and equal (500us, 500µs and 0.5ms all match 500µs).
//
// A reference's value is the median of its runs. It is also an interval: the
// minimum and maximum over the runs. Both travel through the arithmetic.
//
// # Settings and machine facts
//
// Prose that states how an experiment was run reads it from the
// experiment's block rather than typing it, so the sentence follows the
// block:
//
//	empty_read.param.delay        500 μs   (a duration param, in dur)
//	empty_read.param.reads        2,000    (a number, in int)
//	readiness.param.api           epoll    (a word)
//	readiness.param.idle          100, 1,000, 10,000   (a swept param: its list)
//	readiness.param.idle | range  100–10,000
//	max(readiness.param.idle)     10,000
//
// ID.param.NAME is the value the block declares (the default when the
// block does not set it); the segment before the last is the word param,
// so no experiment id ends in ".param". A swept param takes no selector:
// it is its list of values, which can be shown, shown as a range, or
// reduced with min and max, but not computed with. A setting is a point
// (no runs), so blocking.ready_read[] * blocking.param.calls is the time
// of all the reads.
//
// Facts of the machine that measured the data set come from its
// fingerprint, never from typed text:
//
//	machine.cores         the CPU count
//	machine.memory        its memory, in bytes (bytes format: 8 GiB)
//	machine.virtual       a condition: holds on a virtual machine guest
//	machine.transcribed   a condition: holds on a set transcribed from a
//	                      publication (m1), fails on a measured one
//	machine.linux         a condition: holds on a Linux machine (also
//	machine.darwin        machine.darwin, macOS, and machine.freebsd: the
//	machine.freebsd       kernel's name the fingerprint records)
//	machine.threads_max   machine.pid_max   machine.pids_max
//	machine.nofile_soft   machine.nofile_hard   (RLIMIT_NOFILE)
//	machine.nproc_soft    machine.nproc_hard    (RLIMIT_NPROC)
//
// Inside on("m1", …) they are that set's machine's. A limit the
// fingerprint did not record, or records as unlimited ("max"), is an
// error rather than a number; a condition the fingerprint did not record
// (machine.virtual of results measured before it was recorded, or of a
// transcribed set) is not known, and a ?: on it takes its unsure branch.
// A condition on facts alone is fine for prose:
//
//	{{ machine.virtual ? "가상 머신 게스트" : "실제 기계" ~ "" }}
//	{{ machine.linux ? "epoll" : "kqueue" }}
//
// Settings and facts need an Env that also implements Settings.
//
// # Numbers, strings and units
//
// Literal numbers may carry a unit: 2, 0.5, 1e3, 100ns, 500us (or 500µs), 1ms,
// 2s, 64B, 8KiB, 1MiB, 1GiB. A number without a unit is dimensionless.
//
// Strings are written in double quotes, with \" and \\ as the only escapes.
// A string may only be a result of ?:, as in
//
//	{{ growth(readiness.round[api=poll], idle) > 2 ? "자란다" : "평평하다" }}
//
// # Operators
//
// From the loosest to the tightest binding:
//
//	COND ? A : B ~ U       right-associative; ~ U is optional
//	||
//	&&
//	< <= > >= == !=        comparisons do not chain
//	+ -
//	* /
//	- ! (unary)
//
// Parentheses group as usual.
//
// Arithmetic keeps track of what a value measures. Durations are in seconds,
// sizes in bytes, counts are plain numbers:
//
//	duration ± duration       duration
//	duration × number         duration (also bytes × number)
//	duration ÷ number         duration (a time per item; also bytes ÷ number)
//	duration ÷ duration       ratio    (also bytes ÷ bytes, count ÷ count)
//
// Adding, subtracting or comparing values of different kinds is an error
// ("unit mismatch: duration < number; write the number with a unit: 2ns,
// 2us, 2ms or 2s"), as are products and quotients with no format to show
// them in (duration × duration, bytes ÷ duration). A ratio and a plain
// number are both dimensionless: growth(…) < 2 compares them. A bare 0 is
// zero of any unit, as in physical-units libraries: blocking.ready_read[] >
// 0 needs no 0ns.
//
// # Intervals and three-valued conditions
//
// Every value is a median with an interval around it. Literals are points.
// The interval of a sum, difference, product or quotient is every result the
// operands' intervals allow (interval arithmetic); dividing by an interval
// that contains zero is an error, since the quotient would be unbounded.
//
// A comparison is decided over the whole intervals:
//
//	a < b    holds when a.Hi < b.Lo, fails when a.Lo >= b.Hi, else inconclusive
//	a == b   holds only when both are the same point, fails when they are disjoint
//
// so a claim holds only when every run agrees, fails only when every run
// disagrees, and is inconclusive when the runs straddle the bound. A count
// of things (threads, wake-ups: a metric with a Resolution, 1) is known to
// one more or one fewer, and compares so: threads > 4000 is inconclusive
// at 4,001, and threads == 4096 holds at 4,095. The step is kept through
// sums, differences and scaling by a number written in the expression.
// Expr.Explain shows a claim's operands with their values and intervals,
// which is what a reader of a failing claim needs to see. The
// logical operators follow Kleene's three-valued logic: false && x is false
// and true || x is true whatever x is, and otherwise an inconclusive operand
// makes the result inconclusive.
//
// Prose is three-valued too. COND ? A : B ~ U takes A when COND holds, B
// when it fails and U when it is inconclusive (the runs disagree):
//
//	{{ growth(handoff.time[], sleeping) > 2 ? "두 배 넘게 느려졌다" : "거의 그대로였다" ~ "느려졌는지 실행마다 달랐다" }}
//
// B must be true when the condition fails, never merely when the runs
// disagree; U says what the runs do support. The ~ branch belongs to the
// nearest ?: on its left (a ? b : c ? d : e ~ f gives f when c is
// undecided); use parentheses to attach it elsewhere. Without ~ U, an
// inconclusive condition takes B and is recorded in Value.Inconclusive,
// explained with its operands' values, so that the build warns about the
// sentence it chose (and a strict build fails).
//
// Both operands of && and || and both branches of ?: are always evaluated,
// so a misspelt reference in the branch this machine does not take is still
// reported: a chapter that builds here must build where the numbers go the
// other way.
//
// # Functions
//
//	growth(REF, PARAM)   the value at PARAM's largest value over the value at its smallest
//	slope(REF, PARAM)    the least-squares slope of log(median) against log(PARAM)
//	min(A, B, ...)       the smallest; max(A, B, ...) the largest (of one kind)
//	min(REF), max(REF)   over every combination the selector leaves free
//	abs(A)
//	on("NAME", EXPR)     EXPR evaluated against the result set results/NAME/
//	ref("NAME", EXPR)    the same as on: its first name, kept for the chapters that use it
//
// # Several machines
//
// An expression draws on the build's result set unless on names another:
// on("m1", readiness.round[api=kqueue, idle=10000]) is the figure of the
// machine whose set is results/m1/ (the original book's M1, transcribed),
// on("linux-arm64-neoverse-n1-4c", …) another machine's measured one.
// Every reference inside on belongs to that set, and so do machine facts;
// an on inside another names its own set. The set is part of what the
// expression says, not of how it is shown: the caller decides how a figure
// of another set is marked (the page names the machine of every figure,
// and an expression that combines two machines' figures says so). ref is
// the same function under the name it had when the only other set was the
// reference set; both stay. Sets returns the names written, with their
// places, so that a caller that knows which sets exist can report a
// misspelt one; Eval asks the Env, which reports a set it has no data for.
//
// In growth and slope the selector must fix every param but PARAM (or the
// param must have a single value), as in
// growth(readiness.round[api=epoll], idle). PARAM's values are ordered as
// numbers or as durations; values that are neither keep the order of the
// results, and slope refuses them.
//
// growth is a ratio; its interval is the largest and smallest quotient the
// two endpoints' runs allow. slope is an exponent (1 is linear, 0 flat); its
// interval is exact for the least-squares fit: the slope is a weighted sum of
// the log values, so its extremes put every point at the end of its run
// interval that the point's weight favours.
//
// # Formats
//
// The format after | says how an inline value is shown. Without one, a value
// uses its kind's default: dur for durations, bytes for sizes, x for ratios,
// label for a code metric with named values, int for whole numbers, f2 for
// other numbers, the text itself for strings and holds / fails /
// inconclusive for conditions (the renderer localises these).
//
//	dur     873 ns, 31.2 μs, 5.25 ms, 1.5 s: 3 significant digits, unit picked
//	ns      674,705 ns   (also us → 31.2 μs, ms → 5.25 ms: a fixed unit)
//	int     4,068        rounded, thousands separators
//	f1, f2  1.5, 0.25    fixed decimals
//	x       5,712×, 22.5×, 1.4×: ratios, 1 decimal below 100
//	pct     96%, 4.5%    a ratio as a percentage, 1 decimal below 10%
//	bytes   64 B, 8 KiB, 62.1 KiB, 1.5 MiB
//	range   298–1,207 ns, 2,587–2,645: the run interval, unit written once
//	label   the name of a code value (the metric's Labels)
//
// Significant digits never round away the integer part: 1,234 s, not 1,230 s.
// Durations print with the Greek μ (U+03BC). A format that does not fit the
// value (bytes of a duration, x of a condition) is an error.
//
// # Errors
//
// Every error is an *Error with the byte offset and length of the culprit in
// the source text, so the caller can print FILE:LINE:COL. Unknown names of
// formats, functions, params and units come with the closest known name
// (see Closest); unknown selector values list the known ones.
package expr
