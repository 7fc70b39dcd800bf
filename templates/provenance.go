package templates

import "fmt"

// Provenance is what a build knows about where its figures come from, for
// the sentences the layouts print about them (the footer and the index):
// they must be true of the set the build used, not of the book's ideal.
type Provenance struct {
	Set         string // the result set's name
	Machine     string // its machine, described ("NAME — CPU, cores, …")
	Book        bool   // the set is the book's own (book.yaml's machine)
	Transcribed bool   // the figures were transcribed from the original book, not measured
	Experiments int    // experiments in the book
	Missing     int    // experiments the set has no result for (shown as 측정 없음)
	Stale       int    // experiments shown from a stale result (marked ⚠)
	Failed      int    // experiments with combinations that failed to measure
}

// Source says, in the book's language, where the figures come from.
func (p Provenance) Source() string {
	switch {
	case p.Experiments > 0 && p.Missing == p.Experiments:
		return fmt.Sprintf("결과 세트 %s에는 아직 측정 결과가 없어, 이 책의 수치 자리는 모두 비어 있습니다.", p.Set)
	case p.Transcribed:
		return fmt.Sprintf("이 책의 수치는 원서에서 옮겨 적은 참고 세트 %s의 값이며, 이 도구로 측정한 것이 아닙니다.", p.Set)
	case p.Book:
		return fmt.Sprintf("이 책의 수치는 책의 측정 기계(%s)에서 잰 값입니다.", p.Machine)
	}
	return fmt.Sprintf("이 책의 수치는 책의 측정 기계가 아닌 결과 세트 %s(%s)에서 잰 값입니다.", p.Set, p.Machine)
}

// Gaps says which figures are not what Source says: missing, stale or
// failed experiments; "" when there are none.
func (p Provenance) Gaps() string {
	if p.Experiments > 0 && p.Missing == p.Experiments {
		return ""
	}
	s := ""
	if p.Missing > 0 {
		s += fmt.Sprintf(" 실험 %d개는 결과가 없어 '측정 없음'으로 표시했습니다.", p.Missing)
	}
	if p.Stale > 0 {
		s += fmt.Sprintf(" 실험 %d개는 지금과 다른 설정이나 코드로 잰 오래된 결과라 ⚠로 표시했습니다.", p.Stale)
	}
	if p.Failed > 0 {
		s += fmt.Sprintf(" 실험 %d개는 일부 조합의 측정이 실패해 그 자리를 '측정 실패'로 표시했습니다.", p.Failed)
	}
	if s == "" {
		return ""
	}
	return s[1:]
}
