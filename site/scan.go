package site

import (
	"bytes"
	"fmt"
	"strings"
)

// The decorations and the search index go over every byte of every page,
// plots included, and Go's regexp engine takes ~20 ns a byte for the
// patterns they used to be written with (no literal prefix, or a lazy
// .*? across a whole plot): these scans find the same matches with
// bytes.Index. Each says the pattern it stands for; the tests compare
// the two.

// grown is out, made with room for body and some more the first time.
func grown(out, body []byte) []byte {
	if out == nil {
		out = make([]byte, 0, len(body)+len(body)/8+256)
	}
	return out
}

// replaceHeadings replaces every match of
//
//	(?s)<h([2-4]) id="([^"]+)">(.*?)</h[2-4]>
//
// by f(level, id, inner).
func replaceHeadings(body []byte, f func(level int, id, inner []byte) []byte) []byte {
	var out []byte
	last := 0
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte("<h"))
		if j < 0 {
			break
		}
		j += i
		i = j + 1
		rest := body[j+2:]
		if len(rest) < len(`2 id="`) || rest[0] < '2' || rest[0] > '4' || string(rest[1:6]) != ` id="` {
			continue
		}
		id := rest[6:]
		q := bytes.IndexByte(id, '"')
		if q <= 0 || q+1 >= len(id) || id[q+1] != '>' {
			continue
		}
		inner := id[q+2:]
		id = id[:q]
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
		stop := len(body) - len(inner) + end + len("</h2>")
		out = append(grown(out, body), body[last:j]...)
		out = append(out, f(int(rest[0]-'0'), id, inner[:end])...)
		last, i = stop, stop
	}
	if out == nil {
		return body
	}
	return append(out, body[last:]...)
}

// replaceAttrs replaces every match of NAME="([^"]+)" by f(match, value).
func replaceAttrs(body []byte, name string, f func(m, value []byte) []byte) []byte {
	prefix := []byte(name + `="`)
	var out []byte
	last := 0
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
		out = append(grown(out, body), body[last:j]...)
		out = append(out, f(body[j:stop], value[:q])...)
		last, i = stop, stop
	}
	if out == nil {
		return body
	}
	return append(out, body[last:]...)
}

// recolour replaces every match of
//
//	(stroke|fill):#(0072B2|D55E00|009E73|CC79A7|E69F00|56B4E9)
//
// by "stroke:var(--mb-sN)", N the colour's place in series.
func recolour(body []byte) []byte {
	var out []byte
	last := 0
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
		out = append(grown(out, body), body[last:j-len(prop)]...)
		out = fmt.Appendf(out, "%s:var(--mb-s%d)", prop, n)
		last, i = j+8, j+8
	}
	if out == nil {
		return body
	}
	return append(out, body[last:]...)
}

// replaceElements replaces every match of (?s)<NAME[ >].*?</NAME> by
// f(match).
func replaceElements(body []byte, name string, f func([]byte) []byte) []byte {
	open, end := []byte("<"+name), []byte("</"+name+">")
	var out []byte
	last := 0
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
		out = append(append(grown(out, body), body[last:j]...), f(body[j:stop])...)
		last, i = stop, stop
	}
	if out == nil {
		return body
	}
	return append(out, body[last:]...)
}

// replaceSVGs replaces every match of
//
//	(?s)<svg [^>]*viewBox="0 0 ([0-9.]+) [0-9.]+".*?</svg>
//
// by f(match, the width its viewBox gives).
func replaceSVGs(body []byte, f func(svg, width []byte) []byte) []byte {
	var out []byte
	last := 0
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
			v := bytes.Index(tag[at:], []byte(`viewBox="0 0 `))
			if v < 0 {
				break
			}
			v += at
			at = v + 1
			w, n := digits(tag[v+len(`viewBox="0 0 `):])
			rest := tag[v+len(`viewBox="0 0 `)+n:]
			if n == 0 || len(rest) < 2 || rest[0] != ' ' {
				continue
			}
			_, m := digits(rest[1:])
			if m == 0 || len(rest) < 2+m || rest[1+m] != '"' {
				continue
			}
			width, vbEnd = w, start+v+len(`viewBox="0 0 `)+n+1+m+1
		}
		if vbEnd < 0 {
			continue
		}
		k := bytes.Index(body[vbEnd:], []byte("</svg>"))
		if k < 0 {
			continue
		}
		stop := vbEnd + k + len("</svg>")
		out = append(append(grown(out, body), body[last:j]...), f(body[j:stop], width)...)
		last, i = stop, stop
	}
	if out == nil {
		return body
	}
	return append(out, body[last:]...)
}

// digits returns the longest prefix of b made of [0-9.], and its length.
func digits(b []byte) ([]byte, int) {
	n := 0
	for n < len(b) && (b[n] == '.' || b[n] >= '0' && b[n] <= '9') {
		n++
	}
	return b[:n], n
}

// dropHidden replaces every match of
//
//	(?s)<(svg|script|style)[ >].*?</(svg|script|style)>|<a class="anchor"[^>]*>#</a>
//
// by a space: what a reader does not read as text.
func dropHidden(s string) string {
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
	var out []byte
	last := 0
	for i := 0; ; {
		j := indexByteFrom(s, i, '<')
		if j < 0 {
			break
		}
		i = j + 1
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
		out = append(append(out, s[last:j]...), ' ')
		last, i = stop, stop
	}
	if out == nil {
		return s
	}
	return string(append(out, s[last:]...))
}

// stripTags replaces every match of (?s)<[^>]*> by a space.
func stripTags(s string) string {
	var out []byte
	last := 0
	for i := 0; ; {
		j := indexByteFrom(s, i, '<')
		if j < 0 {
			break
		}
		k := indexByteFrom(s, j+1, '>')
		if k < 0 {
			break // nor is there one after any later '<'
		}
		out = append(append(out, s[last:j]...), ' ')
		last, i = k+1, k+1
	}
	if out == nil {
		return s
	}
	return string(append(out, s[last:]...))
}

// collapseSpace replaces every run of \s ([\t\n\f\r ]) by one space.
func collapseSpace(s string) string {
	out := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\t', '\n', '\f', '\r', ' ':
			if !space {
				out = append(out, ' ')
			}
			space = true
		default:
			out = append(out, s[i])
			space = false
		}
	}
	return string(out)
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
