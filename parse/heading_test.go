package parse

import (
	"bytes"
	"testing"
)

func TestHeadingIDs(t *testing.T) {
	for s, want := range map[string]string{
		"1장. 1만 개의 연결 — C10K가 드러낸 것": "1장-1만-개의-연결-c10k가-드러낸-것",
		"select는 출발선에도 서지 못한다":       "select는-출발선에도-서지-못한다",
		`"O(n) 대 O(1)"이 빠뜨리는 것`:      "o-n-대-o-1-이-빠뜨리는-것",
		"— !":                        "section",
	} {
		if got := HeadingID(s); got != want {
			t.Errorf("HeadingID(%q) = %q, want %q", s, got, want)
		}
	}
	var b bytes.Buffer
	if err := Markdown().Convert([]byte("# 정리\n\n## 정리\n\n## `epoll` 정리\n"), &b); err != nil {
		t.Fatal(err)
	}
	want := "<h1 id=\"정리\">정리</h1>\n<h2 id=\"정리-2\">정리</h2>\n<h2 id=\"epoll-정리\"><code>epoll</code> 정리</h2>\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
