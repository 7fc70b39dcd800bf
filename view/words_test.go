package view

import "testing"

// TestGrouped: a whole number is grouped as prose groups it; anything
// else (a duration, a word, a code) is shown as written.
func TestGrouped(t *testing.T) {
	for in, want := range map[string]string{
		"4000": "4,000", "100000": "100,000", "200": "200", "-1": "-1", "-20000": "-20,000",
		"500us": "500us", "max": "max", "": "", "1e3": "1e3",
	} {
		if got := Grouped(in); got != want {
			t.Errorf("Grouped(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLimit: the environment page names each limit in words and groups
// its numbers; a limit it has no words for keeps its key.
func TestLimit(t *testing.T) {
	for _, tc := range []struct{ key, value, words, shown string }{
		{"nofile", "20000/20000", "열 수 있는 파일 수 (RLIMIT_NOFILE, 소프트/하드)", "20,000/20,000"},
		{"pids-max", "max", "cgroup 태스크 상한 (pids.max)", "없음 (max)"},
		{"threads-max", "192726", "시스템 전체 스레드 상한 (kernel.threads-max)", "192,726"},
		{"memlock", "65536", "한도 memlock", "65,536"},
	} {
		if words, shown := Limit(tc.key, tc.value); words != tc.words || shown != tc.shown {
			t.Errorf("Limit(%q, %q) = %q, %q; want %q, %q", tc.key, tc.value, words, shown, tc.words, tc.shown)
		}
	}
}

// TestReasonsInKorean: the build's and the probes' usual English reasons
// are shown in the book's words; one of another shape stays as written.
func TestReasonsInKorean(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{UnavailableNote("kqueue is not available on linux"), "이 기계에서는 잴 수 없음: linux에 없는 kqueue"},
		{UnavailableNote("needs root"), "이 기계에서는 잴 수 없음: needs root"},
		{StaleNote("probe code changed (f6d7673b → 09590464); runs changed (runs: 3 → runs: auto ±5%)"),
			"⚠ 오래된 결과: 프로브 코드 바뀜 (f6d7673b → 09590464); 실행 횟수 규칙 바뀜 (runs: 3 → runs: auto ±5%)"},
		{StaleNote("calls changed (200 → 2000)"), "⚠ 오래된 결과: calls 바뀜 (200 → 2000)"},
		{StaleNote("measured with probe a, chapter asks for b"), "⚠ 오래된 결과: measured with probe a, chapter asks for b"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
