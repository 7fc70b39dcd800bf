package site

import (
	"fmt"
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

// scans pairs each scan with its pattern, both marking what they match.
var scans = []struct {
	name       string
	scan, want func(string) string
}{
	{"recolour", func(s string) string { return string(recolour([]byte(s))) }, func(s string) string {
		return colourRE.ReplaceAllStringFunc(s, func(m string) string {
			g := colourRE.FindStringSubmatch(m)
			return fmt.Sprintf("%s:var(--mb-s%d)", g[1], series[g[2]])
		})
	}},
	{"tables", func(s string) string {
		return string(replaceElements([]byte(s), "table", func(m []byte) []byte { return []byte("[" + string(m) + "]") }))
	}, func(s string) string { return tableRE.ReplaceAllString(s, "[$0]") }},
	{"svgs", func(s string) string {
		return string(replaceSVGs([]byte(s), func(m, w []byte) []byte { return []byte("[" + string(w) + "|" + string(m) + "]") }))
	}, func(s string) string { return svgRE.ReplaceAllString(s, "[$1|$0]") }},
	{"headings", func(s string) string {
		return string(replaceHeadings([]byte(s), func(level int, id, inner []byte) []byte {
			return fmt.Appendf(nil, "[%d|%s|%s]", level, id, inner)
		}))
	}, func(s string) string { return headRE.ReplaceAllString(s, "[$1|$2|$3]") }},
	{"attrs", func(s string) string {
		return string(replaceAttrs([]byte(s), "data-exp", func(m, v []byte) []byte { return []byte("[" + string(m) + "|" + string(v) + "]") }))
	}, func(s string) string { return attrRE.ReplaceAllString(s, "[$0|$1]") }},
	{"dropHidden", dropHidden, func(s string) string { return dropRE.ReplaceAllString(s, " ") }},
	{"stripTags", stripTags, func(s string) string { return tagRE.ReplaceAllString(s, " ") }},
	{"collapseSpace", collapseSpace, func(s string) string { return spaceRE.ReplaceAllString(s, " ") }},
}

func checkScans(t *testing.T, what, s string) {
	t.Helper()
	for _, sc := range scans {
		if got, want := sc.scan(s), sc.want(s); got != want {
			t.Errorf("%s of %s:\n got %q\nwant %q", sc.name, what, got, want)
		}
	}
}

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
	for _, s := range []string{"", "<", ">", "<svg ", "<svg viewBox=\"0 0 1 2\"</svg>", "stroke:#0072B2fill:#D55E00", "fill:#0072B", "<table></table>",
		"<tablex></table><table ></table>", "<script>a</style>b</script>", `<a class="anchor" x>#</a>`, `<a class="anchor">#</b>`,
		`<svg viewBox="0 0 1 2" viewBox="0 0 3 4">x</svg>`, `<svg viewBox="0 0 1 2" viewBox="0 0 3">x</svg>`, `<svg viewBox="0 0 1. 2.5"></svg></svg>`,
		"a \t\n\f\r\v b", "<<>>", "<a<b>c>", `<h2 id="">x</h2>`, `<h2 id="a">x</h5></h3>`, `<h4 id="a"b>x</h2>`, `<h2 id="a">x</h2`,
		`data-exp=""data-exp="x"`, `data-exp="x`} {
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
	f.Fuzz(func(t *testing.T, s string) { checkScans(t, fmt.Sprintf("%q", s), s) })
}
