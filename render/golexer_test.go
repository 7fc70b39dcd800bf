package render

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"measuredbook/parse/ast"
)

// chromaGo is what chroma's own Go lexer makes of code, coalesced.
func chromaGo(tb testing.TB, code string) []chroma.Token {
	it, err := chroma.Coalesce(lexers.Go).Tokenise(nil, code)
	if err != nil {
		tb.Fatal(err)
	}
	return it.Tokens()
}

// sameTokens fails tb unless goTokens gives chroma's tokens for code or
// declines it; it reports whether goTokens declined.
func sameTokens(tb testing.TB, name, code string) (declined bool) {
	got, ok := goTokens(code)
	if !ok {
		return true
	}
	want := chromaGo(tb, code)
	if i := firstDiff(got, want); i >= 0 {
		tb.Errorf("%s: token %d: got %s, want %s (of %d and %d)", name, i, at(got, i), at(want, i), len(got), len(want))
	}
	return false
}

func firstDiff(a, b []chroma.Token) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func at(ts []chroma.Token, i int) string {
	if i >= len(ts) {
		return "nothing"
	}
	return fmt.Sprintf("%s %q", ts[i].Type, ts[i].Value)
}

// bookBlocks calls f with every fenced code block of ../chapters/*.md
// that is not a directive, its source and its code. Directives are left
// out: the book renders them before code is coloured, and a name chroma
// does not know costs lexers.Get a glob match against every lexer's file
// names.
func bookBlocks(tb testing.TB, f func(fb *gast.FencedCodeBlock, src []byte, code string)) {
	files, _ := filepath.Glob("../chapters/*.md")
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		doc := goldmark.New().Parser().Parse(text.NewReader(src))
		_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
			fb, ok := n.(*gast.FencedCodeBlock)
			if !entering || !ok || ast.IsDirective(string(fb.Language(src))) {
				return gast.WalkContinue, nil
			}
			var b strings.Builder
			for i := range fb.Lines().Len() {
				line := fb.Lines().At(i)
				b.Write(line.Value(src))
			}
			f(fb, src, b.String())
			return gast.WalkContinue, nil
		})
	}
}

// bookGoBlocks returns the text of every fenced code block of
// ../chapters/*.md that chroma reads as Go, as codeBlocks.render gives it.
func bookGoBlocks(tb testing.TB) []string {
	var blocks []string
	bookBlocks(tb, func(fb *gast.FencedCodeBlock, src []byte, code string) {
		if fb.Info != nil && lexers.Get(string(fb.Language(src))) == lexers.Go {
			blocks = append(blocks, code)
		}
	})
	if len(blocks) == 0 {
		tb.Fatal("no Go code blocks in ../chapters")
	}
	return blocks
}

// TestGoTokensBook: goTokens reads every Go block of the book to
// chroma's tokens, or declines it (logged: the block is then coloured as
// fast as before, no slower).
func TestGoTokensBook(t *testing.T) {
	for i, code := range bookGoBlocks(t) {
		if sameTokens(t, fmt.Sprintf("block %d", i), code) {
			t.Logf("block %d is left to chroma's lexer:\n%s", i, code)
		}
	}
}

