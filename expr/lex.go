package expr

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind int

const (
	tEOF   tokKind = iota
	tNum           // 2, 0.5, 500us, 8KiB
	tStr           // "text"
	tIdent         // growth, idle, readiness.round (a dotted path is one token)
	tSel           // [k=v, ...], kept raw: values such as 500µs or 1e4 are not tokens
	tLParen
	tRParen
	tComma
	tPlus
	tMinus
	tStar
	tSlash
	tLT
	tLE
	tGT
	tGE
	tEQ
	tNE
	tAnd
	tOr
	tNot
	tQuest
	tColon
	tTilde
	tPipe
)

// token is one lexeme. off and end are byte offsets into the source.
type token struct {
	kind     tokKind
	off, end int
	text     string // the source text; the decoded contents for tStr
	num      float64
	dim      Dim
}

// span makes a token a node for errAt, which positions errors at either.
func (t token) span() (int, int) { return t.off, t.end }

var tokNames = map[tokKind]string{
	tEOF: "end of expression", tLParen: "(", tRParen: ")", tComma: ",",
	tPlus: "+", tMinus: "-", tStar: "*", tSlash: "/",
	tLT: "<", tLE: "<=", tGT: ">", tGE: ">=", tEQ: "==", tNE: "!=",
	tAnd: "&&", tOr: "||", tNot: "!", tQuest: "?", tColon: ":", tTilde: "~", tPipe: "|",
}

// describe names a token for an error message.
func (t token) describe() string {
	switch t.kind {
	case tNum, tIdent, tSel:
		return strconv.Quote(t.text)
	case tStr:
		return "a string"
	case tEOF:
		return "the end of the expression"
	}
	return strconv.Quote(tokNames[t.kind])
}

// units are the suffixes a literal number may carry. Sub-second units
// divide by a power of ten rather than multiply by its inverse: 100/1e9 is
// the float nearest 100 ns, 100*1e-9 is not.
var units = map[string]struct {
	mul, div float64
	dim      Dim
}{
	"ns": {1, 1e9, Duration}, "us": {1, 1e6, Duration}, "µs": {1, 1e6, Duration}, "μs": {1, 1e6, Duration},
	"ms": {1, 1e3, Duration}, "s": {1, 1, Duration},
	"B": {1, 1, Bytes}, "KiB": {1 << 10, 1, Bytes}, "MiB": {1 << 20, 1, Bytes}, "GiB": {1 << 30, 1, Bytes},
}

var unitNames = []string{"ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB"}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// lex splits src into tokens, ending with tEOF. The whole expression is
// short, so lexing it up front keeps the parser a plain walk over a slice.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for {
		i = skip(src, i, unicode.IsSpace)
		if i >= len(src) {
			return append(toks, token{kind: tEOF, off: len(src), end: len(src)}), nil
		}
		r, w := utf8.DecodeRuneInString(src[i:])
		var t token
		var err error
		switch {
		case r >= '0' && r <= '9':
			t, err = lexNumber(src, i)
		case isIdentStart(r):
			t = lexIdent(src, i)
		case r == '"':
			t, err = lexString(src, i)
		case r == '[':
			t, err = lexSelector(src, i)
		default:
			t, err = lexOperator(src, i, r, w)
		}
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		i = t.end
	}
}

// skip returns the offset of the first rune at or after i that is not f's.
func skip(src string, i int, f func(rune) bool) int {
	return len(src) - len(strings.TrimLeftFunc(src[i:], f))
}

// lexIdent reads a name or a dotted path. A '.' belongs to the path only
// when a name follows it, so "a.b" is one token and "a." is "a" then an error.
func lexIdent(src string, i int) token {
	start := i
	i = skip(src, i, isIdentPart)
	for i+1 < len(src) && src[i] == '.' {
		if r, _ := utf8.DecodeRuneInString(src[i+1:]); !isIdentStart(r) {
			break
		}
		i = skip(src, i+1, isIdentPart)
	}
	return token{kind: tIdent, off: start, end: i, text: src[start:i]}
}

