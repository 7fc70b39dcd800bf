package parse

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// fastYAML builds the document node yaml.Unmarshal builds, field for
// field (positions, styles, tags), for the small part of YAML that
// directive bodies and front matter are written in, at a fraction of its
// cost. It returns nil for anything else, and for every text yaml.v3
// rejects, so the caller falls back to yaml.Unmarshal and its errors.
//
// What it takes: block mappings of keys (a letter, digit or _, then also
// . and -) at one indentation each, nested by a key with nothing after its
// colon; and as values, plain scalars on one line, "..." and '...' on one
// line without escapes, | literal blocks without indicators, and flow
// [a, b] and {k: v} on one line, of such scalars. Not: comments, tabs,
// CR, trailing spaces, lines of spaces, empty values, repeated keys,
// anchors, tags, block sequences, multi-line plain scalars, a second
// document. The tests (and FuzzYAMLFastPath) hold it to yaml.Unmarshal.
func fastYAML(text []byte) *yaml.Node {
	p := yfast{s: string(text), line: 1, ascii: true}
	if !utf8.ValidString(p.s) {
		return nil
	}
	est := 4 // nodes: a key and a value per colon, an item per comma
	for i := 0; i < len(p.s); i++ {
		switch yfastClass[p.s[i]] {
		case yfColon:
			est += 2
		case yfComma:
			est++
		case yfControl:
			return nil
		case yfCheck:
			if !yamlPlainRune(p.s[i:]) {
				return nil
			}
			p.ascii = false
		case yfLead:
			p.ascii = false
		}
	}
	p.slab = make([]yaml.Node, est)
	ind, ok := p.indent()
	if !ok || ind < 0 {
		return nil
	}
	root := p.mapping(ind, 0)
	if root == nil || p.pos < len(p.s) {
		return nil
	}
	doc := p.node()
	*doc = yaml.Node{Kind: yaml.DocumentNode, Line: root.Line, Column: root.Column, Content: []*yaml.Node{root}}
	return doc
}

// The bytes fastYAML's first pass tells apart.
const (
	yfOther   = iota
	yfColon   // :
	yfComma   // ,
	yfControl // control characters are errors, tab and CR mean more
	yfLead    // a multi-byte character's first byte
	yfCheck   // the first byte of one that may be no ordinary character
)

var yfastClass = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = yfControl
	}
	t['\n'], t[0x7f], t[':'], t[','] = yfOther, yfControl, yfColon, yfComma
	for c := 0xC0; c < 0x100; c++ {
		t[c] = yfLead
	}
	t[0xC2], t[0xE2], t[0xEF] = yfCheck, yfCheck, yfCheck
	return t
}()

// yamlPlainRune reports whether the valid UTF-8 sequence s starts with
// is an ordinary character to yaml.v3: not in its reader's non-printable
// ranges (C1, U+FFFE, U+FFFF), not a line break (NEL, LS, PS), not a byte
// order mark (its scanner skips one at a line's start).
func yamlPlainRune(s string) bool {
	switch s[0] {
	case 0xC2: // U+0080-U+00BF
		return s[1] >= 0xA0
	case 0xE2: // U+2000-U+2FFF
		return !(s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9))
	case 0xEF: // U+F000-U+FFFF
		return !(s[1] == 0xBB && s[2] == 0xBF || s[1] == 0xBF && s[2] >= 0xBE)
	}
	return true
}

type yfast struct {
	s     string
	pos   int // start of the current line
	line  int // its 1-based number
	ascii bool
	slab  []yaml.Node // nodes are cut from here, a few allocations for all
}

const (
	yfastMaxDepth  = 16  // far below yaml.v3's limit
	yfastMaxKeyLen = 128 // far below yaml.v3's 1024 for a simple key
)

func (p *yfast) node() *yaml.Node {
	if len(p.slab) == 0 {
		p.slab = make([]yaml.Node, 16)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	return n
}

// col is yaml's 1-based column of byte offset i on the current line: it
// counts characters.
func (p *yfast) col(i int) int {
	if p.ascii {
		return i - p.pos + 1
	}
	return utf8.RuneCountInString(p.s[p.pos:i]) + 1
}

func (p *yfast) lineEnd() int {
	if i := strings.IndexByte(p.s[p.pos:], '\n'); i >= 0 {
		return p.pos + i
	}
	return len(p.s)
}

// nextLine moves to the line after the one ending at end.
func (p *yfast) nextLine(end int) {
	p.pos = end
	if end < len(p.s) {
		p.pos++
		p.line++
	}
}

// indent skips empty lines and returns the indentation of the next line,
// -1 at the end of the text; ok is false for a line of spaces only.
func (p *yfast) indent() (int, bool) {
	for p.pos < len(p.s) && p.s[p.pos] == '\n' {
		p.pos++
		p.line++
	}
	if p.pos == len(p.s) {
		return -1, true
	}
	i := p.pos
	for i < len(p.s) && p.s[i] == ' ' {
		i++
	}
	if i == len(p.s) || p.s[i] == '\n' {
		return 0, false
	}
	return i - p.pos, true
}

// scalar makes a scalar node; a plain one's tag is what yaml.v3's
// resolve gives (through ShortTag, which calls it for an untagged plain
// scalar), skipped when the first byte rules out anything but a string.
func (p *yfast) scalar(v string, style yaml.Style, line, col int) *yaml.Node {
	n := p.node()
	*n = yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: v, Line: line, Column: col}
	if style == 0 && strings.IndexByte("+-.0123456789<~NFOTYnfoty", v[0]) >= 0 {
		n.Tag = ""
		n.Tag = n.ShortTag()
	}
	return n
}

