package site

import (
	"bytes"
	"html"
	"strings"
	"sync"
)

// The text of a page for its search index: what a reader reads, tags,
// plots and scripts left out, entities unescaped, white space folded.

// scratch keeps page-sized buffers from one page to the next: a chapter
// is ~100 KB, and every pass over it would otherwise allocate a copy.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// dropHidden appends s with every match of
//
//	(?s)<(svg|script|style)[ >].*?</(svg|script|style)>|<a class="anchor"[^>]*>#</a>|
//	<sup id="fnref.*?</sup>|<a href="#fnref.*?</a>|
//	<div class="mb-plotbox">…</div>|<details class="mb-(points|rerun)">…</details>
//
// (each … up to its own end tag, past the elements of its kind inside it)
// replaced by a space: what a reader does not read as text (a heading's
// link, a footnote's number and its link back; a plot's picture, the
// marks on its points and the table of them are the plot's, not the
// prose's; how to measure an experiment again is the probe's).
func dropHidden(dst []byte, s string) []byte {
	ends := []string{"</svg>", "</script>", "</style>"}
	next := []int{-2, -2, -2} // where each of ends is next found (-1: nowhere), -2: not looked for yet
	// closing is where the first of ends at or after from ends, -1 if none.
	closing := func(from int) int {
		stop := -1
		for e, end := range ends {
			if next[e] == -2 || next[e] >= 0 && next[e] < from {
				next[e] = indexFrom(s, from, end)
			}
			if next[e] >= 0 && (stop < 0 || next[e]+len(end) < stop) {
				stop = next[e] + len(end)
			}
		}
		return stop
	}
	last := 0
	for i := 0; ; {
		j := indexByteFrom(s, i, '<')
		if j < 0 {
			break
		}
		i = j + 1
		if j+1 < len(s) && s[j+1] != 's' && s[j+1] != 'a' && s[j+1] != 'd' {
			continue // most tags are neither hidden nor an anchor
		}
		stop := -1
		rest := s[j+1:]
		for _, name := range []string{"svg", "script", "style"} {
			if len(rest) > len(name) && rest[:len(name)] == name && (rest[len(name)] == ' ' || rest[len(name)] == '>') {
				stop = closing(j + 1 + len(name) + 1)
			}
		}
		const anchor = `<a class="anchor"`
		if stop < 0 && strings.HasPrefix(s[j:], anchor) {
			if gt := indexByteFrom(s, j+len(anchor), '>'); gt >= 0 && strings.HasPrefix(s[gt+1:], "#</a>") {
				stop = gt + 1 + len("#</a>")
			}
		}
		for _, fn := range footnoteMarks {
			if stop < 0 && strings.HasPrefix(s[j:], fn.start) {
				if k := indexFrom(s, j+len(fn.start), fn.end); k >= 0 {
					stop = k + len(fn.end)
				}
			}
		}
		for _, h := range asides {
			if stop < 0 && strings.HasPrefix(s[j:], h.open) {
				stop = closeOf(s, j+len(h.open), h.tag)
			}
		}
		if stop < 0 {
			continue
		}
		dst = append(append(dst, s[last:j]...), ' ')
		last, i = stop, stop
	}
	return append(dst, s[last:]...)
}

// footnoteMarks are goldmark's footnote references and back-links, as it
// writes them: their text is a number and an arrow.
var footnoteMarks = []struct{ start, end string }{{`<sup id="fnref`, "</sup>"}, {`<a href="#fnref`, "</a>"}}

// asides are the parts of a figure the renderer writes beside it: an
// element of tag, from its start tag up to its end tag.
var asides = []struct{ open, tag string }{
	{`<div class="mb-plotbox"`, "div"},
	{`<details class="mb-points"`, "details"},
	{`<details class="mb-rerun"`, "details"},
}

// closeOf is where the element of tag open before from ends (after its
// end tag), past the elements of the same tag it holds; -1 if it does
// not end.
func closeOf(s string, from int, tag string) int {
	open, end := "<"+tag, "</"+tag+">"
	for depth := 1; ; {
		e := indexFrom(s, from, end)
		if e < 0 {
			return -1
		}
		if o := indexFrom(s, from, open); o >= 0 && o < e {
			depth, from = depth+1, o+len(open)
			continue
		}
		if depth--; depth == 0 {
			return e + len(end)
		}
		from = e + len(end)
	}
}

// plainText is the text a reader reads in parts of a page, one after
// another.
type plainText struct {
	out   []byte // the parts' text
	blank bool   // out ends with the space of a run of white space
}

// add appends what a reader reads in part, as
//
//	\s+ → " " in html.UnescapeString((?s)<[^>]*> → " " in part)
//
// (\s is [\t\n\f\r ]) in one pass: tags and entities are dealt with a
// run of text at a time, which comes to the same since no entity takes
// in a '<' or a tag's space.
func (t *plainText) add(part []byte) {
	t.blank = false
	for {
		run := part
		j := bytes.IndexByte(part, '<')
		k := -1
		if j >= 0 {
			k = bytes.IndexByte(part[j+1:], '>')
		}
		if k >= 0 {
			run = part[:j]
		} // else the rest is text: nor is there a '>' after any later '<'
		if bytes.IndexByte(run, '&') >= 0 {
			run = []byte(html.UnescapeString(string(run)))
		}
		t.write(run)
		if k < 0 {
			return
		}
		t.write([]byte{' '})
		part = part[j+1+k+1:]
	}
}

// write appends text with every run of \s as one space. A lone ' ' after
// a word is kept as it is, so most text is copied a run at a time.
func (t *plainText) write(text []byte) {
	blank, kept := t.blank, 0 // text[kept:] is yet to be copied
	for i, c := range text {
		switch {
		case !isSpace[c]:
			blank = false
		case c == ' ' && !blank:
			blank = true
		default: // white space to go: another, or the first of a run as a space
			t.out = append(t.out, text[kept:i]...)
			if !blank {
				t.out, blank = append(t.out, ' '), true
			}
			kept = i + 1
		}
	}
	t.out, t.blank = append(t.out, text[kept:]...), blank
}

// isSpace is \s: a table, for the loop over every byte of the text.
var isSpace = [256]bool{' ': true, '\n': true, '\t': true, '\r': true, '\f': true}

// indexFrom is strings.Index(s[from:], sub) counted from the start of s.
func indexFrom(s string, from int, sub string) int {
	if from > len(s) {
		return -1
	}
	if k := strings.Index(s[from:], sub); k >= 0 {
		return from + k
	}
	return -1
}

// indexByteFrom is strings.IndexByte(s[from:], c) counted from the start
// of s.
func indexByteFrom(s string, from int, c byte) int {
	if from > len(s) {
		return -1
	}
	if k := strings.IndexByte(s[from:], c); k >= 0 {
		return from + k
	}
	return -1
}
