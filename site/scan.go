package site

import (
	"bytes"
	"html"
	"strconv"
	"strings"
	"sync"
)

// The decorations and the search index go over every byte of every page,
// plots included, and Go's regexp engine takes ~20 ns a byte for the
// patterns they were first written with (no literal prefix, or a lazy
// .*? across a whole plot): these scans find the same matches with
// bytes.Index. Each says the pattern it stands for; the tests compare
// the two, and the whole page's work with the one first written
// (ref_test.go).
//
// A scan that rewrites appends the page, its matches replaced, to dst and
// says whether there were any: one that finds none has copied nothing.

// scratch keeps page-sized buffers from one page to the next: a chapter
// is ~100 KB, and every pass over it would otherwise allocate a copy.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// passes runs a page through rewriting scans, each reading the page as
// the last one left it and writing into the other of two buffers.
type passes struct {
	page []byte     // the page as it stands: the caller's until a pass changes it
	buf  [2]*[]byte // from scratch; buf[next] is where the next pass writes
	next int
}

func newPasses(page []byte) *passes {
	p := &passes{page: page}
	for i := range p.buf {
		p.buf[i] = scratch.Get().(*[]byte)
		if n := len(page) + len(page)/8 + 256; cap(*p.buf[i]) < n {
			*p.buf[i] = make([]byte, 0, n)
		}
	}
	return p
}

// run applies one pass.
func (p *passes) run(pass func(dst, page []byte) ([]byte, bool)) {
	if out, changed := pass((*p.buf[p.next])[:0], p.page); changed {
		*p.buf[p.next], p.page, p.next = out, out, 1-p.next
	}
}

// done returns the page, and the buffers to scratch.
func (p *passes) done() string {
	s := string(p.page)
	for _, b := range p.buf {
		scratch.Put(b)
	}
	return s
}

// headingTag matches <h([2-4]) id="([^"]+)"> at b[j:]: the level, the id
// and where the tag ends; level 0: no match.
func headingTag(b []byte, j int) (level int, id []byte, end int) {
	const open = `<h2 id="`
	t := b[j:]
	if len(t) < len(open) || t[0] != '<' || t[1] != 'h' || t[2] < '2' || t[2] > '4' || string(t[3:len(open)]) != open[3:] {
		return 0, nil, 0
	}
	q := bytes.IndexByte(t[len(open):], '"')
	if q <= 0 || len(open)+q+1 >= len(t) || t[len(open)+q+1] != '>' {
		return 0, nil, 0
	}
	return int(t[2] - '0'), t[len(open) : len(open)+q], j + len(open) + q + 2
}

// nextHeading finds the first match of <h[2-4] id="([^"]+)"> at or after
// from: its start, its id and its end; start -1: none.
func nextHeading(b []byte, from int) (start int, id []byte, end int) {
	for i := from; ; {
		j := bytes.Index(b[i:], []byte("<h"))
		if j < 0 {
			return -1, nil, 0
		}
		j += i
		if level, id, end := headingTag(b, j); level > 0 {
			return j, id, end
		}
		i = j + 1
	}
}

// replaceHeadings replaces every match of
//
//	(?s)<h([2-4]) id="([^"]+)">(.*?)</h[2-4]>
//
// by f(level, id, inner).
func replaceHeadings(dst, body []byte, f func(dst []byte, level int, id, inner []byte) []byte) ([]byte, bool) {
	out, last, changed := dst, 0, false
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte("<h"))
		if j < 0 {
			break
		}
		j += i
		i = j + 1
		level, id, open := headingTag(body, j)
		if level == 0 {
			continue
		}
		inner := body[open:]
		end := -1
		for at := 0; ; {
			k := bytes.Index(inner[at:], []byte("</h"))
			if k < 0 {
				break
			}
			k += at
			if k+4 < len(inner) && inner[k+3] >= '2' && inner[k+3] <= '4' && inner[k+4] == '>' {
				end = k
				break
			}
			at = k + 1
		}
		if end < 0 {
			break // nor is there one after any later heading
		}
		out = f(append(out, body[last:j]...), level, id, inner[:end])
		last, changed = open+end+len("</h2>"), true
		i = last
	}
	if !changed {
		return dst, false
	}
	return append(out, body[last:]...), true
}

