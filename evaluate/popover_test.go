package evaluate

import (
	"testing"

	"measuredbook/view"
)

// A value's title goes when its data attributes say all of it, and stays
// when it says more (a second set, a setting, a stale result).
func TestTitleInData(t *testing.T) {
	measured := map[string]string{"exp": "e", "machine": "box (CPU)", "range": "1–2 ms", "runs": "3"}
	ref := map[string]string{"exp": "e", "machine": "m1 (Apple M1)", "ref": "transcribed"}
	for _, tc := range []struct {
		title string
		data  map[string]string
		want  bool
	}{
		{"1–2 ms · 3회 실행 · box (CPU)", measured, true},
		{"1–2 ms · 3회 실행 · box (CPU) · m1 (Apple M1): 원 책에서 옮겨 적은 값, 여기서 측정하지 않음 (x)", measured, false},
		{"1–2 ms · 3회 실행 · box (CPU) · 설정: 실험 e의 n", measured, false},
		{"m1 (Apple M1): 원 책에서 옮겨 적은 값, 여기서 측정하지 않음 (transcribed from 원서 2장)", ref, true},
		{"m1 (Apple M1): 원 책에서 옮겨 적은 값, 여기서 측정하지 않음 (x) · box (CPU)", ref, false},
		{"설정: 실험 e의 n", nil, false},
	} {
		if got := titleInData(view.Korean, &view.Out{Title: tc.title, Data: tc.data}); got != tc.want {
			t.Errorf("titleInData(%q) = %v, want %v", tc.title, got, tc.want)
		}
	}
}
