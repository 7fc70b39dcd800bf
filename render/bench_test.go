package render

import (
	"measuredbook/evaluate"
	"measuredbook/parse"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"measuredbook/dataset"
	"measuredbook/probe"
	"measuredbook/probes"
	"measuredbook/store"
)

// The stages of one chapter's rendering, on the book's own chapters and
// committed results (go test -bench . -run '^$' ./render). Each reports
// its cost per chapter, or per plot; package book's benchmarks time the
// whole build.

// bookChapters reads ../chapters/*.md, the fragments (_*.md) left out.
func bookChapters(b testing.TB) (files []string, srcs [][]byte) {
	files, _ = filepath.Glob("../chapters/[^_]*.md")
	if len(files) == 0 {
		b.Fatal("no chapters in ../chapters")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	return files, srcs
}

// bookResults reads every result set under ../results, the book's own set
// (named by ../chapters/book.yaml) as the build's.
func bookResults(b testing.TB, all []probe.Probe) sets {
	cfg, err := os.ReadFile("../chapters/book.yaml")
	if err != nil {
		b.Fatal(err)
	}
	own := regexp.MustCompile(`(?m)^machine: *(\S+)`).FindSubmatch(cfg)
	if own == nil {
		b.Fatal("book.yaml names no machine")
	}
	s := sets{}
	paths, _ := filepath.Glob("../results/*/*.txt")
	for _, p := range paths {
		r, err := store.Load(p, all)
		if err != nil {
			b.Fatal(err)
		}
		set := filepath.Base(filepath.Dir(p))
		if set == string(own[1]) {
			set = ""
		}
		if s[set] == nil {
			s[set] = map[string]*dataset.Result{}
		}
		s[set][r.Experiment] = r
	}
	return s
}

// parseBook parses every chapter and indexes their experiments.
func parseBook(b testing.TB, all []probe.Probe) ([]*parse.Doc, map[string]*parse.Experiment) {
	files, srcs := bookChapters(b)
	var docs []*parse.Doc
	exps := map[string]*parse.Experiment{}
	for i := range files {
		d, err := parse.Parse(files[i], srcs[i], all)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, d)
		for _, x := range d.Experiments {
			exps[x.ID] = x
		}
	}
	return docs, exps
}

func BenchmarkParse(b *testing.B) {
	all := probes.All()
	files, srcs := bookChapters(b)
	for b.Loop() {
		for i := range files {
			if _, err := parse.Parse(files[i], srcs[i], all); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files))/1e6, "ms/chapter")
}

func BenchmarkEvaluate(b *testing.B) {
	all := probes.All()
	docs, exps := parseBook(b, all)
	res := bookResults(b, all)
	for b.Loop() {
		for _, d := range docs {
			if _, err := evaluate.Evaluate(d, res, exps); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs))/1e6, "ms/chapter")
}

// BenchmarkPlot evaluates the book's plots alone: each chapter's plot
// blocks in a document of their own, drawn against the results.
func BenchmarkPlot(b *testing.B) {
	all := probes.All()
	_, exps := parseBook(b, all)
	res := bookResults(b, all)
	_, srcs := bookChapters(b)
	var blocks []string
	for _, src := range srcs {
		blocks = append(blocks, regexp.MustCompile("(?s)```plot\n.*?\n```\n").FindAllString(string(src), -1)...)
	}
	if len(blocks) == 0 {
		b.Fatal("the book has no plots")
	}
	d, err := parse.Parse("plots.md", []byte(strings.Join(blocks, "\n")), all)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := evaluate.Evaluate(d, res, exps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(blocks))/1e6, "ms/plot")
}

func BenchmarkHTML(b *testing.B) {
	all := probes.All()
	docs, exps := parseBook(b, all)
	res := bookResults(b, all)
	pages := make([]*evaluate.Page, len(docs))
	for i, d := range docs {
		var err error
		if pages[i], err = evaluate.Evaluate(d, res, exps); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		for i, d := range docs {
			if _, err := HTMLWith(d, pages[i].Views, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs))/1e6, "ms/chapter")
}
