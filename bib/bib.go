// Package bib reads the book's bibliography, chapters/references.bib, in
// BibTeX as pandoc and Quarto read it: @TYPE{KEY, field = {value}, ...}
// entries (or with parentheses), values in braces, in quotes or bare
// (a number or an @string name, a month), joined with #; @string,
// @preamble and @comment; text outside entries is a comment. Every
// problem is an error at FILE:LINE:COL.
//
// It is a small parser of its own: the Go BibTeX parser on the module
// proxy (github.com/nickng/bibtex) keeps its state in a package variable,
// so two builds in one process race, ends the process (log.Fatalf) on an
// undefined @string name, and reports no entry's position.
package bib

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"measuredbook/expr"
	"measuredbook/parse"
)

// Entry is one source.
type Entry struct {
	Type   string            // lower case: book, article, misc, online, ...
	Key    string            // as written; keys are case-sensitive, as pandoc's are
	Fields map[string]string // lower-case names; values with braces and TeX escapes resolved (url and doi verbatim)
	At     parse.Pos         `json:"-"` // of the key, for errors (not in the render cache's key)
}

// Bib is a bibliography: its entries in the file's order.
type Bib struct {
	Entries []*Entry
	byKey   map[string]*Entry
}

// Lookup returns the entry of key.
func (b *Bib) Lookup(key string) (*Entry, bool) {
	if b == nil {
		return nil, false
	}
	e, ok := b.byKey[key]
	return e, ok
}

// Keys are the entries' keys, in the file's order.
func (b *Bib) Keys() []string {
	if b == nil {
		return nil
	}
	keys := make([]string, len(b.Entries))
	for i, e := range b.Entries {
		keys[i] = e.Key
	}
	return keys
}

// months are the names BibTeX defines for month = jan.
var months = map[string]string{"jan": "1", "feb": "2", "mar": "3", "apr": "4", "may": "5", "jun": "6",
	"jul": "7", "aug": "8", "sep": "9", "oct": "10", "nov": "11", "dec": "12"}

// Parse reads a bibliography. A duplicate key, an unknown @string name
// and a malformed entry are errors; Parse reads on past each, so one run
// reports all.
func Parse(file string, src []byte) (*Bib, error) {
	p := &parser{src: src, e: parse.NewErrs(file, src), strs: map[string]string{}}
	b := &Bib{byKey: map[string]*Entry{}}
	for {
		at := bytes.IndexByte(src[min(p.i, len(src)):], '@')
		if at < 0 {
			break
		}
		p.i += at + 1
		e := p.entry()
		if e == nil {
			continue
		}
		if first, dup := b.byKey[e.Key]; dup {
			p.e.At(p.keyOff, "duplicate key %q (first at %s)", e.Key, first.At)
			continue
		}
		b.byKey[e.Key] = e
		b.Entries = append(b.Entries, e)
	}
	return b, p.e.Err()
}

type parser struct {
	src    []byte
	i      int
	e      *parse.Errs
	strs   map[string]string // @string names
	keyOff int               // the last entry's key
}

func (p *parser) space() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t' || p.src[p.i] == '\n' || p.src[p.i] == '\r') {
		p.i++
	}
}

// name reads a type, a key, a field or a @string name: anything up to
// white space or one of the characters that end it.
func (p *parser) name(stop string) string {
	start := p.i
	for p.i < len(p.src) {
		r, n := utf8.DecodeRune(p.src[p.i:])
		if unicode.IsSpace(r) || strings.ContainsRune(stop, r) {
			break
		}
		p.i += n
	}
	return string(p.src[start:p.i])
}

// entry reads what follows an @: an entry, or nil for @string,
// @preamble, @comment and a malformed entry (reported).
func (p *parser) entry() *Entry {
	typ := strings.ToLower(p.name("{(,=#\"}"))
	p.space()
	if p.i >= len(p.src) || p.src[p.i] != '{' && p.src[p.i] != '(' {
		if typ != "" {
			p.e.At(p.i, "@%s: expected { after the entry type", typ)
		}
		return nil
	}
	closer := byte('}')
	if p.src[p.i] == '(' {
		closer = ')'
	}
	open := p.i
	p.i++
	switch typ {
	case "comment", "preamble":
		p.skipBalanced(open)
		return nil
	case "string":
		p.stringDef(open, closer)
		return nil
	case "":
		p.e.At(open, "@ with no entry type: expected @TYPE{KEY, ...}")
		p.skipBalanced(open)
		return nil
	}
	p.space()
	p.keyOff = p.i
	e := &Entry{Type: typ, Fields: map[string]string{}, At: p.e.Pos(p.i)}
	e.Key = p.name("," + string(closer))
	if e.Key == "" {
		p.e.At(p.i, "@%s: expected a key before the first field", typ)
		p.skipBalanced(open)
		return nil
	}
	for {
		p.space()
		if p.i >= len(p.src) {
			p.e.At(open, "@%s{%s: not closed: expected %c", typ, e.Key, closer)
			return nil
		}
		if p.src[p.i] == closer {
			p.i++
			return e
		}
		if !p.expect(',', "between fields") || !p.field(e, closer) {
			p.skipBalanced(open)
			return nil
		}
	}
}