// mapping reads the block mapping whose keys are indented by ind, from
// the current line to the first line indented less.
func (p *yfast) mapping(ind, depth int) *yaml.Node {
	if depth >= yfastMaxDepth {
		return nil
	}
	m := p.node()
	*m = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: p.line, Column: ind + 1}
	for {
		i, ok := p.indent()
		switch {
		case !ok || i > ind:
			return nil
		case i < ind:
			return m
		}
		k := p.pos + i
		end := p.lineEnd()
		j := k
		for j < end && j-k < yfastMaxKeyLen && yamlKeyByte(p.s[j], j == k) {
			j++
		}
		if j == k || j == end || p.s[j] != ':' {
			return nil
		}
		key := p.scalar(p.s[k:j], 0, p.line, i+1)
		for c := 0; c < len(m.Content); c += 2 {
			if m.Content[c].Value == key.Value {
				return nil // yaml keeps both; the caller's errors speak of it
			}
		}
		var val *yaml.Node
		if j++; j == end {
			// A nested mapping, or an empty value (null, at a position
			// not worth reproducing).
			p.nextLine(end)
			ni, ok := p.indent()
			if !ok || ni <= ind {
				return nil
			}
			if val = p.mapping(ni, depth+1); val == nil {
				return nil
			}
			m.Content = append(m.Content, key, val)
			continue
		}
		if p.s[j] != ' ' {
			return nil // key:x is one plain scalar
		}
		for j < end && p.s[j] == ' ' {
			j++
		}
		if j == end || p.s[end-1] == ' ' {
			return nil // trailing spaces
		}
		switch p.s[j] {
		case '[', '{':
			val = p.flow(j, end)
		case '"', '\'':
			if val, j = p.quoted(j, end); j != end {
				return nil
			}
		case '|':
			if j+1 != end {
				return nil // indicators or a comment after |
			}
			val = p.literal(j, ind)
			if val == nil {
				return nil
			}
			m.Content = append(m.Content, key, val)
			continue // literal moved past its lines
		default:
			val = p.plain(j, end)
		}
		if val == nil {
			return nil
		}
		m.Content = append(m.Content, key, val)
		p.nextLine(end)
	}
}

// yamlKeyByte: a key is a letter, digit or _, then also . and -.
func yamlKeyByte(c byte, first bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_':
		return true
	}
	return !first && (c == '.' || c == '-')
}

// yamlIndicators cannot start a plain scalar (yaml.v3's scanner, except
// for - followed by a non-space, which it allows and so do we).
const yamlIndicators = "-?:,[]{}#&*!|>'\"%@`"

// plain reads a block context's plain scalar from i to the line's end. A
// comment, or ": " (a mapping value yaml refuses here), is declined; the
// caller has made sure no spaces trail.
func (p *yfast) plain(i, end int) *yaml.Node {
	v := p.s[i:end]
	if strings.IndexByte(yamlIndicators, v[0]) >= 0 && (v[0] != '-' || len(v) == 1 || v[1] == ' ') {
		return nil
	}
	if strings.IndexByte(v, '#') >= 0 || strings.Contains(v, ": ") || v[len(v)-1] == ':' {
		return nil
	}
	return p.scalar(v, 0, p.line, p.col(i))
}

// quoted reads "..." or '...' from i on one line, with no backslash
// inside (nor ” in single quotes): its value is the text between the
// quotes. It returns the node and the offset after the closing quote.
func (p *yfast) quoted(i, end int) (*yaml.Node, int) {
	q := p.s[i]
	c := strings.IndexByte(p.s[i+1:end], q)
	if c < 0 {
		return nil, 0
	}
	c += i + 1
	v := p.s[i+1 : c]
	if strings.IndexByte(v, '\\') >= 0 || c+1 < end && p.s[c+1] == q {
		return nil, 0
	}
	style := yaml.DoubleQuotedStyle
	if q == '\'' {
		style = yaml.SingleQuotedStyle
	}
	return p.scalar(v, style, p.line, p.col(i)), c + 1
}

