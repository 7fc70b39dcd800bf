package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"measuredbook/dataset"
	"measuredbook/probes"
	"measuredbook/store"
)

// chapterBytes is how much generated prose a chapter holds, about the size
// of one of the book's own chapters' worth of text between its directives.
const chapterBytes = 13 << 10

// template is the stored experiment every synthetic chapter reuses under
// an id of its own: its results are copied, so building measures nothing.
// Its references below are written for the readiness probe's sweep.
const template = "readiness"

// Words the prose is drawn from: Korean and English, as in the book.
var (
	koWords = strings.Fields(`연결 스레드 커널 소켓 버퍼 대기 준비 이벤트 호출 비용 측정 결과 기계 실행 중앙값
		파일 기술자 요청 응답 메모리 스택 스케줄러 문맥 전환 타이머 시간 라운드 배율 유휴 활성 처리량 지연
		구조 설계 모델 서버 클라이언트 루프 시스템 바퀴 관심 목록 큐 깨움 잠듦 블로킹 논블로킹 준비됨`)
	koEndings = strings.Fields(`입니다 했습니다 보입니다 늘어납니다 줄어듭니다 달라집니다 남습니다 드러납니다`)
	koJoins   = strings.Fields(`은 는 이 가 을 를 에서 으로 와 의 도 만`)
	enWords   = strings.Fields(`epoll poll select kqueue read write EAGAIN O_NONBLOCK thread goroutine syscall
		futex socket buffer latency throughput runtime scheduler wakeup handoff idle ready edge level`)
)

// synthBook is one synthetic book: its chapters' text, in both variants, for
// this tool and for Hugo.
type synthBook struct {
	seed     uint64
	chapters int
}

// chapter is the generated content of chapter i: prose sections, with the
// places a directive or its plain stand-in goes.
type chapter struct {
	i        int
	title    string
	sections []section
	code     string   // a Go snippet, for the highlighter
	values   []string // the plain variant's stand-ins for the 3 inline values
	table    [3][2]string
}

type section struct {
	heading    string
	paragraphs []string
	list       []string
}

// gen makes chapter i. It depends only on the seed and i, so a smaller
// book is a prefix of a larger one.
func (b synthBook) gen(i int) chapter {
	r := rand.New(rand.NewPCG(b.seed, uint64(i)))
	c := chapter{i: i, title: fmt.Sprintf("%d장. %s", i, phrase(r, 4))}
	size := 0
	for size < chapterBytes {
		s := section{heading: phrase(r, 3)}
		for n := 2 + r.IntN(3); n > 0 && size < chapterBytes; n-- {
			p := paragraph(r)
			s.paragraphs = append(s.paragraphs, p)
			size += len(p)
		}
		if r.IntN(3) == 0 {
			for n := 3 + r.IntN(3); n > 0 && size < chapterBytes; n-- {
				item := sentence(r)
				s.list = append(s.list, item)
				size += len(item)
			}
		}
		c.sections = append(c.sections, s)
	}
	c.code = fmt.Sprintf("func wait%d(fd int) error {\n\tfds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}\n\tfor {\n\t\tn, err := unix.Poll(fds, %d)\n\t\tif err == unix.EINTR {\n\t\t\tcontinue\n\t\t}\n\t\tif n > 0 || err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n}\n", i, r.IntN(1000))
	c.values = []string{
		fmt.Sprintf("%.2f ms", 1+r.Float64()*9),
		fmt.Sprintf("%d×", 10+r.IntN(5000)),
		fmt.Sprintf("%.1f", 1+r.Float64()*2),
	}
	for row := range c.table {
		for col := range c.table[row] {
			c.table[row][col] = fmt.Sprintf("%.1f μs", 1+r.Float64()*5000)
		}
	}
	return c
}

func phrase(r *rand.Rand, words int) string {
	var w []string
	for range words {
		if r.IntN(4) == 0 {
			w = append(w, enWords[r.IntN(len(enWords))])
		} else {
			w = append(w, koWords[r.IntN(len(koWords))])
		}
	}
	return strings.Join(w, " ")
}

func sentence(r *rand.Rand) string {
	var b strings.Builder
	for n := 6 + r.IntN(10); n > 0; n-- {
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "`%s` ", enWords[r.IntN(len(enWords))])
			continue
		}
		b.WriteString(koWords[r.IntN(len(koWords))])
		b.WriteString(koJoins[r.IntN(len(koJoins))])
		b.WriteByte(' ')
	}
	b.WriteString(koWords[r.IntN(len(koWords))])
	b.WriteString(koEndings[r.IntN(len(koEndings))])
	b.WriteByte('.')
	return b.String()
}