// stringDef reads the rest of an @string{NAME = VALUE} opened at open.
func (p *parser) stringDef(open int, closer byte) {
	p.space()
	at := p.i
	name := strings.ToLower(p.name("=" + string(closer)))
	p.space()
	if name == "" || !p.expect('=', "after the @string name") {
		p.skipBalanced(open)
		return
	}
	v, ok := p.value(closer)
	if ok {
		p.strs[name] = v
	} else {
		p.e.At(at, "@string %s has no value", name)
	}
	p.space()
	p.expect(closer, "to close the @string")
}

// field reads one NAME = VALUE of entry e after its comma (none after a
// trailing comma); false when it is malformed.
func (p *parser) field(e *Entry, closer byte) bool {
	p.space()
	if p.i < len(p.src) && p.src[p.i] == closer {
		return true // a comma after the last field
	}
	at := p.i
	field := strings.ToLower(p.name("=," + string(closer)))
	p.space()
	if field == "" || !p.expect('=', "after the field name "+field) {
		return false
	}
	v, ok := p.value(closer)
	if !ok {
		return false
	}
	if _, dup := e.Fields[field]; dup {
		p.e.At(at, "@%s{%s: field %s given twice", e.Type, e.Key, field)
	}
	if field == "url" || field == "doi" {
		v = strings.Join(strings.Fields(v), "") // verbatim: a ~ or -- in an address is no TeX
	} else {
		v = Text(v)
	}
	e.Fields[field] = v
	return true
}

// expect consumes c, or reports what was expected where.
func (p *parser) expect(c byte, where string) bool {
	if p.i < len(p.src) && p.src[p.i] == c {
		p.i++
		return true
	}
	p.e.At(p.i, "expected %q %s", c, where)
	return false
}

// skipBalanced moves past the entry opened at open, after an error.
func (p *parser) skipBalanced(open int) {
	depth := 0
	for p.i = open; p.i < len(p.src); p.i++ {
		switch p.src[p.i] {
		case '{', '(':
			depth++
		case '}', ')':
			if depth--; depth == 0 {
				p.i++
				return
			}
		}
	}
}

// value reads a field's value: parts joined by #, each in braces, in
// quotes, a number or an @string name.
func (p *parser) value(closer byte) (string, bool) {
	var b strings.Builder
	for {
		p.space()
		if p.i >= len(p.src) {
			p.e.At(p.i, "expected a value")
			return "", false
		}
		switch c := p.src[p.i]; {
		case c == '{' || c == '"':
			s, ok := p.delimited()
			if !ok {
				return "", false
			}
			b.WriteString(s)
		default:
			at := p.i
			word := p.name(",#" + string(closer))
			if word == "" {
				p.e.At(at, "expected a value in {braces}, in \"quotes\", a number or a @string name")
				return "", false
			}
			if strings.Trim(word, "0123456789") == "" {
				b.WriteString(word)
			} else if s, ok := p.strs[strings.ToLower(word)]; ok {
				b.WriteString(s)
			} else if m, ok := months[strings.ToLower(word)]; ok {
				b.WriteString(m)
			} else {
				p.e.At(at, "unknown @string name %q%s; a text value goes in {braces} or \"quotes\"", word, expr.DidYouMean(word, slices.Sorted(maps.Keys(p.strs))))
				return "", false
			}
		}
		p.space()
		if p.i < len(p.src) && p.src[p.i] == '#' {
			p.i++
			continue
		}
		return b.String(), true
	}
}

// delimited reads {…} or "…": braces nest (kept for Text), and a quote
// inside braces is text.
func (p *parser) delimited() (string, bool) {
	start, depth := p.i, 0
	closer := byte('"')
	if p.src[start] == '{' {
		closer = '}'
	}
	for p.i++; p.i < len(p.src); p.i++ {
		switch c := p.src[p.i]; {
		case c == '\\':
			p.i++
		case c == closer && depth == 0:
			p.i++
			return string(p.src[start+1 : p.i-1]), true
		case c == '{':
			depth++
		case c == '}':
			depth--
		}
	}
	p.e.At(start, "unclosed %c in a value", p.src[start])
	return "", false
}

// tex are the TeX escapes a value may hold and what they stand for.
var tex = strings.NewReplacer(`\&`, "&", `\%`, "%", `\_`, "_", `\#`, "#", `\$`, "$", `\{`, "\x00", `\}`, "\x01",
	"---", "—", "--", "–", "~", "\u00a0", `\textendash`, "–", `\textemdash`, "—", `\S`, "§")

// Text is a value as a reader reads it: braces (which only protect case
// in BibTeX) dropped, the common TeX escapes resolved, white space folded.
func Text(v string) string {
	v = tex.Replace(v)
	v = strings.NewReplacer("{", "", "}", "", "\x00", "{", "\x01", "}").Replace(v)
	return strings.Join(strings.Fields(v), " ")
}
