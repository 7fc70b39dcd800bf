package epub

import "strings"

// words are what the EPUB itself writes, in the book's language.
type words struct {
	contents, notes, back                         string
	median, reference, mixed                      string
	rangeWord, minMax, runs, runsN, machine, date string
	source, transcribed, otherSet, experiment     string
}

var wordsByLang = map[string]words{
	"ko": {contents: "차례", notes: "수치의 출처", back: "본문으로 돌아가기",
		median: "(중앙값 기준)", reference: "(참고값)", mixed: "(기계 %s대의 수치를 섞은 값)",
		rangeWord: "범위", minMax: "(최소–최대)", runs: "실행", runsN: "%s회", machine: "기계", date: "측정일",
		source: "출처", transcribed: "원서에서 옮겨 적은 값", otherSet: "다른 기계의 세트 %s", experiment: "실험 %s 보기"},
	"en": {contents: "Contents", notes: "Where the figures come from", back: "Back to the text",
		median: "(median)", reference: "(reference value)", mixed: "(figures of %s machines combined)",
		rangeWord: "range", minMax: "(min–max)", runs: "runs", runsN: "%s", machine: "machine", date: "measured",
		source: "source", transcribed: "transcribed from the original book", otherSet: "another machine's set, %s", experiment: "see experiment %s"},
}

// wordsFor is the words of lang ("ko-KR" is ko), English for a language
// without its own.
func wordsFor(lang string) words {
	base, _, _ := strings.Cut(strings.ToLower(lang), "-")
	if w, ok := wordsByLang[base]; ok {
		return w
	}
	return wordsByLang["en"]
}
