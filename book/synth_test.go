package book

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"measuredbook/dataset"
	"measuredbook/probes"
	"measuredbook/runner"
)

// chaptersFlag sizes the synthetic book of the Large benchmarks:
// go test -bench Large -benchtime 1x ./book -args -chapters 1000
var chaptersFlag = flag.Int("chapters", 100, "chapters in the synthetic book of the *Large benchmarks")

var (
	experimentBlock = regexp.MustCompile("(?s)```experiment [^\n]*\n.*?\n```\n")
	frontMatter     = regexp.MustCompile(`(?s)\A---\n.*?\n---\n`)
)

// synthBook writes a book of n chapters into a new folder and returns it:
// the real chapters (which define the experiments), then copies of them
// without their experiment blocks, so every copy reads the committed
// results through the same values, tables, plots and claims, and nothing
// needs measuring. Deterministic: chapter i is always the same text.
func synthBook(tb testing.TB, n int) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "chapters")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	real, err := filepath.Glob("../chapters/*.md")
	if err != nil || len(real) == 0 {
		tb.Fatalf("no chapters in ../chapters (%v)", err)
	}
	cfg, err := os.ReadFile("../chapters/book.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("book.yaml", cfg)
	for i := 0; i < n; i++ {
		src, err := os.ReadFile(real[i%len(real)])
		if err != nil {
			tb.Fatal(err)
		}
		if i < len(real) {
			write(filepath.Base(real[i]), src)
			continue
		}
		body := experimentBlock.ReplaceAll(frontMatter.ReplaceAll(src, nil), nil)
		front := fmt.Sprintf("---\ntitle: \"사본 %d\"\norder: %d\nslug: copy-%04d\nlang: ko\n---\n", i, 100+i, i)
		write(fmt.Sprintf("copy-%04d.md", i), append([]byte(front), body...))
	}
	return dir
}

// largeOptions builds the synthetic book from the committed results as
// another machine would: nothing is measured (a runner that cannot run).
func largeOptions(tb testing.TB, chapters string) Options {
	return Options{Chapters: chapters, Results: "../results", Out: filepath.Join(filepath.Dir(chapters), "out"),
		Probes: probes.All(), Runner: &runner.Runner{Exe: filepath.Join(tb.TempDir(), "no-probe-may-run")},
		This: dataset.Fingerprint{Name: "not-the-books-machine"}, Log: io.Discard}
}

// BenchmarkBuildLarge is a whole build (load, status, evaluate, render,
// write) of a synthetic book of -chapters chapters.
func BenchmarkBuildLarge(b *testing.B) {
	opts := largeOptions(b, synthBook(b, *chaptersFlag))
	cpu := cpuTime()
	for b.Loop() {
		if _, err := Build(context.Background(), opts); err != nil {
			b.Fatal(strings.SplitN(err.Error(), "\n", 2)[0])
		}
	}
	reportPerChapter(b, cpuTime()-cpu, *chaptersFlag)
}

// BenchmarkEditOneLarge is the author's loop at scale: edit one chapter
// of a synthetic book of -chapters chapters and build again with the
// render cache, against a full build (no cache) of the same book. It
// reports both, in CPU and wall time, and their ratio (the goal: at most
// 10%):
//
//	go test -bench EditOneLarge -benchtime 3x -run '^$' ./book -args -chapters 1000
func BenchmarkEditOneLarge(b *testing.B) {
	chapters := synthBook(b, *chaptersFlag)
	opts := largeOptions(b, chapters)
	opts.Cache = filepath.Join(b.TempDir(), "cache")
	if _, err := Build(context.Background(), opts); err != nil { // fills the cache
		b.Fatal(err)
	}
	edited := filepath.Join(chapters, filepath.Base(chapters)+".md")
	if files, _ := filepath.Glob(filepath.Join(chapters, "*.md")); len(files) > 0 {
		edited = files[len(files)/2]
	}
	src, err := os.ReadFile(edited)
	if err != nil {
		b.Fatal(err)
	}
	var full, edit, fullWall, editWall time.Duration
	i := 0
	for b.Loop() {
		i++
		o := opts
		o.Cache = ""
		cpu, wall := cpuTime(), time.Now()
		if _, err := Build(context.Background(), o); err != nil {
			b.Fatal(err)
		}
		full, fullWall = full+cpuTime()-cpu, fullWall+time.Since(wall)
		os.WriteFile(edited, fmt.Appendf(src, "\n고친 문단 %d.\n", i), 0o644)
		cpu, wall = cpuTime(), time.Now()
		var rep *Report
		// Labelled, so that a profile can show this build alone:
		// go tool pprof -tagfocus build=edit
		pprof.Do(context.Background(), pprof.Labels("build", "edit"), func(ctx context.Context) { rep, err = Build(ctx, opts) })
		if err != nil {
			b.Fatal(err)
		}
		edit, editWall = edit+cpuTime()-cpu, editWall+time.Since(wall)
		if rep.Cached != rep.Chapters-1 {
			b.Fatalf("%d of %d chapters from the cache after one edit", rep.Cached, rep.Chapters)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(full.Milliseconds())/n, "full-cpu-ms")
	b.ReportMetric(float64(edit.Milliseconds())/n, "edit-cpu-ms")
	b.ReportMetric(float64(fullWall.Milliseconds())/n, "full-ms")
	b.ReportMetric(float64(editWall.Milliseconds())/n, "edit-ms")
	b.ReportMetric(100*float64(edit)/float64(full), "edit/full-cpu-%")
	b.ReportMetric(100*float64(editWall)/float64(fullWall), "edit/full-%")
}

// cpuTime is the CPU time (user and system) the process has used: on a
// shared machine it says more about the work done than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportPerChapter reports the CPU and wall time per chapter of one
// iteration.
func reportPerChapter(b *testing.B, cpu time.Duration, chapters int) {
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/float64(chapters)/1000, "cpu-ms/chapter")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(chapters)/1000, "ms/chapter")
}
