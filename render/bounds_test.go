package render

import (
	"fmt"
	"measuredbook/parse"
	"measuredbook/probe"
	"strings"
	"testing"
)

// parseErr parses src as chapter.md and returns its error text.
func parseErr(t *testing.T, src string) string {
	t.Helper()
	_, err := parse.Parse("chapter.md", []byte(src), fakeProbes)
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSlugIsAFileName(t *testing.T) {
	for slug, want := range map[string]string{
		"../../evil":   `chapter.md:3:7: slug "../../evil": '.' is not allowed`,
		"index":        `chapter.md:3:7: slug "index" is reserved`,
		"Style":        `chapter.md:3:7: slug "Style" is reserved`,
		"claims":       `chapter.md:3:7: slug "claims" is reserved`,
		"Environment":  `chapter.md:3:7: slug "Environment" is reserved`,
		"search-index": `chapter.md:3:7: slug "search-index" is reserved`,
		"sub/page":     `chapter.md:3:7: slug "sub/page": '/' is not allowed`,
		`"a b"`:        `chapter.md:3:7: slug "a b": ' ' is not allowed`,
		"c10k_2-part":  "",
	} {
		got := parseErr(t, "---\ntitle: t\nslug: "+slug+"\n---\n# x\n")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("slug %s: %q, want %q", slug, got, want)
		}
	}
}

func TestByteOrderMarkKeepsFrontMatter(t *testing.T) {
	_, err := parse.Parse("chapter.md", []byte("\ufeff---\ntitle: 제목\nslug: bom\n---\n# 본문 {{ 1 + }}\n"), fakeProbes)
	if err == nil || !strings.HasPrefix(err.Error(), "chapter.md:5:") {
		t.Errorf("error in the body after a BOM: %v, want it on line 5", err)
	}
	d, err := parse.Parse("chapter.md", []byte("\ufeff---\ntitle: 제목\nslug: bom\n---\n# 본문\n"), fakeProbes)
	if err != nil {
		t.Fatal(err)
	}
	if d.Front.Title != "제목" || d.Front.Slug != "bom" {
		t.Errorf("front matter after a BOM: %+v", d.Front)
	}
	out, _ := HTMLWith(d, nil, nil)
	if strings.Contains(string(out), "title:") || strings.Contains(string(out), "\ufeff") {
		t.Errorf("the front matter or the BOM reached the page: %s", out)
	}
}

func TestYAMLTabErrorIsOnItsLine(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"---\ntitle: t\nslug: a\n\tlang: ko\n---\n", "chapter.md:4:1: malformed YAML in front matter: found a tab"},
		{"# x\n\n```experiment readiness\nparams:\n  idle: 100\n\trounds: 10\n```\n", "chapter.md:6:1: malformed YAML in experiment: found a tab"},
	} {
		if got := parseErr(t, tc.src); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.src, got, tc.want)
		}
	}
}

// A sweep is bounded before its product is built: 1000^3 combinations
// would otherwise take the machine's memory while parsing.
func TestSweepProductIsBounded(t *testing.T) {
	list := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%d, ", i+1)
		}
		return "[" + strings.TrimSuffix(b.String(), ", ") + "]"
	}
	src := "# x\n\n```experiment readiness\nparams:\n  api: [poll, epoll]\n  idle: " + list(1000) + "\n  rounds: " + list(1000) + "\nruns: 2\n```\n"
	got := parseErr(t, src)
	if want := fmt.Sprintf("chapter.md:3:15: experiment readiness: its params sweep more than %d combinations", probe.MaxCombos); !strings.HasPrefix(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	got = parseErr(t, "# x\n\n```experiment readiness\nruns: 1000000000\n```\n")
	if want := "chapter.md:4:7: runs is 1000000000, more than the 1000 runs"; !strings.HasPrefix(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestValuesInURLsAreErrors(t *testing.T) {
	src := "# x\n\n링크 [a]({{x}}) 와 ![b](p.png \"{{y}}\").\n\n[c][r]\n\n[r]: http://{{z}}\n"
	got := parseErr(t, src)
	for _, want := range []string{
		"chapter.md:3:8: {{ }} in a link's URL",
		"chapter.md:3:29: {{ }} in an image's URL or title",
		"chapter.md:7:6: {{ }} in a link's URL",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not contain %q", got, want)
		}
	}
}

// A negative or absurd duration is refused at its position.
func TestDurationsAreBounded(t *testing.T) {
	for field, want := range map[string]string{
		"timeout: 100000h": `chapter.md:3:10: timeout is 100000h0m0s, longer than the 24h0m0s an experiment may take`,
		"timeout: -5s":     `chapter.md:3:10: timeout wants a positive duration such as 60s, got "-5s"`,
		"budget: 9999h":    `chapter.md:3:9: budget is 9999h0m0s, longer than the 24h0m0s`,
		"budget: -1ms":     `chapter.md:3:9: budget wants a positive duration such as 20s, got "-1ms"`,
	} {
		got := parseErr(t, "```experiment readiness\nprobe: readiness\n"+field+"\n```\n")
		if !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", field, got, want)
		}
	}
}

// An error repeats at most the first 80 characters of the input it names.
func TestErrorsQuoteLongInputShort(t *testing.T) {
	name := strings.Repeat("가", 100_000)
	got := parseErr(t, "```experiment readiness\nprobe: readiness\nparams:\n  ? "+name+"\n  : 1\n```\n")
	if got == "" || len(got) > 2000 || !strings.Contains(got, strings.Repeat("가", 80)+"…") {
		t.Errorf("a 100,000-character param name gives a %d-byte error: %.300q", len(got), got)
	}
}

// An inline value in a caption or a title, which are shown as written, is
// an error at the field rather than braces printed as if a figure.
func TestValueInACaptionIsAnError(t *testing.T) {
	for src, at := range map[string]string{
		"```table\nfrom: readiness\nvalue: round\ncaption: 약 {{ readiness.round[] }}\n```\n": "chapter.md:4:10: caption",
		"```plot\nfrom: readiness\nx: idle\ny: round\ntitle: \"{{ 1 + }}\"\n```\n":           "chapter.md:5:8: title",
		"```experiment readiness\ncaption: 값 {{ x }}\n```\n":                                 "chapter.md:2:10: caption",
	} {
		if got := parseErr(t, src); !strings.Contains(got, at+" is shown as written, so {{ … }} is not evaluated there") {
			t.Errorf("%q: %q, want %q...", src, got, at)
		}
	}
}