func paragraph(r *rand.Rand) string {
	var s []string
	for n := 3 + r.IntN(4); n > 0; n-- {
		s = append(s, sentence(r))
	}
	return strings.Join(s, " ")
}

// id is chapter i's experiment id.
func id(i int) string { return fmt.Sprintf("e%04d", i) }

// slug is chapter i's page name.
func slug(i int) string { return fmt.Sprintf("ch-%04d", i) }

// markdown writes the chapter's body. With directives (this tool's
// variant) the middle section holds one experiment, 3 inline values, a
// table and a plot; without, the same places hold plain text and a GFM
// table (a plot has no plain Markdown counterpart, so it is left out).
func (c chapter) markdown(directives bool, exp *dataset.Result) string {
	var b strings.Builder
	mid := len(c.sections) / 2
	for k, s := range c.sections {
		fmt.Fprintf(&b, "## %s\n\n", s.heading)
		for _, p := range s.paragraphs {
			b.WriteString(p)
			b.WriteString("\n\n")
		}
		for _, item := range s.list {
			fmt.Fprintf(&b, "- %s\n", item)
		}
		if len(s.list) > 0 {
			b.WriteString("\n")
		}
		switch k {
		case 0:
			fmt.Fprintf(&b, "```go\n%s```\n\n", c.code)
		case mid:
			if directives {
				c.directives(&b, exp)
			} else {
				c.plain(&b)
			}
		}
	}
	return b.String()
}

func (c chapter) directives(b *strings.Builder, exp *dataset.Result) {
	e := id(c.i)
	fmt.Fprintf(b, "```experiment %s\nprobe: %s\nparams:\n", e, exp.Probe)
	for _, k := range exp.Order {
		if v := exp.Sweep[k]; len(v) == 1 {
			fmt.Fprintf(b, "  %s: %s\n", k, v[0])
		} else {
			fmt.Fprintf(b, "  %s: [%s]\n", k, strings.Join(v, ", "))
		}
	}
	// The same run rule as the result's, so that it is fresh.
	if exp.Stop.Auto {
		fmt.Fprintf(b, "precision: %g%%\n", 100*exp.Stop.Precision)
	} else {
		fmt.Fprintf(b, "runs: %d\n", exp.Runs)
	}
	fmt.Fprintf(b, "show: none\n```\n\n")
	fmt.Fprintf(b, "poll 한 라운드는 {{ %[1]s.round[api=poll, idle=10000] }}, epoll보다 "+
		"{{ %[1]s.round[api=poll, idle=10000] / %[1]s.round[api=epoll, idle=10000] | x }} 느렸고, "+
		"epoll은 {{ growth(%[1]s.round[api=epoll], idle) | f1 }}배 자랐습니다.\n\n", e)
	fmt.Fprintf(b, "```table\nfrom: %s\nrows: idle\ncols: api\nvalue: round\nformat: us\n```\n\n", e)
	fmt.Fprintf(b, "```plot\nfrom: %s\nx: idle\ny: round\nseries: api\nxscale: log\nyscale: log\ntitle: %s\n```\n\n", e, c.title)
}

func (c chapter) plain(b *strings.Builder) {
	fmt.Fprintf(b, "poll 한 라운드는 %s, epoll보다 %s 느렸고, epoll은 %s배 자랐습니다.\n\n", c.values[0], c.values[1], c.values[2])
	b.WriteString("| idle | poll | epoll |\n| --- | --- | --- |\n")
	for row, idle := range []string{"100", "1,000", "10,000"} {
		fmt.Fprintf(b, "| %s | %s | %s |\n", idle, c.table[row][0], c.table[row][1])
	}
	b.WriteString("\n")
}

// Layout of one size's work folder.
const (
	dirDirectives = "directives" // this tool, with directives: chapters/ and results/
	dirPlain      = "plain"      // this tool, plain Markdown
	dirHugo       = "hugo"       // a Hugo site, two configs (highlighting off and on)
	dirIncr       = "incremental"
)

