package render

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	gast "github.com/yuin/goldmark/ast"
)

// TestGithubStyle: githubStyle is the extension's default style as
// chroma's registry has it, entry for entry.
func TestGithubStyle(t *testing.T) {
	name := highlighting.NewConfig().Style
	want := styles.Get(name)
	if want.Name != name || githubStyle.Name != name {
		t.Fatalf("the extension's default style is %q; chroma has %q, githubStyle is %q", name, want.Name, githubStyle.Name)
	}
	if githubStyle.Counterpart != want.Counterpart {
		t.Errorf("counterpart %q, want %q", githubStyle.Counterpart, want.Counterpart)
	}
	for _, tt := range chroma.TokenTypeValues() {
		if got, want := githubStyle.Get(tt), want.Get(tt); got != want {
			t.Errorf("%s: %q, want %q", tt, got, want)
		}
		if got, want := githubStyle.Has(tt), want.Has(tt); got != want {
			t.Errorf("%s: Has is %t, want %t", tt, got, want)
		}
	}
	if !reflect.DeepEqual(githubStyle, want) {
		t.Errorf("githubStyle differs from chroma's %q style in its own entries", name)
	}
}

const (
	hlGo = "package main\n\n// main says <hi> & \"bye\".\nfunc main() {\n\tprintln(`a<b`, 'c', 1e3)\n}\n"
	// hlText is not Go: every lexer reads it somehow, and it holds what
	// HTML must escape.
	hlText = "<a href=\"x\">&amp;</a> if (x < 1) { y = 'z'; }\n# comment\n\nlast line"
)

// highlightInfos are info strings of fenced blocks: every attribute the
// extension reads, alone and together, odd values of each, braces that do
// not parse, languages chroma does not know and none at all.
var highlightInfos = []string{
	"", "go", "Go", "golang", "c", "text", "yaml extra words", "nosuchlang",
	"go {hl_lines=[2,3]}",
	"go {linenos=true}",
	"go {linenos=false}",
	"go {linenos=table}",
	"go {linenos=inline}",
	`go {linenos=""}`,
	`go {linenos="table"}`,
	"go {linenos=yes}",
	"go {linenos=1}",
	"go {linenos=true linenos=false}",
	"c {linenos=table, linenostart=98, hl_lines=[1,\"2-3\"]}",
	"c {linenostart=98 hl_lines=[1, 3]}",
	"go {linenostart=0 hl_lines=[0] linenos=inline}",
	"go {linenostart=-5 linenos=true}",
	"go {linenostart=1e3 linenos=table}",
	"go {linenostart=2.7 linenos=true}",
	"go {linenostart=\"7\" linenos=true}",
	`python {hl_lines=["3-", "x", "2-1", 9, "1-2-3", "-2", [1], true]}`,
	"go {hl_lines=[5,1,3] linenos=table}",
	"go {hl_lines=[] linenos=true}",
	"go {hl_lines=2}",
	"go {hl_lines=[99]}",
	"go {nohl=true}",
	"go {nohl=false linenos=true}",
	"nosuchlang {nohl=true}",
	"go {hl_style=monokai}",
	"go {hl_style=nosuchstyle linenos=table}",
	`go {hl_style="dracula" hl_lines=[1]}`,
	"go {.cls #id linenos=true}",
	"go {}",
	"go {hl_lines=[2,}",
	"go {linenos=true",
	"go{linenos=true}",
	"{linenos=true}",
	"nosuchlang {linenos=true}",
	"text {hl_lines=[1]}",
	"html {linenos=table hl_lines=[1]} trailing words",
	"go  {linenos=true}",
	"go x {linenos=true}",
}

// highlightMarkdown is every info string of highlightInfos over Go and
// over text, one fenced block each.
func highlightMarkdown() []byte {
	var md bytes.Buffer
	for _, info := range highlightInfos {
		for _, code := range []string{hlGo, hlText} {
			md.WriteString("text\n\n````" + info + "\n" + code + "\n````\n\n")
		}
	}
	return md.Bytes()
}

