package evaluate

// The words evaluation writes into the views a reader sees, in the book's
// language (Korean), in one place for a later localisation to swap (the
// verdicts' are in package view, the renderer's own in render/words.go).
// Warnings and errors, read by the author, stay in English beside the
// code that finds them.

import (
	"fmt"

	"measuredbook/view"
)

// Shown is the claim's verdict as a page shows it.
func (c Claim) Shown() view.Verdict { return view.VerdictOf(c.Verdict, c.Unavailable) }

// staleKo is a stale result's mark on the page.
func staleKo(why string) string { return "⚠ 오래된 결과 (stale: " + why + ")" }

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
		return view.UnavailableNote(g.why)
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
