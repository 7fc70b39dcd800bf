package site

import (
	"bytes"

	"golang.org/x/net/html"
)

// The text of a page for its search index: what a reader reads, tags,
// plots and scripts left out, entities unescaped, white space folded.

// hides says whether the element a start tag opens is one a reader does
// not read as text: a picture, a script or a style; a heading's link, a
// footnote's number and its link back; a plot's picture, the marks on
// its points and the table of them (the plot's, not the prose's); how to
// measure an experiment again (the probe's).
func hides(name string, id, class, href []byte) bool {
	switch name {
	case "svg", "script", "style":
		return true
	case "a":
		return string(class) == "anchor" || bytes.HasPrefix(href, []byte("#fnref"))
	case "sup":
		return bytes.HasPrefix(id, []byte("fnref"))
	case "div":
		return string(class) == "mb-plotbox"
	case "details":
		return string(class) == "mb-points" || string(class) == "mb-rerun"
	}
	return false
}

// asks says whether the attributes of an element of name tell whether
// hides it or a section starts there: reading a tag's attributes costs
// more than the rest of the tag.
func asks(name []byte) bool {
	switch string(name) {
	case "a", "sup", "div", "details", "h2", "h3", "h4":
		return true
	}
	return false
}

// skip reads past the end of the element of name whose start tag z has
// just read, past the elements of its kind inside it; an element left
// open runs to the end of the page.
func skip(z *html.Tokenizer, name string) {
	for depth := 1; depth > 0; {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.StartTagToken:
			if n, _ := z.TagName(); string(n) == name {
				depth++
			}
		case html.EndTagToken:
			if n, _ := z.TagName(); string(n) == name {
				depth--
			}
		}
	}
}

// appendText appends text to b with every run of white space (\s:
// [\t\n\f\r ]) as one space, b's own last space counting as one.
func appendText(b, text []byte) []byte {
	n := len(b)
	b = append(b, text...)
	for _, c := range b[n:] { // b[:n] is the text so far, folded
		if isSpace[c] {
			if n > 0 && b[n-1] == ' ' {
				continue
			}
			c = ' '
		}
		b[n] = c
		n++
	}
	return b[:n]
}

// isSpace is \s, as a table.
var isSpace = [256]bool{' ': true, '\n': true, '\t': true, '\r': true, '\f': true}