// highlightPair converts md with the extension (as this package used to
// set it up: classes, its default style) and with codeBlocks.
func highlightPair(tb testing.TB, md []byte) (want, got string) {
	tb.Helper()
	ext := goldmark.New(goldmark.WithExtensions(highlighting.NewHighlighting(highlighting.WithFormatOptions(highlightOptions...))))
	ours := goldmark.New()
	extendCodeBlocks(ours, nil)
	var w, g bytes.Buffer
	if err := ext.Convert(md, &w); err != nil {
		tb.Fatal(err)
	}
	if err := ours.Convert(md, &g); err != nil {
		tb.Fatal(err)
	}
	return w.String(), g.String()
}

func sameHTML(tb testing.TB, got, want string) {
	tb.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			tb.Fatalf("line %d differs:\ngot:  %s\nwant: %s", i+1, g[i], w[i])
		}
	}
	tb.Fatalf("got %d lines, want %d", len(g), len(w))
}

// TestHighlightLikeExtension: code blocks with and without attributes,
// in languages chroma knows and does not, and every fenced block of the
// book's chapters, are the extension's HTML byte for byte.
func TestHighlightLikeExtension(t *testing.T) {
	t.Run("infos", func(t *testing.T) {
		want, got := highlightPair(t, highlightMarkdown())
		// Each path of the extension is taken, so the table tests it.
		for _, mark := range []string{
			`<pre class="chroma"><code><span class="line"><span class="cl">`,
			`<span class="line hl">`,
			`<span class="ln">`,
			`<table class="lntable">`,
			`<span class="lnt">1000`,
			`<span class="ln">-5`,
			`<pre><code class="language-nosuchlang">`,
			`<pre><code class="language-go">`,
			"<pre><code>",
		} {
			if !strings.Contains(want, mark) {
				t.Errorf("no block of the table makes %s", mark)
			}
		}
		sameHTML(t, got, want)
	})
	t.Run("chapters", func(t *testing.T) {
		want, got := highlightPair(t, bookCodeBlocks(t))
		if n := strings.Count(want, "<pre"); n < 5 {
			t.Fatalf("only %d code blocks in the chapters", n)
		}
		sameHTML(t, got, want)
	})
}

// bookCodeBlocks returns every fenced block of ../chapters/*.md that is
// not a directive (see bookBlocks), as Markdown.
func bookCodeBlocks(tb testing.TB) []byte {
	var md bytes.Buffer
	bookBlocks(tb, func(fb *gast.FencedCodeBlock, src []byte, code string) {
		md.WriteString("````")
		if fb.Info != nil {
			md.Write(fb.Info.Segment.Value(src))
		}
		md.WriteByte('\n')
		md.WriteString(code)
		md.WriteString("````\n\n")
	})
	return md.Bytes()
}

// FuzzHighlightLikeExtension: a fenced block with any info string and
// any code is the extension's HTML byte for byte. The info string is one
// of fuzzLanguages (by lang), a space and rest, or rest alone (lang 0):
// most of chroma's time on a random info string goes into a glob match of
// its first word against every lexer's file names, and a language it
// knows leaves that time to the attributes and the code.
func FuzzHighlightLikeExtension(f *testing.F) {
	for _, info := range highlightInfos {
		lang, rest := 0, info
		for i, l := range fuzzLanguages {
			if after, ok := strings.CutPrefix(info, l+" "); ok && l != "" {
				lang, rest = i, after
			}
		}
		for _, code := range []string{hlGo, hlText} {
			f.Add(uint8(lang), rest, code)
		}
	}
	f.Fuzz(func(t *testing.T, lang uint8, rest, code string) {
		info := strings.NewReplacer("\n", " ", "\r", " ").Replace(rest)
		if l := fuzzLanguages[int(lang)%len(fuzzLanguages)]; l != "" {
			info = l + " " + info
		}
		want, got := highlightPair(t, []byte("````"+info+"\n"+code+"\n````\n"))
		sameHTML(t, got, want)
	})
}

var fuzzLanguages = []string{"", "go", "c", "text", "python", "html"}