// write generates the book into dir: this tool's two variants, the Hugo
// site, and a copy of the directives variant for the incremental runs.
// set is the result set the directives draw from, copied from results/
// (under resultsDir) with the template's result once per chapter.
func (b synthBook) write(dir, resultsDir, set string) error {
	exp, err := store.Load(store.Path(resultsDir, set, template), probes.All())
	if err != nil {
		return fmt.Errorf("the benchmark's chapters reuse the stored result of %s: %w", template, err)
	}
	// Written as generated: the benchmark holds no book in memory, so its
	// own peak resident set, which the kernel counts into each child's
	// (see sample), stays small.
	files := map[string]string{
		filepath.Join(dirDirectives, "chapters", "book.yaml"): fmt.Sprintf("title: synthetic book\nlang: ko\nmachine: %s\n", set),
		filepath.Join(dirPlain, "chapters", "book.yaml"):      fmt.Sprintf("title: synthetic book\nlang: ko\nmachine: %s\n", set),
	}
	for name, text := range hugoFiles {
		files[filepath.Join(dirHugo, name)] = text
	}
	for name, text := range files {
		if err := writeFile(filepath.Join(dir, name), text); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, dirPlain, "results"), 0o755); err != nil {
		return err
	}
	for i := 1; i <= b.chapters; i++ {
		c := b.gen(i)
		front := fmt.Sprintf("---\ntitle: %q\norder: %d\nslug: %s\nlang: ko\n---\n\n", c.title, i, slug(i))
		name := slug(i) + ".md"
		plain := c.markdown(false, nil)
		for path, text := range map[string]string{
			filepath.Join(dirDirectives, "chapters", name): front + c.markdown(true, exp),
			filepath.Join(dirPlain, "chapters", name):      front + plain,
			filepath.Join(dirHugo, "content", name):        fmt.Sprintf("---\ntitle: %q\nweight: %d\nslug: %s\n---\n\n", c.title, i, slug(i)) + plain,
		} {
			if err := writeFile(filepath.Join(dir, path), text); err != nil {
				return err
			}
		}
		r := *exp
		r.Experiment = id(i)
		if err := store.Save(store.Path(filepath.Join(dir, dirDirectives, "results"), set, r.Experiment), &r); err != nil {
			return err
		}
	}
	// The incremental copy starts again from the generated book, also in a
	// --work folder kept from an earlier run (CopyFS writes no file twice).
	incr := filepath.Join(dir, dirIncr)
	if err := os.RemoveAll(incr); err != nil {
		return err
	}
	return os.CopyFS(incr, os.DirFS(filepath.Join(dir, dirDirectives)))
}

func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// hugoFiles is the Hugo site around the chapters: pages named like this
// tool's (slug.html, relative links), each with the book's contents in a
// sidebar and the chapter's own table of contents, as this tool's pages
// have. hugo.toml leaves highlighting off, hugo-hl.toml turns it on (with
// classes, as this tool colours code).
var hugoFiles = map[string]string{
	"hugo.toml":         hugoConfig + "[markup.highlight]\ncodeFences = false\n",
	"hugo-minimal.toml": "layoutDir = \"layouts-minimal\"\n" + hugoConfig + "[markup.highlight]\ncodeFences = false\n",
	"hugo-hl.toml":      hugoConfig + "[markup.highlight]\ncodeFences = true\nnoClasses = false\n",
	"layouts/_default/baseof.html": `<!doctype html>
<html lang="ko"><head><meta charset="utf-8"><title>{{ .Title }} · {{ .Site.Title }}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><nav><ol>{{ range .Site.RegularPages.ByWeight }}<li><a href="{{ .RelPermalink }}"{{ if eq .RelPermalink $.RelPermalink }} aria-current="page"{{ end }}>{{ .Title }}</a></li>{{ end }}</ol></nav>
<main>{{ block "main" . }}{{ end }}</main></body></html>
`,
	"layouts/_default/single.html": hugoSingle,
	"layouts/_default/list.html": `{{ define "main" }}<h1>{{ .Site.Title }}</h1>{{ end }}
`,
	// The minimal layout: the same pages without the sidebar.
	"layouts-minimal/_default/baseof.html": `<!doctype html>
<html lang="ko"><head><meta charset="utf-8"><title>{{ .Title }} · {{ .Site.Title }}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main>{{ block "main" . }}{{ end }}</main></body></html>
`,
	"layouts-minimal/_default/single.html": hugoSingle,
	"layouts-minimal/_default/list.html": `{{ define "main" }}<h1>{{ .Site.Title }}</h1><ol>{{ range .Site.RegularPages.ByWeight }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ol>{{ end }}
`,
}

// hugoSingle is a chapter's page, in both layouts.
const hugoSingle = `{{ define "main" }}<article><h1>{{ .Title }}</h1>{{ .TableOfContents }}{{ .Content }}</article>
<nav>{{ with .NextInSection }}<a href="{{ .RelPermalink }}">← {{ .Title }}</a>{{ end }} {{ with .PrevInSection }}<a href="{{ .RelPermalink }}">{{ .Title }} →</a>{{ end }}</nav>{{ end }}
`

const hugoConfig = `baseURL = "/"
title = "synthetic book"
languageCode = "ko"
uglyURLs = true
relativeURLs = true
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
`
