package render

import (
	"go/scanner"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// goTokens returns the tokens chroma's Go lexer gives code, after
// chroma.Coalesce, or ok false when it cannot promise the same tokens: the
// caller then asks chroma. It scans with go/scanner, which is many times
// cheaper than chroma's backtracking regular expressions, and gives each
// Go token the type the first of chroma's rules (lexers/go.go) that
// matches there would give it.
//
// Most Go tokens are one chroma token, but not all. Chroma's rules know
// only some of Go's number syntax, so a number is cut where they cut it
// ("0x1p-2" is a hexadecimal "0x1", a name "p", an operator and an
// integer); "^=" is two punctuation marks. It gives up, rather than guess,
// on whatever chroma's rules read differently from go/scanner:
//
//   - anything go/scanner reports an error for (text that is not Go,
//     unterminated strings and comments, invalid UTF-8, a byte order mark);
//   - a raw string holding "{{", which chroma colours as a Go template;
//   - a block comment holding `*\` and a newline before a "/", where
//     chroma's comment rule ends it early;
//   - a token chroma would extend past where go/scanner ends it ("0o1x"
//     is an integer "0" and a name "o1x" for chroma, "0o1" and "x" for Go);
//   - a run of one type reaching 8192 bytes, where chroma.Coalesce stops
//     joining at a point that depends on how its lexer cut the run.
//
// Whitespace between tokens is chroma's TextWhitespace; Coalesce's joining
// of neighbours of one type is done by extending the previous token, as
// neighbours are always adjacent in the text.
func goTokens(code string) (tokens []chroma.Token, ok bool) {
	src := ensureLF(code)
	if strings.HasPrefix(src, "\uFEFF") {
		// go/scanner skips a leading byte order mark; chroma's rules
		// match nothing there.
		return nil, false
	}
	g := goLexer{src: src, spans: make([]span, 0, len(src)/4)}
	if !g.lex() {
		return nil, false
	}
	tokens = make([]chroma.Token, len(g.spans))
	for i, s := range g.spans {
		if s.end-s.start >= 8192 {
			return nil, false
		}
		tokens[i] = chroma.Token{Type: s.typ, Value: src[s.start:s.end]}
	}
	return tokens, true
}

// ensureLF turns "\r\n" and a lone "\r" into "\n", as chroma's Tokenise
// does before lexing.
func ensureLF(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

type goLexer struct {
	src   string
	spans []span
}

// span is a token as a byte range of goLexer.src.
type span struct {
	typ        chroma.TokenType
	start, end int
}

// emit appends the token src[start:end], joined to the previous one when
// both have one type.
func (g *goLexer) emit(typ chroma.TokenType, start, end int) {
	if n := len(g.spans); n > 0 && g.spans[n-1].typ == typ {
		g.spans[n-1].end = end
		return
	}
	g.spans = append(g.spans, span{typ, start, end})
}

// lex scans src into g.spans, or reports false where goTokens declines.
// Any scanner error declines, so every token below is valid Go: that is
// what lets a token's first rule decide it (chroma's \w and \b take
// Unicode letters and digits as Go's identifiers do, and the
// characters where they differ are errors for go/scanner).
func (g *goLexer) lex() bool {
	src := []byte(g.src)
	file := token.NewFileSet().AddFile("", -1, len(src))
	failed := false
	var s scanner.Scanner
	s.Init(file, src, func(token.Position, string) { failed = true }, scanner.ScanComments)
	prev := 0
	for {
		pos, tok, lit := s.Scan()
		if failed {
			return false
		}
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted by the scanner, not in the text
		}
		start := file.Offset(pos)
		if !g.space(prev, start) {
			return false
		}
		end := start + len(lit)
		if lit == "" {
			end = start + len(tok.String())
		}
		if end > len(g.src) {
			return false
		}
		switch {
		case tok == token.IDENT || tok.IsKeyword():
			g.emit(g.word(tok, start, end), start, end)
		case tok == token.INT || tok == token.FLOAT || tok == token.IMAG:
			if !g.number(start, end) {
				return false
			}
		case tok == token.CHAR:
			g.emit(chroma.LiteralStringChar, start, end)
		case tok == token.STRING:
			if g.src[start] == '`' && strings.Contains(g.src[start:end], "{{") {
				return false
			}
			g.emit(chroma.LiteralString, start, end)
		case tok == token.COMMENT:
			if !g.comment(start, end) {
				return false
			}
		case tok.IsOperator():
			if !g.operators(start, end) {
				return false
			}
		default:
			return false
		}
		prev = end
	}
	return !failed && g.space(prev, len(g.src))
}

// space emits the whitespace src[start:end], declining anything else.
func (g *goLexer) space(start, end int) bool {
	if start == end {
		return true
	}
	if start > end {
		return false
	}
	for i := start; i < end; i++ {
		if c := g.src[i]; c != ' ' && c != '\t' && c != '\n' {
			return false
		}
	}
	g.emit(chroma.TextWhitespace, start, end)
	return true
}

// comment colours a comment: "//" followed by a space, or by nothing, is
// CommentSingle, and followed by anything else CommentPreproc (chroma
// reads "//go:build" as a directive, and so every "//x").
func (g *goLexer) comment(start, end int) bool {
	text := g.src[start:end]
	if text[1] == '/' {
		typ := chroma.CommentSingle
		if r, _ := utf8.DecodeRuneInString(text[2:]); len(text) > 2 && !unicode.IsSpace(r) {
			typ = chroma.CommentPreproc
		}
		g.emit(typ, start, end)
		return true
	}
	if strings.Contains(text[2:], "*\\\n/") {
		return false
	}
	g.emit(chroma.CommentMultiline, start, end)
	return true
}

// word colours the identifier or keyword tok, src[start:end], looking at
// what follows it as chroma's rules do: a builtin function or type
// directly before "(" is NameBuiltin, any other name starting with an
// ASCII letter or "_" and followed by "(" after spaces is NameFunction.
func (g *goLexer) word(tok token.Token, start, end int) chroma.TokenType {
	w := g.src[start:end]
	switch tok {
	case token.IMPORT, token.PACKAGE:
		return chroma.KeywordNamespace
	case token.VAR, token.FUNC, token.STRUCT, token.MAP, token.CHAN, token.TYPE, token.INTERFACE, token.CONST:
		return chroma.KeywordDeclaration
	case token.IDENT:
	default:
		return chroma.Keyword
	}
	switch w {
	case "true", "false", "iota", "nil":
		return chroma.KeywordConstant
	}
	isType := builtinType(w)
	if end < len(g.src) && g.src[end] == '(' && builtinFunc(w) {
		return chroma.NameBuiltin
	}
	if isType {
		return chroma.KeywordType
	}
	if c := w[0]; c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		i := end
		for i < len(g.src) && isSpace(g.src[i]) {
			i++
		}
		if i < len(g.src) && g.src[i] == '(' {
			return chroma.NameFunction
		}
	}
	return chroma.NameOther
}

