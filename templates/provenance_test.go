package templates

import (
	"bytes"
	"strings"
	"testing"
)

// TestProvenance: the sentences about the figures are true of the set the
// build used: the book's machine, another set, a transcribed reference, or
// no results at all; gaps are counted. They never depend on the machine
// that runs the build, so the published site is the same from any machine.
func TestProvenance(t *testing.T) {
	tests := []struct {
		p          Provenance
		want, gaps string
	}{
		{Provenance{Set: "a", Machine: "a — CPU", Book: true, Experiments: 3}, "책의 측정 기계(a — CPU)에서 잰 값입니다", ""},
		{Provenance{Set: "b", Machine: "b — CPU", Experiments: 3, Missing: 1, Stale: 2}, "책의 측정 기계가 아닌 결과 세트 b(b — CPU)에서 잰 값입니다", "실험 1개는 결과가 없어 '측정 없음'으로 표시했습니다. 실험 2개는"},
		{Provenance{Set: "m1", Transcribed: true, Experiments: 3, Missing: 1}, "원서에서 옮겨 적은 참고 세트 m1의 값이며, 이 도구로 측정한 것이 아닙니다", "실험 1개는"},
		{Provenance{Set: "c", Experiments: 3, Missing: 3}, "아직 측정 결과가 없어", ""},
	}
	for _, tt := range tests {
		if got := tt.p.Source(); !strings.Contains(got, tt.want) {
			t.Errorf("%+v: Source() = %q, want it to contain %q", tt.p, got, tt.want)
		}
		if got := tt.p.Gaps(); !strings.HasPrefix(got, tt.gaps) || (tt.gaps == "") != (got == "") {
			t.Errorf("%+v: Gaps() = %q, want %q…", tt.p, got, tt.gaps)
		}
	}
}

// TestFooterSaysWhereFiguresComeFrom: the footer prints the provenance,
// not a fixed "every figure is measured".
func TestFooterSaysWhereFiguresComeFrom(t *testing.T) {
	tmpl, err := Parse(Embedded())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	data := map[string]any{"Book": "b", "Lang": "ko", "Provenance": Provenance{Set: "m1", Transcribed: true, Experiments: 1}}
	if err := tmpl.ExecuteTemplate(&b, "foot", data); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "옮겨 적은") || strings.Contains(s, "모두 실측") {
		t.Errorf("footer: %s", s)
	}
}
