package view

// The words a reader sees on a page, in the book's language (Korean), in
// one place for a later localisation to swap: the verdicts, the notes and
// placeholders evaluation writes into the views, and the renderer's own.
// Warnings and errors, read by the author, stay in English beside the
// code that finds them.

import (
	"fmt"
	"strconv"
	"strings"

	"measuredbook/dataset"
	"measuredbook/expr"
)

// Verdict is a claim's verdict as a page shows it.
type Verdict int

// The verdicts a page shows.
const (
	Holds Verdict = iota
	Fails
	Inconclusive
	Unavailable // the claim is about what the machine cannot measure: no verdict
)

// verdicts gives each verdict its class (mb-CLASS), mark and word.
var verdicts = [...]struct{ class, mark, word string }{
	Holds:        {"holds", "✓", "성립"},
	Fails:        {"fails", "✗", "불성립"},
	Inconclusive: {"inconclusive", "?", "판정 보류"},
	Unavailable:  {"unavailable", "–", "해당 없음"},
}

// VerdictOf is the verdict shown for t, or Unavailable when unavailable
// (why the claim does not apply) is set.
func VerdictOf(t expr.Truth, unavailable string) Verdict {
	switch {
	case unavailable != "":
		return Unavailable
	case t == expr.True:
		return Holds
	case t == expr.False:
		return Fails
	}
	return Inconclusive
}

// Class is the verdict's CSS class without its mb- prefix.
func (v Verdict) Class() string { return verdicts[v].class }

// Word is the verdict in the book's language.
func (v Verdict) Word() string { return verdicts[v].word }

// String is the verdict's mark and word, as a page shows it.
func (v Verdict) String() string { return verdicts[v].mark + " " + verdicts[v].word }

// The words of provenance lines, hovers and placeholders.
const (
	ThisMachine     = "이 기계"         // the build's own machine, unnamed
	NoFigure        = "—"            // a figure's place when there is none; its title says why
	NotMeasured     = "측정 없음"        // a figure with no result
	FailedCell      = "실패"           // a table cell whose combination failed
	NoSuchMetric    = "이 결과에 없는 지표"  // a cell of a metric the result lacks
	TranscribedCell = "원서에서 옮겨 적은 값" // a cell of a transcribed set
	MeasuredMark    = "✅ 실측"         // a provenance line of a measured set
	TranscribedMark = "📄 옮겨 적음"      // a provenance line of a transcribed set
	SameEachRun     = "실행마다 같음"      // a spread of zero
	RestSameEachRun = "그 밖은 실행마다 같음" // the metrics a spread leaves out
	DashedNote      = "; 점선: "       // what a plot's dashed series are
	CumulativeShare = "누적 비율"        // a distribution plot's y axis
	FixedPrefix     = "고정: "         // an experiment's fixed params
	RuleWord        = "규칙"           // a claim decided by rule
	MeasuredPrefix  = "측정값: "        // the values a claim was decided on
	SectionLink     = "이 절의 링크: "    // a heading's link to itself
	TableWord       = "표"            // a table's scroll region
	PlotWord        = "그림"           // a plot's scroll region
	RawData         = "원자료"          // an experiment's raw data for download
	// SpreadNote is the hover of a provenance line's spread.
	SpreadNote = "편차: 지표마다, 조합별 (최댓값 − 최솟값) ÷ 중앙값의 절반 가운데 가장 큰 값. 중앙값이 1보다 작은 횟수는 상대 편차가 뜻이 없어 뺍니다."
	// RuleNote is the hover of a claim a probe decides by rule: its verdict
	// restates the probe's definition, it is not a finding.
	RuleNote = "규칙으로 판정: 프로브가 정한 규칙에 따른 값이며, 측정으로 확인한 결과가 아닙니다"
)

// UnavailableNote is the text where the set's machine cannot measure a
// combination: the probe's own reason, in English in the results, in the
// book's words when it is the usual one ("kqueue is not available on
// linux": "linux에 없는 kqueue").
func UnavailableNote(reason string) string {
	if what, goos, ok := strings.Cut(reason, " is not available on "); ok && !strings.Contains(goos, " ") {
		reason = goos + "에 없는 " + what
	}
	return "이 기계에서는 잴 수 없음: " + reason
}

// staleWords name what a stale result's reasons say changed.
var staleWords = map[string]string{"probe code": "프로브 코드", "params": "매개변수 목록", "runs": "실행 횟수 규칙"}

// StaleNote is a stale result's mark.
func StaleNote(why string) string { return "⚠ 오래된 결과: " + staleReasons(why) }

// staleReasons puts the build's reasons a result is stale, in English,
// "; " between them, in the book's words: each "WHAT changed (A → B)" as
// "프로브 코드 바뀜 (A → B)", a param's name kept as written.
func staleReasons(why string) string {
	parts := strings.Split(why, "; ")
	for i, p := range parts {
		what, change, ok := strings.Cut(p, " changed (")
		if !ok {
			continue
		}
		if w, known := staleWords[what]; known {
			what = w
		}
		parts[i] = what + " 바뀜 (" + change
	}
	return strings.Join(parts, "; ")
}

