package render

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// sameAsChroma fails t unless classFormatter writes for tokens what
// chroma's formatter writes.
func sameAsChroma(t *testing.T, name string, tokens []chroma.Token) {
	t.Helper()
	cb := newCodeBlocks(highlightOptions...)
	if cb.classes == nil {
		t.Fatal("no classFormatter: chroma's output for no tokens has no </code>")
	}
	var want bytes.Buffer
	if err := cb.formatter.Format(&want, cb.style, chroma.Literator(tokens...)); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	w := bufio.NewWriter(&got)
	cb.classes.format(w, slices.Clone(tokens))
	w.Flush()
	if got.String() != want.String() {
		t.Errorf("%s: classFormatter wrote\n%s\nchroma's formatter\n%s", name, &got, &want)
	}
}

// TestClassFormatter holds classFormatter to chroma's formatter on code
// in several languages (escapes, empty lines, a last line without a
// newline) and on every token type chroma knows, with its subtypes.
func TestClassFormatter(t *testing.T) {
	code := map[string]string{
		"go":     "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tif a < b && c > d {\n\t\tfmt.Println(\"<&'\\\">\")\n\t}\n}",
		"c":      "#include <stdio.h>\nint main(void) { char c = '\\''; return a<b&&b>c; }\n",
		"python": "def f(x):\n    return x if x > 0 else -x  # \"comment\" & 'more'\n\n\n",
		"bash":   "for f in *.md; do echo \"$f\" > /dev/null 2>&1 & done\n",
		"html":   "<p class=\"x\">a &amp; b</p>\n",
		"text":   "plain <text> & 'quotes'\n",
	}
	for lang, src := range code {
		lexer := lexers.Get(lang)
		if lexer == nil {
			t.Fatalf("chroma has no lexer for %s", lang)
		}
		it, err := tokenise(lexer, src)
		if err != nil {
			t.Fatal(err)
		}
		sameAsChroma(t, lang, it.Tokens())
	}
	var all []chroma.Token
	for tt := range chroma.StandardTypes {
		for _, sub := range []chroma.TokenType{tt, tt + 1, tt + 7} {
			all = append(all, chroma.Token{Type: sub, Value: sub.String() + "<\n"})
		}
	}
	sameAsChroma(t, "every token type", all)
	sameAsChroma(t, "no tokens", nil)
}

// FuzzClassFormatter: any tokens, of types chroma knows or not.
func FuzzClassFormatter(f *testing.F) {
	f.Add(uint64(1), "a<b\n&'\"c\n\nd")
	f.Fuzz(func(t *testing.T, seed uint64, text string) {
		r := rand.New(rand.NewPCG(seed, 0))
		types := make([]chroma.TokenType, 0, len(chroma.StandardTypes))
		for tt := range chroma.StandardTypes {
			types = append(types, tt)
		}
		slices.Sort(types)
		var tokens []chroma.Token
		for len(text) > 0 {
			n := 1 + r.IntN(len(text))
			tt := types[r.IntN(len(types))] + chroma.TokenType(r.IntN(3))
			tokens = append(tokens, chroma.Token{Type: tt, Value: text[:n]})
			text = text[n:]
		}
		sameAsChroma(t, "fuzzed", tokens)
	})
}
