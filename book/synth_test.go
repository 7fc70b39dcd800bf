package book

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"measuredbook/dataset"
	"measuredbook/probes"
	"measuredbook/runner"
	"measuredbook/store"
)

// The synthetic book of the *Large benchmarks:
// go test -bench Large -benchtime 1x ./book -args -chapters 1000 -synth small
var (
	chaptersFlag = flag.Int("chapters", 100, "chapters in the synthetic book of the *Large benchmarks")
	synthFlag    = flag.String("synth", "copies", "the synthetic book: copies (of the real chapters) or small (13 KB chapters, one experiment each)")
)

// largeBook writes the synthetic book -synth and -chapters ask for, and
// returns its chapters and results folders.
func largeBook(tb testing.TB) (chapters, results string) {
	switch *synthFlag {
	case "copies":
		return synthBook(tb, *chaptersFlag), "../results"
	case "small":
		return smallBook(tb, *chaptersFlag)
	}
	tb.Fatalf("-synth %s: want copies or small", *synthFlag)
	return "", ""
}

var (
	experimentBlock = regexp.MustCompile("(?s)```experiment [^\n]*\n.*?\n```\n")
	frontMatter     = regexp.MustCompile(`(?s)\A---\n.*?\n---\n`)
	// labelLine numbers a figure or a table (a directive's label:, or a
	// Markdown table's {#tbl-…}): a copy keeps the reference to the real
	// chapter's and defines none of its own.
	labelLine = regexp.MustCompile(`(?m)^label: (fig|tbl)-.*\n|\s*\{#tbl-[A-Za-z0-9_-]+\}`)
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
	// The fragments the chapters include are copied as they are.
	fragments, _ := filepath.Glob("../chapters/_*.md")
	real = slices.DeleteFunc(real, func(f string) bool { return slices.Contains(fragments, f) })
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
	refs, err := os.ReadFile("../chapters/references.bib")
	if err != nil {
		tb.Fatal(err)
	}
	write("references.bib", refs)
	for _, f := range fragments {
		src, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		write(filepath.Base(f), src)
	}
	for i := 0; i < n; i++ {
		src, err := os.ReadFile(real[i%len(real)])
		if err != nil {
			tb.Fatal(err)
		}
		if i < len(real) {
			write(filepath.Base(real[i]), src)
			continue
		}
		body := labelLine.ReplaceAll(experimentBlock.ReplaceAll(frontMatter.ReplaceAll(src, nil), nil), nil)
		front := fmt.Sprintf("---\ntitle: \"사본 %d\"\norder: %d\nslug: copy-%04d\nlang: ko\n---\n", i, 100+i, i)
		write(fmt.Sprintf("copy-%04d.md", i), append([]byte(front), body...))
	}
	return dir
}

// smallBook writes a book of n chapters of about 13 KB, each with an
// experiment of its own whose result is the committed readiness result
// stored under its id, three inline values, a table and a plot, and
// returns its chapters and results folders. Deterministic.
func smallBook(tb testing.TB, n int) (chapters, results string) {
	tb.Helper()
	root := tb.TempDir()
	chapters, results = filepath.Join(root, "chapters"), filepath.Join(root, "results")
	cfg, err := os.ReadFile("../chapters/book.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	set := regexp.MustCompile(`(?m)^machine: *(\S+)`).FindSubmatch(cfg)
	if set == nil {
		tb.Fatal("book.yaml names no machine")
	}
	r, err := store.Load(store.Path("../results", string(set[1]), "readiness"), probes.All())
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(chapters, 0o755); err != nil {
		tb.Fatal(err)
	}
	os.WriteFile(filepath.Join(chapters, "book.yaml"), cfg, 0o644)
	prose := strings.Repeat("커널에게 준비된 소켓만 묻는 방식은 유휴 연결이 늘어도 한 번 묻는 값이 거의 그대로다. "+
		"The cost of asking the kernel which sockets are ready grows with what it must scan. ", 10)
	for i := range n {
		id := fmt.Sprintf("r%04d", i)
		r.Experiment = id
		if err := store.Save(store.Path(results, string(set[1]), id), r); err != nil {
			tb.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: \"합성 %d장\"\norder: %d\nslug: s%04d\nlang: ko\n---\n\n", i, i+1, i)
		for k := range 3 {
			fmt.Fprintf(&b, "## 절 %d\n\n%s\n\n%s\n\n", k+1, prose, prose)
		}
		fmt.Fprintf(&b, "```experiment %s\nprobe: readiness\nparams:\n  api: [poll, epoll]\n  idle: [100, 1000, 10000]\n  rounds: 2000\nruns: 3\nshow: none\n```\n\n", id)
		fmt.Fprintf(&b, "poll은 {{ %[1]s.round[api=poll, idle=10000] }}, epoll은 {{ %[1]s.round[api=epoll, idle=10000] }}, "+
			"그 비는 {{ %[1]s.round[api=poll, idle=10000] / %[1]s.round[api=epoll, idle=10000] | x }}였다.\n\n", id)
		fmt.Fprintf(&b, "```table\nfrom: %s\nrows: idle\ncols: api\nvalue: round\n```\n\n", id)
		fmt.Fprintf(&b, "```plot\nfrom: %s\nx: idle\ny: round\nseries: api\nxscale: log\nyscale: log\ntitle: 유휴 소켓이 늘 때 %d\n```\n\n%s\n", id, i, prose)
		os.WriteFile(filepath.Join(chapters, id+".md"), []byte(b.String()), 0o644)
	}
	return chapters, results
}

// largeOptions builds a synthetic book from results as another machine
// would: nothing is measured (a runner that cannot run).
func largeOptions(tb testing.TB, chapters, results string) Options {
	return Options{Chapters: chapters, Results: results, Out: filepath.Join(filepath.Dir(chapters), "out"),
		Probes: probes.All(), Runner: &runner.Runner{Exe: filepath.Join(tb.TempDir(), "no-probe-may-run")},
		This: dataset.Fingerprint{Name: "not-the-books-machine"}, Log: io.Discard}
}

// BenchmarkBuildLarge is a whole build (load, status, evaluate, render,
// write) of a synthetic book of -chapters chapters.
func BenchmarkBuildLarge(b *testing.B) {
	chapters, results := largeBook(b)
	opts := largeOptions(b, chapters, results)
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
	chapters, results := largeBook(b)
	opts := largeOptions(b, chapters, results)
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
		runtime.GC() // each build starts from a clean heap, not the other's garbage
		cpu, wall := cpuTime(), time.Now()
		if _, err := Build(context.Background(), o); err != nil {
			b.Fatal(err)
		}
		full, fullWall = full+cpuTime()-cpu, fullWall+time.Since(wall)
		os.WriteFile(edited, fmt.Appendf(src, "\n고친 문단 %d.\n", i), 0o644)
		runtime.GC()
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
// iteration, and the process's peak memory (resident set).
func reportPerChapter(b *testing.B, cpu time.Duration, chapters int) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-MiB") // Linux counts KiB
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/float64(chapters)/1000, "cpu-ms/chapter")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(chapters)/1000, "ms/chapter")
}
