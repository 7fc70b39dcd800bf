package plotsvg

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// TestWrapGreedy holds wrap, which measures each run of words once, to the
// plain greedy fill it bisects with: the lines must be the same.
func TestWrapGreedy(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("스레드 수에 따른 처리량: 스레드가 코어 수를 넘으면 문맥 전환 비용 때문에 처리량이 오히려 줄어든다 " +
		"a very long title in Latin letters that has to be wrapped over several lines of the plot AV To 10,000 μs")
	for range 300 {
		var ws []string
		for range 1 + r.IntN(25) {
			ws = append(ws, words[r.IntN(len(words))])
		}
		txt := strings.Join(ws, strings.Repeat(" ", 1+r.IntN(2)))
		sty := text.Style{Font: font.From(sansBold, vg.Length(8+r.IntN(8))), Handler: newHandler()}
		max := vg.Length(20 + r.Float64()*500)
		if got, want := wrap(sty, txt, max), plainWrap(sty, txt, max); got != want {
			t.Errorf("wrap(%q, %v) = %q, want %q", txt, max, got, want)
		}
	}
}

// plainWrap is wrap with every candidate line built and measured anew.
func plainWrap(sty text.Style, txt string, max vg.Length) string {
	if sty.Width(txt) <= max {
		return txt
	}
	greedy := func(words []string, max vg.Length) []string {
		var lines []string
		line := ""
		for _, word := range words {
			switch {
			case line == "":
				line = word
			case sty.Width(line+" "+word) <= max:
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
		}
		return append(lines, line)
	}
	words := strings.Fields(txt)
	n := len(greedy(words, max))
	lo, hi := max/vg.Length(n), max
	for range 20 {
		mid := (lo + hi) / 2
		if len(greedy(words, mid)) <= n {
			hi = mid
		} else {
			lo = mid
		}
	}
	return strings.Join(greedy(words, hi), "\n")
}