// MissingNote is the placeholder of a result set (the build's own: "")
// holds no result of experiment id.
func MissingNote(set, id string) string {
	if set != "" {
		return fmt.Sprintf("세트 %s에 %s 결과가 없습니다", set, id)
	}
	return fmt.Sprintf("측정 없음: go run . run %s", id)
}

// MixedNote is the note on a value that combines figures of n machines.
func MixedNote(n int) string { return fmt.Sprintf("기계 %d대의 수치를 섞은 값", n) }

// SettingNote names the setting a value shows: param name of experiment id.
func SettingNote(id, name string) string { return fmt.Sprintf("설정: 실험 %s의 %s", id, name) }

// FingerprintNote names the machine whose recorded fact a value shows.
func FingerprintNote(machine string) string { return "기계 지문: " + machine }

// TranscribedPrefix starts the note on a figure of a transcribed set.
func TranscribedPrefix(machine string) string { return machine + ": 원 책에서 옮겨 적은 값" }

// TranscribedNote is the note on a figure of a transcribed set, and where
// it comes from.
func TranscribedNote(machine, source string) string {
	return TranscribedPrefix(machine) + ", 여기서 측정하지 않음 (" + source + ")"
}

// OtherSetNote is the note on a figure of another machine's set.
func OtherSetNote(machine, set string) string {
	return fmt.Sprintf("%s: 다른 기계의 세트 %s", machine, set)
}

// NoResultOn is a machine's part of a provenance line when its set has
// no result.
func NoResultOn(machine string) string { return machine + ": 결과 없음" }

// NotOn is the hover of a cell another machine's set has no figure for.
func NotOn(machine string) string { return machine + "에 없는 수치" }

// ThisMachineAs names the build's own series beside a reference set's.
func ThisMachineAs(name string) string { return ThisMachine + " (" + name + ")" }

// NoFigures is the placeholder of a plot whose result has no figures of
// metric.
func NoFigures(id, metric string) string {
	return fmt.Sprintf("측정 없음: %s 결과에 %s 값이 없습니다", id, metric)
}

// NoDistribution is the placeholder of a distribution plot whose result
// has no quantiles.
func NoDistribution(id string) string {
	return fmt.Sprintf("측정 없음: %s 결과에 분포 값이 없습니다", id)
}

// NotApplicable is the note on figures an optional metric does not apply
// to (which, "" for a cell), and why.
func NotApplicable(which, why string) string {
	if which == "" {
		return "해당 없음: " + why
	}
	return "해당 없음 (" + which + "): " + why
}

// PlotTitle is the default title of a plot of y over x.
func PlotTitle(x, y string) string { return fmt.Sprintf("%s에 따른 %s", x, y) }

// DistributionTitle is the default title of a distribution plot.
func DistributionTitle(metric string) string { return metric + "의 분포" }

// Spread is a provenance line's spread part.
func Spread(s string) string { return "편차 " + s }

// Failures is a provenance line's count of failed combinations.
func Failures(n int) string { return fmt.Sprintf("실패 %d건", n) }

// BelowTenthPercent is a metric whose spread is under 0.1%.
func BelowTenthPercent(metric string) string { return metric + " ±0.1% 미만" }

// TranscribedMachine marks the machine of a transcribed set.
func TranscribedMachine(machine string) string { return "📄 " + machine + " (옮겨 적음)" }

// Runs says how many runs a result's combinations had, lo to hi.
func Runs(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("%d회 실행", hi)
	}
	return fmt.Sprintf("%d–%d회 실행", lo, hi)
}

// Interval follows Runs under runs: auto: the widest 95 % interval of a
// headline median in percent ("" when there was none yet), and when it
// missed the precision asked, why the runs stopped (a results file's
// stopped: line, which is English).
func Interval(interval string, reached bool, precision float64, why string) string {
	s := ", 신뢰구간 없음"
	if interval != "" {
		s = ", ±" + interval + " %"
	}
	if reached {
		return s
	}
	switch {
	case strings.HasPrefix(why, "budget reached (") && strings.HasSuffix(why, ")"):
		why = "시간 예산 " + strings.TrimSuffix(strings.TrimPrefix(why, "budget reached ("), ")") + " 소진"
	case strings.HasPrefix(why, "at most ") && strings.HasSuffix(why, " runs"):
		why = "실행 횟수 상한 " + strings.TrimSuffix(strings.TrimPrefix(why, "at most "), " runs") + "회"
	}
	return s + fmt.Sprintf(" (목표 ±%g %% 미달: %s)", precision, why)
}

// The gaps' placeholders: a figure the page cannot show, and why.

