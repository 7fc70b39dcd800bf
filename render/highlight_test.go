package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
)

// TestCodeBlocks: a block in a language chroma knows is coloured with
// classes in a focusable <pre>; one in a language it does not know, or
// in none, is goldmark's escaped <pre><code>.
func TestCodeBlocks(t *testing.T) {
	for _, c := range []struct {
		md   string
		want []string
	}{
		{"```go\nfunc f() { _ = \"<&>\" }\n```\n", []string{
			`<pre class="chroma" tabindex="0"><code><span class="line"><span class="cl">`,
			`<span class="kd">func</span>`,
			`<span class="s">&#34;&lt;&amp;&gt;&#34;</span>`,
			"</code></pre>",
		}},
		{"```nosuchlang\na <b> & c\n```\n", []string{"<pre><code class=\"language-nosuchlang\">a &lt;b&gt; &amp; c\n</code></pre>\n"}},
		{"```\na <b>\n```\n", []string{"<pre><code>a &lt;b&gt;\n</code></pre>\n"}},
	} {
		var b bytes.Buffer
		if err := goldmark.New(goldmark.WithExtensions(site{})).Convert([]byte(c.md), &b); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%q renders as\n%s\nwithout %s", c.md, &b, w)
			}
		}
	}
}
