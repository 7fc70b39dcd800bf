package site

import (
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The patterns the scans of scan.go stand for, replaced as they were.
var (
	tableRE  = regexp.MustCompile(`(?s)<table[ >].*?</table>`)
	svgRE    = regexp.MustCompile(`(?s)<svg [^>]*viewBox="0 0 ([0-9.]+) [0-9.]+".*?</svg>`)
	colourRE = regexp.MustCompile(`(stroke|fill):#(0072B2|D55E00|009E73|CC79A7|E69F00|56B4E9)`)
	dropRE   = regexp.MustCompile(`(?s)<(svg|script|style)[ >].*?</(svg|script|style)>|<a class="anchor"[^>]*>#</a>`)
	spaceRE  = regexp.MustCompile(`\s+`)
	headRE   = regexp.MustCompile(`(?s)<h([2-4]) id="([^"]+)">(.*?)</h[2-4]>`)
	attrRE   = regexp.MustCompile(`data-exp="([^"]+)"`)
)

// rewritten is what a rewriting scan makes of s: it appends to what dst
// holds, and leaves dst as it was when it reports no change.
func rewritten(s string, scan func(dst, body []byte) ([]byte, bool)) string {
	out, changed := scan([]byte("«"), []byte(s))
	got, ok := strings.CutPrefix(string(out), "«")
	switch {
	case !ok:
		return "dst overwritten: " + string(out)
	case !changed && got != "":
		return "dst written to without a change: " + string(out)
	case !changed:
		return s
	}
	return got
}

// matches lists the matches a scan finding one match at or after from
// (start -1: none) finds from each match's start on.
func matches(s string, next func(b []byte, from int) (start int, group []byte, end int)) string {
	var out []string
	for from := 0; from <= len(s); {
		start, group, end := next([]byte(s), from)
		if start < 0 {
			break
		}
		out = append(out, fmt.Sprintf("%d:%s:%d", start, group, end))
		from = start + 1
	}
	return strings.Join(out, " ")
}

// reMatches is matches for a regexp: the first match of s[from:] from
// each match's start on.
func reMatches(s string, re *regexp.Regexp) string {
	var out []string
	for from := 0; from <= len(s); {
		m := re.FindStringSubmatchIndex(s[from:])
		if m == nil {
			break
		}
		out = append(out, fmt.Sprintf("%d:%s:%d", from+m[0], s[from+m[2]:from+m[3]], from+m[1]))
		from += m[0] + 1
	}
	return strings.Join(out, " ")
}

// scans pairs each scan with its pattern, both marking what they match.
var scans = []struct {
	name       string
	scan, want func(string) string
}{
	{"recolour", func(s string) string { return rewritten(s, recolour) }, func(s string) string {
		return colourRE.ReplaceAllStringFunc(s, func(m string) string {
			g := colourRE.FindStringSubmatch(m)
			return fmt.Sprintf("%s:var(--mb-s%d)", g[1], series[g[2]])
		})
	}},
	{"tables", func(s string) string {
		return rewritten(s, func(dst, body []byte) ([]byte, bool) {
			return replaceElements(dst, body, "table", func(dst, m []byte) []byte { return append(append(append(dst, '['), m...), ']') })
		})
	}, func(s string) string { return tableRE.ReplaceAllString(s, "[$0]") }},
	{"svgs", func(s string) string {
		return rewritten(s, func(dst, body []byte) ([]byte, bool) {
			return replaceSVGs(dst, body, func(dst, m, w []byte) []byte { return fmt.Appendf(dst, "[%s|%s]", w, m) })
		})
	}, func(s string) string { return svgRE.ReplaceAllString(s, "[$1|$0]") }},
	{"headings", func(s string) string {
		return rewritten(s, func(dst, body []byte) ([]byte, bool) {
			return replaceHeadings(dst, body, func(dst []byte, level int, id, inner []byte) []byte {
				return fmt.Appendf(dst, "[%d|%s|%s]", level, id, inner)
			})
		})
	}, func(s string) string { return headRE.ReplaceAllString(s, "[$1|$2|$3]") }},
	{"attrs", func(s string) string {
		return rewritten(s, func(dst, body []byte) ([]byte, bool) {
			return afterAttrs(dst, body, "data-exp", func(v []byte) string {
				if len(v)%2 == 1 {
					return ""
				}
				return "[" + string(v) + "]"
			})
		})
	}, func(s string) string {
		return attrRE.ReplaceAllStringFunc(s, func(m string) string {
			if v := attrRE.FindStringSubmatch(m)[1]; len(v)%2 == 0 {
				return m + "[" + v + "]"
			}
			return m
		})
	}},
	{"nextHeading", func(s string) string { return matches(s, nextHeading) },
		func(s string) string { return reMatches(s, refSectionRE) }},
	{"experimentFigure", func(s string) string { return matches(s, experimentFigure) },
		func(s string) string { return reMatches(s, refExperimentRE) }},
	{"fontSizes", func(s string) string {
		var out []string
		fontSizes([]byte(s), func(size []byte) { out = append(out, string(size)) })
		return strings.Join(out, " ")
	}, func(s string) string {
		var out []string
		for _, m := range refFontRE.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		return strings.Join(out, " ")
	}},
	{"title", func(s string) string {
		if start, end := title([]byte(s)); start >= 0 {
			return s[start:end]
		}
		return "none"
	}, func(s string) string {
		if m := refTitleRE.FindStringSubmatch(s); m != nil {
			return m[1]
		}
		return "none"
	}},
	{"caption", func(s string) string {
		if c, ok := caption([]byte(s)); ok {
			return string(c)
		}
		return "none"
	}, func(s string) string {
		if m := refCaptionRE.FindStringSubmatch(s); m != nil {
			return m[1]
		}
		return "none"
	}},
	{"dropHidden", func(s string) string { return string(dropHidden([]byte("«"), s)[len("«"):]) },
		func(s string) string { return dropRE.ReplaceAllString(s, " ") }},
	{"stripTags", func(s string) string { return string(stripTags([]byte("«"), []byte(s))[len("«"):]) },
		func(s string) string { return refTagRE.ReplaceAllString(s, "") }},
	{"unescape", func(s string) string { return string(unescape([]byte("«"), []byte(s))[len("«"):]) }, html.UnescapeString},
	{"plainText", func(s string) string {
		t := plainText{out: []byte("«"), blank: true}
		t.add([]byte(s))
		return string(t.out[len("«"):])
	},
		func(s string) string {
			return spaceRE.ReplaceAllString(html.UnescapeString(refTagRE.ReplaceAllString(s, " ")), " ")
		}},
}

func checkScans(t *testing.T, what, s string) {
	t.Helper()
	for _, sc := range scans {
		if got, want := sc.scan(s), sc.want(s); got != want {
			t.Errorf("%s of %s:\n got %q\nwant %q", sc.name, what, got, want)
		}
	}
}

// odd are inputs at the edges of the patterns.
var odd = []string{"", "<", ">", "<svg ", "<svg viewBox=\"0 0 1 2\"</svg>", "stroke:#0072B2fill:#D55E00", "fill:#0072B", "<table></table>",
	"<tablex></table><table ></table>", "<script>a</style>b</script>", `<a class="anchor" x>#</a>`, `<a class="anchor">#</b>`,
	`<svg viewBox="0 0 1 2" viewBox="0 0 3 4">x</svg>`, `<svg viewBox="0 0 1 2" viewBox="0 0 3">x</svg>`, `<svg viewBox="0 0 1. 2.5"></svg></svg>`,
	"a \t\n\f\r\v b", "<<>>", "<<<pre", "<a<b>c>", `<h2 id="">x</h2>`, `<h2 id="a">x</h5></h3>`, `<h4 id="a"b>x</h2>`, `<h2 id="a">x</h2`,
	`data-exp=""data-exp="x"`, `data-exp="x`, `data-exp="xy"`, "font-size:12pxfont-size:1.2.3px font-size:px font-size:9p",
	"<title>a<b></title><title>c</title>", "<title>x", "<caption><caption>a</caption>", "<caption>",
	`<figure class="mb-experiment" id="experiment-a"><figure class="mb-experiment" id="experiment-"">`,
	"&amp;&lt;&gt&quot;&#34;&#39;&#x27;&notit;&notin;&nbsp;&#0;&#128;&&;&amp", "&am<b>p; &#3<i>9;", "x&#10;y&Tab;z \u00a0 \u0085 \xff"}

// On the committed site's pages and on pieces of them cut and shuffled
// at random, each scan finds exactly what its pattern matches.
func TestScansMatchTheirPatterns(t *testing.T) {
	pages, _ := filepath.Glob("../out/*.html")
	if len(pages) == 0 {
		t.Fatal("no pages in ../out")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var pieces []string
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checkScans(t, p, string(b))
		for range 200 {
			i := r.IntN(len(b))
			pieces = append(pieces, string(b[i:min(len(b), i+r.IntN(2000))]))
		}
	}
	for _, s := range odd {
		checkScans(t, fmt.Sprintf("%q", s), s)
	}
	for range 500 {
		var b strings.Builder
		for range r.IntN(8) {
			p := pieces[r.IntN(len(pieces))]
			b.WriteString(p[:r.IntN(len(p)+1)])
		}
		checkScans(t, fmt.Sprintf("%q", b.String()), b.String())
	}
}

func FuzzScans(f *testing.F) {
	f.Add(`<svg a viewBox="0 0 480 300">x</svg><table>y</table><script>z</style>`)
	for _, s := range odd {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkScans(t, fmt.Sprintf("%q", s), s) })
}