// afterAttrs puts f(value) after every match of NAME="([^"]+)"; a match
// for which f returns "" is left as it is.
func afterAttrs(dst, body []byte, name string, f func(value []byte) string) ([]byte, bool) {
	prefix := []byte(name + `="`)
	out, last, changed := dst, 0, false
	for i := 0; ; {
		j := bytes.Index(body[i:], prefix)
		if j < 0 {
			break
		}
		j += i
		i = j + 1
		value := body[j+len(prefix):]
		q := bytes.IndexByte(value, '"')
		if q <= 0 {
			continue
		}
		stop := j + len(prefix) + q + 1
		i = stop
		if add := f(value[:q]); add != "" {
			out = append(append(out, body[last:stop]...), add...)
			last, changed = stop, true
		}
	}
	if !changed {
		return dst, false
	}
	return append(out, body[last:]...), true
}

// recolour replaces every match of
//
//	(stroke|fill):#(0072B2|D55E00|009E73|CC79A7|E69F00|56B4E9)
//
// by "stroke:var(--mb-sN)", N the colour's place in series.
func recolour(dst, body []byte) ([]byte, bool) {
	out, last, changed := dst, 0, false
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte(":#"))
		if j < 0 {
			break
		}
		j += i
		i = j + 2
		prop := ""
		switch {
		case j >= 6 && string(body[j-6:j]) == "stroke":
			prop = "stroke"
		case j >= 4 && string(body[j-4:j]) == "fill":
			prop = "fill"
		default:
			continue
		}
		if j+8 > len(body) || j-len(prop) < last {
			continue
		}
		n, ok := series[string(body[j+2:j+8])]
		if !ok {
			continue
		}
		out = append(append(out, body[last:j-len(prop)]...), prop...)
		out = append(strconv.AppendInt(append(out, ":var(--mb-s"...), int64(n), 10), ')')
		last, i, changed = j+8, j+8, true
	}
	if !changed {
		return dst, false
	}
	return append(out, body[last:]...), true
}

// replaceElements replaces every match of (?s)<NAME[ >].*?</NAME> by
// f(match).
func replaceElements(dst, body []byte, name string, f func(dst, m []byte) []byte) ([]byte, bool) {
	open, end := []byte("<"+name), []byte("</"+name+">")
	out, last, changed := dst, 0, false
	for i := 0; ; {
		j := bytes.Index(body[i:], open)
		if j < 0 {
			break
		}
		j += i
		after := j + len(open)
		if after >= len(body) || (body[after] != ' ' && body[after] != '>') {
			i = j + 1
			continue
		}
		k := bytes.Index(body[after+1:], end)
		if k < 0 {
			break // nor is there one after any later opening
		}
		stop := after + 1 + k + len(end)
		out = f(append(out, body[last:j]...), body[j:stop])
		last, i, changed = stop, stop, true
	}
	if !changed {
		return dst, false
	}
	return append(out, body[last:]...), true
}

// replaceSVGs replaces every match of
//
//	(?s)<svg [^>]*viewBox="0 0 ([0-9.]+) [0-9.]+".*?</svg>
//
// by f(match, the width its viewBox gives).
func replaceSVGs(dst, body []byte, f func(dst, svg, width []byte) []byte) ([]byte, bool) {
	const vb = `viewBox="0 0 `
	out, last, changed := dst, 0, false
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte("<svg "))
		if j < 0 {
			break
		}
		j += i
		i = j + 1
		start := j + len("<svg ")
		tag := body[start:]
		if gt := bytes.IndexByte(tag, '>'); gt >= 0 {
			tag = tag[:gt]
		}
		// [^>]* is greedy: of the viewBox attributes in the tag, the last
		// one that is whole.
		var width []byte
		vbEnd := -1
		for at := 0; ; {
			v := bytes.Index(tag[at:], []byte(vb))
			if v < 0 {
				break
			}
			v += at
			at = v + 1
			w, n := digits(tag[v+len(vb):])
			rest := tag[v+len(vb)+n:]
			if n == 0 || len(rest) < 2 || rest[0] != ' ' {
				continue
			}
			_, m := digits(rest[1:])
			if m == 0 || len(rest) < 2+m || rest[1+m] != '"' {
				continue
			}
			width, vbEnd = w, start+v+len(vb)+n+1+m+1
		}
		if vbEnd < 0 {
			continue
		}
		k := bytes.Index(body[vbEnd:], []byte("</svg>"))
		if k < 0 {
			continue
		}
		stop := vbEnd + k + len("</svg>")
		out = f(append(out, body[last:j]...), body[j:stop], width)
		last, i, changed = stop, stop, true
	}
	if !changed {
		return dst, false
	}
	return append(out, body[last:]...), true
}

// digits returns the longest prefix of b made of [0-9.], and its length.
func digits(b []byte) ([]byte, int) {
	n := 0
	for n < len(b) && (b[n] == '.' || b[n] >= '0' && b[n] <= '9') {
		n++
	}
	return b[:n], n
}

