package site

import (
	"fmt"
	"strings"
)

// Chapter is one chapter as the navigation shows it.
type Chapter struct {
	Title, Slug string
	Order       int
	Current     bool      // the page being laid out
	Contents    []Heading // the in-page contents, on the current chapter only
}

// Nav is what a page's layout needs to draw the sidebar.
type Nav struct {
	Chapters []Chapter
	Page     string // the page's file name, "index.html" for the contents
}

// NewNav is the navigation of page among chapters; contents is the
// current chapter's in-page contents (nil on other pages).
func NewNav(chapters []Chapter, page string, contents []Heading) Nav {
	n := Nav{Page: page, Chapters: make([]Chapter, len(chapters))}
	copy(n.Chapters, chapters)
	for i := range n.Chapters {
		if n.Chapters[i].Slug+".html" == page {
			n.Chapters[i].Current, n.Chapters[i].Contents = true, contents
		}
	}
	return n
}

// Numbering says, in Korean, why the chapter numbers have gaps: the book
// keeps the original book's numbers, and the chapters between are not
// written yet. "" when the numbers run 1, 2, … without a gap.
func Numbering(orders []int) string {
	if len(orders) == 0 {
		return ""
	}
	have := map[int]bool{}
	last := 0
	for _, o := range orders {
		have[o] = true
		last = max(last, o)
	}
	var missing []string
	for o := 1; o < last; o++ {
		if !have[o] {
			missing = append(missing, fmt.Sprintf("%d장", o))
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("장 번호는 원서의 장 번호를 그대로 따릅니다. %s은 아직 쓰지 않아 차례에 없습니다.", joinKo(missing))
}

// joinKo joins items as Korean lists them: "3장과 4장", "3장, 4장과 7장".
func joinKo(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + "과 " + items[len(items)-1]
}