// flow reads [a, b] or {k: v, k: v} that is the rest of the line, of plain
// scalars of one line each; keys are as in a block mapping.
func (p *yfast) flow(i, end int) *yaml.Node {
	seq := p.s[i] == '['
	n := p.node()
	*n = yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq", Line: p.line, Column: p.col(i)}
	closer := byte(']')
	if !seq {
		n.Kind, n.Tag, closer = yaml.MappingNode, "!!map", '}'
	}
	j := i + 1
	skip := func() {
		for j < end && p.s[j] == ' ' {
			j++
		}
	}
	skip()
	if j < end && p.s[j] == closer {
		if j+1 != end {
			return nil
		}
		return n
	}
	for {
		if j == end {
			return nil
		}
		if !seq {
			var k *yaml.Node
			if c := p.s[j]; c == '"' || c == '\'' {
				k, j = p.quoted(j, end)
			} else {
				from := j
				for j < end && j-from < yfastMaxKeyLen && yamlKeyByte(p.s[j], j == from) {
					j++
				}
				if j > from {
					k = p.scalar(p.s[from:j], 0, p.line, p.col(from))
				}
			}
			if k == nil || j+1 >= end || p.s[j] != ':' || p.s[j+1] != ' ' {
				return nil
			}
			n.Content = append(n.Content, k)
			j++
			skip()
		}
		var it *yaml.Node
		if j == end {
			return nil
		}
		if c := p.s[j]; c == '"' || c == '\'' {
			it, j = p.quoted(j, end)
		} else if it = p.flowPlain(j, end); it != nil {
			j += len(it.Value)
		}
		if it == nil {
			return nil
		}
		n.Content = append(n.Content, it)
		skip()
		if j == end {
			return nil
		}
		if p.s[j] == closer {
			if j+1 != end {
				return nil
			}
			return n
		}
		if p.s[j] != ',' {
			return nil
		}
		j++
		skip()
	}
}

// flowPlain reads a plain scalar inside [] or {} from i: up to a , or the
// closing bracket, less trailing spaces. Anything that would end it
// otherwise or mean more (: ? # brackets) is declined.
func (p *yfast) flowPlain(i, end int) *yaml.Node {
	if i == end {
		return nil
	}
	j := i
	last := i // after the last non-space
	for ; j < end; j++ {
		c := p.s[j]
		if c == ',' || c == ']' || c == '}' {
			break
		}
		if c == '[' || c == '{' || c == ':' || c == '?' || c == '#' {
			return nil
		}
		if c != ' ' {
			last = j + 1
		}
	}
	if last == i {
		return nil // an empty entry
	}
	v := p.s[i:last]
	if strings.IndexByte(yamlIndicators, v[0]) >= 0 && (v[0] != '-' || len(v) == 1 || v[1] == ' ') {
		return nil
	}
	return p.scalar(v, 0, p.line, p.col(i))
}

// literal reads a | block scalar, the indicator at i, the block on the
// lines after, which are indented more than the mapping's keys (ind); its
// value keeps one final line break (clip). It moves past the block.
func (p *yfast) literal(i, ind int) *yaml.Node {
	line, col := p.line, p.col(i)
	p.nextLine(p.lineEnd())
	if p.pos == len(p.s) || p.s[p.pos] == '\n' {
		return nil // empty, or leading empty lines (which set the indentation)
	}
	bi, ok := p.indent()
	if !ok || bi <= ind {
		return nil
	}
	var b strings.Builder
	from, to := 0, 0 // the value while it is one line, with its break
	lines, empty := 0, 0
	for p.pos < len(p.s) {
		end := p.lineEnd()
		if end == p.pos {
			empty++
			p.nextLine(end)
			continue
		}
		k := p.pos
		for k < end && k-p.pos < bi && p.s[k] == ' ' {
			k++
		}
		if k == end {
			return nil // a line of spaces
		}
		if k-p.pos < bi {
			break // the block ended
		}
		next := min(end+1, len(p.s)) // with the line break, if any
		if lines == 0 {
			from, to = k, next
		} else {
			if lines == 1 {
				b.WriteString(p.s[from:to])
			}
			for ; empty > 0; empty-- {
				b.WriteByte('\n')
			}
			b.WriteString(p.s[k:next])
		}
		empty = 0
		lines++
		p.nextLine(end)
	}
	v := p.s[from:to]
	if lines > 1 {
		v = b.String()
	}
	return p.scalar(v, yaml.LiteralStyle, line, col)
}
