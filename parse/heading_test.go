package parse

import (
	"slices"
	"testing"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
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
	root := docParser().Parse(text.NewReader([]byte("# 정리\n\n## 정리\n\n## `epoll` 정리\n")))
	var ids []string
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*gast.Heading); ok {
			id, _ := h.AttributeString("id")
			ids = append(ids, string(id.([]byte)))
		}
	}
	if want := []string{"정리", "정리-2", "epoll-정리"}; !slices.Equal(ids, want) {
		t.Errorf("ids = %q, want %q", ids, want)
	}
}