// builtinType reports whether chroma colours w as a type (KeywordType).
// "float" is none of Go's, but is one of chroma's.
func builtinType(w string) bool {
	switch w {
	case "uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64",
		"float", "float32", "float64", "complex64", "complex128", "byte", "rune", "string", "bool",
		"error", "uintptr", "any":
		return true
	}
	return false
}

// builtinFunc reports whether chroma colours w as a builtin function when
// "(" follows; the types but "any" are such functions too.
func builtinFunc(w string) bool {
	switch w {
	case "print", "println", "panic", "recover", "close", "complex", "real", "imag", "len", "cap",
		"append", "copy", "delete", "new", "make", "clear", "min", "max":
		return true
	}
	return w != "any" && builtinType(w)
}

// number colours the number literal src[start:end] as chroma's rules cut
// it, declining when a piece would run past end.
func (g *goLexer) number(start, end int) bool {
	for p := start; p < end; {
		n, typ := chromaNumber(g.src, p)
		c := g.src[p]
		switch {
		case n > 0:
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			n = wordLen(g.src[p:])
			typ = g.word(token.Lookup(g.src[p:p+n]), p, p+n)
		default:
			n, typ = chromaOperator(g.src, p)
		}
		if n == 0 || p+n > end {
			return false
		}
		g.emit(typ, p, p+n)
		p += n
	}
	return true
}

// operators colours the operator or punctuation src[start:end]. Chroma
// may cut it in several pieces ("^=" is "^" and "="); it declines when a
// piece would run past end ("^==" is "^=" and "=" for Go, "^" and "==" for
// chroma).
func (g *goLexer) operators(start, end int) bool {
	for p := start; p < end; {
		n, typ := chromaOperator(g.src, p)
		if n == 0 || p+n > end {
			return false
		}
		g.emit(typ, p, p+n)
		p += n
	}
	return true
}

// chromaOperator is chroma's operator rule, then its punctuation rule, at
// s[p]: the operator rule's alternatives are tried in its order, which is
// not always the longest first. It returns 0 where an earlier rule (a
// comment, a number starting with ".") would match, or neither does.
func chromaOperator(s string, p int) (int, chroma.TokenType) {
	at := func(alts ...string) int {
		for _, a := range alts {
			if strings.HasPrefix(s[p:], a) {
				return len(a)
			}
		}
		return 0
	}
	var n int
	switch s[p] {
	case '<':
		n = at("<<=", "<<", "<=", "<-")
	case '>':
		n = at(">>=", ">>", ">=")
	case '&':
		n = at("&^=", "&^", "&=", "&&", "&")
	case '+':
		n = at("+=", "++", "+")
	case '-':
		n = at("-=", "--", "-")
	case '*':
		n = at("*=", "*")
	case '/':
		if at("//", "/*", "/\\\n*") > 0 {
			return 0, chroma.None
		}
		n = at("/=", "/")
	case '%':
		n = at("%=", "%")
	case '|':
		n = at("|=", "||")
	case '=':
		n = at("==")
	case '!':
		n = at("!=")
	case ':':
		n = at(":=")
	case '.':
		if p+1 < len(s) && isDigit(s[p+1]) {
			return 0, chroma.None
		}
		n = at("...")
	case '^', '(', ')', '[', ']', '{', '}', ',', ';', '~':
	default:
		return 0, chroma.None
	}
	if n > 0 {
		return n, chroma.Operator
	}
	return 1, chroma.Punctuation
}