// lexNumber reads digits, an optional fraction and exponent, and an optional
// unit suffix written right after the digits (500us, not 500 us).
func lexNumber(src string, i int) (token, error) {
	start := i
	isDigit := func(r rune) bool { return r >= '0' && r <= '9' }
	i = skip(src, i, isDigit)
	if i+1 < len(src) && src[i] == '.' && isDigit(rune(src[i+1])) {
		i = skip(src, i+1, isDigit)
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(rune(src[j])) {
			i = skip(src, j, isDigit)
		}
	}
	numEnd := i
	v, err := strconv.ParseFloat(src[start:numEnd], 64)
	if err != nil { // only overflow can get here: the text is well formed
		return token{}, &Error{Off: start, Len: numEnd - start, Msg: fmt.Sprintf("number %s is out of range", src[start:numEnd])}
	}
	i = skip(src, i, unicode.IsLetter)
	t := token{kind: tNum, off: start, end: i, text: src[start:i], num: v}
	if suffix := src[numEnd:i]; suffix != "" {
		u, ok := units[suffix]
		if suffix == "x" {
			return token{}, &Error{Off: numEnd, Len: 1, Msg: fmt.Sprintf("write a ratio as a plain number: %s, not %s", src[start:numEnd], src[start:i])}
		}
		if !ok {
			msg := fmt.Sprintf("unknown unit %q in %s%s; units are %s", suffix, src[start:i], DidYouMean(suffix, unitNames), strings.Join(unitNames, ", "))
			return token{}, &Error{Off: numEnd, Len: i - numEnd, Msg: msg}
		}
		t.num = t.num * u.mul / u.div
		t.dim = u.dim
	}
	return t, nil
}

// lexString reads a double-quoted string with \" and \\ escapes.
func lexString(src string, i int) (token, error) {
	start := i
	var b strings.Builder
	i++
	for i < len(src) {
		c := src[i]
		switch c {
		case '"':
			return token{kind: tStr, off: start, end: i + 1, text: b.String()}, nil
		case '\\':
			if i+1 < len(src) && (src[i+1] == '"' || src[i+1] == '\\') {
				b.WriteByte(src[i+1])
				i += 2
				continue
			}
			return token{}, &Error{Off: i, Len: min(2, len(src)-i), Msg: `unknown escape in string: only \" and \\ are escapes`}
		}
		b.WriteByte(c)
		i++
	}
	return token{}, &Error{Off: start, Len: 1, Msg: "string is not closed: expected a closing \""}
}

// lexSelector reads [ ... ] raw; the parser splits it. '[' has no other use
// in the language, so the matching ']' is simply the next one.
func lexSelector(src string, i int) (token, error) {
	j := strings.IndexAny(src[i+1:], "[]")
	if j < 0 || src[i+1+j] == '[' {
		return token{}, &Error{Off: i, Len: 1, Msg: "selector is not closed: expected ] after [k=v, ...]"}
	}
	end := i + 1 + j + 1
	return token{kind: tSel, off: i, end: end, text: src[i:end]}, nil
}

// operators are the operator tokens by their text: tokNames read backwards.
var operators = func() map[string]tokKind {
	m := map[string]tokKind{}
	for k, text := range tokNames {
		if k != tEOF {
			m[text] = k
		}
	}
	return m
}()

// lexOperator reads an operator, the longest that fits: <= before <.
func lexOperator(src string, i int, r rune, w int) (token, error) {
	for _, n := range []int{2, 1} {
		if i+n <= len(src) {
			if k, ok := operators[src[i:i+n]]; ok {
				return token{kind: k, off: i, end: i + n, text: src[i : i+n]}, nil
			}
		}
	}
	switch r {
	case '=':
		return token{}, &Error{Off: i, Len: 1, Msg: "expected == to compare (a single = belongs in a selector [k=v])"}
	case '&':
		return token{}, &Error{Off: i, Len: 1, Msg: "expected && (a single & is not an operator)"}
	case ']':
		return token{}, &Error{Off: i, Len: 1, Msg: "unexpected ] without a ["}
	}
	if r == utf8.RuneError && w == 1 {
		return token{}, &Error{Off: i, Len: 1, Msg: "invalid UTF-8 in expression"}
	}
	return token{}, &Error{Off: i, Len: w, Msg: fmt.Sprintf("unexpected character %q", r)}
}