// fontSizes calls f with the size of every match of font-size:([0-9.]+)px.
func fontSizes(svg []byte, f func(size []byte)) {
	const prop = "font-size:"
	for i := 0; ; {
		j := bytes.Index(svg[i:], []byte(prop))
		if j < 0 {
			return
		}
		j += i + len(prop)
		size, n := digits(svg[j:])
		if n > 0 && bytes.HasPrefix(svg[j+n:], []byte("px")) {
			f(size)
		}
		i = j
	}
}

// title finds the first match of <title>([^<]*)</title>: the bounds of its
// text, or -1, -1.
func title(svg []byte) (start, end int) {
	for i := 0; ; {
		j := bytes.Index(svg[i:], []byte("<title>"))
		if j < 0 {
			return -1, -1
		}
		start = i + j + len("<title>")
		if k := bytes.IndexByte(svg[start:], '<'); k >= 0 && bytes.HasPrefix(svg[start+k:], []byte("</title>")) {
			return start, start + k
		}
		i = start
	}
}

// caption returns the text of the first match of
// (?s)<caption>(.*?)</caption>.
func caption(table []byte) ([]byte, bool) {
	j := bytes.Index(table, []byte("<caption>"))
	if j < 0 {
		return nil, false
	}
	text := table[j+len("<caption>"):]
	// A later <caption> has no </caption> after it either.
	k := bytes.Index(text, []byte("</caption>"))
	if k < 0 {
		return nil, false
	}
	return text[:k], true
}

// experimentFigure finds the first match of
//
//	<figure class="mb-experiment" id="experiment-([^"]+)">
//
// at or after from: its start, its id and its end; start -1: none.
func experimentFigure(body []byte, from int) (start int, id []byte, end int) {
	const open = `<figure class="mb-experiment" id="experiment-`
	for i := from; ; {
		j := bytes.Index(body[i:], []byte(open))
		if j < 0 {
			return -1, nil, 0
		}
		j += i
		v := j + len(open)
		if q := bytes.IndexByte(body[v:], '"'); q > 0 && v+q+1 < len(body) && body[v+q+1] == '>' {
			return j, body[v : v+q], v + q + 2
		}
		i = j + 1
	}
}

// stripTags appends s without its matches of (?s)<[^>]*>.
func stripTags(dst, s []byte) []byte {
	for {
		j := bytes.IndexByte(s, '<')
		if j < 0 {
			break
		}
		k := bytes.IndexByte(s[j+1:], '>')
		if k < 0 {
			break // nor is there one after any later '<'
		}
		dst = append(dst, s[:j]...)
		s = s[j+1+k+1:]
	}
	return append(dst, s...)
}

// dropHidden appends s with every match of
//
//	(?s)<(svg|script|style)[ >].*?</(svg|script|style)>|<a class="anchor"[^>]*>#</a>
//
// replaced by a space: what a reader does not read as text.
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
		if j+1 < len(s) && s[j+1] != 's' && s[j+1] != 'a' {
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
		if stop < 0 {
			continue
		}
		dst = append(append(dst, s[last:j]...), ' ')
		last, i = stop, stop
	}
	return append(dst, s[last:]...)
}

// plainText is the text a reader reads in parts of a page, one after
// another.
type plainText struct {
	out   []byte // the parts' text
	blank bool   // out ends with the space of a run of white space
	plain []byte // a run of text, unescaped
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
			t.plain = unescape(t.plain[:0], run)
			run = t.plain
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

// entities are those the pages use most, unescaped here without the two
// allocations of html.UnescapeString.
var entities = []struct{ name, char string }{
	{"&quot;", `"`}, {"&#34;", `"`}, {"&#39;", "'"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"},
}

// unescape appends html.UnescapeString(s). An entity ends before the next
// '&', so s is unescaped a '&' at a time.
func unescape(dst, s []byte) []byte {
	j := bytes.IndexByte(s, '&')
	if j < 0 {
		return append(dst, s...)
	}
	dst = append(dst, s[:j]...)
	for s = s[j:]; len(s) > 0; {
		k := bytes.IndexByte(s[1:], '&') + 1
		if k == 0 {
			k = len(s)
		}
		seg := s[:k]
		s = s[k:]
		known := false
		for _, e := range entities {
			if len(seg) >= len(e.name) && string(seg[:len(e.name)]) == e.name {
				dst, known = append(append(dst, e.char...), seg[len(e.name):]...), true
				break
			}
		}
		if !known {
			dst = append(dst, html.UnescapeString(string(seg))...)
		}
	}
	return dst
}

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
