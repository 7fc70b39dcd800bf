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
