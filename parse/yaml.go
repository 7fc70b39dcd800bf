package parse

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"measuredbook/expr"
)

// ybody is a YAML text (a directive's body or the front matter) with the
// map from its byte offsets to the file's.
type ybody struct {
	*file
	m Offmap
}

func newYBody(text []byte, m Offmap) *ybody { return &ybody{newFile("", text), m} }

// off converts a yaml.Node's 1-based line and column (yaml counts columns
// in characters) to a byte offset in the text.
func (b *ybody) off(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(b.lines) {
		return len(b.src)
	}
	o := b.lines[line-1]
	for c := 1; c < col && o < len(b.src) && b.src[o] != '\n'; c++ {
		_, w := utf8.DecodeRune(b.src[o:])
		o += w
	}
	return o
}

// at returns the file offset of a node.
func (b *ybody) at(n *yaml.Node) int { return b.m(b.off(n.Line, n.Column)) }

func (b *ybody) lineEnd(start int) int {
	line, _, _ := bytes.Cut(b.src[start:], []byte("\n"))
	return start + len(line)
}

// scalarMap maps byte offsets in a scalar's decoded Value to file offsets,
// so that an error inside an expression or a Markdown value points at the
// very character in the chapter. It walks the scalar's source lines and
// matches each against the value in turn: exact for plain and literal
// scalars, exact up to the line break for folded ones, and up to the first
// escape in a quoted line (the rest of that line maps to where the match
// stopped). indent is the least indentation of a continuation line (the
// column of the scalar's key: YAML wants continuations indented more).
func (b *ybody) scalarMap(n *yaml.Node, indent int) Offmap {
	start := b.off(n.Line, n.Column)
	val := n.Value
	block := n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
	quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
	var ps []piece
	cur := 0
	line := n.Line - 1
	first := start
	if quoted {
		first++
	}
	if block {
		line++
		first = -1
	}
	for ; line < len(b.lines) && cur < len(val); line++ {
		ls := b.lines[line]
		le := b.lineEnd(ls)
		from := first
		if first >= 0 {
			first = -1
		} else {
			from = le - len(bytes.TrimLeft(b.src[ls:le], " \t"))
			if from == le {
				continue // a blank line: a line break in the value
			}
			if from-ls < indent {
				break // the scalar ended
			}
		}
		c := b.src[from:le]
		// Skip what folding and indentation put into the value but not on
		// this line: line breaks, and spaces the line has not.
		for cur < len(val) && strings.IndexByte(" \t\n", val[cur]) >= 0 && (len(c) == 0 || val[cur] != c[0]) {
			cur++
		}
		l := 0
		for l < len(c) && cur+l < len(val) && c[l] == val[cur+l] {
			l++
		}
		if l > 0 {
			ps = append(ps, piece{from: cur, to: from, n: l})
			cur += l
		}
	}
	inner := pieces(ps, start)
	return func(k int) int { return b.m(inner(k)) }
}

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlScannerProblems are the problems yaml.v3's scanner reports. The
// "line N" of its error message is 1-based for these but 0-based for the
// parser's problems (decode.go's fail adds 1 only for scanner errors), so
// telling them apart puts every error on the right line.
var yamlScannerProblems = []string{
	"block sequence entries are not allowed in this context",
	"could not find expected ':'",
	"could not find expected directive name",
	"did not find URI escaped octet",
	"did not find expected '!'",
	"did not find expected alphabetic or numeric character",
	"did not find expected comment or line break",
	"did not find expected digit or '.' character",
	"did not find expected hexdecimal number",
	"did not find expected tag URI",
	"did not find expected version number",
	"did not find expected whitespace",
	"did not find the expected '>'",
	"exceeded max depth",
	"found a tab character",
	"found an incorrect",
	"found an indentation indicator equal to 0",
	"found character that cannot start any token",
	"found extremely long version number",
	"found invalid Unicode character escape code",
	"found unexpected document indicator",
	"found unexpected end of stream",
	"found unexpected non-alphabetical character",
	"found unknown directive name",
	"found unknown escape character",
	"mapping keys are not allowed in this context",
	"mapping values are not allowed in this context",
}

// parse decodes the text into a mapping node. A YAML syntax error is
// reported at the start of the line it names, mapped into the chapter.
func (b *ybody) parse(what string, e *Errs) (*yaml.Node, bool) {
	doc := new(yaml.Node)
	if err := yaml.Unmarshal(b.src, doc); err != nil {
		msg := err.Error()
		off := 0
		if m := yamlLineErr.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			if !slices.ContainsFunc(yamlScannerProblems, func(p string) bool { return strings.HasPrefix(m[2], p) }) {
				line++
			}
			off = b.off(line, 1)
			if strings.HasPrefix(m[2], "found a tab character") {
				// yaml names the line where the scalar being scanned
				// began; the tab is in the indentation of a later line.
				off = b.tabAfter(off)
			}
			off = len(b.src) - len(bytes.TrimLeft(b.src[off:], " "))
			msg = m[2]
			if strings.HasPrefix(msg, "mapping values are not allowed") {
				msg += ` (a value containing ": " must be quoted)`
			}
		} else {
			msg = strings.TrimPrefix(msg, "yaml: ")
		}
		e.At(b.m(off), "malformed YAML in %s: %s", what, msg)
		return nil, false
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode, Line: 1, Column: 1}, true // empty body
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		e.At(b.at(root), "%s wants a YAML mapping of fields (key: value), got %s", what, nodeKind(root))
		return nil, false
	}
	return root, true
}

