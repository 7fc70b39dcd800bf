package render

// The words a reader sees on a page, in the book's language (Korean), in
// one place for a later localisation to swap. Warnings and errors, read
// by the author, stay in English beside the code that finds them.

import (
	"fmt"

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

// Shown is the claim's verdict as a page shows it.
func (c Claim) Shown() Verdict { return VerdictOf(c.Verdict, c.Unavailable) }

// ruleNote is the hover of a claim a probe decides by rule: its verdict
// restates the probe's definition, it is not a finding.
const ruleNote = "규칙으로 판정: 프로브가 정한 규칙에 따른 값이며, 측정으로 확인한 결과가 아닙니다"

// staleKo is a stale result's mark on the page.
func staleKo(why string) string { return "⚠ 오래된 결과 (stale: " + why + ")" }

// unavailableKo is the gap's text where the set's machine cannot measure a
// combination: the probe's own reason ("kqueue is not available on linux").
func unavailableKo(reason string) string { return "이 기계에서는 잴 수 없음: " + reason }

// missingKo is the placeholder's text on the page.
func missingKo(set, id string) string {
	if set != "" {
		return fmt.Sprintf("세트 %s에 %s 결과가 없습니다", set, id)
	}
	return fmt.Sprintf("측정 없음: go run . run %s", id)
}

// mixedKo is the note on a value that combines figures of n machines.
func mixedKo(n int) string { return fmt.Sprintf("기계 %d대의 수치를 섞은 값", n) }

// ko is the gap's placeholder on the page.
func (g gap) ko() string {
	switch g.kind {
	case gapFact:
		return "기록 없음: " + g.machine + "의 machine." + g.what
	case gapTranscribed:
		return "원서에 없는 수치: " + g.what
	case gapStale:
		return "측정 없음: 오래된 결과에 " + g.what + " (" + g.why + ") 값이 없습니다"
	case gapUnavailable:
		if g.set != "" {
			return g.set + "에서 측정 실패: " + g.what
		}
		return unavailableKo(g.why)
	case gapInapplicable:
		return "해당 없음 (" + g.what + "): " + g.why
	case gapFailed:
		if g.set != "" {
			return g.set + "에서 측정 실패: " + g.what + ": " + g.why
		}
		return "측정 실패: " + g.what + ": " + g.why
	}
	return missingKo(g.set, g.id)
}

// mark is the gap's text in place of a figure: a dash where no figure can
// be, else that none was measured.
func (g gap) mark() string {
	if g.kind == gapInapplicable || g.kind == gapUnavailable {
		return "—"
	}
	return "측정 없음"
}