// NoRecordNote: machine did not record machine fact.
func NoRecordNote(machine, fact string) string {
	return "기록 없음: " + machine + "의 machine." + fact
}

// NotInOriginalNote: the transcribed set holds no figure what.
func NotInOriginalNote(what string) string { return "원서에 없는 수치: " + what }

// StaleLacksNote: the stale result (why) was measured without what.
func StaleLacksNote(what, why string) string {
	return "측정 없음: 오래된 결과에 " + what + " (" + staleReasons(why) + ") 값이 없습니다"
}

// FailedNote: the combination what failed to measure (why), on set when
// it is another machine's; why may be "".
func FailedNote(set, what, why string) string {
	if why != "" {
		what += ": " + why
	}
	if set != "" {
		return set + "에서 측정 실패: " + what
	}
	return "측정 실패: " + what
}

// MachineSummary is the one-line description of a machine shown in
// provenance: "AMD EPYC, 코어 2개, 24 GiB, OS, kernel, Go release".
func MachineSummary(f dataset.Fingerprint) string {
	var parts []string
	if f.CPU != "" {
		parts = append(parts, fmt.Sprintf("%s, 코어 %d개", f.CPU, f.Cores))
	}
	if f.Memory > 0 {
		parts = append(parts, fmt.Sprintf("%.0f GiB", float64(f.Memory)/(1<<30)))
	}
	for _, s := range []string{f.OS, f.Kernel, f.Go} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// limitWords name the environment page's limits (a fingerprint's Limits
// keys) and say what each counts.
var limitWords = map[string]string{
	"nofile":      "열 수 있는 파일 수 (RLIMIT_NOFILE, 소프트/하드)",
	"nproc":       "사용자당 태스크 수 (RLIMIT_NPROC, 소프트/하드)",
	"pid-max":     "PID 상한 (kernel.pid_max)",
	"pids-max":    "cgroup 태스크 상한 (pids.max)",
	"threads-max": "시스템 전체 스레드 상한 (kernel.threads-max)",
}

// Limit is the environment page's row of limit key: its words, and its
// value with each number grouped ("20,000/20,000"; "max": none).
func Limit(key, value string) (words, shown string) {
	words, ok := limitWords[key]
	if !ok {
		words = "한도 " + key
	}
	parts := strings.Split(value, "/")
	for i, p := range parts {
		parts[i] = Grouped(p)
		if p == "max" {
			parts[i] = "없음 (max)"
		}
	}
	return words, strings.Join(parts, "/")
}

// Grouped is a whole number v written as prose writes it ("4,000"); any
// other v as it is.
func Grouped(v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return v
	}
	g, err := expr.Value{Num: float64(n)}.Format("int")
	if err != nil {
		return v
	}
	return g
}

// SettingHead and MeasuredHead tell apart the columns of a param and a
// metric that have the same words: the count asked for, the count seen.
func SettingHead(words string) string { return words + " (설정)" }

// MeasuredHead: see SettingHead.
func MeasuredHead(words string) string { return words + " (측정)" }

// The words of the fleet's site: the switcher on every page between the
// book and each machine's copy of it (machines/NAME/), and the machines
// page that lists them.
const (
	FleetNav       = "다른 기계에서 잰 같은 쪽"    // the switcher's label
	MachinesTitle  = "기계별 판"             // the machines page's title
	MachinesLink   = "기계별 비교"            // the switcher's link to the machines page
	BookEdition    = "책의 판"              // the published book, among the copies
	MachineEdition = "이 기계의 수치로 지은 책 보기" // a copy's link on the machines page
	MachinesIntro  = "여러 기계가 책 전체를 각자 재었고, 기계마다 그 수치로 같은 책을 한 벌씩 지었습니다. " +
		"어느 쪽에서든 아래쪽의 기계 이름을 누르면 같은 쪽을 그 기계의 수치로 볼 수 있습니다. " +
		"비교는 책의 기계와 견준 것으로, 장에서 쓰는 지표만 셉니다."
)

// CompareSummary says in a sentence how a machine's figures stand against
// the book's machine's (fleet.Tally's numbers): book is the book's set.
func CompareSummary(book string, compared, higher, lower, same, untested int, geomean float64) string {
	if compared == 0 {
		return fmt.Sprintf("책의 기계(%s)와 견줄 수 있는 수치가 없습니다.", book)
	}
	s := fmt.Sprintf("책의 기계(%s)와 견준 수치 %d개 가운데 유의하게 큰 것 %d개, 작은 것 %d개, 차이를 말할 수 없는 것 %d개", book, compared, higher, lower, same)
	if untested > 0 {
		s += fmt.Sprintf(", 실행 기록이 없어 검정하지 못한 것 %d개", untested)
	}
	if geomean > 0 {
		s += fmt.Sprintf("; 중앙값 비의 기하평균 ×%.3g", geomean)
	}
	return s + "."
}