// tabAfter returns the offset of the first tab in the indentation of a
// line at or after off, or off when there is none.
func (b *ybody) tabAfter(off int) int {
	for _, start := range b.lines {
		if start < off && b.lineEnd(start) < off {
			continue
		}
		for i := max(start, off); i < len(b.src) && (b.src[i] == ' ' || b.src[i] == '\t'); i++ {
			if b.src[i] == '\t' {
				return i
			}
		}
	}
	return off
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	return fmt.Sprintf("%q", n.Value)
}

// field is one key: value pair of a mapping.
type field struct{ key, val *yaml.Node }

// fields checks a mapping's keys against the known ones: an unknown key is
// an error at the key, with the closest known name suggested; a repeated
// key is an error at its second occurrence.
func (b *ybody) fields(what string, root *yaml.Node, known []string, e *Errs) map[string]field {
	out := map[string]field{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		name := k.Value
		if k.Kind != yaml.ScalarNode {
			e.At(b.at(k), "%s: a field name must be a plain word", what)
			continue
		}
		if !slices.Contains(known, name) {
			e.At(b.at(k), "unknown field %q in %s%s", name, what, expr.DidYouMean(name, known))
			continue
		}
		if _, dup := out[name]; dup {
			e.At(b.at(k), "duplicate field %q in %s", name, what)
			continue
		}
		out[name] = field{k, v}
	}
	return out
}

// scalar returns a field's value as a string; a list or a mapping is an
// error.
func (b *ybody) scalar(what, name string, f field, e *Errs) (string, bool) {
	if f.val.Kind != yaml.ScalarNode {
		e.At(b.at(f.val), "%s wants a single value for %s, got %s", what, name, nodeKind(f.val))
		return "", false
	}
	return f.val.Value, true
}

// Field is one field of a YAML file of fields (ParseFields): its value,
// or a list field's items, and where each is.
type Field struct {
	Value   string
	Items   []string // a list field's values
	Pos     Pos      // of the value (a list's first character)
	ItemPos []Pos    // of each item
	off     int      // Pos's file offset
}

// ParseFields parses a whole YAML file that is a mapping of fields with
// the known names (such as the book's book.yaml): those named in lists
// take a list of plain values, the others a single value. It returns each
// field present with its position; every problem (a syntax error, an
// unknown or repeated field, a list where a value belongs or the other
// way) is a *PosError at its line and column, the same as in a chapter's
// front matter.
func ParseFields(name string, src []byte, known, lists []string) (map[string]Field, error) {
	e := NewErrs(name, src)
	bom := bomLen(src)
	y := newYBody(src[bom:], shift(bom))
	what := filepath.Base(name)
	root, ok := y.parse(what, e)
	if !ok {
		return map[string]Field{}, e.Err()
	}
	return y.values(what, root, known, lists, e), e.Err()
}

// values decodes the fields of root, a mapping (ParseFields), with
// positions in e's file.
func (y *ybody) values(what string, root *yaml.Node, known, lists []string, e *Errs) map[string]Field {
	out := map[string]Field{}
	for k, fl := range y.fields(what, root, known, e) {
		fd := Field{off: y.at(fl.val)}
		fd.Pos = e.Pos(fd.off)
		if !slices.Contains(lists, k) {
			if v, ok := y.scalar(what, k, fl, e); ok {
				fd.Value = v
				out[k] = fd
			}
			continue
		}
		if fl.val.Kind != yaml.SequenceNode {
			e.At(fd.off, "%s wants a list for %s, as in %s: [a, b], got %s", what, k, k, nodeKind(fl.val))
			continue
		}
		for _, it := range fl.val.Content {
			if it.Kind != yaml.ScalarNode {
				e.At(y.at(it), "%s wants plain values in the list %s, got %s", what, k, nodeKind(it))
				continue
			}
			fd.Items = append(fd.Items, it.Value)
			fd.ItemPos = append(fd.ItemPos, e.Pos(y.at(it)))
		}
		out[k] = fd
	}
	return out
}

// bomLen is the length of the byte order mark src starts with (some
// editors save one; it is no part of the text), 0 for none.
func bomLen(src []byte) int { return len(src) - len(bytes.TrimPrefix(src, []byte("\ufeff"))) }