// TestGoTokensCorpus compares goTokens with chroma on real Go: the
// standard library's go/... and net/http sources, test data included.
// goTokens may decline a file, but not many: one that always declined
// would be correct and useless.
func TestGoTokensCorpus(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	var files, declined []string
	for _, dir := range []string{"go", "net/http"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			info, err := d.Info()
			if err != nil || info.Size() > 8<<10 {
				return err // chroma reads some 300 kB a second
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files = append(files, path)
			if sameTokens(t, path, string(src)) {
				declined = append(declined, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d files, %d declined: %s", len(files), len(declined), strings.Join(declined, " "))
	if len(files) < 200 {
		t.Fatalf("only %d files under %s", len(files), root)
	}
	if len(declined)*20 >= len(files) {
		t.Errorf("goTokens declined %d of %d files, 5%% or more", len(declined), len(files))
	}
}

// goSnippets are Go, and not quite Go, that chroma reads in odd ways.
var goSnippets = []string{
	"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
	"x := 0x_1p-2 + 1_000 + 0o17 + 0O17 + 017 + 3i + 1.5e3i + .5 + 1. + 0b1_0 + 0B1 + 0x1.8p3 + 1e5i + 08.5 + 0X_Ff\n",
	"var r = []rune{'a', '\\'', '\\\\', '\\x41', '\\101', '\\u00e9', '\\U0001F600', 'é', '\\n'}\n",
	"s := `raw\nstring { with } newlines`\nt := \"esc \\\" \\\\\" + \"\"\n",
	"/* a comment\n   over lines */ x /**/ y /***/\n//go:build linux\n// spaced\n//\n//\u00a0nbsp\n",
	"var 変数 = ñame + _x9 + x٣\nfunc Ünicode() {}\nfunc f() { é(1); _f (2); g\n(3) }\n",
	"func Map[K comparable, V any](m map[K]V, f func(V) V) {}\ntype Num interface{ ~int | ~float64 }\n",
	"outer:\n\tfor x := range ch {\n\t\tcontinue outer\n\t}\n\tgoto outer\n",
	"func f(xs ...int) { g(xs...); a &^= b; a ^= c; a <<= 2; ch <- <-ch; x != y; !ok; a[1:2:3] }\n",
	"v := int(x) + int (y) + any(z) + float(1) + len(s) + len (s) + print + new(T) + nil + iota + true\n",
	"n := 0i + 00i + 0x0i + 0b1i + 0o7i + 0.i + 1.e+5 + 1e+5i + 1E-5i + .5e5i + 1_0i + 12abc + 0x1g + 1.String() + 1..5\n",
	"m := 0o1 (2) + 0o1(3) + 0B1(4) + x.len(y) + error(e) + _(1) + ŝ (2) + aŝ(3)\n",
	"a &&= b; a ||= b; a !== b; a ==== b; a +++ b; a ..... b; a ^^= b; a =^= b; a<<-b; x:=<-c; a&^b\n",
	"x := 1 /* c */ + 2 //\tx\n//*y\n/*/ */ /* ** */ /* \\\n*/ s := \"\u2028\\xff\"\n",
	"func wait7(fd int) error {\n\tfds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}\n\tfor {\n\t\tn, err := unix.Poll(fds, 250)\n\t\tif err == unix.EINTR {\n\t\t\tcontinue\n\t\t}\n\t\tif n > 0 || err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n}\n",
	"switch v := x.(type) {\ncase interface{ M() }:\n\tfunc (r *T) M() {}\n}\n",
	"s := \"unterminated\n",
	"r := 'ab'\n",
	"/* open comment\n",
	"x := `never closed\n",
	"t := `{{ .Name }}`\n",
	"/* a *\\\n/ b */\n",
	"x = 0o1x + 1\n",
	"a ^== b\n",
	"\ufeffpackage p\n",
	"x := y \r\n z := \"\\r\"\r\n",
	"#include <stdio.h>\n",
	"",
	"\n\n\t \n",
}

// TestGoTokensSnippets compares goTokens with chroma on goSnippets, and
// wants it to take most of them.
func TestGoTokensSnippets(t *testing.T) {
	taken := 0
	for i, code := range goSnippets {
		if !sameTokens(t, fmt.Sprintf("snippet %d %q", i, code), code) {
			taken++
		}
	}
	if taken < len(goSnippets)/2 {
		t.Errorf("goTokens took only %d of %d snippets", taken, len(goSnippets))
	}
}

// TestGoHighlightHTML: a page's Go code, read by goTokens, is the HTML
// goldmark-highlighting makes with chroma's Go lexer, byte for byte.
func TestGoHighlightHTML(t *testing.T) {
	var md bytes.Buffer
	for i, code := range append(bookGoBlocks(t), goSnippets...) {
		lang := []string{"go", "golang", "Go"}[i%3]
		if _, ok := goTokens(code); !ok {
			continue
		}
		if code != "" && !strings.HasSuffix(code, "\n") {
			code += "\n"
		}
		fmt.Fprintf(&md, "text %d\n\n````%s\n%s````\n\n", i, lang, code)
	}
	ext := goldmark.New(goldmark.WithExtensions(highlighting.NewHighlighting(highlighting.WithFormatOptions(highlightOptions...))))
	ours := goldmark.New(goldmark.WithExtensions(site{}))
	var want, got bytes.Buffer
	if err := ext.Convert(md.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	if err := ours.Convert(md.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got.String(), `<pre class="chroma">`); n < 10 {
		t.Fatalf("only %d highlighted blocks in\n%s", n, got.String())
	}
	if got.String() != want.String() {
		g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("line %d differs:\ngot:  %s\nwant: %s", i+1, g[i], w[i])
			}
		}
		t.Fatalf("got %d lines, want %d", len(g), len(w))
	}
}

// FuzzGoTokens: goTokens gives chroma's tokens or declines, never other
// tokens.
func FuzzGoTokens(f *testing.F) {
	for _, s := range goSnippets {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		sameTokens(t, "input", code)
	})
}

// BenchmarkGoTokens tokenises the book's Go blocks with chroma's Go lexer,
// and as the page renderer does (goTokens, or chroma's lexer for a block
// it declines, counted in declined/op): go test -bench GoTokens -run '^$'
// ./render.
func BenchmarkGoTokens(b *testing.B) {
	blocks := bookGoBlocks(b)
	coalesced := chroma.Coalesce(lexers.Go)
	b.Run("chroma", func(b *testing.B) {
		tokeniseAll(b, blocks, func(code string) (chroma.Iterator, error) { return coalesced.Tokenise(nil, code) })
	})
	b.Run("scanner", func(b *testing.B) {
		tokeniseAll(b, blocks, func(code string) (chroma.Iterator, error) { return tokenise(lexers.Go, code) })
		declined := 0
		for _, code := range blocks {
			if _, ok := goTokens(code); !ok {
				declined++
			}
		}
		b.ReportMetric(float64(declined), "declined/op")
	})
}

func tokeniseAll(b *testing.B, blocks []string, tokenise func(string) (chroma.Iterator, error)) {
	for b.Loop() {
		for _, code := range blocks {
			it, err := tokenise(code)
			if err != nil {
				b.Fatal(err)
			}
			it.Tokens()
		}
	}
}