// chromaNumber is chroma's number rules, tried in its order at s[p],
// each a backtracking regular expression that is here a direct scan:
//
//	\d+i                                          LiteralNumber
//	\d+\.\d*([Ee][-+]\d+)?i                       LiteralNumber
//	\.\d+([Ee][-+]\d+)?i                          LiteralNumber
//	\d+[Ee][-+]\d+i                               LiteralNumber
//	\d+(\.\d+[eE][+\-]?\d+|\.\d*|[eE][+\-]?\d+)   LiteralNumberFloat
//	\.\d+([eE][+\-]?\d+)?                         LiteralNumberFloat
//	0[0-7]+                                       LiteralNumberOct
//	0[xX][0-9a-fA-F_]+                            LiteralNumberHex
//	0b[01_]+                                      LiteralNumberBin
//	(0|[1-9][0-9_]*)                              LiteralNumberInteger
//
// It returns 0 when none matches. \d is any Unicode decimal digit for
// chroma but ASCII here: in text go/scanner accepts, no other digit can
// follow a number.
func chromaNumber(s string, p int) (int, chroma.TokenType) {
	is := func(i int, c byte) bool { return i < len(s) && s[i] == c }
	if is(p, '.') {
		f := digits(s, p+1)
		if f == p+1 {
			return 0, chroma.None
		}
		if e := exponent(s, f, true); e > 0 && is(e, 'i') {
			return e + 1 - p, chroma.LiteralNumber
		}
		if is(f, 'i') {
			return f + 1 - p, chroma.LiteralNumber
		}
		if e := exponent(s, f, false); e > 0 {
			return e - p, chroma.LiteralNumberFloat
		}
		return f - p, chroma.LiteralNumberFloat
	}
	d := digits(s, p)
	if d == p {
		return 0, chroma.None
	}
	if is(d, 'i') {
		return d + 1 - p, chroma.LiteralNumber
	}
	if is(d, '.') {
		f := digits(s, d+1)
		if e := exponent(s, f, true); e > 0 && is(e, 'i') {
			return e + 1 - p, chroma.LiteralNumber
		}
		if is(f, 'i') {
			return f + 1 - p, chroma.LiteralNumber
		}
	}
	if e := exponent(s, d, true); e > 0 && is(e, 'i') {
		return e + 1 - p, chroma.LiteralNumber
	}
	if is(d, '.') {
		f := digits(s, d+1)
		if e := exponent(s, f, false); f > d+1 && e > 0 {
			return e - p, chroma.LiteralNumberFloat
		}
		return f - p, chroma.LiteralNumberFloat
	}
	if e := exponent(s, d, false); e > 0 {
		return e - p, chroma.LiteralNumberFloat
	}
	if s[p] == '0' {
		if o := scan(s, p+1, func(c byte) bool { return '0' <= c && c <= '7' }); o > p+1 {
			return o - p, chroma.LiteralNumberOct
		}
		if is(p+1, 'x') || is(p+1, 'X') {
			if h := scan(s, p+2, func(c byte) bool { return isHex(c) || c == '_' }); h > p+2 {
				return h - p, chroma.LiteralNumberHex
			}
		}
		if is(p+1, 'b') {
			if b := scan(s, p+2, func(c byte) bool { return c == '0' || c == '1' || c == '_' }); b > p+2 {
				return b - p, chroma.LiteralNumberBin
			}
		}
		return 1, chroma.LiteralNumberInteger
	}
	return scan(s, p+1, func(c byte) bool { return isDigit(c) || c == '_' }) - p, chroma.LiteralNumberInteger
}

// exponent matches [eE][-+]\d+ (or [eE][-+]?\d+ when the sign is not
// required) at s[i] and returns where it ends, or 0.
func exponent(s string, i int, signRequired bool) int {
	if i >= len(s) || s[i] != 'e' && s[i] != 'E' {
		return 0
	}
	i++
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	} else if signRequired {
		return 0
	}
	if d := digits(s, i); d > i {
		return d
	}
	return 0
}

func scan(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func digits(s string, i int) int { return scan(s, i, isDigit) }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// isSpace is \s on the bytes go/scanner leaves between tokens.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// wordLen is the length of the run of chroma's word characters (\w:
// letters, nonspacing marks, decimal digits, connector punctuation and
// the zero-width joiners) that starts s.
func wordLen(s string) int {
	for i, r := range s {
		if !unicode.In(r, unicode.L, unicode.Mn, unicode.Nd, unicode.Pc) && r != '\u200C' && r != '\u200D' {
			return i
		}
	}
	return len(s)
}
