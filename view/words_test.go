package view

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

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
		if words, shown := Korean.Limit(tc.key, tc.value); words != tc.words || shown != tc.shown {
			t.Errorf("Limit(%q, %q) = %q, %q; want %q, %q", tc.key, tc.value, words, shown, tc.words, tc.shown)
		}
	}
}

// TestReasonsInKorean: the build's and the probes' usual English reasons
// are shown in the book's words; one of another shape stays as written.
func TestReasonsInKorean(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Korean.UnavailableNote("kqueue is not available on linux"), "이 기계에서는 잴 수 없음: linux에 없는 kqueue"},
		{Korean.UnavailableNote("needs root"), "이 기계에서는 잴 수 없음: needs root"},
		{Korean.StaleNote("probe code changed (f6d7673b → 09590464); runs changed (runs: 3 → runs: auto ±5%)"),
			"⚠ 오래된 결과: 프로브 코드 바뀜 (f6d7673b → 09590464); 실행 횟수 규칙 바뀜 (runs: 3 → runs: auto ±5%)"},
		{Korean.StaleNote("calls changed (200 → 2000)"), "⚠ 오래된 결과: calls 바뀜 (200 → 2000)"},
		{Korean.StaleNote("measured with probe a, chapter asks for b"), "⚠ 오래된 결과: measured with probe a, chapter asks for b"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestTablesComplete: every language fills every entry of the table, its
// formats take as many arguments as Korean's, and its maps name the same
// keys: a missing word would show as an empty string, a missing argument
// as %!s(MISSING).
func TestTablesComplete(t *testing.T) {
	verbs := regexp.MustCompile(`%(\[\d\])?[sdg]`)
	var check func(lang, name string, v, ko reflect.Value)
	check = func(lang, name string, v, ko reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			if v.String() == "" {
				t.Errorf("%s: %s is empty", lang, name)
			}
			if n, want := len(verbs.FindAllString(v.String(), -1)), len(verbs.FindAllString(ko.String(), -1)); n != want {
				t.Errorf("%s: %s takes %d arguments, Korean's %d", lang, name, n, want)
			}
		case reflect.Map:
			if v.Len() != ko.Len() {
				t.Errorf("%s: %s has %d entries, Korean's %d", lang, name, v.Len(), ko.Len())
			}
			for _, k := range ko.MapKeys() {
				check(lang, fmt.Sprintf("%s[%s]", name, k), v.MapIndex(k), ko.MapIndex(k))
			}
		case reflect.Array:
			for i := 0; i < v.Len(); i++ {
				check(lang, fmt.Sprintf("%s[%d]", name, i), v.Index(i), ko.Index(i))
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				check(lang, name+"."+v.Type().Field(i).Name, v.Field(i), ko.Field(i))
			}
		case reflect.Invalid:
			t.Errorf("%s: %s is missing", lang, name)
		}
	}
	for _, w := range langs {
		check(w.Lang, "Words", reflect.ValueOf(*w), reflect.ValueOf(*Korean))
	}
}

// TestUnknownLang: a language with no table is not taken for Korean
// silently; WordsFor says so, and Langs names the ones there are.
func TestUnknownLang(t *testing.T) {
	if w, ok := WordsFor("en"); !ok || w != English {
		t.Errorf("en: %v, %v", w.Lang, ok)
	}
	if _, ok := WordsFor("fr"); ok {
		t.Error("fr has no table, but WordsFor found one")
	}
	if got := strings.Join(Langs(), ","); got != "ko,en" {
		t.Errorf("Langs() = %s", got)
	}
}

// TestEnglishWords: English puts the arguments where English needs them.
func TestEnglishWords(t *testing.T) {
	w := English
	for _, tc := range []struct{ got, want string }{
		{w.UnavailableNote("kqueue is not available on linux"), "cannot be measured on this machine: kqueue is not available on linux"},
		{fmt.Sprintf(w.PlotTitleFormat, "idle", "round"), "round by idle"},
		{w.RunsOf(1, 1), "1 run"},
		{w.RunsOf(3, 3), "3 runs"},
		{w.RunsOf(3, 5), "3–5 runs"},
		{fmt.Sprintf(w.SettingFormat, "e", "n"), "setting: n of experiment e"},
		{w.StaleNote("probe code changed (a → b)"), "⚠ stale result: probe code changed (a → b)"},
		{w.Interval("7.1", false, 5, "budget reached (10s)"), ", ±7.1 % (short of the ±5 % asked: time budget of 10s spent)"},
		{w.List([]string{"chapter 3", "chapter 4", "chapter 7"}), "chapter 3, chapter 4 and chapter 7"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
